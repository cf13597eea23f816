"""Which Telegram updates were handled, without a database read for every new one; and
the order in which one chat's updates are handled (`ChatOrder`).

Telegram numbers updates in increasing order and redelivers one only if the bot did not
confirm it (it crashed, or a webhook answer came too late). So an update numbered above
every mark the database held when this process started cannot have been handled by an
earlier process: only this process's own marks need checking, and those are in memory.
Older numbers (redeliveries after a restart) are looked up in the database.

The marks are forgotten once Telegram can no longer redeliver their updates (24 hours
at most): every `PRUNE_EVERY` marks, those older than `KEEP_MARKS` go, at most
`PRUNE_BATCH` at a time. Forgetting them also matters for correctness: after a week
without updates Telegram numbers the next one at random, and it must not meet an old mark.
"""

from __future__ import annotations

import asyncio
from collections import OrderedDict
from collections.abc import Awaitable, Callable, Sequence
from contextvars import ContextVar
from typing import Any

from bot.services.workers import Workers
from storage.marks import ProcessedRepository

# Updates remembered in memory; a redelivery comes within seconds, far fewer than these.
REMEMBERED = 50_000

KEEP_MARKS = 48 * 3600.0  # seconds: twice the longest Telegram keeps an unconfirmed update
PRUNE_EVERY = 1_000  # marks written between two prunings
# Old marks deleted per pruning: twice what was written since the last, so that a backlog
# (the first start after an upgrade) drains, a few milliseconds of the database at a time.
PRUNE_BATCH = 2 * PRUNE_EVERY


# Another table's pruning, done with the marks' (the outbox's delivered messages).
Pruner = Callable[..., Awaitable[int]]


class HandledUpdates:
    def __init__(self, processed: ProcessedRepository, also_prune: Sequence[Pruner] = ()) -> None:
        self._processed = processed
        self._also_prune = tuple(also_prune)  # each called as prune(before=..., limit=...)
        self._first_new: int | None = None  # numbers from here on are this process's
        self._taken: OrderedDict[int, bool] = OrderedDict()  # update id -> mark stored
        self._marks_since_prune = PRUNE_EVERY  # the first finished update prunes at once

    async def take(self, update_id: int) -> bool:
        """Claim the update for handling: False if it was (or is being) handled already."""
        if update_id in self._taken:
            return False
        if self._first_new is None:
            self._first_new = (await self._processed.latest_update() or 0) + 1
        if update_id < self._first_new and await self._processed.has_update(update_id):
            return False
        self._taken[update_id] = False
        while len(self._taken) > REMEMBERED:
            self._taken.popitem(last=False)
        return True

    def release(self, update_id: int) -> None:
        """Its handler failed: a redelivery is to be handled afresh."""
        if self._taken.get(update_id) is False:
            del self._taken[update_id]

    def stored(self, update_id: int) -> None:
        """Its mark was written (inside the transaction of what it did)."""
        decided()  # what it did is stored: its chat's next update may go (`ChatOrder`)
        self._taken[update_id] = True
        self._marks_since_prune += 1

    async def finish(self, update_id: int, *, now: float) -> None:
        """Its handler is done: write the mark unless its action's transaction did."""
        if self._taken.get(update_id) is not True:
            await self._processed.mark_update(update_id, now=now)
            self._taken[update_id] = True
            self._marks_since_prune += 1
        if self._marks_since_prune >= PRUNE_EVERY:
            self._marks_since_prune = 0
            await self._processed.prune(before=now - KEEP_MARKS, limit=PRUNE_BATCH)
            for prune in self._also_prune:
                await prune(before=now - KEEP_MARKS, limit=PRUNE_BATCH)


class ChatOrder:
    """The updates of one chat are handled one after another, in the order they came.

    aiogram handles each update of a batch as a task of its own, so a speaker's message
    and their Finish press, fetched together after a restart, would otherwise race: the
    press ending the turn first, and the message then deleted as out of turn (D10).
    Each update takes its place in its chat's line at once, before anything is awaited,
    and waits until the update before it is *decided*: its action stored, or the first
    thing it tells Telegram, or its handling over, whichever comes first. Once decided,
    the rest of an update only waits for Telegram's windows, which the chat's next update
    must not wait for (a Finish press held behind a reply would miss its turn). Other
    chats' updates, and so other games, stay parallel.
    """

    def __init__(self, workers: Workers | None = None) -> None:
        self._last: dict[int, asyncio.Future[None]] = {}  # chat -> its latest update's turn
        # An update waiting for the one before it is parked: that one may wait on the clock.
        self._workers = workers or Workers()

    def take(self, chat_id: int, on_decided: Callable[[], None] | None = None) -> Turn:
        """A place in the chat's line, taken now, without awaiting anything; `on_decided`
        is called once when the update is decided (the webhook answers Telegram then)."""
        loop = asyncio.get_running_loop()
        before = self._last.get(chat_id)
        mine: asyncio.Future[None] = loop.create_future()
        self._last[chat_id] = mine

        def done(decided: bool) -> None:
            if not mine.done():
                mine.set_result(None)
                if decided and on_decided is not None:
                    on_decided()
            if self._last.get(chat_id) is mine:
                del self._last[chat_id]

        return Turn(before, done, self._workers)

    def waiting(self) -> int:
        """Chats with an update in hand (a test's and a leak's measure)."""
        return len(self._last)


class Turn:
    """One update's place in its chat's line (`ChatOrder`)."""

    def __init__(
        self,
        before: asyncio.Future[None] | None,
        done: Callable[[bool], None],
        workers: Workers,
    ) -> None:
        self._before = before
        self._done = done
        self._workers = workers
        self.task: asyncio.Task[Any] | None = None
        self.is_decided = False
        # What must be stored before the update may count as decided: its mark, for an
        # update whose handler stores no action (`handlers.middleware.OncePerUpdate`).
        self.before_deciding: Callable[[], Awaitable[None]] | None = None

    async def wait(self) -> None:
        """Until the update before it in its chat is decided."""
        if self._before is not None and not self._before.done():
            before = self._before
            await self._workers.park(asyncio.shield(before), until=before)
        self._before = None
        self.task = asyncio.current_task()

    def decided(self) -> None:
        """The chat's next update may go (idempotent)."""
        self.is_decided = True
        self._done(True)

    async def decide(self) -> None:
        """The update is about to tell Telegram something: store what must be, then
        `decided`."""
        if self.is_decided:
            return
        if self.before_deciding is not None:
            await self.before_deciding()
        self.decided()

    def failed(self) -> None:
        """Its handling failed undecided: the next may go; nothing was decided."""
        self._done(False)


# The turn of the update the current task handles; set by the dispatcher's outermost
# middleware (`handlers.middleware.InChatOrder`).
CURRENT_TURN: ContextVar[Turn | None] = ContextVar("current_turn", default=None)


def decided() -> None:
    """What the current update does is stored: the next update of its chat may go."""
    turn = CURRENT_TURN.get()
    if turn is not None:
        turn.decided()
