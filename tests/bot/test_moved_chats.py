"""Calls to a group that became a supergroup go to the supergroup (issue 21 §3)."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest
from aiogram import Bot
from aiogram.exceptions import TelegramMigrateToChat
from aiogram.types import ReplyParameters

from bot.delivery.moved_chats import MovedChats
from sandbox import ManualClock, Sandbox
from sandbox.people import SimGroup


@pytest.fixture
async def sandbox() -> AsyncIterator[Sandbox]:
    async with Sandbox(clock=ManualClock()) as served:
        yield served


@pytest.fixture
async def bot(sandbox: Sandbox) -> AsyncIterator[Bot]:
    client = sandbox.make_bot()
    yield client
    await client.session.close()


def upgraded_group(sandbox: Sandbox) -> tuple[SimGroup, SimGroup]:
    owner = sandbox.add_user("Anna")
    group = sandbox.add_group("Club", owner=owner)
    group.promote_bot(by=owner, can_pin_messages=True)
    return group, group.migrate_to_supergroup()


async def test_a_message_refused_for_the_old_id_is_sent_to_the_new_once_and_told(
    bot: Bot, sandbox: Sandbox
) -> None:
    moves = MovedChats()
    told: list[tuple[int, int]] = []

    async def moved(chat_id: int, new_chat_id: int) -> None:
        told.append((chat_id, new_chat_id))

    moves.on_move = moved
    bot.session.middleware(moves)
    old, new = upgraded_group(sandbox)

    first = await bot.send_message(old.id, "Turn 1")
    second = await bot.send_message(old.id, "Turn 2")  # known now: straight there

    assert first.chat.id == second.chat.id == new.id
    assert [m.text for m in new.messages() if m.from_bot] == ["Turn 1", "Turn 2"]
    assert told == [(old.id, new.id)]
    assert moves.new_id(old.id) == new.id
    assert [c.method for c in sandbox.calls(chat=old.id)] == ["sendMessage"]  # one refusal


async def test_a_call_about_a_message_left_in_the_old_group_is_refused_to_its_caller(
    bot: Bot, sandbox: Sandbox
) -> None:
    moves = MovedChats()
    bot.session.middleware(moves)
    owner = sandbox.add_user("Anna")
    old = sandbox.add_group("Club", owner=owner)
    old.promote_bot(by=owner, can_pin_messages=True)
    posted = await bot.send_message(old.id, "The table")
    new = old.migrate_to_supergroup()

    with pytest.raises(TelegramMigrateToChat) as refused:
        await bot.edit_message_text("Edited", chat_id=old.id, message_id=posted.message_id)
    assert refused.value.migrate_to_chat_id == new.id
    with pytest.raises(TelegramMigrateToChat):
        await bot.pin_chat_message(old.id, posted.message_id)
    # An answer to a message of the old group goes to the supergroup, without the reply.
    answer = await bot.send_message(
        old.id, "Answer", reply_parameters=ReplyParameters(message_id=posted.message_id)
    )
    assert answer.chat.id == new.id and answer.reply_to_message is None
    assert not [m for m in new.messages() if m.from_bot and m.text == "Edited"]
