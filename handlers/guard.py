"""Silence: only the speaker speaks in the group (D10); nobody writes at night (N5),
nor edits what they wrote before.

This router comes last, so every command another router handles is left alone. It
also answers what nobody else claimed: a button the bot does not recognise, a command
sent to the wrong chat (a group's in private, a private one in a group). And it tells
the Host once when the bot loses the right to delete messages in a group with a game.
"""

from __future__ import annotations

import contextlib
import logging

from aiogram import Bot, F, Router
from aiogram.enums import ContentType
from aiogram.exceptions import TelegramBadRequest, TelegramForbiddenError
from aiogram.filters import Command
from aiogram.types import (
    CallbackQuery,
    ChatMemberAdministrator,
    ChatMemberOwner,
    ChatMemberUpdated,
    Message,
)

from bot.render import label
from bot.rules.events import Phase
from bot.service import GameService
from handlers.filters import IN_GROUP, IN_PRIVATE, Is
from handlers.lobby import REQUIRED_RIGHTS

log = logging.getLogger(__name__)

# Commands that work only in the bot's private chat (the tournament's).
PRIVATE_ONLY = (
    *("nick", "tournament", "settings", "groups", "standings", "sheet", "fix", "adjust"),
    *("finish", "export", "protocol", "replace"),
)

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


async def unknown_button(query: CallbackQuery, service: GameService, lang: str) -> None:
    """A press no router recognised (forged, or from an older version): refused, not ignored."""
    await query.answer(service.t(lang, "error.stale"), show_alert=True)


async def private_only(message: Message, service: GameService, lang: str) -> None:
    """A private chat's command sent in a group: the sender hears where it works."""
    await message.answer(service.t(lang, "common.private_only"))


async def unknown_in_private(message: Message, service: GameService, lang: str) -> None:
    """A command no router took in private (/pass, /pause...): those work in the group."""
    await message.answer(service.t(lang, "common.private_hint"))


def _has(member: object, right: str) -> bool:
    if isinstance(member, ChatMemberOwner):
        return True
    return isinstance(member, ChatMemberAdministrator) and bool(getattr(member, right))


async def rights_changed(update: ChatMemberUpdated, bot: Bot, service: GameService) -> None:
    """The bot can no longer delete messages where a game is on: the Host hears it once.

    Telegram sends one update per change, so this speaks only when the right goes.
    """
    right = "can_delete_messages"
    if _has(update.new_chat_member, right) or not _has(update.old_chat_member, right):
        return
    game = await service.active_game(update.chat.id)
    if game is None:
        return
    missing = [r for r in REQUIRED_RIGHTS if not _has(update.new_chat_member, r)]

    def text(lang: str) -> str:
        rights = ", ".join(service.t(lang, f"rights.{r}") for r in missing)
        return service.t(lang, "host.lost_rights", game=game.game_id, rights=rights)

    try:
        await bot.send_message(game.host_user_id, text(await service.user_lang(game.host_user_id)))
    except (TelegramForbiddenError, TelegramBadRequest):
        # The Host never pressed Start: the group hears it (if the bot is still in it).
        with contextlib.suppress(TelegramForbiddenError, TelegramBadRequest):
            await bot.send_message(game.chat_id, text(await service.chat_lang(game.chat_id)))


def make_router() -> Router:
    router = Router(name="guard")
    router.message.register(private_only, IN_GROUP, Command(*PRIVATE_ONLY))
    router.message.register(keep_order, IN_GROUP, Is(F.content_type.in_(SPEECH)))
    # An earlier message edited out of turn (or at night) is speech out of turn as well;
    # the speaker may edit their own during their turn. Registering it also puts
    # edited_message into the allowed_updates aiogram asks Telegram for.
    router.edited_message.register(keep_order, IN_GROUP, Is(F.content_type.in_(SPEECH)))
    router.message.register(unknown_in_private, IN_PRIVATE, Is(F.text.startswith("/")))
    router.callback_query.register(unknown_button)
    router.my_chat_member.register(rights_changed, IN_GROUP)
    return router
