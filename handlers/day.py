"""The day: the speaker's /pass and button, nominations by button or /nominate (D3, D10).

Who may is the README's table (bot.rules.access); whether the action stands now is the
engine's to say.
"""

from __future__ import annotations

from aiogram import Router
from aiogram.filters import Command
from aiogram.types import CallbackQuery, Message

from bot.rules.access import Asked, may_any, positions_of
from bot.rules.actions import Nominate, Pass, PlayerAction
from bot.rules.errors import RuleError
from bot.services.game import GameService
from bot.views.callbacks import TurnCb
from bot.views.i18n import Texts
from handlers.args import SEAT, Arg, takes
from handlers.buttons import press
from handlers.filters import IN_GROUP


async def turn_button(
    query: CallbackQuery, callback_data: TurnCb, service: GameService, t: Texts, lang: str
) -> None:
    target = callback_data.target

    def build(seat: int, _: object) -> PlayerAction:
        return Pass(seat) if target == 0 else Nominate(seat, target)

    if await press(query, callback_data.game, callback_data.step, service, t, lang, build):
        await query.answer()


async def _command(
    message: Message, service: GameService, t: Texts, lang: str, target: int | None
) -> None:
    running = await service.running_in_chat(message.chat.id)
    if running is None or message.from_user is None:
        await message.reply(t(lang, "host.no_game"))
        return
    game, state = running
    user_id = message.from_user.id
    asked = Asked.PASS if target is None else Asked.NOMINATE
    refused = not may_any(asked, positions_of(state, game.host_user_id, user_id)).allowed
    seat = state.seat_of(user_id)
    if refused and seat is None:  # no seat to act for: the Host without one, a guest
        await message.reply(t(lang, "error.not_a_player"))
        return
    # A seated player out of turn is refused by the engine as by the table, and its error
    # says why (not their turn, a pause, the wrong phase): that is what they are told.
    assert seat is not None  # the table lets only the speaker, who holds a seat
    action: PlayerAction = Pass(seat) if target is None else Nominate(seat, target)
    try:
        await service.act(game.game_id, action)
    except RuleError as error:
        await message.reply(t(lang, f"error.{error.code}"))


async def pass_turn(message: Message, service: GameService, t: Texts, lang: str) -> None:
    await _command(message, service, t, lang, None)


@takes("day.nominate_usage", Arg("seat", SEAT))
async def nominate(message: Message, service: GameService, t: Texts, lang: str, seat: int) -> None:
    await _command(message, service, t, lang, seat)


def make_router() -> Router:
    router = Router(name="day")
    router.callback_query.register(turn_button, TurnCb.filter())
    router.message.register(pass_turn, Command("pass"), IN_GROUP)
    router.message.register(nominate, Command("nominate"), IN_GROUP)
    return router
