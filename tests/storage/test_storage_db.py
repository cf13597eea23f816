"""The connection: its pragmas, and transactions that are atomic and serialized."""

from __future__ import annotations

import asyncio
import os
import sqlite3
import stat
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest

from storage import ChatType, Database, Game, NewEvent, Repositories, StorageError
from storage.db import Work
from storage.failures import NotFoundError
from storage.games import saving_state
from storage.marks import marking_update
from storage.outbox import enqueuing
from storage.protocol import appending
from tests.storage.storage_testdata import CHAT, HOST, T0


class Boom(Exception):
    """Raised by a test inside a transaction, to see what the rollback leaves."""


async def pragma(db: Database, name: str) -> object:
    rows = await db.fetch_all(f"PRAGMA {name}")
    return rows[0][0]


async def count(db: Database, table: str) -> int:
    rows = await db.fetch_all(f"SELECT count(*) FROM {table}")
    return int(rows[0][0])


async def test_connection_pragmas_are_set(db: Database, db_path: Path) -> None:
    assert await pragma(db, "journal_mode") == "wal"
    assert await pragma(db, "foreign_keys") == 1
    assert await pragma(db, "synchronous") == 2  # FULL: no acknowledged action is lost
    assert await pragma(db, "busy_timeout") == 5000
    await db.execute("INSERT INTO bans (user_id, reason, at) VALUES (1, 'x', 0)")
    assert db_path.with_name(db_path.name + "-wal").exists()


async def test_synchronous_is_configurable(db_path: Path) -> None:
    async with await Database.open(db_path, synchronous="normal") as db:
        assert await pragma(db, "synchronous") == 1


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


async def test_database_files_are_readable_by_the_bot_alone(tmp_path: Path) -> None:
    """Issue 10: the files hold every running game's seed and roles."""
    old_umask = os.umask(0o022)  # what most systems give a service: files world-readable
    try:
        fresh = tmp_path / "fresh.sqlite3"
        async with await Database.open(fresh) as db:
            await db.execute("INSERT INTO bans (user_id, reason, at) VALUES (1, 'x', 0)")
            for name in ("fresh.sqlite3", "fresh.sqlite3-wal", "fresh.sqlite3-shm"):
                assert mode(tmp_path / name) == 0o600, name
        # A database (and its WAL) that an earlier version left readable to all.
        older = tmp_path / "older.sqlite3"
        async with await Database.open(older) as db:
            await db.execute("INSERT INTO bans (user_id, reason, at) VALUES (1, 'x', 0)")
            for name in ("older.sqlite3", "older.sqlite3-wal", "older.sqlite3-shm"):
                os.chmod(tmp_path / name, 0o644)
            async with await Database.open(older) as again:
                assert await pragma(again, "journal_mode") == "wal"
            for name in ("older.sqlite3", "older.sqlite3-wal", "older.sqlite3-shm"):
                assert mode(tmp_path / name) == 0o600, name
    finally:
        os.umask(old_umask)


async def test_busy_timeout_is_configurable(db_path: Path) -> None:
    async with await Database.open(db_path, busy_timeout=0.25) as db:
        assert await pragma(db, "busy_timeout") == 250


async def test_foreign_keys_are_enforced(db: Database) -> None:
    with pytest.raises(sqlite3.IntegrityError, match="FOREIGN KEY"):
        await db.execute(
            "INSERT INTO games (chat_id, host_user_id, settings_json, created_at, updated_at) "
            "VALUES (1, 1, '{}', 0, 0)"
        )


async def test_integrity_check_passes(db: Database) -> None:
    rows = await db.fetch_all("PRAGMA integrity_check")
    assert [tuple(row) for row in rows] == [("ok",)]


async def test_in_memory_database_is_refused() -> None:
    with pytest.raises(StorageError, match="WAL"):
        await Database.open(":memory:")


async def test_too_old_sqlite_is_refused(db_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sqlite3, "sqlite_version_info", (3, 31, 1))
    with pytest.raises(StorageError, match="too old"):
        await Database.open(db_path)


async def test_closed_database_refuses_statements(db_path: Path) -> None:
    async with await Database.open(db_path) as db:
        pass
    with pytest.raises(ValueError, match="Connection closed"):
        await db.fetch_all("SELECT 1")


async def test_transaction_commits_everything(seeded: Repositories, game: Game) -> None:
    async with seeded.database.transaction():
        await seeded.protocol.append(game.game_id, [NewEvent(T0, '{"type": "seats_drawn"}')])
        await seeded.games.save_state(game.game_id, state_json="{}", deadline=T0 + 60, now=T0)
        await seeded.processed.mark_update(10, now=T0)
    assert len(await seeded.protocol.read(game.game_id)) == 1
    saved = await seeded.games.get(game.game_id)
    assert saved is not None
    assert saved.deadline == T0 + 60
    assert await seeded.processed.has_update(10)


class Trips:
    """Counts the trips to the database's own thread: each costs the event loop a wake-up."""

    def __init__(self, database: Database, monkeypatch: pytest.MonkeyPatch) -> None:
        self.count = 0
        connection = database._connection
        # aiosqlite leaves its private hand-over untyped: what it returns is the call's
        execute: Callable[..., Awaitable[Any]] = connection._execute

        async def counted(*args: Any, **kwargs: Any) -> Any:
            self.count += 1
            return await execute(*args, **kwargs)

        monkeypatch.setattr(connection, "_execute", counted)


async def test_a_transaction_block_is_one_trip_a_statement(
    seeded: Repositories, game: Game, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A `transaction()` block: BEGIN, the events (numbered after the last, read back),
    the state, the update's mark, COMMIT: five trips, where a trip a cursor's close and
    two for each savepoint made it thirteen."""
    trips = Trips(seeded.database, monkeypatch)
    events = [NewEvent(T0, '{"type": "seats_drawn"}'), NewEvent(T0, '{"type": "cards_dealt"}')]
    async with seeded.database.transaction():
        stored = await seeded.protocol.append(game.game_id, events)
        await seeded.games.save_state(game.game_id, state_json="{}", deadline=T0 + 60, now=T0)
        await seeded.processed.mark_update(10, now=T0)
    assert trips.count == 5
    assert [(e.seq, e.type) for e in stored] == [(1, "seats_drawn"), (2, "cards_dealt")]
    card = await seeded.outbox.enqueue(
        game_id=game.game_id, chat_id=HOST, kind="role_card", payload_json="{}", now=T0
    )
    trips.count = 0
    assert await seeded.outbox.mark_sent(card.outbox_id, message_id=5, now=T0)
    assert trips.count == 1  # ticked off in one statement, its own transaction


def an_action(game_id: int, update_id: int, state_deadline: float, of: int = 0) -> Work[int]:
    """What `GameService._store` writes for a press, as one piece of work; its state is
    saved for game `of`, if given."""

    def store(connection: sqlite3.Connection) -> int:
        appending(game_id, [NewEvent(T0, '{"type": "seats_drawn"}')])(connection)
        card = enqueuing(
            game_id=game_id, chat_id=HOST, kind="role_card", payload_json="{}", now=T0
        )(connection)
        marking_update(update_id, now=T0)(connection)
        saving_state(of or game_id, state_json="{}", deadline=state_deadline, now=T0)(connection)
        return card.outbox_id

    return store


async def test_an_actions_writes_are_one_trip_begin_and_commit_included(
    seeded: Repositories, game: Game, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The press's transaction, as `GameService._store` runs it: every other statement
    waits for one trip, not for seven."""
    trips = Trips(seeded.database, monkeypatch)
    card = await seeded.database.atomic(an_action(game.game_id, 10, T0 + 60))
    assert trips.count == 1
    assert [e.type for e in await seeded.protocol.read(game.game_id)] == ["seats_drawn"]
    stored = await seeded.games.get(game.game_id)
    assert stored is not None and stored.deadline == T0 + 60
    assert [m.outbox_id for m in await seeded.outbox.unsent(game.game_id)] == [card]
    assert await seeded.processed.has_update(10)
    assert not seeded.database.busy and not seeded.database._connection.in_transaction


async def test_an_action_that_fails_in_its_one_trip_leaves_nothing(
    seeded: Repositories, game: Game
) -> None:
    """A step that fails after others (the state of a game that is not there) undoes
    the events and the card before it: the rollback is in the same trip."""
    with pytest.raises(NotFoundError):
        await seeded.database.atomic(an_action(game.game_id, 10, T0, of=game.game_id + 1000))
    assert await seeded.protocol.read(game.game_id) == []
    assert await seeded.outbox.unsent() == []
    assert not await seeded.processed.has_update(10)
    assert not seeded.database._connection.in_transaction
    await seeded.database.atomic(an_action(game.game_id, 10, T0))  # the connection goes on
    assert len(await seeded.protocol.read(game.game_id)) == 1


async def test_presses_that_come_together_are_committed_together_each_on_its_own(
    seeded: Repositories, game: Game, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Group commit: three actions that wait at once take one trip and one COMMIT (one
    fsync), and the one that fails is undone alone: the others stand, it raises."""
    other = await seeded.games.create(
        chat_id=CHAT - 1, host_user_id=HOST, settings_json="{}", now=T0
    )
    trips = Trips(seeded.database, monkeypatch)
    outcomes = await asyncio.gather(
        seeded.database.atomic(an_action(game.game_id, 10, T0 + 60)),
        seeded.database.atomic(an_action(game.game_id, 11, T0, of=game.game_id + 1000)),
        seeded.database.atomic(an_action(other.game_id, 12, T0 + 90)),
        return_exceptions=True,
    )
    assert trips.count == 1
    assert isinstance(outcomes[1], NotFoundError)
    assert [e.seq for e in await seeded.protocol.read(game.game_id)] == [1]
    assert [e.seq for e in await seeded.protocol.read(other.game_id)] == [1]
    assert [m.outbox_id for m in await seeded.outbox.unsent()] == [outcomes[0], outcomes[2]]
    assert [await seeded.processed.has_update(u) for u in (10, 11, 12)] == [True, False, True]


async def test_work_that_waits_behind_a_transaction_goes_in_the_next_commit(
    seeded: Repositories, game: Game
) -> None:
    """Work that comes while a transaction block is open waits for it, then commits."""
    order: list[str] = []
    async with seeded.database.transaction():
        waiting = asyncio.create_task(seeded.database.atomic(an_action(game.game_id, 10, T0)))
        await asyncio.sleep(0)
        assert seeded.database.busy and not waiting.done()
        await seeded.processed.mark_update(9, now=T0)
        order.append("block")
    await waiting
    order.append("work")
    assert order == ["block", "work"]
    assert await seeded.processed.has_update(9) and await seeded.processed.has_update(10)
    assert not seeded.database.busy


async def test_a_committed_read_does_not_wait_for_the_writes_under_way(
    seeded: Repositories, game: Game
) -> None:
    """An action reads its game through the reader connection: while another task's
    transaction is open it gets the last committed row at once, never the uncommitted
    one; the transaction's own task reads its own writes; after the commit, the new row."""
    games = seeded.games
    entered, leave = asyncio.Event(), asyncio.Event()

    async def writer() -> None:
        async with seeded.database.transaction():
            await games.save_state(game.game_id, state_json='{"step": 2}', deadline=T0, now=T0)
            mine = await games.get_committed(game.game_id)
            assert mine is not None and mine.state_json == '{"step": 2}'
            entered.set()
            await leave.wait()

    task = asyncio.create_task(writer())
    await entered.wait()
    async with asyncio.timeout(1):  # a read through the writer would wait for `leave`
        before = await games.get_committed(game.game_id)
    assert before is not None and before.state_json == game.state_json
    leave.set()
    await task
    after = await games.get_committed(game.game_id)
    assert after is not None and after.state_json == '{"step": 2}'


async def test_a_failed_append_inside_a_transaction_undoes_only_itself(
    seeded: Repositories, game: Game
) -> None:
    """The batch is all or nothing inside the action's transaction too (a savepoint)."""
    async with seeded.database.transaction():
        await seeded.processed.mark_update(11, now=T0)
        with pytest.raises(sqlite3.Error):
            await seeded.protocol.append(
                game.game_id, [NewEvent(T0, '{"type": "fine"}'), NewEvent(T0, '{"type": ')]
            )
        await seeded.protocol.append(game.game_id, [NewEvent(T0, '{"type": "seats_drawn"}')])
    assert [e.type for e in await seeded.protocol.read(game.game_id)] == ["seats_drawn"]
    assert await seeded.processed.has_update(11)


async def test_transaction_that_raises_leaves_nothing(seeded: Repositories, game: Game) -> None:
    async def deal_then_fail() -> None:
        async with seeded.database.transaction():
            await seeded.protocol.append(game.game_id, [NewEvent(T0, '{"type": "seats_drawn"}')])
            await seeded.games.save_state(game.game_id, state_json="{}", deadline=T0, now=T0)
            await seeded.outbox.enqueue(
                game_id=game.game_id, chat_id=HOST, kind="role_card", payload_json="{}", now=T0
            )
            await seeded.processed.mark_update(10, now=T0)
            raise Boom

    with pytest.raises(Boom):
        await deal_then_fail()
    assert await seeded.protocol.read(game.game_id) == []
    assert await seeded.games.get(game.game_id) == game
    assert await seeded.outbox.unsent() == []
    assert not await seeded.processed.has_update(10)


async def test_failing_statement_rolls_back_the_statements_before_it(db: Database) -> None:
    async def ban_twice() -> None:
        async with db.transaction():
            await db.execute("INSERT INTO bans (user_id, reason, at) VALUES (1, 'x', 0)")
            await db.execute("INSERT INTO bans (user_id, reason, at) VALUES (1, 'y', 0)")

    with pytest.raises(sqlite3.IntegrityError):
        await ban_twice()
    assert await count(db, "bans") == 0


async def test_nested_transaction_is_a_savepoint(db: Database) -> None:
    async def ban_then_fail() -> None:
        async with db.transaction():
            await db.execute("INSERT INTO bans (user_id, reason, at) VALUES (2, 'undone', 0)")
            raise Boom

    async with db.transaction():
        await db.execute("INSERT INTO bans (user_id, reason, at) VALUES (1, 'kept', 0)")
        with pytest.raises(Boom):
            await ban_then_fail()
        async with db.transaction():
            await db.execute("INSERT INTO bans (user_id, reason, at) VALUES (3, 'kept', 0)")
    rows = await db.fetch_all("SELECT user_id FROM bans ORDER BY user_id")
    assert [row[0] for row in rows] == [1, 3]


async def test_outer_rollback_undoes_released_savepoints(db: Database) -> None:
    async def nest_then_fail() -> None:
        async with db.transaction():
            async with db.transaction():
                await db.execute("INSERT INTO bans (user_id, reason, at) VALUES (1, 'x', 0)")
            raise Boom

    with pytest.raises(Boom):
        await nest_then_fail()
    assert await count(db, "bans") == 0


async def test_other_tasks_wait_and_never_see_uncommitted_writes(db: Database) -> None:
    written = asyncio.Event()
    release = asyncio.Event()

    async def write_then_fail() -> None:
        async with db.transaction():
            await db.execute("INSERT INTO bans (user_id, reason, at) VALUES (1, 'x', 0)")
            written.set()
            await release.wait()
            raise Boom

    writer = asyncio.create_task(write_then_fail())
    await written.wait()
    reader = asyncio.create_task(db.fetch_all("SELECT * FROM bans"))
    other_writer = asyncio.create_task(
        db.execute("INSERT INTO bans (user_id, reason, at) VALUES (2, 'y', 0)")
    )
    await asyncio.sleep(0.05)
    assert not reader.done()
    assert not other_writer.done()
    release.set()
    with pytest.raises(Boom):
        await writer
    assert await reader == []
    assert await other_writer == 1
    rows = await db.fetch_all("SELECT user_id FROM bans")
    assert [row[0] for row in rows] == [2]


async def test_cancelled_transaction_rolls_back_and_frees_the_database(db: Database) -> None:
    written = asyncio.Event()

    async def write_and_hang() -> None:
        async with db.transaction():
            await db.execute("INSERT INTO bans (user_id, reason, at) VALUES (1, 'x', 0)")
            written.set()
            await asyncio.Event().wait()

    task = asyncio.create_task(write_and_hang())
    await written.wait()
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert await count(db, "bans") == 0
    async with db.transaction():
        await db.execute("INSERT INTO bans (user_id, reason, at) VALUES (2, 'y', 0)")
    assert await count(db, "bans") == 1


async def test_execute_many_is_atomic(db: Database) -> None:
    with pytest.raises(sqlite3.IntegrityError):
        await db.execute_many(
            "INSERT INTO bans (user_id, reason, at) VALUES (?, ?, ?)",
            [(1, "a", 0.0), (2, "b", 0.0), (1, "again", 0.0)],
        )
    assert await count(db, "bans") == 0


async def test_data_survives_reopening(db_path: Path) -> None:
    async with await Database.open(db_path) as db:
        repos = Repositories.of(db)
        await repos.users.upsert(HOST, first_name="Host", username="host")
        await repos.chats.upsert(CHAT, type=ChatType.GROUP, title="Club")
    async with await Database.open(db_path) as db:
        repos = Repositories.of(db)
        assert (await repos.users.get(HOST)) is not None
        assert (await repos.chats.get(CHAT)) is not None


async def test_open_waits_for_another_process_holding_the_file(db_path: Path) -> None:
    other = sqlite3.connect(db_path, isolation_level=None)
    other.execute("BEGIN EXCLUSIVE")
    asyncio.get_running_loop().call_later(0.1, other.execute, "COMMIT")
    try:
        async with await Database.open(db_path, busy_timeout=5) as db:
            assert await pragma(db, "journal_mode") == "wal"
    finally:
        other.close()


async def test_open_gives_up_after_busy_timeout(db_path: Path) -> None:
    other = sqlite3.connect(db_path, isolation_level=None)
    other.execute("BEGIN EXCLUSIVE")
    try:
        with pytest.raises(sqlite3.OperationalError, match="locked"):
            await Database.open(db_path, busy_timeout=0.05)
    finally:
        other.close()
