"""The protocol sheets (T3): /sheet, the Judge's /fix, /protocol."""

from __future__ import annotations

from aiogram import Bot
from aiogram.types import BufferedInputFile, Message

from bot.rules.roles import Side
from bot.services.game import GameService
from bot.services.judge import TournamentError, TournamentService
from bot.views.i18n import Texts
from handlers.args import GAME, REASON, SEAT, Arg, Word, takes
from handlers.judge.replies import refuse

SIDES = {side.value for side in Side}


@takes("sheet.usage", Arg("game", GAME))
async def sheet(
    message: Message,
    bot: Bot,
    t: Texts,
    tournaments: TournamentService,
    lang: str,
    game: int,
) -> None:
    """`/sheet GAME`: the protocol sheet (T3) and its printable page, for the game's Host,
    its players and its tournament's Judge; anyone else gets the same answer whether the
    game exists or not."""
    assert message.from_user is not None
    try:
        doc = await tournaments.sheet_for(message.from_user.id, game)
    except TournamentError as error:
        await refuse(message, t, lang, error)
        return
    text, page = tournaments.sheet_views(doc, lang)
    await message.answer(text)
    await bot.send_document(message.chat.id, page.as_file())


@takes(
    "sheet.fix_usage",
    (
        Arg("game", GAME),
        Arg("field", Word(("winner",))),
        Arg("side", Word(tuple(SIDES))),
        Arg("reason", REASON),
    ),
    (
        Arg("game", GAME),
        Arg("field", Word(("seat",))),
        Arg("seat", SEAT),
        Arg("point", Word(("0", "1"))),
        Arg("reason", REASON),
    ),
    (Arg("game", GAME), Arg("field", Word(("scheme",))), Arg("reason", REASON)),
    (Arg("game", Word(("all",))), Arg("field", Word(("scheme",))), Arg("reason", REASON)),
)
async def fix(
    message: Message,
    t: Texts,
    tournaments: TournamentService,
    lang: str,
    game: int | str,
    field: str,
    reason: str,
    side: str = "",
    seat: int = 0,
    point: str = "",
) -> None:
    """T3: only the Judge changes a signed sheet, with a reason; the history is kept.

    `/fix <game> winner <peaceful|mafia> <reason>` or `/fix <game> seat <N> <0|1> <reason>`;
    `/fix <game|all> scheme <reason>` rescores signed sheets under the current scheme (T4).
    """
    assert message.from_user is not None
    if field == "scheme":
        try:
            one = game if isinstance(game, int) else None
            changed = await tournaments.rescore(message.from_user.id, one, reason)
        except TournamentError as error:
            await refuse(message, t, lang, error)
            return
        games = ", ".join(f"№{g}" for g in changed)
        key = "sheet.rescored" if changed else "sheet.rescored_none"
        await message.answer(t(lang, key, games=games))
        return
    assert isinstance(game, int)
    change: dict[str, object] = (
        {"field": "winner", "value": side}
        if field == "winner"
        else {"field": "point", "seat": seat, "value": point == "1"}
    )
    try:
        await tournaments.change_sheet(message.from_user.id, game, change, reason)
        await message.answer(await tournaments.sheet_text(game, lang))
    except TournamentError as error:
        await refuse(message, t, lang, error)


@takes("sheet.protocol_usage", Arg("number", GAME))
async def protocol(
    message: Message,
    bot: Bot,
    service: GameService,
    t: Texts,
    tournaments: TournamentService,
    lang: str,
    number: int,
) -> None:
    """Any game's protocol as JSON, for its Judge or Host (the deal only once it is over)."""
    assert message.from_user is not None
    game = await service.repos.games.get(number)
    allowed = game is not None and message.from_user.id == game.host_user_id
    if game is not None and game.tournament_id is not None:
        tournament = await service.repos.tournaments.get(game.tournament_id)
        allowed = allowed or (
            tournament is not None
            and tournament.judge_user_id == message.from_user.id
            and tournaments.may_judge(message.from_user.id)
        )
    if game is None or not allowed:
        await message.answer(t(lang, "sheet.protocol_usage"))
        return
    text = await tournaments.protocol_json(game.game_id)
    await bot.send_document(
        message.chat.id, BufferedInputFile(text.encode(), f"game-{game.game_id}.json")
    )
