"""One SQLite connection shared by the whole bot, with explicit transactions.

The bot must never tell a person something it has not yet stored: it appends the
game's events, saves its state and marks the Telegram update processed in one
transaction, commits, and only then answers. `Database.transaction` is that unit.

A single aiosqlite connection serves every coroutine, so a transaction holds an
`asyncio.Lock` for its whole duration: otherwise another coroutine's statement would
run inside it, and be committed or rolled back with it. Statements outside a
transaction take the same lock, so they never see another coroutine's uncommitted
writes. The task that holds the transaction may nest further `transaction()` blocks;
they become savepoints, so a failing inner block is undone without ending the outer.
A task that the holder spawns is not the holder: if the holder waits for it while it
uses the database, both wait forever.

Most writes are `Work`: a function of the connection, run on its thread in one trip
(`Database.atomic`). Work that comes while a trip is under way is committed together
in the next trip, each in a savepoint of one transaction (group commit): a burst of
presses costs one COMMIT and one fsync, nobody hears of an action before its commit,
and a failing piece is undone alone.

A second connection only reads (`fetch_committed`): what is committed, on a thread of
its own, without waiting behind the writes under way. An action that holds its game's
lock reads its game this way; everything else reads through the first connection.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import secrets
import sqlite3
import time
from collections.abc import AsyncIterator, Callable, Iterable, Sequence
from contextlib import asynccontextmanager
from types import TracebackType
from typing import Literal, Self, TypeAlias, TypeVar

import aiosqlite

from storage.failures import StorageError
from storage.migrations import MIGRATIONS, Migration, apply_migrations
from storage.nicks import nick_key

log = logging.getLogger(__name__)
SLOW_COMMIT = 0.25  # seconds

# What a statement parameter may be: the types SQLite stores without adapters.
SqlValue: TypeAlias = int | float | str | bytes | None
T = TypeVar("T")
# Statements run together on the connection's own thread (`Database.atomic`).
Work: TypeAlias = Callable[[sqlite3.Connection], T]

# SQLite's `synchronous` pragma, as the config names it.
Synchronous: TypeAlias = Literal["full", "normal"]
SYNCHRONOUS: dict[str, str] = {"full": "FULL", "normal": "NORMAL"}

PRIVATE = 0o600  # the database's files: they hold the seeds and roles of running games

# STRICT tables (3.37), RETURNING (3.35) and the built-in JSON functions (3.38).
MIN_SQLITE_VERSION = (3, 38, 0)


class Database:
    """The bot's database: one writing connection with serialized transactions, one
    reader of what is committed, the schema kept current."""

    def __init__(self, connection: aiosqlite.Connection) -> None:
        """Wrap an open connection; use `Database.open`, which also configures and migrates."""
        self._connection = connection
        # A second connection to the same file, for `fetch_committed` (`open` adds it once
        # the schema is current); without it, those reads go through the first one.
        self._reader: aiosqlite.Connection | None = None
        self._reading = 0  # reads under way on the reader
        self._lock = asyncio.Lock()
        self._holder: asyncio.Task[object] | None = None
        self._savepoints = 0
        # Group commit: `atomic` work that waits while a trip is under way, and the task
        # that commits it together in the next.
        self._waiting: list[tuple[Work[object], asyncio.Future[object]]] = []
        self._committer: asyncio.Task[None] | None = None
        # The unguessable tokens of join and registration links. The offline demo swaps
        # in a seeded source, so that the same seed prints the same transcript.
        self.new_token: Callable[[], str] = lambda: secrets.token_urlsafe(16)

    @classmethod
    async def open(
        cls,
        path: str | os.PathLike[str],
        *,
        busy_timeout: float = 5.0,
        synchronous: Synchronous = "full",
        migrations: Sequence[Migration] = MIGRATIONS,
    ) -> Self:
        """Open (creating if needed) the database file at `path` and bring its schema up to date.

        `path` must name a file: WAL, which lets a backup read while the bot writes,
        does not exist for an in-memory database, so ":memory:" is refused.
        `busy_timeout` (seconds) is how long a write waits for another process holding
        the file (a backup, the sqlite3 shell) before failing. `synchronous` is SQLite's
        pragma: "full" (a commit is on disk before the bot says anything of it) or
        "normal" (a power loss may take the last commits). `migrations` exists so
        that tests can build a database as an older version of the code left it.
        Raises `SchemaTooNewError` for a database written by newer code.
        """
        if sqlite3.sqlite_version_info < MIN_SQLITE_VERSION:
            raise StorageError(
                f"SQLite {sqlite3.sqlite_version} is too old: "
                f"{'.'.join(map(str, MIN_SQLITE_VERSION))} or newer is needed"
            )
        # isolation_level=None: the sqlite3 module opens no transactions behind our back;
        # every transaction is the explicit BEGIN IMMEDIATE of `transaction()`.
        _make_private(path)
        connection = await aiosqlite.connect(os.fspath(path), isolation_level=None)
        try:
            connection.row_factory = aiosqlite.Row
            await _configure(connection, busy_timeout, synchronous)
            _make_private(path)  # the -wal and -shm files the switch to WAL created
            database = cls(connection)
            await apply_migrations(database, migrations)
            # Only now: migrations run with foreign keys off (a table rebuild drops and
            # renames tables) and check the keys themselves before committing.
            await _pragma(connection, "foreign_keys = ON")
            if await _pragma(connection, "foreign_keys") != 1:
                raise StorageError("this SQLite build cannot enforce foreign keys")
            database._reader = await _open_reader(path, busy_timeout)
        except BaseException:
            await connection.close()
            raise
        return database

    @property
    def busy(self) -> bool:
        """A statement or a transaction is under way (a driver of a virtual clock waits)."""
        return self._lock.locked() or bool(self._waiting) or self._reading > 0

    async def close(self) -> None:
        """Close the connection once the transaction in progress, if any, has ended."""
        if self._committer is not None:
            await self._committer
        async with self._lock:
            await self._connection.close()
            if self._reader is not None:
                await self._reader.close()

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        await self.close()

    @asynccontextmanager
    async def transaction(self) -> AsyncIterator[None]:
        """Run the block atomically: everything it wrote is committed, or nothing is.

        BEGIN IMMEDIATE takes SQLite's write lock at the start, so a transaction that
        reads and then writes cannot fail half-way because another process wrote first.
        Inside a transaction of the same task this opens a savepoint instead.
        """
        if self._holds_transaction():
            async with self._savepoint():
                yield
            return
        async with self._lock:
            await self._in_thread(_rowcount, "BEGIN IMMEDIATE", ())
            self._holder = asyncio.current_task()
            try:
                yield
                await self._in_thread(_commit)
            except BaseException:
                if self._connection.in_transaction:
                    await self._in_thread(_rowcount, "ROLLBACK", ())
                raise
            finally:
                self._holder = None

    async def execute(self, sql: str, params: Sequence[SqlValue] = ()) -> int:
        """Run one statement and return how many rows it changed."""
        async with self._serialized():
            return await self._in_thread(_rowcount, sql, params)

    async def execute_many(self, sql: str, rows: Iterable[Sequence[SqlValue]]) -> None:
        """Run one statement for each row of parameters, all of them or none."""
        rows = list(rows)
        await self.atomic(lambda connection: connection.executemany(sql, rows).close())

    async def atomic(self, work: Callable[[sqlite3.Connection], T]) -> T:
        """Run `work` on the connection's own thread in one go: all it wrote stands, or none.

        Inside the task's transaction it runs in a savepoint of it; otherwise in a
        savepoint of a transaction it may share with other work (group commit), which
        is committed when this returns. One trip to the database's thread, however many
        statements `work` runs: under load, each trip costs the bot more than a small
        statement does (a thread hand-over and a wake-up of the event loop).
        """
        if self._holds_transaction():
            self._savepoints += 1
            try:
                return await self._in_thread(_in_savepoint, f"nested_{self._savepoints}", work)
            finally:
                self._savepoints -= 1
        # Its own transaction, begun and committed in the same trip, with whatever other
        # work came while the last trip was under way: one commit (and one fsync) for a
        # burst of presses, each in a savepoint, so that one failing undoes only itself.
        future: asyncio.Future[object] = asyncio.get_running_loop().create_future()
        self._waiting.append((work, future))
        if self._committer is None:
            self._committer = asyncio.create_task(self._commit_waiting())
        result: T = await future  # type: ignore[assignment]
        return result

    async def _commit_waiting(self) -> None:
        try:
            while self._waiting:
                async with self._lock:
                    batch = [(w, f) for w, f in self._waiting if not f.cancelled()]
                    self._waiting = []
                    if not batch:
                        continue
                    try:
                        outcomes = await self._in_thread(_in_group, [w for w, _ in batch])
                    except Exception as error:  # the commit itself failed: none stands
                        outcomes = [_Failed(error)] * len(batch)
                for (_, future), outcome in zip(batch, outcomes, strict=True):
                    if future.done():
                        pass
                    elif isinstance(outcome, _Failed):
                        future.set_exception(outcome.error)
                    else:
                        future.set_result(outcome)
        finally:
            self._committer = None

    async def fetch_one(self, sql: str, params: Sequence[SqlValue] = ()) -> aiosqlite.Row | None:
        """Run a query (or a statement with RETURNING) and return its first row, if any."""
        rows = await self.fetch_all(sql, params)
        return rows[0] if rows else None

    async def fetch_all(self, sql: str, params: Sequence[SqlValue] = ()) -> list[aiosqlite.Row]:
        """Run a query (or a statement with RETURNING) and return all its rows.

        Every row is fetched, even when one is wanted: SQLite finishes a statement
        with RETURNING only when it has been stepped to the end.
        """
        async with self._serialized():
            return list(await self._connection.execute_fetchall(sql, params))

    async def fetch_committed(
        self, sql: str, params: Sequence[SqlValue] = ()
    ) -> list[aiosqlite.Row]:
        """`fetch_all`, of what is committed, without waiting for the writes under way.

        A read through the writing connection waits for the transaction or the group
        commit in progress, its `fsync` included; under load that wait was most of the
        time an action took to read its game (`make bench`, *state*). The reader
        connection sees every commit that has finished, which is all a caller that holds
        the game's lock needs. Inside a transaction, the read is the transaction's own.
        """
        if self._reader is None or self._holds_transaction():
            return await self.fetch_all(sql, params)
        self._reading += 1
        try:
            return list(await self._reader.execute_fetchall(sql, params))
        finally:
            self._reading -= 1

    def _holds_transaction(self) -> bool:
        return self._holder is not None and self._holder is asyncio.current_task()

    async def _in_thread(self, work: Callable[..., T], *args: object) -> T:
        """`work(connection, *args)` on the thread that owns the connection.

        aiosqlite runs each of its own calls this way (`Connection._execute`, with the
        connection as `_conn`); it offers no public door for a function of ours.
        """
        connection = self._connection
        result: T = await connection._execute(lambda: work(connection._conn, *args))  # type: ignore[no-untyped-call]
        return result

    @asynccontextmanager
    async def _serialized(self) -> AsyncIterator[None]:
        """Join the current task's transaction, or wait until no transaction is open."""
        if self._holds_transaction():
            yield
            return
        async with self._lock:
            yield

    @asynccontextmanager
    async def _savepoint(self) -> AsyncIterator[None]:
        self._savepoints += 1
        name = f"nested_{self._savepoints}"
        try:
            await self._connection.execute(f"SAVEPOINT {name}")
            try:
                yield
            except BaseException:
                await self._connection.execute(f"ROLLBACK TO {name}")
                await self._connection.execute(f"RELEASE {name}")
                raise
            await self._connection.execute(f"RELEASE {name}")
        finally:
            self._savepoints -= 1


def _rowcount(connection: sqlite3.Connection, sql: str, params: Sequence[SqlValue]) -> int:
    cursor = connection.execute(sql, params)
    try:
        return cursor.rowcount
    finally:
        cursor.close()


def _commit(connection: sqlite3.Connection) -> None:
    began = time.monotonic()
    connection.execute("COMMIT")
    took = time.monotonic() - began
    if took > SLOW_COMMIT:  # every game waits meanwhile: a slow disk shows here
        log.warning("a commit took %.2f s", took)


def _in_transaction(connection: sqlite3.Connection, work: Callable[[sqlite3.Connection], T]) -> T:
    """`work` in a transaction of its own (BEGIN IMMEDIATE, as `Database.transaction`)."""
    connection.execute("BEGIN IMMEDIATE")
    try:
        result = work(connection)
        _commit(connection)
    except BaseException:
        if connection.in_transaction:
            connection.execute("ROLLBACK")
        raise
    return result


class _Failed:
    """A piece of work of a group that failed, and was undone alone."""

    def __init__(self, error: Exception) -> None:
        self.error = error


def _in_group(connection: sqlite3.Connection, works: Sequence[Work[object]]) -> list[object]:
    """Each work in a savepoint of one transaction, committed once: what each returned,
    or `_Failed` with what it raised."""

    def each(inner: sqlite3.Connection) -> list[object]:
        outcomes: list[object] = []
        for number, work in enumerate(works):
            try:
                outcomes.append(_in_savepoint(inner, f"work_{number}", work))
            except Exception as error:
                outcomes.append(_Failed(error))
        return outcomes

    return _in_transaction(connection, each)


def _in_savepoint(
    connection: sqlite3.Connection, name: str, work: Callable[[sqlite3.Connection], T]
) -> T:
    connection.execute(f"SAVEPOINT {name}")
    try:
        result = work(connection)
    except BaseException:
        connection.execute(f"ROLLBACK TO {name}")
        connection.execute(f"RELEASE {name}")
        raise
    connection.execute(f"RELEASE {name}")
    return result


def _make_private(path: str | os.PathLike[str]) -> None:
    """The database and its companion files readable by the bot's own user only.

    They hold every running game's seed and roles. The file is created here, owner-only,
    before SQLite opens it (SQLite gives its -wal, -shm and -journal files the mode of
    the database); a file an older version left readable to others is closed up.
    """
    if os.fspath(path) == ":memory:":
        return  # refused by the switch to WAL, with its own message
    descriptor = os.open(path, os.O_RDWR | os.O_CREAT, PRIVATE)
    try:
        os.fchmod(descriptor, PRIVATE)
    finally:
        os.close(descriptor)
    for suffix in ("-wal", "-shm", "-journal"):
        companion = f"{os.fspath(path)}{suffix}"
        with contextlib.suppress(FileNotFoundError):
            os.chmod(companion, PRIVATE)


async def _configure(
    connection: aiosqlite.Connection, busy_timeout: float, synchronous: Synchronous
) -> None:
    """Set the per-connection pragmas that durability and concurrency depend on."""
    # First, so that switching to WAL waits for another process instead of failing.
    await _pragma(connection, f"busy_timeout = {round(busy_timeout * 1000)}")
    # WAL lets readers (a backup, an export) work while the bot writes; it persists in
    # the file, and an in-memory database cannot have it, so a file path is required.
    mode = await _switch_to_wal(connection, busy_timeout)
    if mode != "wal":
        raise StorageError(f"could not switch the database to WAL (journal_mode is {mode})")
    # In WAL, NORMAL loses at most the last commits on power loss, never consistency;
    # FULL loses none of them, for little CPU (README, "How fast").
    await _pragma(connection, f"synchronous = {SYNCHRONOUS[synchronous]}")
    # Migration 4 fills tournament_players.nick_key with it (storage.nicks).
    await connection.create_function("nick_key", 1, nick_key, deterministic=True)


async def _open_reader(path: str | os.PathLike[str], busy_timeout: float) -> aiosqlite.Connection:
    """The second connection, for `fetch_committed`: it can only read."""
    reader = await aiosqlite.connect(os.fspath(path), isolation_level=None)
    try:
        reader.row_factory = aiosqlite.Row
        await _pragma(reader, f"busy_timeout = {round(busy_timeout * 1000)}")
        await _pragma(reader, "query_only = ON")
    except BaseException:
        await reader.close()
        raise
    return reader


async def _switch_to_wal(connection: aiosqlite.Connection, busy_timeout: float) -> object:
    """Switch the journal to WAL, retrying while another connection holds the file.

    SQLite reports a lock on this switch at once, without waiting for busy_timeout,
    when another process is opening the same fresh file; so wait here instead.
    """
    loop = asyncio.get_running_loop()
    give_up = loop.time() + busy_timeout
    while True:
        try:
            return await _pragma(connection, "journal_mode = WAL")
        except sqlite3.OperationalError as error:
            if error.sqlite_errorcode != sqlite3.SQLITE_BUSY or loop.time() >= give_up:
                raise
        await asyncio.sleep(0.01)


async def _pragma(connection: aiosqlite.Connection, pragma: str) -> object:
    """Run a PRAGMA (which takes no bound parameters) and return its value, if it has one."""
    rows = list(await connection.execute_fetchall(f"PRAGMA {pragma}"))
    return rows[0][0] if rows else None
