"""The tournament and its registration: /tournament, the deep link, /nick, /settings
(T6), /unregister, /registration."""

from __future__ import annotations

import re

from aiogram import Bot
from aiogram.filters import CommandObject
from aiogram.types import Message

from bot.services.game import GameService
from bot.services.judge import TournamentError, TournamentService
from bot.views.i18n import Texts, escape
from bot.views.settings import change_lines, settings_lines
from handlers.args import NAME, NEW_NICK, NICK_AND_MORE, SETTINGS, Arg, Depends, Word, takes
from handlers.judge.replies import judged, judged_player, refuse
from handlers.lobby import refresh_lobby
from storage.games import GameStatus

OLD_REGISTRATION = re.compile(r"reg_[0-9]{1,9}")


@takes("tournament.usage", Arg("name", NAME))
async def create(
    message: Message,
    bot: Bot,
    t: Texts,
    tournaments: TournamentService,
    lang: str,
    name: str,
) -> None:
    assert message.from_user is not None
    try:
        tournament = await tournaments.create(name, message.from_user.id)
    except TournamentError as error:
        await refuse(message, t, lang, error)
        return
    me = await bot.me()
    link = f"https://t.me/{me.username}?start=reg_{tournament.reg_token}"
    await message.answer(t(lang, "tournament.created", name=escape(tournament.name), link=link))


async def register(
    message: Message,
    command: CommandObject,
    service: GameService,
    t: Texts,
    tournaments: TournamentService,
    lang: str,
) -> None:
    """The registration deep link: `/start reg_<token>`."""
    assert message.from_user is not None and command.args is not None
    await service.started(message.from_user.id)  # they pressed Start: reachable again
    if OLD_REGISTRATION.fullmatch(command.args):
        # Links of before the tokens named the tournament by its number: anyone could guess it.
        await message.answer(t(lang, "tournament.old_link"))
        return
    try:
        tournament = await tournaments.register(
            command.args[4:], message.from_user.id, message.from_user.first_name
        )
    except TournamentError as error:
        await refuse(message, t, lang, error)
        return
    player = await service.repos.tournaments.player(tournament.tournament_id, message.from_user.id)
    assert player is not None
    await message.answer(
        t(lang, "tournament.registered", name=escape(tournament.name), nick=escape(player.nick))
    )


@takes("tournament.nick_usage", Arg("new", NEW_NICK))
async def nick(
    message: Message,
    command: CommandObject,
    t: Texts,
    tournaments: TournamentService,
    lang: str,
    new: str,
) -> None:
    """`/nick NEW`: one line of printable text; what was taken out is shown (issue 25)."""
    assert message.from_user is not None
    try:
        await tournaments.set_nick(message.from_user.id, new)
    except TournamentError as error:
        await refuse(message, t, lang, error)
        return
    typed = (command.args or "").strip()
    key = "tournament.nick_set" if typed == new else "tournament.nick_cleaned"
    await message.answer(t(lang, key, nick=escape(new)))


@takes(
    "settings.usage",
    (),
    (
        Arg("name", Word(tuple(SETTINGS))),
        Arg("value", Depends("name", SETTINGS)),
        Arg("override", Word(("override",)), optional=True),
    ),
)
async def settings(
    message: Message,
    t: Texts,
    tournaments: TournamentService,
    lang: str,
    name: str | None = None,
    value: object = None,
    override: str | None = None,
) -> None:
    """`/settings` shows the scheme; `/settings <name> <value> [override]` changes it (T6)."""
    assert message.from_user is not None
    try:
        tournament = await tournaments.judged_by(message.from_user.id)
        if name is not None:
            changes = await tournaments.change_setting(
                tournament, name, str(value), override=override is not None
            )
            lines = change_lines(t, lang, changes, tournaments.settings(tournament))
            key = "settings.changed" if changes else "settings.unchanged"
            text = t(lang, key, changes="\n".join(lines))
            if override is not None and any(c.name.startswith("bonus_") for c in changes):
                # T3: signed sheets keep their scheme; rescoring them is the Judge's own act.
                text += "\n\n" + t(lang, "settings.signed_keep_scheme")
            await message.answer(text)
            return
    except TournamentError as error:
        await refuse(message, t, lang, error)
        return
    # T6: each setting in words and units, with the key /settings changes it by.
    lines = settings_lines(t, lang, tournaments.settings(tournament), keys=True)
    shown = "\n".join(lines)
    await message.answer(t(lang, "settings.in_words", name=escape(tournament.name), settings=shown))


@takes("unregister.usage", Arg("words", NICK_AND_MORE))
async def unregister(
    message: Message,
    bot: Bot,
    service: GameService,
    t: Texts,
    tournaments: TournamentService,
    lang: str,
    words: str,
) -> None:
    """`/unregister NICK`: the Judge takes a player off their tournament's list."""
    judged = await judged_player(message, tournaments, t, lang, words)
    if judged is None:
        return
    tournament, player = judged
    try:
        tournaments.check_open(tournament)
    except TournamentError as error:
        await refuse(message, t, lang, error)
        return
    deleted = await tournaments.unregister(tournament, player)
    for group in await service.repos.tours.groups(tournament.tournament_id):
        game = await service.repos.games.get(group.game_id) if group.game_id else None
        if game is not None and game.status is GameStatus.LOBBY:
            await refresh_lobby(service, t, game, bot)  # its roster may have lost them
    key = "unregister.done" if deleted else "unregister.withdrawn"
    await message.answer(t(lang, key, nick=escape(player.nick)))


@takes("registration.usage", Arg("wanted", Word(("open", "closed"))))
async def registration(
    message: Message,
    t: Texts,
    tournaments: TournamentService,
    lang: str,
    wanted: str,
) -> None:
    """`/registration open|closed`: whether the registration link still registers people."""
    assert message.from_user is not None
    tournament = await judged(message, tournaments, t, lang)
    if tournament is None:
        return
    await tournaments.set_registration(tournament, wanted == "open")
    await message.answer(t(lang, f"registration.{wanted}", name=escape(tournament.name)))
