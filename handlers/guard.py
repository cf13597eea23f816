"""Silence: only the speaker speaks in the group (D10); nobody writes at night (N5),
nor edits what they wrote before.

Commands are OutOfTurnCommands' (a middleware, so every router's command is covered):
one from anyone but the speaker and the Host is deleted and answered in private. The
router comes last and deletes the rest of what is said out of turn. It also answers
what nobody else claimed: a button the bot does not recognise, a command sent to the
wrong chat (a group's in private, a private one in a group). And it tells the Host once
when the bot loses the right to delete messages in a group with a game.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
from collections.abc import Awaitable, Callable
from contextvars import ContextVar
from dataclasses import dataclass
from datetime import UTC, datetime
from html import escape
from typing import Any, cast

from aiogram import BaseMiddleware, Bot, Router
from aiogram.client.session.middlewares.base import (
    BaseRequestMiddleware,
    NextRequestMiddlewareType,
)
from aiogram.enums import ContentType
from aiogram.exceptions import TelegramBadRequest, TelegramForbiddenError
from aiogram.filters import Command
from aiogram.methods import Response, SendDocument, SendMessage, SendPhoto, TelegramMethod
from aiogram.methods.base import TelegramType
from aiogram.types import (
    CallbackQuery,
    Chat,
    ChatMemberAdministrator,
    ChatMemberOwner,
    ChatMemberUpdated,
    Message,
    TelegramObject,
)

from bot.lru import LRU
from bot.rules.access import Answer, Asked, may_any, positions_of, reported
from bot.rules.state import GameState
from bot.services.game import GameService
from bot.views.callbacks import PanelCb
from bot.views.i18n import Texts
from bot.views.render import Button, named
from handlers.commands import PRIVATE_ONLY
from handlers.filters import IN_GROUP, IN_PRIVATE
from handlers.lobby import REQUIRED_RIGHTS
from storage.games import Game

log = logging.getLogger(__name__)


# What Telegram itself writes in a chat (joins, pins, a new title, a topic opened...):
# nobody's speech. Anything else is what a person posted, whatever its kind: a text, any
# media, a game or invoice sent through an inline bot, a checklist, or a kind Telegram
# adds next (aiogram calls it UNKNOWN), so that silence does not wait for a list of kinds.
SERVICE = frozenset(
    {ContentType.NEW_CHAT_MEMBERS, ContentType.LEFT_CHAT_MEMBER, ContentType.NEW_CHAT_TITLE}
    | {ContentType.NEW_CHAT_PHOTO, ContentType.DELETE_CHAT_PHOTO, ContentType.PINNED_MESSAGE}
    | {ContentType.GROUP_CHAT_CREATED, ContentType.SUPERGROUP_CHAT_CREATED}
    | {ContentType.CHANNEL_CHAT_CREATED, ContentType.MESSAGE_AUTO_DELETE_TIMER_CHANGED}
    | {ContentType.MIGRATE_TO_CHAT_ID, ContentType.MIGRATE_FROM_CHAT_ID}
    | {ContentType.CHAT_OWNER_LEFT, ContentType.CHAT_OWNER_CHANGED}
    | {ContentType.SUCCESSFUL_PAYMENT, ContentType.REFUNDED_PAYMENT, ContentType.USERS_SHARED}
    | {ContentType.USER_SHARED, ContentType.CHAT_SHARED, ContentType.GIFT}
    | {ContentType.UNIQUE_GIFT, ContentType.GIFT_UPGRADE_SENT, ContentType.CONNECTED_WEBSITE}
    | {ContentType.WRITE_ACCESS_ALLOWED, ContentType.PASSPORT_DATA, ContentType.BOOST_ADDED}
    | {ContentType.PROXIMITY_ALERT_TRIGGERED, ContentType.CHAT_BACKGROUND_SET}
    | {ContentType.CHECKLIST_TASKS_DONE, ContentType.CHECKLIST_TASKS_ADDED}
    | {ContentType.DIRECT_MESSAGE_PRICE_CHANGED, ContentType.PAID_MESSAGE_PRICE_CHANGED}
    | {ContentType.FORUM_TOPIC_CREATED, ContentType.FORUM_TOPIC_EDITED}
    | {ContentType.FORUM_TOPIC_CLOSED, ContentType.FORUM_TOPIC_REOPENED}
    | {ContentType.GENERAL_FORUM_TOPIC_HIDDEN, ContentType.GENERAL_FORUM_TOPIC_UNHIDDEN}
    | {ContentType.GIVEAWAY_CREATED, ContentType.GIVEAWAY_COMPLETED}
    | {ContentType.MANAGED_BOT_CREATED, ContentType.POLL_OPTION_ADDED}
    | {ContentType.POLL_OPTION_DELETED, ContentType.SUGGESTED_POST_APPROVED}
    | {ContentType.SUGGESTED_POST_APPROVAL_FAILED, ContentType.SUGGESTED_POST_DECLINED}
    | {ContentType.SUGGESTED_POST_PAID, ContentType.SUGGESTED_POST_REFUNDED}
    | {ContentType.VIDEO_CHAT_SCHEDULED, ContentType.VIDEO_CHAT_STARTED}
    | {ContentType.VIDEO_CHAT_ENDED, ContentType.VIDEO_CHAT_PARTICIPANTS_INVITED}
    | {ContentType.WEB_APP_DATA, ContentType.COMMUNITY_CHAT_ADDED}
    | {ContentType.COMMUNITY_CHAT_REMOVED, ContentType.COMMUNITY_CHAT_JOINED}
)


async def is_speech(message: Message) -> bool:
    """Anything a person posted: whatever is not Telegram's own service message."""
    return message.content_type not in SERVICE


# A non-speaker's command during a game: the message goes, the answer comes in private, at
# most once in QUIET_SECONDS per person (the command itself is still acted on).
QUIET_SECONDS = 10.0


def may_speak(game: Game, state: GameState, user_id: int) -> bool:
    """D10: the Host whenever they need to; a player only while it is their turn (the
    README's "writing in the group during a game", bot.rules.access)."""
    positions = positions_of(state, game.host_user_id, user_id)
    return may_any(Asked.GROUP_MESSAGE, positions).allowed


def reported_to_the_host(game: Game, state: GameState, user_id: int) -> bool:
    """N5, V3: a word in the group at night from a living player is reported to the Host
    (the table's "reported to the Host" cells)."""
    verdict = may_any(Asked.GROUP_MESSAGE, positions_of(state, game.host_user_id, user_id))
    return reported(verdict, state)


def answered_in_private(game: Game, state: GameState, user_id: int) -> bool:
    """D10, N5: a command in the group from anyone but the speaker and the Host is
    deleted and answered in private (the README's "any command in the group")."""
    positions = positions_of(state, game.host_user_id, user_id)
    return may_any(Asked.GROUP_COMMAND, positions).answer is Answer.IN_PRIVATE


async def keep_order(message: Message, bot: Bot, service: GameService, t: Texts) -> None:
    running = await service.running_in_chat(message.chat.id)
    if running is None or message.from_user is None:
        return
    game, state = running
    if may_speak(game, state, message.from_user.id):
        return  # the speaker may speak (text, voice, video note, photo...)
    await _silence(message, bot, service, t, game, state)


async def _silence(
    message: Message, bot: Bot, service: GameService, t: Texts, game: Game, state: GameState
) -> None:
    """Delete an out-of-turn message; at night, tell the Host (N5, V3)."""
    assert message.from_user is not None
    user_id = message.from_user.id
    seat = state.seat_of(user_id)
    try:
        await bot.delete_message(message.chat.id, message.message_id)
    except TelegramBadRequest as error:
        log.warning("could not delete an out-of-turn message: %s", error)
    if seat is not None and reported_to_the_host(game, state, user_id):
        # N5: writing in the group at night is "opening eyes" (V3); the Host decides, and
        # needs to see what it was (a `/status` is not "5 is mafia"). A Host with a panel
        # gets its sanction picker for this seat and V3 under the report.
        keyboard = None
        if state.seat_of(game.host_user_id) is None:
            press = PanelCb(game=game.game_id, step=state.step, do="code", seat=seat, code="V3")
            lang = await service.user_lang(game.host_user_id)
            keyboard = ((Button(t(lang, "night.eyes_open_sanction"), press.pack()),),)
        await service.tell_host(
            game,
            lambda lang: t(
                lang,
                "night.eyes_open",
                player=named(state, seat, t, lang),
                game=game.game_id,
                what=what_was_said(message, t, lang),
            ),
            private_keyboard=keyboard,
        )


SAID_AT_MOST = 200  # characters of a deleted message the Host's report quotes


def what_was_said(message: Message, t: Texts, lang: str) -> str:
    """A deleted message as the Host's report shows it: its text or caption, quoted and
    escaped (cut at SAID_AT_MOST), or the kind of thing it was."""
    words = message.text if message.text is not None else message.caption
    content = message.content_type
    kind = content.value if isinstance(content, ContentType) else str(content)
    if t.has(lang, f"night.kind.{kind}"):
        kind_name = t(lang, f"night.kind.{kind}")
    else:
        kind_name = t(lang, "night.kind.other")
    if words is None:
        return kind_name
    flat = " ".join(words.split())
    if len(flat) > SAID_AT_MOST:
        flat = flat[: SAID_AT_MOST - 1] + "…"
    if message.text is not None:
        return t(lang, "night.said.text", text=escape(flat))
    return t(lang, "night.said.captioned", kind=kind_name, text=escape(flat))


# What a message's content is judged by when Telegram resends it as edited: not who sent
# it, where, when, what it answers or which buttons it carries.
ENVELOPE = frozenset(
    {"message_id", "from_user", "sender_chat", "date", "chat", "edit_date", "reply_markup"}
    | {"reply_to_message", "external_reply", "quote", "via_bot", "forward_origin"}
)
KEEP_MESSAGES = 20_000  # messages whose last edit is remembered (a few days of games)


class Edits:
    """D10, N5: only a real edit is speech. Telegram also resends a message as
    edited_message unchanged and with no new edit_date (when someone reacts to it, for
    one): that is nobody writing, and deleting it, or calling it V3 at night, is wrong.

    A real edit carries an edit_date; one already seen, with the same content, is the
    phantom of an earlier edit. Bounded: a message forgotten (or a restart) that was
    edited before is taken at its word.
    """

    def __init__(self, size: int = KEEP_MESSAGES) -> None:
        self._seen: LRU[tuple[int, int], tuple[int | None, int]] = LRU(size)

    @staticmethod
    def _content(message: Message) -> int:
        dumped = message.model_dump(mode="json", exclude_none=True, exclude=set(ENVELOPE))
        return hash(json.dumps(dumped, sort_keys=True, ensure_ascii=False))

    def is_real(self, message: Message) -> bool:
        """Whether this edited_message changed anything; it is remembered either way."""
        key = (message.chat.id, message.message_id)
        before = self._seen.get(key)
        now = (message.edit_date, self._content(message))
        self._seen[key] = now
        if before is None:
            return message.edit_date is not None  # Telegram dates every real edit
        return now != before


@dataclass
class Hushed:
    """A command sent out of turn, being handled: its answers go to `person` in private."""

    group: int  # where the command was sent
    person: int  # who sent it
    task: asyncio.Task[Any] | None  # the handler's own; tasks it starts post as usual
    answered: dict[int, float]  # person -> when they were last answered out of turn
    now: float
    spoke: bool = False  # this command has had an answer: the rest of it goes too

    def may_answer(self) -> bool:
        if not self.spoke:
            last = self.answered.get(self.person)
            if last is not None and self.now - last < QUIET_SECONDS:
                return False  # the first answer is in their chat
            if len(self.answered) > 10_000:
                self.answered.clear()  # a flood of strangers: forget the old ones
            self.answered[self.person] = self.now
            self.spoke = True
        return True


HUSHED: ContextVar[Hushed | None] = ContextVar("hushed", default=None)

# What handlers answer with; the game's own posts go through the Sender's workers.
ANSWERS = (SendMessage, SendDocument, SendPhoto)


def is_command(message: Message) -> bool:
    # Ours, another bot's (/cmd@otherbot) or none at all: in the group each is speech. A
    # caption is read as a text is (aiogram's Command does so): the same rules for both.
    said = message.text if message.text is not None else message.caption
    return said is not None and said.startswith("/")


async def a_command(message: Message) -> bool:
    return is_command(message)


async def not_a_command(message: Message) -> bool:
    return not is_command(message)


class OutOfTurnCommands(BaseMiddleware):
    """D10, N5: a command in the group during a game from anyone but the speaker and the
    Host is deleted (at night reported as V3) and handled as usual, its answer or refusal
    going to the sender in private (nothing if they never pressed Start).

    One place rather than every handler: the handler runs under HUSHED, and
    AnswersInPrivate turns what it sends to the group into a private message.
    """

    def __init__(self) -> None:
        self.answered: dict[int, float] = {}  # person -> when they were last answered

    async def __call__(
        self,
        handler: Callable[[TelegramObject, dict[str, Any]], Awaitable[Any]],
        event: TelegramObject,
        data: dict[str, Any],
    ) -> Any:
        if (
            not isinstance(event, Message)
            or event.chat.type not in ("group", "supergroup")
            or event.from_user is None
            or not is_command(event)
        ):
            return await handler(event, data)
        service: GameService = data["service"]
        t: Texts = data["t"]
        running = await service.running_in_chat(event.chat.id)
        if running is None or not answered_in_private(*running, event.from_user.id):
            return await handler(event, data)
        game, state = running
        await _silence(event, data["bot"], service, t, game, state)
        user = event.from_user
        data["lang"] = await service.user_lang(user.id, user.language_code)
        hushed = Hushed(
            event.chat.id, user.id, asyncio.current_task(), self.answered, service.clock.now()
        )
        token = HUSHED.set(hushed)
        try:
            return await handler(event, data)
        finally:
            HUSHED.reset(token)


class AnswersInPrivate(BaseRequestMiddleware):
    """Under HUSHED, what the handler sends to the group goes to the sender in private."""

    async def __call__(
        self,
        make_request: NextRequestMiddlewareType[TelegramType],
        bot: Bot,
        method: TelegramMethod[TelegramType],
    ) -> Response[TelegramType]:
        hushed = HUSHED.get()
        if (
            hushed is None
            or hushed.task is not asyncio.current_task()
            or not isinstance(method, ANSWERS)
            or method.chat_id != hushed.group
        ):
            return await make_request(bot, method)
        unsent = cast(Response[TelegramType], _unsent(hushed.person))
        if not hushed.may_answer():
            return unsent
        private = method.model_copy(
            update={
                "chat_id": hushed.person,
                # The message answered is gone, and a private chat has no topics.
                "reply_parameters": None,
                "reply_to_message_id": None,
                "message_thread_id": None,
            }
        )
        try:
            return await make_request(bot, cast(TelegramMethod[TelegramType], private))
        except (TelegramForbiddenError, TelegramBadRequest) as error:
            # Never pressed Start, or blocked the bot: nothing anywhere.
            log.info("an answer out of turn went nowhere: %s", error)
            return unsent


def _unsent(person: int) -> Message:
    """What the handler gets for an answer that went nowhere: no message of any chat."""
    return Message(
        message_id=0, date=datetime.fromtimestamp(0, UTC), chat=Chat(id=person, type="private")
    )


async def unknown_button(query: CallbackQuery, t: Texts, lang: str) -> None:
    """A press no router recognised (forged, or from an older version): refused, not ignored."""
    await query.answer(t(lang, "error.stale"), show_alert=True)


async def private_only(message: Message, bot: Bot, t: Texts, lang: str) -> None:
    """A private chat's command sent in a group: the sender hears where it works, with the
    link that opens it."""
    me = await bot.me()  # aiogram asks getMe once and keeps the answer
    link = f"https://t.me/{me.username}"
    await message.answer(t(lang, "common.private_only", link=link))


async def unknown_in_private(message: Message, t: Texts, lang: str) -> None:
    """A command no router took in private (/pass, /pause...): those work in the group."""
    await message.answer(t(lang, "common.private_hint"))


def _has(member: object, right: str) -> bool:
    if isinstance(member, ChatMemberOwner):
        return True
    return isinstance(member, ChatMemberAdministrator) and bool(getattr(member, right))


async def rights_changed(
    update: ChatMemberUpdated, bot: Bot, service: GameService, t: Texts
) -> None:
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
        rights = t.listing(lang, [t(lang, f"rights.{r}") for r in missing])
        return t(lang, "host.lost_rights", game=game.game_id, rights=rights)

    try:
        await bot.send_message(game.host_user_id, text(await service.user_lang(game.host_user_id)))
    except (TelegramForbiddenError, TelegramBadRequest):
        # The Host never pressed Start: the group hears it (if the bot is still in it).
        with contextlib.suppress(TelegramForbiddenError, TelegramBadRequest):
            await bot.send_message(
                game.chat_id,
                text(await service.chat_lang(game.chat_id)),
                message_thread_id=game.thread_id,
            )


def make_router() -> Router:
    router = Router(name="guard")
    router.message.register(private_only, IN_GROUP, Command(*PRIVATE_ONLY))
    # Commands out of turn are OutOfTurnCommands' (it has deleted them already).
    router.message.register(keep_order, IN_GROUP, is_speech, not_a_command)
    # An earlier message edited out of turn (or at night) is speech out of turn as well;
    # the speaker may edit their own during their turn. Registering it also puts
    # edited_message into the allowed_updates aiogram asks Telegram for.
    edits = Edits()

    async def edited(message: Message, bot: Bot, service: GameService, t: Texts) -> None:
        if edits.is_real(message):
            await keep_order(message, bot, service, t)

    router.edited_message.register(edited, IN_GROUP, is_speech)
    router.message.register(unknown_in_private, IN_PRIVATE, a_command)
    router.callback_query.register(unknown_button)
    router.my_chat_member.register(rights_changed, IN_GROUP)
    return router
