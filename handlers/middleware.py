"""What every handler needs to know about the sender: stored, and in which language."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from aiogram import BaseMiddleware
from aiogram.types import CallbackQuery, Message, TelegramObject, Update

from bot import timings
from bot.service import CURRENT_UPDATE, GameService
from storage.chats import ChatType


class KnowTheSender(BaseMiddleware):
    """Keeps users and chats in storage and hands handlers `lang` for their reply."""

    async def __call__(
        self,
        handler: Callable[[TelegramObject, dict[str, Any]], Awaitable[Any]],
        event: TelegramObject,
        data: dict[str, Any],
    ) -> Any:
        service: GameService = data["service"]
        user = getattr(event, "from_user", None)
        if isinstance(event, Message):
            chat = event.chat
        elif isinstance(event, CallbackQuery) and event.message is not None:
            chat = event.message.chat
        else:
            chat = None
        if user is not None and not user.is_bot:
            await service.saw_user(user.id, user.first_name, user.username)
        if chat is not None:
            await service.saw_chat(chat.id, ChatType(chat.type), chat.title)
        if chat is not None and chat.type != "private":
            data["lang"] = await service.chat_lang(chat.id)
        elif user is not None:
            data["lang"] = await service.user_lang(user.id, user.language_code)
        else:
            data["lang"] = service.t.default
        return await handler(event, data)


class OncePerUpdate(BaseMiddleware):
    """Exactly once: an update seen before (Telegram delivers again after a crash) is dropped.

    The update is marked handled inside the transaction of the action it causes (the
    service reads CURRENT_UPDATE), or right after its handler for updates that change
    no game; a handler that fails leaves it unmarked, to be handled when it comes again.
    """

    async def __call__(
        self,
        handler: Callable[[TelegramObject, dict[str, Any]], Awaitable[Any]],
        event: TelegramObject,
        data: dict[str, Any],
    ) -> Any:
        service: GameService = data["service"]
        if not isinstance(event, Update):
            return await handler(event, data)
        with timings.update(event.event_type):  # make bench: where the update's time goes
            if not await service.updates.take(event.update_id):
                return None
            token = CURRENT_UPDATE.set(event.update_id)
            try:
                result = await handler(event, data)
            except BaseException:
                service.updates.release(event.update_id)
                raise
            finally:
                CURRENT_UPDATE.reset(token)
            with timings.phase("commit"):  # the mark, when no action's transaction wrote it
                await service.updates.finish(event.update_id, now=service.clock.now())
            return result
