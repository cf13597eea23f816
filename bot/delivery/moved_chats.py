"""Groups that became supergroups: every request to the old id goes to the new one.

Telegram upgrades a basic group to a supergroup with a new id, and from then on refuses
every request to the old id with 400 and the new id (`TelegramMigrateToChat`). The bot
hears of the upgrade by a service message, but a call may be on its way before it does
(a turn posted just as the group was upgraded). `MovedChats`, installed on the bot's
session, is the one door for both: it learns the move from the refusal (and has the chat
moved then, `on_move`, if the service message has not been seen yet) and sends the call
again to the new id, once. A call that points at a message of the old chat (an edit, a
pin, a deletion) cannot go there: its message stays behind in the old group, so the
refusal is raised for the caller to post the message anew.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable

from aiogram import Bot
from aiogram.client.session.middlewares.base import (
    BaseRequestMiddleware,
    NextRequestMiddlewareType,
)
from aiogram.exceptions import TelegramMigrateToChat
from aiogram.methods import Response, TelegramMethod
from aiogram.methods.base import TelegramType

log = logging.getLogger(__name__)

# Calls whose `message_id` is of the chat they copy from, not of `chat_id`.
_FROM_ANOTHER_CHAT = ("copyMessage", "copyMessages", "forwardMessage", "forwardMessages")

OnMove = Callable[[int, int], Awaitable[None]]


def readdressable(method: TelegramMethod[TelegramType]) -> bool:
    """A call about the chat as a whole, or a new message in it: it can go to the new id."""
    if method.__api_method__ in _FROM_ANOTHER_CHAT:
        return True
    return all(getattr(method, name, None) is None for name in ("message_id", "message_ids"))


class MovedChats(BaseRequestMiddleware):
    """Old chat ids to the new ones, and the calls to an old id sent to its new one."""

    def __init__(self) -> None:
        self.moved: dict[int, int] = {}
        # Told of a move learnt from a refusal (the chat's data moves); set by the app.
        self.on_move: OnMove | None = None

    def new_id(self, chat_id: int) -> int:
        """Where `chat_id` is now (itself, if it never moved)."""
        return self.moved.get(chat_id, chat_id)

    async def __call__(
        self,
        make_request: NextRequestMiddlewareType[TelegramType],
        bot: Bot,
        method: TelegramMethod[TelegramType],
    ) -> Response[TelegramType]:
        chat_id = getattr(method, "chat_id", None)
        if isinstance(chat_id, int) and chat_id in self.moved and readdressable(method):
            method = _readdressed(method, self.moved[chat_id])
        try:
            return await make_request(bot, method)
        except TelegramMigrateToChat as error:
            if not isinstance(chat_id, int) or getattr(method, "chat_id", None) != chat_id:
                raise  # the chat it copies from moved, or the new id refused it too
            new_chat_id = error.migrate_to_chat_id
            if new_chat_id == chat_id:
                raise  # the chat it copies from moved, not this one
            known = self.moved.get(chat_id) == new_chat_id
            self.moved[chat_id] = new_chat_id
            if not known:
                log.info("chat %s is now the supergroup %s", chat_id, new_chat_id)
                if self.on_move is not None:
                    try:
                        await self.on_move(chat_id, new_chat_id)
                    except Exception:  # the call still goes; the service message moves it
                        log.exception("chat %s could not be moved to %s", chat_id, new_chat_id)
            if not readdressable(method):
                raise
            return await make_request(bot, _readdressed(method, new_chat_id))


def _readdressed(
    method: TelegramMethod[TelegramType], chat_id: int
) -> TelegramMethod[TelegramType]:
    """The same call to `chat_id`; an answer to a message of the old chat goes without
    it (that message stayed behind)."""
    changes: dict[str, object] = {"chat_id": chat_id}
    if getattr(method, "reply_parameters", None) is not None:
        changes["reply_parameters"] = None
    if getattr(method, "reply_to_message_id", None) is not None:
        changes["reply_to_message_id"] = None
    return method.model_copy(update=changes)
