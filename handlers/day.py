"""The day: the speaker's /pass and button, nominations by button or /nominate (D3, D10)."""

from __future__ import annotations

from aiogram import Router
from aiogram.filters import Command
from aiogram.types import CallbackQuery, Message

from bot.rules.actions import Nominate, Pass, PlayerAction
from bot.rules.errors import RuleError
from bot.services.game import GameService
from bot.views.callbacks import TurnCb
from handlers.args import SEAT, Arg, takes
from handlers.buttons import press
from handlers.filters import IN_GROUP


async def turn_button(
    query: CallbackQuery, callback_data: TurnCb, service: GameService, lang: str
) -> None:
    target = callback_data.target

    def build(seat: int, _: object) -> PlayerAction:
        return Pass(seat) if target == 0 else Nominate(seat, target)

    if await press(query, callback_data.game, callback_data.step, service, lang, build):
        await query.answer()


async def _command(message: Message, service: GameService, lang: str, target: int | None) -> None:
    running = await service.running_in_chat(message.chat.id)
    if running is None or message.from_user is None:
        await message.reply(service.t(lang, "host.no_game"))
        return
    game, state = running
    seat = state.seat_of(message.from_user.id)
    if seat is None:
        await message.reply(service.t(lang, "error.not_a_player"))
        return
    action: PlayerAction = Pass(seat) if target is None else Nominate(seat, target)
    try:
        await service.act(game.game_id, action)
    except RuleError as error:
        await message.reply(service.t(lang, f"error.{error.code}"))


async def pass_turn(message: Message, service: GameService, lang: str) -> None:
    await _command(message, service, lang, None)


@takes("day.nominate_usage", Arg("seat", SEAT))
async def nominate(message: Message, service: GameService, lang: str, seat: int) -> None:
    await _command(message, service, lang, seat)


def make_router() -> Router:
    router = Router(name="day")
    router.callback_query.register(turn_button, TurnCb.filter())
    router.message.register(pass_turn, Command("pass"), IN_GROUP)
    router.message.register(nominate, Command("nominate"), IN_GROUP)
    return router
