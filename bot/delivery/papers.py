"""What the tournament hands out besides messages: the printable sheet and the table's
invite links (T1, T3).

The tournament service (bot/services/judge) knows no Telegram; the Bot API calls, their
errors and the file they send live here, in the delivery layer, and come back to the
service as plain answers.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass

from aiogram import Bot
from aiogram.exceptions import TelegramAPIError, TelegramBadRequest, TelegramForbiddenError
from aiogram.types import BufferedInputFile

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Page:
    """A document to send as a file: the sheet's printable HTML (T3)."""

    filename: str
    content: bytes

    def as_file(self) -> BufferedInputFile:
        return BufferedInputFile(self.content, self.filename)


async def send_page(bot: Bot, chat_id: int, page: Page) -> bool:
    """Send `page` as a document; False if Telegram refused it (the caller says what then)."""
    try:
        await bot.send_document(chat_id, page.as_file())
    except TelegramAPIError:
        return False
    return True


async def revoke_invite(bot: Bot, chat_id: int, link: str) -> bool:
    """Revoke an invite link (revokeChatInviteLink): True when it may be forgotten.

    A link Telegram no longer knows, or a chat the bot has lost (it can no longer invite
    anyone there either), is done with all the same; any other failure keeps the link, to
    be revoked later (False).
    """
    try:
        await bot.revoke_chat_invite_link(chat_id, link)
    except (TelegramBadRequest, TelegramForbiddenError):
        log.warning("the invite link to chat %s could not be revoked", chat_id)
    except TelegramAPIError:
        log.warning("the invite link to chat %s is kept to revoke later", chat_id)
        return False
    return True
