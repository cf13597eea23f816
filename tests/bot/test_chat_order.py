"""A chat's updates in Telegram's order, other chats in parallel (issue 26, D10).

The whole story (the bot killed, the table going on, one batch after the restart) is
tests/e2e/test_crash.py; here the line itself, through aiogram's own dispatcher.
"""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime

from aiogram import Bot, Dispatcher
from aiogram.types import Chat, Message, Update, User

from bot.services.inbox import ChatOrder, decided
from handlers.middleware import InChatOrder

WHEN = datetime(2026, 1, 1, tzinfo=UTC)


def update(update_id: int, chat_id: int, text: str) -> Update:
    chat = Chat(id=chat_id, type="supergroup", title="Club")
    sender = User(id=7, is_bot=False, first_name="Anna")
    message = Message(message_id=update_id, date=WHEN, chat=chat, from_user=sender, text=text)
    return Update(update_id=update_id, message=message)


async def test_one_chats_updates_are_handled_in_order_however_long_each_takes() -> None:
    dispatcher = Dispatcher()
    ordering = InChatOrder()
    dispatcher.update.outer_middleware(ordering)
    seen: list[tuple[int, str]] = []
    pauses = {"first": 5, "second": 0, "third": 2}  # the first is the slowest to decide

    @dispatcher.message()
    async def handle(message: Message) -> None:
        assert message.text is not None
        for _ in range(pauses.get(message.text, 0)):
            await asyncio.sleep(0)
        seen.append((message.chat.id, message.text))

    bot = Bot("42:TEST")  # no handler here calls the Bot API
    tasks = [
        asyncio.ensure_future(dispatcher.feed_update(bot, update(n, chat, text)))
        for n, (chat, text) in enumerate(
            [(1, "first"), (2, "other"), (1, "second"), (1, "third")], start=1
        )
    ]
    await asyncio.gather(*tasks)
    assert [text for chat, text in seen if chat == 1] == ["first", "second", "third"]
    # Another chat's update did not wait for the first chat's slow one.
    assert seen.index((2, "other")) < seen.index((1, "first"))
    assert ordering.order.waiting() == 0  # nothing kept once the chat is quiet
    await bot.session.close()


async def test_the_next_update_goes_once_this_one_is_decided_not_when_it_ends() -> None:
    """Its action stored, an update only waits for Telegram's windows: the chat's next
    update (a Finish press) must not wait for those."""
    order = ChatOrder()
    first, second = order.take(100), order.take(100)
    log: list[str] = []

    async def slow_reply() -> None:
        await first.wait()
        log.append("first decided")
        first.decided()
        await asyncio.sleep(0.01)  # the reply waits for the group's window
        log.append("first told")

    async def press() -> None:
        await second.wait()
        log.append("second")
        second.decided()

    await asyncio.gather(slow_reply(), press())
    assert log == ["first decided", "second", "first told"]
    assert order.waiting() == 0


async def test_decided_outside_an_update_changes_nothing() -> None:
    decided()  # a timer's action: no update, no line
    order = ChatOrder()
    turn = order.take(5)
    await turn.wait()
    turn.decided()
    turn.decided()  # twice is once
    assert order.waiting() == 0
