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
from aiogram.filters import Command, CommandObject, Filter
from aiogram.types import (
    CallbackQuery,
    ChatMemberAdministrator,
    ChatMemberOwner,
    ChatMemberUpdated,
    Message,
)

from bot.render import label
from bot.rules.events import Phase
from bot.rules.state import GameState
from bot.service import GameService
from bot.tournaments import TournamentService
from handlers.common import rules_text, status_text
from handlers.filters import IN_GROUP, IN_PRIVATE, Is
from handlers.lobby import REQUIRED_RIGHTS
from storage.games import Game

log = logging.getLogger(__name__)

# Commands that work only in the bot's private chat (the tournament's).
PRIVATE_ONLY = (
    *("nick", "tournament", "settings", "groups", "standings", "sheet", "fix", "adjust"),
    *("finish", "export", "protocol", "replace", "unban"),
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


# Everybody's questions a non-speaker may still ask during a game: the message goes, the
# answer comes in private, at most once in QUIET_SECONDS per person.
ANSWERED_IN_PRIVATE = ("status", "help", "rules")
QUIET_SECONDS = 10.0


def may_speak(game: Game, state: GameState, user_id: int) -> bool:
    """D10: the Host whenever they need to; a player only while it is their turn."""
    if user_id == game.host_user_id:
        return True
    seat = state.seat_of(user_id)
    return state.in_speech and not state.paused and seat is not None and seat == state.speaker


class OutOfTurn(Filter):
    """A message in a group with a running game from someone who may not speak now."""

    async def __call__(self, message: Message, service: GameService) -> bool:
        if message.from_user is None:
            return False
        running = await service.running_in_chat(message.chat.id)
        return running is not None and not may_speak(*running, message.from_user.id)


async def keep_order(message: Message, bot: Bot, service: GameService) -> None:
    running = await service.running_in_chat(message.chat.id)
    if running is None or message.from_user is None:
        return
    game, state = running
    if may_speak(game, state, message.from_user.id):
        return  # the speaker may speak (text, voice, video note, photo...)
    await _silence(message, bot, service, game, state)


async def _silence(
    message: Message, bot: Bot, service: GameService, game: Game, state: GameState
) -> None:
    """Delete an out-of-turn message; at night, tell the Host (N5, V3)."""
    assert message.from_user is not None
    seat = state.seat_of(message.from_user.id)
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


def silence_router() -> Router:
    """Questions asked in the group out of turn: deleted, answered in private (D10, N5)."""
    router = Router(name="silence")
    answered: dict[int, float] = {}  # person -> when they were last answered

    async def asked_out_of_turn(
        message: Message,
        command: CommandObject,
        bot: Bot,
        service: GameService,
        tournaments: TournamentService,
    ) -> None:
        running = await service.running_in_chat(message.chat.id)
        if running is None or message.from_user is None:
            return
        game, state = running
        await _silence(message, bot, service, game, state)
        user_id, now = message.from_user.id, service.clock.now()
        if now - answered.get(user_id, now - QUIET_SECONDS) < QUIET_SECONDS:
            return  # repeats get no second answer: the first one is in their chat
        if len(answered) > 10_000:
            answered.clear()  # a flood of strangers: forget the old ones
        answered[user_id] = now
        lang = await service.user_lang(user_id, message.from_user.language_code)
        asked = command.command.lower()
        if asked == "status":
            text = await status_text(service, message.chat.id, lang)
        elif asked == "rules":  # this game's own timers, as /rules gives them
            text = await rules_text(service, tournaments, message.chat.id, False, user_id, lang)
        else:
            text = service.t(lang, "common.help_group")
        # Who never pressed Start gets nothing, and nothing stays in the group.
        with contextlib.suppress(TelegramForbiddenError, TelegramBadRequest):
            await bot.send_message(user_id, text)

    router.message.register(asked_out_of_turn, IN_GROUP, Command(*ANSWERED_IN_PRIVATE), OutOfTurn())
    return router


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
