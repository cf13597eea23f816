"""An aiogram Dispatcher polling the sandbox, driven by simulated people, end to end."""

from __future__ import annotations

import pytest
from aiogram import Bot, Dispatcher, F, Router
from aiogram.filters import Command, CommandObject, CommandStart
from aiogram.types import CallbackQuery, InlineKeyboardButton, InlineKeyboardMarkup, Message

from sandbox import Sandbox, SettleTimeout

from .helpers import polling


def greeter() -> Dispatcher:
    router = Router()

    @router.message(CommandStart())
    async def start(message: Message, command: CommandObject) -> None:
        assert message.from_user is not None
        rules = InlineKeyboardButton(text="Rules", callback_data="rules")
        await message.answer(
            f"Welcome, <b>{message.from_user.first_name}</b>! Invitation: {command.args}",
            parse_mode="HTML",
            reply_markup=InlineKeyboardMarkup(inline_keyboard=[[rules]]),
        )

    @router.message(Command("newgame"))
    async def new_game(message: Message) -> None:
        join = InlineKeyboardButton(text="Join", url="https://t.me/mafia_table_bot?start=g1")
        await message.answer("Lobby", reply_markup=InlineKeyboardMarkup(inline_keyboard=[[join]]))

    @router.callback_query(F.data == "rules")
    async def show_rules(query: CallbackQuery) -> None:
        await query.answer("Twelve players, one Host.", show_alert=True)

    dispatcher = Dispatcher()
    dispatcher.include_router(router)
    return dispatcher


async def test_a_polling_dispatcher_answers_start_and_buttons(bot: Bot, sandbox: Sandbox) -> None:
    anna = sandbox.add_user("Anna")

    async with polling(greeter(), bot, sandbox):
        await anna.start_bot("tour-1")
        await sandbox.settle()
        [welcome] = anna.inbox()
        press = await anna.press(welcome, "Rules")
        await sandbox.settle()

    assert welcome.text == "Welcome, Anna! Invitation: tour-1"
    assert welcome.entities == ({"type": "bold", "offset": 9, "length": 4},)
    assert press.answer is not None
    assert press.answer.text == "Twelve players, one Host."
    assert press.answer.show_alert
    sandbox.assert_no_bot_errors()


async def test_a_group_command_and_a_deep_link_round_trip(bot: Bot, sandbox: Sandbox) -> None:
    anna = sandbox.add_user("Anna")
    boris = sandbox.add_user("Boris")
    club = sandbox.add_supergroup("Club", owner=anna)
    club.add_bot()
    club.add_member(boris)

    async with polling(greeter(), bot, sandbox):
        await anna.send_command(club, "newgame")
        await sandbox.settle()
        lobby = club.visible_messages()[-1]
        await boris.follow(lobby, "Join")
        await sandbox.settle()

    assert lobby.text == "Lobby"
    assert boris.inbox()[0].text == "Welcome, Boris! Invitation: g1"
    transcript = sandbox.transcript()
    assert "Club | Anna: /newgame@mafia_table_bot" in transcript
    assert "Club | Mafia Table [bot]: Lobby [Join]" in transcript
    assert "Boris (private) | Boris: /start g1" in transcript
    sandbox.assert_no_bot_errors()


async def test_settle_fails_when_nobody_takes_the_updates(sandbox: Sandbox) -> None:
    anna = sandbox.add_user("Anna")
    await anna.start_bot()

    with pytest.raises(SettleTimeout, match="1 unconfirmed update"):
        await sandbox.settle(within=0.1)
