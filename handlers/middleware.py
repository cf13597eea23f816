"""What every handler needs to know about the sender: stored, and in which language."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from aiogram import BaseMiddleware
from aiogram.types import CallbackQuery, Message, TelegramObject

from bot.service import GameService
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
            await service.repos.users.upsert(
                user.id, first_name=user.first_name, username=user.username
            )
        if chat is not None:
            await service.repos.chats.upsert(chat.id, type=ChatType(chat.type), title=chat.title)
        if chat is not None and chat.type != "private":
            data["lang"] = await service.chat_lang(chat.id)
        elif user is not None:
            data["lang"] = await service.user_lang(user.id, user.language_code)
        else:
            data["lang"] = service.t.default
        return await handler(event, data)
