"""Which Telegram updates were handled, without a database read for every new one.

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

from collections import OrderedDict

from storage.updates import ProcessedRepository

# Updates remembered in memory; a redelivery comes within seconds, far fewer than these.
REMEMBERED = 50_000

KEEP_MARKS = 48 * 3600.0  # seconds: twice the longest Telegram keeps an unconfirmed update
PRUNE_EVERY = 1_000  # marks written between two prunings
# Old marks deleted per pruning: twice what was written since the last, so that a backlog
# (the first start after an upgrade) drains, a few milliseconds of the database at a time.
PRUNE_BATCH = 2 * PRUNE_EVERY


class HandledUpdates:
    def __init__(self, processed: ProcessedRepository) -> None:
        self._processed = processed
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
