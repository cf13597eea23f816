"""How the Judge's commands answer when they cannot go on: a refusal in the reader's
language, the tables that keep a tour, the player a nick names (T1-T5)."""

from __future__ import annotations

from aiogram.types import Message

from bot.services.judge import TablesUnfinished, TournamentError, TournamentService, words_of
from bot.views.i18n import Texts
from storage.tournaments import Tournament, TournamentPlayer


async def refuse(message: Message, t: Texts, lang: str, error: TournamentError) -> None:
    await message.answer(t(lang, error.key, **error.values))


async def refuse_tables(
    message: Message,
    tournaments: TournamentService,
    t: Texts,
    lang: str,
    error: TablesUnfinished,
    judge: int,
) -> None:
    """A refusal that names the tables in the way, each with its state."""
    tournament = await tournaments.judged_by(judge)
    tables = await tournaments.tables_text(tournament.tournament_id, error.tables, lang)
    await message.answer(t(lang, error.key, tables=tables, **error.values))


async def judged(
    message: Message, tournaments: TournamentService, t: Texts, lang: str
) -> Tournament | None:
    """The tournament the sender judges; None once they have been told why not."""
    assert message.from_user is not None
    try:
        return await tournaments.judged_by(message.from_user.id)
    except TournamentError as error:
        await refuse(message, t, lang, error)
        return None


async def judged_player(
    message: Message, tournaments: TournamentService, t: Texts, lang: str, words: str
) -> tuple[Tournament, TournamentPlayer] | None:
    """The sender's tournament as its Judge and the player `words` names in it; None once
    the sender has been told why not (not a Judge, no such player)."""
    assert message.from_user is not None
    try:
        tournament = await tournaments.judged_by(message.from_user.id)
        nick = " ".join(words_of(words))
        return tournament, await tournaments.player_by_nick(tournament.tournament_id, nick)
    except TournamentError as error:
        await refuse(message, t, lang, error)
        return None
