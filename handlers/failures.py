"""An action whose storing failed is answered "not recorded, try again", never accepted.

A handler's transaction can fail (disk full, the database locked past its busy
timeout): nothing of the action was stored, so the person must not read it as done.
This is the dispatcher's error handler for such failures, whatever handler raised.
"""

from __future__ import annotations

import logging
import sqlite3

from aiogram.types import ErrorEvent

from bot.service import GameService, NotRecorded

log = logging.getLogger(__name__)
STORAGE_FAILURES = (NotRecorded, sqlite3.Error)


async def not_recorded(event: ErrorEvent, service: GameService) -> None:
    log.warning("update %s not recorded: %s", event.update.update_id, event.exception)
    query, message = event.update.callback_query, event.update.message
    person = query.from_user if query is not None else message.from_user if message else None
    # No reading from storage here: it is what failed. The person's own language will do.
    lang = service.t.lang(person.language_code if person is not None else None)
    text = service.t(lang, "error.not_recorded")
    try:
        if query is not None:
            await query.answer(text, show_alert=True)
        elif message is not None:
            await message.reply(text)
    except Exception:  # the answer is a courtesy; the update is released for a retry anyway
        log.exception("could not answer update %s", event.update.update_id)
