"""Delivering rendered messages through the Bot API, in order, within Telegram's limits.

Telegram lets a bot send about 30 messages a second overall, about one a second into one
private chat and 20 a minute into one group (an edit counts like a message), and answers
429 "retry after N" past that. Two parts keep the bot inside, on the injected clock: the
`Limiter` (`bot.delivery.limiter`), the one door every Bot API call passes, and:

- `Sender` gives each chat a queue, drained in order by a worker while the chat has
  anything queued, so an action does not wait for its messages' turn. Whatever piles up
  while a chat waits for its window is folded first: a post and the edits of it become
  one message, consecutive posts become one (a turn's keyboard gives way to the next
  turn's), two edits of one message become one, and a cosmetic note on a message (the
  10-second warning) is dropped once a newer post has been queued for the chat. Nothing
  a person would read is lost by folding; only stale buttons and calls are.
- Buttons whose moment has passed (`Unkey`) are taken off the message that still shows
  them: folded into it while it waits in the queue, otherwise by a cosmetic edit of that
  very message, which lets the chat's next posts go first.
- The pinned table message (`bot.views.board`) is shown its latest text by an edit of its
  own, in a quiet moment of the group's window: only the latest text waits, so however
  fast the game goes, the table costs at most a few edits a minute and never a turn's.
"""

from __future__ import annotations

import asyncio
import itertools
import logging
from collections import deque
from collections.abc import Awaitable, Callable, Collection, Coroutine, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from aiogram import Bot
from aiogram.exceptions import (
    TelegramBadRequest,
    TelegramForbiddenError,
    TelegramMigrateToChat,
)
from aiogram.types import InlineKeyboardButton, InlineKeyboardMarkup, Message

from bot.delivery.limiter import (
    BOARD_EDIT,
    COSMETIC,
    GAME,
    PRIORITY,
    STALE,
    Limiter,
)
from bot.delivery.longtext import fits
from bot.delivery.slot import Put, Shown, put
from bot.lru import LRU
from bot.services.clock import Clock
from bot.services.workers import Workers
from bot.views.keys import BOARD, MessageKey
from bot.views.render import Edit, Keyboard, Outgoing, Post, Retime, Unkey

log = logging.getLogger(__name__)


@dataclass
class Remembered:
    chat_id: int
    message_id: int
    text: str
    keyboard: Keyboard | None
    clock: str | None = None  # the line of `text` that says when the turn ends (`Retime`)


@dataclass(frozen=True)
class Undelivered:
    """A message that could not reach a person (they never pressed Start, or blocked us)."""

    chat_id: int
    reason: str


Outcome = int | Undelivered | None  # a message id, a person out of reach, or nothing
# What is told of each message as it goes out: (item index, message id); a tracked
# message that could not go out is told too, with None.
Ticker = Callable[[int, int | None], Awaitable[None]]
# Told what the table message shows once it shows a new text: (game, chat, message id,
# text, posted anew), so that a restart knows what is there to edit.
Showing = Callable[[int, int, int, str, bool], Awaitable[None]]
# Where a game lives: (its group, its forum topic or None), or None for no such game.
Locate = Callable[[int], Awaitable[tuple[int, int | None] | None]]
KEEP_PLACES = 5_000  # games whose group and topic are known without a read


@dataclass
class Delivery:
    sent: dict[int, int] = field(default_factory=dict)  # item index -> message id
    failed: list[Undelivered] = field(default_factory=list)


def markup(keyboard: Keyboard | None) -> InlineKeyboardMarkup | None:
    if keyboard is None:
        return None
    return InlineKeyboardMarkup(
        inline_keyboard=[
            [InlineKeyboardButton(text=b.text, callback_data=b.callback, url=b.url) for b in row]
            for row in keyboard
        ]
    )


# --- the sender ----------------------------------------------------------------------


@dataclass(eq=False)
class _Queued:
    game_id: int
    item: Outgoing
    note: bool = False  # cosmetic: keeps the keyboard, dropped when the chat moves on
    waiters: list[asyncio.Future[Outcome]] = field(default_factory=list)
    priority: int = GAME  # COSMETIC for notes and notices, which yield to the game
    unkey_after: bool = False  # on its way when its buttons' moment passed


class Sender:
    def __init__(
        self, bot: Bot, clock: Clock, pace_scale: float = 1.0, workers: Workers | None = None
    ) -> None:
        self.bot = bot
        self.clock = clock
        # Whose tasks the sender's are: each worker below is spawned there, and parks
        # there while it waits for room, the clock or another worker.
        self.workers = workers or Workers()
        # Install it on the bot's session (`build_app` does) so every call passes it.
        self.limiter = Limiter(clock, pace_scale, self.workers)
        self.remembered: dict[tuple[int, MessageKey], Remembered] = {}
        self._queues: dict[int, deque[_Queued]] = {}
        self._workers: dict[int, asyncio.Task[None]] = {}
        self._sending: dict[int, _Queued] = {}  # chat -> what is on its way there
        self._ticking: set[asyncio.Future[None]] = set()  # outbox ticks of queued items
        # Stale buttons to take off, per chat: (game, key, message id), sent by a worker of
        # their own so that nothing the game needs ever waits behind them.
        self._stale: dict[int, deque[tuple[int, MessageKey, int]]] = {}
        self._stale_workers: dict[int, asyncio.Task[None]] = {}
        # The table message's latest text per game, not yet shown, and the worker that
        # shows it (`board`).
        self._boards: dict[int, tuple[int, str, Showing | None]] = {}
        self._board_workers: dict[int, asyncio.Task[None]] = {}
        self._quiet: dict[int, asyncio.Event] = {}  # set when a chat's queue runs dry
        self._arrived: dict[int, asyncio.Event] = {}  # set when a chat's queue gets an item
        # Each game's group and the forum topic it lives in (None: no topic), as told by
        # `place` or read through `locate` (set by the game service) at its first post.
        self._places: LRU[int, tuple[int, int | None]] = LRU(KEEP_PLACES)
        self.locate: Locate | None = None
        # Told that a game's topic is gone: it goes on in General.
        self.topic_gone: Callable[[int], Coroutine[Any, Any, None]] | None = None

    def forget(self, game_id: int) -> None:
        """The game is long over: its messages will not be edited again."""
        for key in [k for k in self.remembered if k[0] == game_id]:
            del self.remembered[key]
        self._places.pop(game_id, None)

    def place(self, game_id: int, chat_id: int, thread_id: int | None) -> None:
        """The game lives in `chat_id`, in its forum topic `thread_id` (None: no topic)."""
        self._places[game_id] = (chat_id, thread_id)

    async def thread_of(self, game_id: int, chat_id: int) -> int | None:
        """The forum topic a message of the game to `chat_id` goes to: the game's own in
        its group; none anywhere else (a private chat has no topics)."""
        if chat_id > 0 or game_id <= 0:  # a person's private chat; no game's post
            return None
        placed = self._places.get(game_id)
        if placed is None and self.locate is not None:
            placed = await self.locate(game_id)
            if placed is not None:
                self._places[game_id] = placed
        return placed[1] if placed is not None and placed[0] == chat_id else None

    async def _send_message(self, game_id: int, chat_id: int, **fields: Any) -> Message:
        """A new message of the game, in its topic if it lives in one. A topic deleted
        meanwhile ("message thread not found") does not silence the game: the message
        goes to the group's General, and so does the rest of the game."""
        thread = await self.thread_of(game_id, chat_id)
        try:
            return await self.bot.send_message(chat_id=chat_id, message_thread_id=thread, **fields)
        except TelegramBadRequest as error:
            if thread is None or "thread not found" not in error.message:
                raise
            log.warning("game %s: its topic is gone, it goes on in General", game_id)
            self._places[game_id] = (chat_id, None)
            if self.topic_gone is not None:  # stored aside: the chat's line does not wait
                self.track(self.workers.spawn(self.topic_gone(game_id), "topic gone"))
            return await self.bot.send_message(chat_id=chat_id, **fields)

    def track(self, task: asyncio.Future[None]) -> None:
        """Work that sends for a game outside the chat queues (the Host's panel): the
        sender counts as busy until it is done."""
        self._ticking.add(task)
        task.add_done_callback(self._ticking.discard)

    def busy(self) -> bool:
        """Something the game needs is queued or on its way, perhaps waiting on the clock.

        A cosmetic note waiting for room does not count: time may pass without it, and
        it is dropped if its turn ends first; nor do stale buttons waiting for room.
        """
        pending = itertools.chain(self._sending.values(), *self._queues.values())
        lazy = len(self._stale_workers) + len(self._board_workers)
        stale = lazy > self.limiter.lazy_sleeping  # on their way
        ticking = any(not t.done() for t in self._ticking)
        return any(not q.note for q in pending) or stale or ticking

    async def deliver(
        self,
        game_id: int,
        items: Sequence[Outgoing],
        priority: int = GAME,
        sent: Ticker | None = None,
        track: Collection[int] = (),
    ) -> Delivery:
        """Queue `items`; return once the essential posts among them went out or failed.

        Essential posts (role cards, night keyboards, check results, the seating) go
        first, one after another, and are waited for: a card is in hand before the turn
        that follows it is called, and the caller learns their message ids. Everything
        else is queued behind them, in order, and goes out as its chat's window allows.
        What could not reach a person is reported, not raised. A `priority` of COSMETIC
        (a notice nobody acts on) lets what the game needs overtake it where windows are
        short.

        `sent(index, message_id)` is awaited as each essential post goes out, and as each
        other item whose index is in `track` does: the outbox ticks each message off as
        it is sent, so a crash in the middle of a deal re-sends only what was still on
        its way, not the whole deal. That is also why essential posts go one at a time.
        """
        delivery = Delivery()
        essential = set()
        for index, item in enumerate(items):
            if isinstance(item, Post) and item.essential:
                essential.add(index)
                outcome = await self.workers.park(self._enqueue(game_id, item, priority=priority))
                if isinstance(outcome, Undelivered):
                    delivery.failed.append(outcome)
                elif outcome is not None:
                    delivery.sent[index] = outcome
                    if sent is not None:
                        await sent(index, outcome)
        for index, item in enumerate(items):
            if index not in essential:
                queued = self._enqueue(game_id, item, priority=priority)
                if sent is not None and index in track:
                    task = self.workers.spawn(_when_sent(self.workers, queued, index, sent), "tick")
                    self._ticking.add(task)
                    task.add_done_callback(self._ticking.discard)
        return delivery

    def note(self, game_id: int, chat_id: int, key: MessageKey, line: str) -> None:
        """Append a cosmetic line to a remembered message, keeping its keyboard.

        It yields to everything the game needs, and is dropped if a newer post is queued
        for the chat before it went out (the turn it speaks of is over).
        """
        self._enqueue(game_id, Edit(chat_id, key, line), note=True, priority=COSMETIC)

    def board(self, game_id: int, chat_id: int, text: str, shown: Showing | None = None) -> None:
        """Show `text` on the game's pinned table message, when the group has room to spare.

        Cosmetic and folded: a newer text replaces one still waiting, and the edit waits
        behind the chat's queue and for a quiet window, so that no turn waits for it. A
        table message this process does not know (lost in a restart, or deleted) is posted
        and pinned anew. `shown` is told each text the message shows, and its id.
        """
        known = self.remembered.get((game_id, BOARD))
        if known is not None and known.text == text and game_id not in self._boards:
            return
        self._boards[game_id] = (chat_id, text, shown)
        if game_id not in self._board_workers:
            self._board_workers[game_id] = self.workers.spawn(self._show_board(game_id), "table")

    async def _show_board(self, game_id: int) -> None:
        token = PRIORITY.set(BOARD_EDIT)
        try:
            while game_id in self._boards:
                chat_id, _, _ = self._boards[game_id]
                # Behind what the game has queued for the group, then in its spare room.
                while chat_id in self._workers:
                    quiet = self._quiet.setdefault(chat_id, asyncio.Event())
                    await self.workers.park(quiet.wait())
                chat_id, text, shown = self._boards.pop(game_id)
                try:
                    await self._edit_board(game_id, chat_id, text, shown)
                except TelegramForbiddenError as error:  # the bot is out of the group
                    log.info("game %s: the table stays as it was: %s", game_id, error)
                except Exception:  # the next change shows the table again
                    log.exception("game %s: could not show the table", game_id)
        finally:
            PRIORITY.reset(token)
            del self._board_workers[game_id]

    async def _edit_board(
        self, game_id: int, chat_id: int, text: str, showing: Showing | None
    ) -> None:
        known = self.remembered.get((game_id, BOARD))
        shown = None if known is None else Shown(known.chat_id, known.message_id, known.text)

        async def post() -> Message:
            return await self._send_message(game_id, chat_id, text=text)

        outcome, now = await put(self.bot, shown, text, text, repost=post)
        assert now is not None  # with a repost, the table is always somewhere
        # In the supergroup, if the group became one meanwhile.
        self.remembered[(game_id, BOARD)] = Remembered(now.chat_id, now.message_id, text, None)
        posted = outcome is Put.POSTED
        if showing is not None and outcome in (Put.POSTED, Put.EDITED):
            await showing(game_id, now.chat_id, now.message_id, text, posted)
        if posted:
            await self.bot.pin_chat_message(
                chat_id=now.chat_id, message_id=now.message_id, disable_notification=True
            )

    def moved(self, chat_id: int, new_chat_id: int) -> list[int]:
        """The group `chat_id` became the supergroup `new_chat_id`, and what was shown in
        the group stayed there. Each remembered message with buttons (the turn, the vote)
        goes up anew in the supergroup and is remembered there, ahead of what was still
        queued for the group, which follows it there; the table is forgotten, for the next
        `board` to post and pin it there. Returns the games whose table that was."""
        boards = []
        for (game_id, key), shown in list(self.remembered.items()):
            if shown.chat_id != chat_id:
                continue
            if key == BOARD:
                del self.remembered[(game_id, key)]
                boards.append(game_id)
            elif shown.keyboard is not None:
                del self.remembered[(game_id, key)]
                again = Post(new_chat_id, shown.text, shown.keyboard, remember=key)
                self._enqueue(game_id, again)
        for game_id in list(self._places):
            place = self._places.get(game_id)
            if place is not None and place[0] == chat_id:  # a basic group has no topics
                self._places[game_id] = (new_chat_id, None)
        waiting = self._queues.get(chat_id)
        while waiting:
            queued = waiting.popleft()
            queued.item = replace(queued.item, chat_id=new_chat_id)
            self._requeue(queued)
        return boards

    def _requeue(self, queued: _Queued) -> None:
        chat_id = queued.item.chat_id
        self._queues.setdefault(chat_id, deque()).append(queued)
        if chat_id not in self._workers:
            self._workers[chat_id] = self.workers.spawn(self._drain(chat_id), "chat queue")

    def _enqueue(
        self, game_id: int, item: Outgoing, note: bool = False, priority: int = GAME
    ) -> asyncio.Future[Outcome]:
        queue = self._queues.setdefault(item.chat_id, deque())
        if isinstance(item, Unkey):
            return self._unkey(game_id, item, queue)
        if isinstance(item, Post):
            for stale in [q for q in queue if q.note]:
                queue.remove(stale)
                _resolve(stale, None)
        future: asyncio.Future[Outcome] = asyncio.get_running_loop().create_future()
        queue.append(_Queued(game_id, item, note, [future], priority))
        arrived = self._arrived.get(item.chat_id)
        if arrived is not None:  # a note waiting for room looks again (`_note_waits`)
            arrived.set()
        if item.chat_id not in self._workers:
            draining = self.workers.spawn(self._drain(item.chat_id), "chat queue")
            self._workers[item.chat_id] = draining
        return future

    def _unkey(self, game_id: int, item: Unkey, queue: deque[_Queued]) -> asyncio.Future[Outcome]:
        """Take the buttons off the message under `item.key`, wherever it is now."""
        done: asyncio.Future[Outcome] = asyncio.get_running_loop().create_future()
        done.set_result(None)

        def shows(q: _Queued) -> bool:
            return q.game_id == game_id and _key(q.item) == item.key

        for stale in [q for q in queue if q.note and shows(q)]:
            queue.remove(stale)  # a warning about a moment that has passed
            _resolve(stale, None)
        waiting = [q for q in queue if shows(q)]
        if waiting:  # not out yet: it goes out (or is edited) without them
            for q in waiting:
                if isinstance(q.item, Retime):
                    q.item = replace(q.item, keeps_keyboard=False)
                elif not isinstance(q.item, Unkey):
                    q.item = replace(q.item, keyboard=None)
            return done
        sending = self._sending.get(item.chat_id)
        if sending is not None and shows(sending):
            # On its way: its message id is not known yet, or (a warning) it puts the
            # buttons back as it goes.
            sending.unkey_after = True
            return done
        self._unkey_shown(game_id, item.key)
        return done

    def _unkey_shown(self, game_id: int, key: MessageKey) -> None:
        """Take the buttons off the message shown under `key`, in a quiet moment."""
        old = self.remembered.get((game_id, key))
        if old is None or old.keyboard is None:
            return  # never shown (or shown before a restart: presses are refused)
        old.keyboard = None  # as it will be: a second Unkey, or a warning, leaves it so
        self._stale.setdefault(old.chat_id, deque()).append((game_id, key, old.message_id))
        asyncio.get_running_loop().call_soon(self._take_stale_keyboards, old.chat_id)

    def _take_stale_keyboards(self, chat_id: int) -> None:
        """Take stale buttons off, after whatever is queued for the chat (its worker calls
        again when done), by a worker of their own that waits for room to spare."""
        if chat_id in self._stale_workers or not self._stale.get(chat_id):
            return
        if self._queues.get(chat_id):
            return
        self._stale_workers[chat_id] = self.workers.spawn(self._take_off(chat_id), "stale buttons")

    async def _take_off(self, chat_id: int) -> None:
        stale = self._stale[chat_id]
        token = PRIORITY.set(STALE)
        try:
            while stale:
                game_id, _, message_id = stale.popleft()
                try:
                    await self.bot.edit_message_reply_markup(
                        chat_id=chat_id, message_id=message_id, reply_markup=None
                    )
                except (TelegramBadRequest, TelegramMigrateToChat) as error:
                    # Gone, too old to edit, or left behind in a group that was upgraded.
                    log.info("game %s: buttons stay on %s: %s", game_id, message_id, error)
                except Exception:  # a press on them is refused by step anyway
                    log.exception("game %s: could not take buttons off", game_id)
        finally:
            PRIORITY.reset(token)
            del self._stale_workers[chat_id]
            if not stale:
                del self._stale[chat_id]

    async def _drain(self, chat_id: int) -> None:
        queue = self._queues[chat_id]
        try:
            while queue:
                await self.limiter.ready(chat_id, min(q.priority for q in queue))
                if queue and queue[0].note and await self._note_waits(chat_id, queue[0]):
                    continue  # it waited for room outside the line; look again
                if queue:  # a note may have been dropped while the chat waited
                    self._sending[chat_id] = queued = _fold(queue)
                    try:
                        await self._send(queued)
                    finally:
                        del self._sending[chat_id]
                    if queued.unkey_after:  # no longer on its way: its buttons can go
                        # Off that very message: a post queued meanwhile under the same
                        # key (the next turn's) keeps its own.
                        key = _key(queued.item)
                        if key is not None:
                            self._unkey_shown(queued.game_id, key)
                    self._take_stale_keyboards(chat_id)
        finally:
            self.limiter.release()  # room kept for a send that never came
            del self._workers[chat_id]
            if not queue:
                del self._queues[chat_id]
            self._arrived.pop(chat_id, None)
            quiet = self._quiet.pop(chat_id, None)
            if quiet is not None:
                quiet.set()

    async def _note_waits(self, chat_id: int, note: _Queued) -> bool:
        """A cosmetic note (the 10-second warning) with no room in its share of the
        group's window waits outside the chat's line, until there is room or something
        else is queued: the next turn's post then drops it and goes first, instead of
        waiting behind it for the cosmetic share (issue 22). True if it waited."""
        delay = self.limiter.room_in(chat_id, note.priority)
        if delay <= 0:
            return False
        self.limiter.release()  # the room kept for it is not the note's to hold
        arrived = self._arrived.setdefault(chat_id, asyncio.Event())
        arrived.clear()
        # One wait, which the room's time or a new item ends: `arrived` is rung by either.
        ringing = self.workers.spawn(self._ring(arrived, self.clock.now() + delay), "room")
        try:
            await self.workers.park(arrived.wait())
        finally:
            ringing.cancel()
        return True

    async def _ring(self, arrived: asyncio.Event, when: float) -> None:
        await self.workers.park(self.clock.sleep_until(when))
        arrived.set()

    async def _send(self, queued: _Queued) -> None:
        item = queued.item
        outcome: Outcome = None
        token = PRIORITY.set(queued.priority)
        try:
            if isinstance(item, Post):
                outcome = await self._post(queued.game_id, item)
            elif isinstance(item, Edit):
                await self._edit(queued.game_id, item, keep_keyboard=queued.note)
            elif isinstance(item, Retime):
                await self._retime(queued.game_id, item)
        except TelegramForbiddenError as error:
            outcome = Undelivered(item.chat_id, error.message)
        except (TelegramBadRequest, TelegramMigrateToChat) as error:
            # A bad request is our bug or a vanished message; the game goes on.
            log.warning("game %s: %s refused: %s", queued.game_id, type(item).__name__, error)
        except Exception:  # the worker must live on for the chat's next message
            log.exception("game %s: could not deliver to %s", queued.game_id, item.chat_id)
        finally:
            PRIORITY.reset(token)
        _resolve(queued, outcome)

    async def _post(self, game_id: int, post: Post) -> int:
        if post.countdown is not None:  # its clock starts now: so its end time does
            now, countdown = self.clock.now(), post.countdown
            clock = None if post.clock is None else countdown.shown(post.clock, now)
            post = replace(post, text=countdown.shown(post.text, now), clock=clock)
        message = await self._send_message(
            game_id,
            post.chat_id,
            text=post.text,
            reply_markup=markup(post.keyboard),
            protect_content=post.protect or None,
            disable_notification=post.silent or None,
        )
        chat_id = message.chat.id  # the supergroup, if the group became one meanwhile
        if post.remember:
            self.remembered[(game_id, post.remember)] = Remembered(
                chat_id, message.message_id, post.text, post.keyboard, post.clock
            )
        if post.pin:
            await self.bot.pin_chat_message(
                chat_id=chat_id, message_id=message.message_id, disable_notification=True
            )
        return message.message_id

    async def _edit(self, game_id: int, edit: Edit, keep_keyboard: bool = False) -> None:
        old = self.remembered.get((game_id, edit.key))
        if old is None:  # the message predates a restart
            if edit.or_post:  # a line the player needs: on its own, then
                await self._send_message(
                    game_id, edit.chat_id, text=edit.append, protect_content=True
                )
            return  # otherwise the next turn message says it all
        text = f"{old.text}\n{edit.append}"
        keyboard = old.keyboard if keep_keyboard else edit.keyboard
        if not fits(text):
            # The message cannot grow further: the line goes out as the next message,
            # which the next edit is then about.
            message = await self._send_message(
                game_id, old.chat_id, text=edit.append, reply_markup=markup(keyboard)
            )
            old.message_id, old.text, old.keyboard = message.message_id, edit.append, keyboard
            old.clock = None  # the clock line stays on the message before
            return
        try:
            await self.bot.edit_message_text(
                chat_id=old.chat_id,
                message_id=old.message_id,
                text=text,
                reply_markup=markup(keyboard),
            )
        except TelegramMigrateToChat as error:
            # It stayed behind in the group that became a supergroup: the whole of it
            # goes up there, and the next edit is about that message.
            message = await self.bot.send_message(
                chat_id=error.migrate_to_chat_id, text=text, reply_markup=markup(keyboard)
            )
            old.chat_id, old.message_id = message.chat.id, message.message_id
        old.text, old.keyboard = text, keyboard

    async def _retime(self, game_id: int, retime: Retime) -> None:
        """Put the end time that holds now in the place of the one the message shows."""
        old = self.remembered.get((game_id, retime.key))
        if old is None or old.clock is None:
            return  # sent before a restart (or grown past its clock line): left as it is
        text = _swap(old.text, old.clock, retime.clock)
        if text is None or text == old.text:
            return
        keyboard = old.keyboard if retime.keeps_keyboard else None
        await self.bot.edit_message_text(
            chat_id=old.chat_id, message_id=old.message_id, text=text, reply_markup=markup(keyboard)
        )
        old.text, old.keyboard, old.clock = text, keyboard, retime.clock


def _swap(text: str, old: str, new: str) -> str | None:
    """`text` with its last `old` line replaced by `new`; None if it has none."""
    before, found, after = text.rpartition(old)
    return before + new + after if found else None


async def _when_sent(
    workers: Workers, queued: asyncio.Future[Outcome], index: int, sent: Ticker
) -> None:
    outcome = await workers.park(queued)
    await sent(index, outcome if isinstance(outcome, int) else None)


def _key(item: Outgoing) -> MessageKey | None:
    """The remembered message an item makes or edits."""
    return item.remember if isinstance(item, Post) else item.key


def _resolve(queued: _Queued, outcome: Outcome) -> None:
    for waiter in queued.waiters:
        if not waiter.done():
            waiter.set_result(outcome)


def _fold(queue: deque[_Queued]) -> _Queued:
    """Take the head of a chat's queue, with whatever queued behind it can join it."""
    head = queue.popleft()
    while queue and (folded := _merge(head, queue[0])) is not None:
        queue.popleft()
        head = folded
    return head


def _merge(a: _Queued, b: _Queued) -> _Queued | None:
    """`a` then `b` as one call, if a person would see the same; None if not."""
    x, y = a.item, b.item
    if a.game_id != b.game_id:
        return None
    item: Outgoing
    if isinstance(x, Post) and isinstance(y, Edit):
        if y.key != x.remember:
            return None
        item = replace(
            x, text=f"{x.text}\n{y.append}", keyboard=x.keyboard if b.note else y.keyboard
        )
    elif isinstance(x, Edit) and isinstance(y, Edit):
        if y.key != x.key:
            return None
        item = replace(
            x, append=f"{x.append}\n{y.append}", keyboard=x.keyboard if b.note else y.keyboard
        )
    elif isinstance(x, Post) and isinstance(y, Post):
        # The earlier post's keyboard may only give way to the next one of its kind.
        superseded = x.remember == y.remember if x.remember else x.keyboard is None
        text = f"{x.text}\n\n{y.text}"
        # Measured as Telegram does (an emoji is two units): a fold must not make one
        # message too long where two were not.
        too_long = not fits(text)
        if x.pin or y.pin or x.protect != y.protect or not superseded or too_long:
            return None
        essential, countdown = x.essential or y.essential, y.countdown or x.countdown
        silent = x.silent and y.silent  # one sound, if either of them would have made one
        item = replace(y, text=text, essential=essential, countdown=countdown, silent=silent)
    elif isinstance(x, Post) and isinstance(y, Retime):
        # Not out yet: it goes out with the end time that holds now.
        if y.key != x.remember or x.clock is None:
            return None
        swapped = _swap(x.text, x.clock, y.clock)
        if swapped is None:
            return None
        keyboard = x.keyboard if y.keeps_keyboard else None
        item = replace(x, text=swapped, keyboard=keyboard, clock=y.clock, countdown=None)
    elif isinstance(x, Retime) and isinstance(y, Retime):
        if y.key != x.key:
            return None
        item = replace(y, keeps_keyboard=x.keeps_keyboard and y.keeps_keyboard)
    else:
        return None  # an edit, then a new message: two things happened
    priority = min(a.priority, b.priority)
    return _Queued(a.game_id, item, a.note and b.note, a.waiters + b.waiters, priority)
