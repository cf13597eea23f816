"""Around every update: its chat's order, once only, and who sent it in which language."""

from __future__ import annotations

import asyncio
import contextlib
import functools
import logging
from collections.abc import Awaitable, Callable
from typing import Any

from aiogram import BaseMiddleware, Bot
from aiogram.client.session.middlewares.base import (
    BaseRequestMiddleware,
    NextRequestMiddlewareType,
)
from aiogram.exceptions import TelegramBadRequest, TelegramForbiddenError
from aiogram.methods import Response, TelegramMethod
from aiogram.methods.base import TelegramType
from aiogram.types import CallbackQuery, Message, TelegramObject, Update
from aiogram.types.update import UpdateTypeLookupError

from bot import timings
from bot.delivery.limiter import counted_by_windows
from bot.delivery.throttle import REMEMBERED, RIGHTS_KEPT, CommandBudgets
from bot.lru import LRU
from bot.services.game import CURRENT_UPDATE, GameService
from bot.services.inbox import CURRENT_TURN, ChatOrder
from bot.services.workers import Workers
from bot.views.i18n import Texts
from handlers.args import SERVICE_ACCOUNT_ID
from storage.chats import ChatType

log = logging.getLogger(__name__)

# A chat flooding commands on behalf of itself hears the refusal once in this many seconds.
REFUSED_EVERY = 10.0


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
        if user is not None and not user.is_bot and not on_behalf_of_a_chat(event):
            await service.saw_user(user.id, user.first_name, user.username)
        if chat is not None:
            await service.saw_chat(chat.id, ChatType(chat.type), chat.title)
        if chat is not None and chat.type != "private":
            data["lang"] = await service.chat_lang(chat.id)
        elif user is not None:
            data["lang"] = await service.user_lang(user.id, user.language_code)
        else:
            t: Texts = data["t"]
            data["lang"] = t.default
        return await handler(event, data)


def on_behalf_of_a_chat(event: TelegramObject) -> bool:
    """A message sent as a chat (an anonymous administrator, a channel, a channel's post
    Telegram forwarded): its `from` is a stand-in that names nobody (Bot API)."""
    if not isinstance(event, Message):
        return False
    user = event.from_user
    return (
        event.sender_chat is not None
        or bool(event.is_automatic_forward)
        or (user is not None and user.id == SERVICE_ACCOUNT_ID)
    )


class NothingOnBehalfOfAChat(BaseMiddleware):
    """A command sent on behalf of a chat does nothing: nobody can be told apart behind
    it, so it neither opens, runs nor stops a game. The sender is asked to post as
    themselves (once in REFUSED_EVERY seconds a chat); during a game the command goes, as anything
    said out of turn does (D10). A channel's post forwarded by Telegram is nobody's
    request: it is not answered."""

    def __init__(self) -> None:
        self._answered: LRU[int, float] = LRU(REMEMBERED)

    async def __call__(
        self,
        handler: Callable[[TelegramObject, dict[str, Any]], Awaitable[Any]],
        event: TelegramObject,
        data: dict[str, Any],
    ) -> Any:
        if not isinstance(event, Message) or not on_behalf_of_a_chat(event):
            return await handler(event, data)
        said = event.text or event.caption or ""
        if event.chat.type == "private" or not said.startswith("/"):
            return await handler(event, data)  # speech: the guard's, as anyone's
        service: GameService = data["service"]
        t: Texts = data["t"]
        bot: Bot = data["bot"]
        if await service.running_in_chat(event.chat.id) is not None:
            try:
                await bot.delete_message(event.chat.id, event.message_id)
            except TelegramBadRequest as error:
                log.warning("could not delete a command sent on behalf of a chat: %s", error)
        if event.is_automatic_forward:
            return None
        now = service.clock.now()
        last = self._answered.get(event.chat.id)
        if last is not None and now - last < REFUSED_EVERY:
            return None
        self._answered[event.chat.id] = now
        thread = event.message_thread_id if event.is_topic_message else None
        with contextlib.suppress(TelegramBadRequest, TelegramForbiddenError):
            await bot.send_message(
                event.chat.id, t(data["lang"], "common.on_behalf"), message_thread_id=thread
            )
        return None


def chat_of(update: Update) -> int | None:
    """The chat an update happens in: a message's, a pressed button's message's, a
    membership change's; None for what belongs to no chat (an inline query)."""
    try:
        event = update.event
    except UpdateTypeLookupError:  # a kind newer than this aiogram
        return None
    if isinstance(event, CallbackQuery):
        return event.message.chat.id if event.message is not None else None
    chat = getattr(event, "chat", None)
    chat_id = getattr(chat, "id", None)
    return chat_id if isinstance(chat_id, int) else None


class AtWork(BaseMiddleware):
    """The outermost: an update's handling is an activity of the bot (`Workers`), from
    before it waits for anything to its end."""

    def __init__(self, workers: Workers) -> None:
        self.workers = workers

    async def __call__(
        self,
        handler: Callable[[TelegramObject, dict[str, Any]], Awaitable[Any]],
        event: TelegramObject,
        data: dict[str, Any],
    ) -> Any:
        if not isinstance(event, Update):
            return await handler(event, data)
        with self.workers.update(event.update_id):
            return await handler(event, data)


class InChatOrder(BaseMiddleware):
    """Next to the outermost: a chat's updates are handled in the order Telegram sent them.

    The update takes its place in its chat's line before anything is awaited: the
    dispatcher starts each update's task in the order of the batch (polling) or of
    arrival (webhook), and nothing before this middleware awaits. See `ChatOrder` for
    when the next update of the chat may go.
    """

    def __init__(self, workers: Workers | None = None) -> None:
        self.order = ChatOrder(workers)

    async def __call__(
        self,
        handler: Callable[[TelegramObject, dict[str, Any]], Awaitable[Any]],
        event: TelegramObject,
        data: dict[str, Any],
    ) -> Any:
        chat_id = chat_of(event) if isinstance(event, Update) else None
        if chat_id is None:  # no chat, no line; decided when handled
            return await handler(event, data)
        turn = self.order.take(chat_id, data.get("on_decided"))
        try:
            await turn.wait()
            token = CURRENT_TURN.set(turn)
            try:
                result = await handler(event, data)
            finally:
                CURRENT_TURN.reset(token)
        except BaseException:
            turn.failed()  # the webhook answers 500 unless it was decided before
            raise
        turn.decided()
        return result


class DecidedOnTelling(BaseRequestMiddleware):
    """An update about to post or edit something has decided what it does (store, then
    tell): its mark is stored, and from then on it waits only for Telegram's windows,
    while the next update of its chat goes (and the webhook answers Telegram). Calls that
    no window counts (a deletion, a button's answer, a read) do not wait, so they decide
    nothing. Calls of the tasks it started (the sender's queues) are theirs."""

    async def __call__(
        self,
        make_request: NextRequestMiddlewareType[TelegramType],
        bot: Bot,
        method: TelegramMethod[TelegramType],
    ) -> Response[TelegramType]:
        turn = CURRENT_TURN.get()
        if (
            turn is not None
            and not turn.is_decided
            and turn.task is asyncio.current_task()
            and counted_by_windows(method.__api_method__)
        ):
            await turn.decide()
        return await make_request(bot, method)


class ThrottleCommands(BaseMiddleware):
    """Outside a chat with a game, a command fits its chat's and its sender's budgets or
    is dropped (`bot.delivery.throttle`), before anything is stored of it. The game is looked up
    only for a command over budget: a flood costs a read, never a write or a reply."""

    def __init__(self) -> None:
        self.budgets = CommandBudgets()
        self.dropped = 0
        # Whether the bot administers a group, as Telegram said at the time: the club's
        # own group is not throttled between games (the Host's /newgame after a noisy
        # evening), a stranger's group where the bot is a plain member is.
        self._administers: LRU[int, tuple[bool, float]] = LRU(REMEMBERED)

    async def __call__(
        self,
        handler: Callable[[TelegramObject, dict[str, Any]], Awaitable[Any]],
        event: TelegramObject,
        data: dict[str, Any],
    ) -> Any:
        if not isinstance(event, Message) or event.from_user is None:
            return await handler(event, data)
        said = event.text or event.caption or ""
        if not said.startswith("/"):
            return await handler(event, data)
        service: GameService = data["service"]
        now = service.clock.now()
        chat, person = event.chat.id, event.from_user.id
        group = event.chat.type != "private"
        if self.budgets.fits(chat, person, now, group=group):
            self.budgets.spend(chat, person, now, group=group)
            return await handler(event, data)
        if group and await service.active_game(chat) is not None:
            return await handler(event, data)  # the table's own rules hold there
        if group and await self._bot_administers(data["bot"], chat, now):
            return await handler(event, data)
        if not group and await service.games_of_user(person):
            return await handler(event, data)  # a seated player's own game, from private
        self.dropped += 1
        if self.dropped % 1000 == 1:
            log.warning("commands over budget dropped: %d so far", self.dropped)
        return None

    async def _bot_administers(self, bot: Bot, chat_id: int, now: float) -> bool:
        known = self._administers.get(chat_id)
        if known is not None and now - known[1] < RIGHTS_KEPT:
            return known[0]
        try:
            member = await bot.get_chat_member(chat_id, bot.id)
            administers = member.status in ("administrator", "creator")
        except (TelegramBadRequest, TelegramForbiddenError):
            administers = False
        self._administers[chat_id] = (administers, now)
        return administers


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
        try:
            kind = event.event_type
        except UpdateTypeLookupError:  # newer than this aiogram: no handler could take it
            log.warning("update %d is of a kind unknown here, skipped", event.update_id)
            return None
        with timings.update(kind):  # make bench: where the update's time goes
            if not await service.updates.take(event.update_id):
                return None
            token = CURRENT_UPDATE.set(event.update_id)
            turn = CURRENT_TURN.get()
            if turn is not None:  # the mark comes before the first thing the update tells
                turn.before_deciding = functools.partial(
                    service.updates.finish, event.update_id, now=service.clock.now()
                )
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
