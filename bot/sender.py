"""Delivering rendered messages through the Bot API, in order, within Telegram's pace.

Telegram lets a bot post about 20 messages a minute in one group and about one a
second in one private chat. Sends to the same chat are spaced accordingly on the
injected clock over a sliding window, so a game whose players pass quickly still stays
inside the limits, while the few messages of one moment (the seating, then the first
turn) go out together.
"""

from __future__ import annotations

import logging
from collections import deque
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from typing import TypeVar

from aiogram import Bot
from aiogram.exceptions import (
    TelegramBadRequest,
    TelegramForbiddenError,
    TelegramRetryAfter,
)
from aiogram.types import InlineKeyboardButton, InlineKeyboardMarkup

from bot.clock import Clock
from bot.render import Edit, Keyboard, Outgoing, Post

log = logging.getLogger(__name__)
T = TypeVar("T")

GROUP_LIMIT = (20, 60.0)  # at most 20 messages to one group in any 60 seconds
PRIVATE_LIMIT = (1, 1.0)  # about one message a second to one private chat
MAX_RETRIES = 5


@dataclass
class Remembered:
    chat_id: int
    message_id: int
    text: str
    keyboard: Keyboard | None


@dataclass(frozen=True)
class Undelivered:
    """A message that could not reach a person (they never pressed Start, or blocked us)."""

    chat_id: int
    reason: str


@dataclass
class Delivery:
    sent: dict[int, int] = field(default_factory=dict)  # item index -> message id
    failed: list[Undelivered] = field(default_factory=list)


def markup(keyboard: Keyboard | None) -> InlineKeyboardMarkup | None:
    if keyboard is None:
        return None
    return InlineKeyboardMarkup(
        inline_keyboard=[
            [InlineKeyboardButton(text=b.text, callback_data=b.callback, url=b.url) for b in row]
            for row in keyboard
        ]
    )


class Sender:
    def __init__(self, bot: Bot, clock: Clock, pace_scale: float = 1.0) -> None:
        self.bot = bot
        self.clock = clock
        # Tests that run a game on the wall clock with timers scaled down scale the
        # windows by the same factor, so the pace relative to the game stays the same.
        self.pace_scale = pace_scale
        self._sent: dict[int, deque[float]] = {}
        self.remembered: dict[tuple[int, str], Remembered] = {}

    async def _pace(self, chat_id: int) -> None:
        """Wait until one more message keeps the chat inside its window (a sliding one)."""
        limit, window = GROUP_LIMIT if chat_id < 0 else PRIVATE_LIMIT
        window *= self.pace_scale
        sent = self._sent.setdefault(chat_id, deque())
        now = self.clock.now()
        while sent and sent[0] <= now - window:
            sent.popleft()
        if len(sent) >= limit:
            await self.clock.sleep_until(sent[0] + window)
            now = max(self.clock.now(), sent[0] + window)
            sent.popleft()
        sent.append(now)

    async def deliver(self, game_id: int, items: Sequence[Outgoing]) -> Delivery:
        """Send `items` in order; what could not reach a person is reported, not raised."""
        delivery = Delivery()
        for index, item in enumerate(items):
            try:
                if isinstance(item, Post):
                    delivery.sent[index] = await self._post(game_id, item)
                else:
                    await self._edit(game_id, item)
            except TelegramForbiddenError as error:
                delivery.failed.append(Undelivered(item.chat_id, error.message))
            except TelegramBadRequest as error:
                # A bad request is our bug or a vanished message; the game goes on.
                log.warning("game %s: %s refused: %s", game_id, type(item).__name__, error)
        return delivery

    async def _post(self, game_id: int, post: Post) -> int:
        await self._pace(post.chat_id)
        message = await self._retrying(
            lambda: self.bot.send_message(
                chat_id=post.chat_id,
                text=post.text,
                reply_markup=markup(post.keyboard),
                protect_content=post.protect or None,
            )
        )
        if post.remember:
            self.remembered[(game_id, post.remember)] = Remembered(
                post.chat_id, message.message_id, post.text, post.keyboard
            )
        if post.pin:
            await self._retrying(
                lambda: self.bot.pin_chat_message(
                    chat_id=post.chat_id, message_id=message.message_id, disable_notification=True
                )
            )
        return message.message_id

    async def _edit(self, game_id: int, edit: Edit) -> None:
        old = self.remembered.get((game_id, edit.key))
        if old is None:
            return  # the message predates a restart; the next turn message says it all
        old.text = f"{old.text}\n{edit.append}"
        old.keyboard = edit.keyboard
        await self._retrying(
            lambda: self.bot.edit_message_text(
                chat_id=old.chat_id,
                message_id=old.message_id,
                text=old.text,
                reply_markup=markup(edit.keyboard),
            )
        )

    async def _retrying(self, call: Callable[[], Awaitable[T]]) -> T:
        for _ in range(MAX_RETRIES):
            try:
                return await call()
            except TelegramRetryAfter as error:
                await self.clock.sleep_until(self.clock.now() + error.retry_after)
        return await call()
