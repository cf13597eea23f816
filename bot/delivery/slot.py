"""One message that shows the newest of something and is edited as it changes: the
pinned table, the Host's panel, a lobby's post.

What every such message must get right is here once: remember which message it is and
what it shows, edit it when that changes, take Telegram's "message is not modified" as
shown, and post it anew when it cannot be edited any more (deleted, too old, left
behind in a group that became a supergroup) — where its owner wants that.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, replace
from enum import Enum

from aiogram import Bot
from aiogram.exceptions import TelegramBadRequest, TelegramMigrateToChat
from aiogram.types import InlineKeyboardMarkup, Message

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Shown:
    """The message a slot is, and what it shows (its text, or a digest of text and keys)."""

    chat_id: int
    message_id: int
    shows: str


class Put(Enum):
    SAME = "same"  # it showed that already (or Telegram says so)
    EDITED = "edited"
    POSTED = "posted"  # a new message: its owner may pin it, store its id
    GONE = "gone"  # it cannot be edited, and its owner posts no other


# Posts the message anew; the slot says which message it then is.
Repost = Callable[[], Awaitable[Message]]


def not_modified(error: TelegramBadRequest) -> bool:
    """Telegram's refusal of an edit that changes nothing: the message shows it already."""
    return "not modified" in error.message


async def put(
    bot: Bot,
    shown: Shown | None,
    shows: str,
    text: str,
    reply_markup: InlineKeyboardMarkup | None = None,
    repost: Repost | None = None,
) -> tuple[Put, Shown | None]:
    """Make the slot show `text` (which `shows` stands for): edit the message `shown`, or
    post one with `repost` when there is none or it cannot be edited. The outcome, and
    the message as it now is (None: there is none)."""
    if shown is not None and shown.shows == shows:
        return Put.SAME, shown
    if shown is not None:
        try:
            await bot.edit_message_text(
                chat_id=shown.chat_id,
                message_id=shown.message_id,
                text=text,
                reply_markup=reply_markup,
            )
            return Put.EDITED, replace(shown, shows=shows)
        except TelegramMigrateToChat as error:
            if repost is None:
                raise
            log.info("message %s stayed in the old group: %s", shown.message_id, error)
        except TelegramBadRequest as error:
            if not_modified(error):
                return Put.SAME, replace(shown, shows=shows)
            if repost is None:
                return Put.GONE, None
            log.info("message %s is posted anew: %s", shown.message_id, error)
    if repost is None:
        return Put.GONE, None
    message = await repost()
    return Put.POSTED, Shown(message.chat.id, message.message_id, shows)
