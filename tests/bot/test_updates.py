"""Exactly once, cheaply: which updates were handled, mostly known without a read (issue 6).

The marks live in the database (tests/e2e/test_durability.py and test_crash.py show a
redelivery after a restart changes nothing); `HandledUpdates` only avoids asking the
database about updates no earlier process can have seen.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from bot.updates import HandledUpdates
from storage import Database
from storage.updates import ProcessedRepository


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
