"""Failures of an update's handling: those storing failed, and those nobody can mend.

An action whose storing failed is answered "not recorded, try again", never accepted.
A handler's transaction can fail (disk full, the database locked past its busy
timeout): nothing of the action was stored, so the person must not read it as done.
`not_recorded` is the dispatcher's error handler for such failures, whatever handler
raised.

Other failures come from Telegram and no redelivery of the update mends them: the
message to reply to was deleted (every reply goes without it then: `make_bot`'s
`allow_sending_without_reply`), the button's query is too old to answer (the answer is
dropped: `StaleAnswers`), the chat is gone or the bot was blocked or removed there
(`unreachable`). Each is logged once and the update counts as handled: a webhook that
answered 500 for them would have Telegram deliver the same update again and again.
"""

from __future__ import annotations

import logging
import sqlite3

from aiogram import Bot
from aiogram.client.session.middlewares.base import (
    BaseRequestMiddleware,
    NextRequestMiddlewareType,
)
from aiogram.exceptions import TelegramBadRequest, TelegramForbiddenError
from aiogram.methods import AnswerCallbackQuery, Response, TelegramMethod
from aiogram.methods.base import TelegramType
from aiogram.types import ErrorEvent

from bot.lru import LRU
from bot.services.game import NotRecorded
from bot.views.i18n import Texts

log = logging.getLogger(__name__)
STORAGE_FAILURES = (NotRecorded, sqlite3.Error)
# Telegram's words for a query it no longer waits for an answer to.
TOO_OLD = "query is too old"
# Telegram's words for a chat the bot cannot reach any more (a 403 is always one).
CHAT_GONE = ("chat not found", "group chat was deactivated", "user is deactivated")
# Chats whose unreachability was logged (one line a chat, however many updates).
LOGGED = 10_000


async def not_recorded(event: ErrorEvent, t: Texts, redelivery: bool = False) -> None:
    """What failed to store was not done. In webhook mode the update is answered 500 and
    Telegram delivers it again, so it is done once storage is back, and the person is told
    nothing now (a "try again" would make them do it twice). Long polling has no second
    delivery: the person is told it was not recorded, and tries again themselves."""
    if redelivery:
        log.warning("update %s not recorded, answered 500: %s", event.update.update_id,
                    event.exception)  # fmt: skip
        raise event.exception
    log.warning("update %s not recorded: %s", event.update.update_id, event.exception)
    query, message = event.update.callback_query, event.update.message
    person = query.from_user if query is not None else message.from_user if message else None
    # No reading from storage here: it is what failed. The person's own language will do.
    lang = t.lang(person.language_code if person is not None else None)
    text = t(lang, "error.not_recorded")
    try:
        if query is not None:
            await query.answer(text, show_alert=True)
        elif message is not None:
            await message.reply(text)
    except Exception:  # the answer is a courtesy; the update is released for a retry anyway
        log.exception("could not answer update %s", event.update.update_id)


class StaleAnswers(BaseRequestMiddleware):
    """A button's answer that Telegram refuses as too old is dropped: the spinner has
    long stopped on the person's screen, and nothing of the press depends on it."""

    def __init__(self) -> None:
        self.dropped = 0

    async def __call__(
        self,
        make_request: NextRequestMiddlewareType[TelegramType],
        bot: Bot,
        method: TelegramMethod[TelegramType],
    ) -> Response[TelegramType]:
        try:
            return await make_request(bot, method)
        except TelegramBadRequest as error:
            if not isinstance(method, AnswerCallbackQuery) or TOO_OLD not in error.message:
                raise
            self.dropped += 1
            log.warning("the answer to button query %s dropped: %s", method.callback_query_id,
                        error.message)  # fmt: skip
            return Response[TelegramType](ok=True, result=True)  # type: ignore[arg-type]


def gone(error: Exception) -> bool:
    """An error that says the chat cannot be reached now, whatever is tried again."""
    if isinstance(error, TelegramForbiddenError):
        return True
    return isinstance(error, TelegramBadRequest) and any(w in error.message for w in CHAT_GONE)


class Unreachable:
    """The dispatcher's error handler for a chat gone or a bot blocked or removed: the
    update is handled (what it stored stays), and the chat is logged once."""

    def __init__(self) -> None:
        self._logged: LRU[int, bool] = LRU(LOGGED)

    async def handle(self, event: ErrorEvent) -> None:
        error = event.exception
        method = getattr(error, "method", None)
        chat = getattr(method, "chat_id", None)
        key = chat if isinstance(chat, int) else 0
        if self._logged.get(key) is None:
            self._logged[key] = True
            log.warning("update %s: chat %s is out of reach (%s); not logged again",
                        event.update.update_id, chat, error)  # fmt: skip
