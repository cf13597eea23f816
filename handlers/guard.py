"""Silence: only the speaker speaks in the group (D10); nobody writes at night (N5).

This router comes last, so every command another router handles is left alone.
"""

from __future__ import annotations

import logging

from aiogram import Bot, F, Router
from aiogram.enums import ContentType
from aiogram.exceptions import TelegramBadRequest, TelegramForbiddenError
from aiogram.types import Message

from bot.render import label
from bot.rules.events import Phase
from bot.service import GameService

log = logging.getLogger(__name__)

# What a person can say or show; service messages (joins, pins) are left alone.
SPEECH = {
    ContentType.TEXT,
    ContentType.PHOTO,
    ContentType.VOICE,
    ContentType.VIDEO_NOTE,
    ContentType.VIDEO,
    ContentType.AUDIO,
    ContentType.ANIMATION,
    ContentType.STICKER,
    ContentType.DOCUMENT,
    ContentType.DICE,
    ContentType.POLL,
    ContentType.CONTACT,
    ContentType.LOCATION,
    ContentType.VENUE,
    ContentType.STORY,
}


async def keep_order(message: Message, bot: Bot, service: GameService) -> None:
    running = await service.running_in_chat(message.chat.id)
    if running is None or message.from_user is None:
        return
    game, state = running
    user_id = message.from_user.id
    if user_id == game.host_user_id:
        return  # the Host speaks whenever they need to
    seat = state.seat_of(user_id)
    if state.in_speech and not state.paused and seat is not None and seat == state.speaker:
        return  # D10: the speaker may speak (text, voice, video note, photo...)
    try:
        await bot.delete_message(message.chat.id, message.message_id)
    except TelegramBadRequest as error:
        log.warning("could not delete an out-of-turn message: %s", error)
    night = state.phase in (Phase.ACQUAINTANCE, Phase.NIGHT)
    if night and seat is not None and state.is_alive(seat):
        # N5: writing in the group at night is "opening eyes" (V3); the Host decides.
        lang = await service.user_lang(game.host_user_id)
        text = service.t(lang, "night.eyes_open", player=label(state, seat), game=game.game_id)
        try:
            await bot.send_message(game.host_user_id, text)
        except (TelegramForbiddenError, TelegramBadRequest):
            group_lang = await service.chat_lang(game.chat_id)
            await bot.send_message(
                game.chat_id,
                service.t(
                    group_lang, "night.eyes_open", player=label(state, seat), game=game.game_id
                ),
            )


def make_router() -> Router:
    router = Router(name="guard")
    router.message.register(
        keep_order, F.chat.type.in_({"group", "supergroup"}), F.content_type.in_(SPEECH)
    )
    return router
