"""Exactly once, cheaply: which updates were handled, mostly known without a read (issue 6).

The marks live in the database (tests/e2e/test_durability.py and test_crash.py show a
redelivery after a restart changes nothing); `HandledUpdates` only avoids asking the
database about updates no earlier process can have seen.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from bot.services.inbox import PRUNE_BATCH, PRUNE_EVERY, HandledUpdates
from storage import Database
from storage.marks import ProcessedRepository


class Counting(ProcessedRepository):
    def __init__(self, database: Database) -> None:
        super().__init__(database)
        self.lookups = 0

    async def has_update(self, update_id: int) -> bool:
        self.lookups += 1
        return await super().has_update(update_id)


@pytest.fixture
async def db(tmp_path: Path) -> AsyncIterator[Database]:
    async with await Database.open(tmp_path / "bot.sqlite3") as database:
        yield database


async def test_updates_newer_than_every_stored_mark_need_no_lookup(db: Database) -> None:
    before = ProcessedRepository(db)
    for update_id in (10, 12):  # an earlier process handled these (11 was lost in a crash)
        await before.mark_update(update_id, now=1.0)
    processed = Counting(db)
    handled = HandledUpdates(processed)
    assert await handled.take(13) and await handled.take(14)
    assert processed.lookups == 0
    assert not await handled.take(12)  # redelivered after the restart: dropped
    assert await handled.take(11)  # never marked: handled now
    assert processed.lookups == 2
    assert not await handled.take(13)  # the same update again, in this process


async def test_a_failed_handler_leaves_the_update_to_its_redelivery(db: Database) -> None:
    processed = ProcessedRepository(db)
    handled = HandledUpdates(processed)
    assert await handled.take(5)
    handled.release(5)
    assert await processed.latest_update() is None
    assert await handled.take(5)
    await handled.finish(5, now=2.0)
    assert await processed.has_update(5)
    assert not await handled.take(5)


async def test_a_mark_stored_with_its_action_is_not_written_again(db: Database) -> None:
    processed = ProcessedRepository(db)
    handled = HandledUpdates(processed)
    assert await handled.take(7)
    await processed.mark_update(7, now=3.0)  # as GameService._commit does, in its transaction
    handled.stored(7)
    handled.release(7)  # a later failure cannot unmark what is stored
    await handled.finish(7, now=4.0)
    assert not await handled.take(7)
    assert await HandledUpdates(ProcessedRepository(db)).take(7) is False  # a new process


async def count_marks(db: Database) -> int:
    rows = await db.fetch_all("SELECT count(*) FROM processed_updates")
    return int(rows[0][0])


async def test_marks_past_any_redelivery_are_pruned_as_updates_come(db: Database) -> None:
    """Issue 10: the table of marks stays bounded; a day's marks all stay (exactly once)."""
    day, now = 24 * 3600.0, 1_000_000.0
    processed = ProcessedRepository(db)
    for update_id in range(1, 2501):  # three days old: Telegram cannot redeliver these
        await processed.mark_update(update_id, now=now - 3 * day)
    for update_id in range(2501, 3001):  # from the last day: a redelivery must be dropped
        await processed.mark_update(update_id, now=now - day)
    handled = HandledUpdates(processed)
    for update_id in range(3001, 3001 + PRUNE_EVERY + 1):
        assert await handled.take(update_id)
        await handled.finish(update_id, now=now)
    # Two prunings (at the first update, and PRUNE_EVERY marks later) took the old ones.
    assert await count_marks(db) == 500 + PRUNE_EVERY + 1
    assert not await processed.has_update(2500)
    assert not await HandledUpdates(processed).take(2501)  # a day old: still known
    assert not await HandledUpdates(processed).take(3001)


async def test_a_pruning_deletes_a_bounded_batch(db: Database) -> None:
    processed = ProcessedRepository(db)
    for update_id in range(1, PRUNE_BATCH + 11):
        await processed.mark_update(update_id, now=0.0)
    assert await processed.prune(before=1.0, limit=PRUNE_BATCH) == PRUNE_BATCH
    assert await count_marks(db) == 10
    assert await processed.prune(before=1.0) == 10
