"""`python -m bot restore FILE`: the README's restore steps as one command.

It refuses while a bot runs on the database (the running bot holds `RunLock`), checks the
backup (a SQLite file that passes the integrity check, written by this version or an
older one), moves the current database and its -wal and -shm files aside (kept, under a
dated name, until the restored bot is seen to run), puts the copy in its place owned like
the database's folder and readable by that owner only, and opens it once, which migrates
an older copy to the current schema. Each step prints one line; nothing is half done: the
copy takes the database's name in one rename, after everything else has passed.
"""

from __future__ import annotations

import asyncio
import contextlib
import fcntl
import os
import shutil
import sqlite3
import tempfile
import time
from pathlib import Path
from types import TracebackType
from typing import TextIO

from bot.cli.backup import holds
from storage.db import PRIVATE

OK, PROBLEM = 0, 1


def lock_path(database: Path) -> Path:
    return database.with_name(database.name + ".lock")


class RunLock:
    """Held by a running bot for as long as it runs: a second bot on the same database,
    and a restore under a running bot, are refused. An advisory lock of the kernel's
    (flock), so a bot that is killed lets go of it with its process."""

    def __init__(self, database: Path) -> None:
        self.path = lock_path(database)
        self._fd: int | None = None

    def acquire(self) -> bool:
        fd = os.open(self.path, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW, PRIVATE)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(fd)
            return False
        self._fd = fd
        return True

    def release(self) -> None:
        if self._fd is not None:
            os.close(self._fd)
            self._fd = None

    def __enter__(self) -> RunLock:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        trace: TracebackType | None,
    ) -> None:
        self.release()


def restore(database: Path, backup: Path, out: TextIO, now: float | None = None) -> int:
    from storage.migrations import MIGRATIONS

    latest = MIGRATIONS[-1].version if MIGRATIONS else 0
    if not backup.is_file():
        print(f"✗ there is no backup at {backup}", file=out)
        return PROBLEM
    if database.resolve() == backup.resolve():
        print(f"✗ {backup} is the database itself", file=out)
        return PROBLEM
    if not database.parent.is_dir():
        print(f"✗ the database's folder {database.parent} does not exist", file=out)
        return PROBLEM
    lock = RunLock(database)
    if not lock.acquire():
        print(
            f"✗ a bot is running on {database}: stop it first "
            "(systemctl stop mafia-table, or docker compose stop), then restore",
            file=out,
        )
        return PROBLEM
    with lock:
        try:
            version = _checked(backup)
        except (sqlite3.Error, ValueError) as error:
            print(f"✗ {backup} cannot be restored: {error}", file=out)
            return PROBLEM
        if version > latest:
            print(
                f"✗ {backup} was written by a newer version of the bot (schema {version}, "
                f"this one knows up to {latest}): restore it with that version",
                file=out,
            )
            return PROBLEM
        print(f"✓ {backup}: a whole SQLite database, schema version {version}", file=out)
        folder = database.parent
        owner = folder.stat()
        descriptor, name = tempfile.mkstemp(prefix=f".{database.name}.", dir=folder)
        staged = Path(name)
        try:
            os.fchmod(descriptor, PRIVATE)
            with os.fdopen(descriptor, "wb") as target, backup.open("rb") as source:
                shutil.copyfileobj(source, target)
                target.flush()
                os.fsync(target.fileno())
            if os.geteuid() == 0:
                # Run as root for a bot that runs as its own user: the file is that
                # user's, as the folder is (systemd's StateDirectory, Docker's /data).
                os.chown(staged, owner.st_uid, owner.st_gid)
            stamp = time.strftime("%Y%m%d-%H%M%S", time.gmtime(time.time() if now is None else now))
            aside = []
            for suffix in ("", "-wal", "-shm"):
                current = database.with_name(database.name + suffix)
                if current.exists():
                    moved = current.with_name(f"{current.name}.before-restore-{stamp}")
                    os.rename(current, moved)
                    aside.append(moved)
            os.rename(staged, database)
        except OSError as error:
            staged.unlink(missing_ok=True)
            print(f"✗ the restore failed: {error}", file=out)
            return PROBLEM
        for moved in aside:
            print(f"· kept aside: {moved} (delete it once the restored bot runs)", file=out)
        asyncio.run(_open_once(database))  # migrates an older copy, as a start would
        migrated = version < latest
        if os.geteuid() == 0:
            for suffix in ("-wal", "-shm"):
                with contextlib.suppress(FileNotFoundError):
                    os.chown(database.with_name(database.name + suffix), owner.st_uid, owner.st_gid)
        games, tournaments = holds(database)
        change = f", migrated from {version} to {latest}" if migrated else ""
        print(
            f"✓ restored to {database} (schema version {latest}{change}; {games} games, "
            f"{tournaments} tournaments): start the bot",
            file=out,
        )
    return OK


def _checked(backup: Path) -> int:
    with contextlib.closing(
        sqlite3.connect(f"{backup.resolve().as_uri()}?mode=ro", uri=True)
    ) as db:
        verdict = db.execute("PRAGMA integrity_check").fetchone()[0]
        if verdict != "ok":
            raise ValueError(f"it fails SQLite's integrity check: {verdict}")
        tables = {row[0] for row in db.execute("SELECT name FROM sqlite_master")}
        if "games" not in tables:
            raise ValueError("it is a SQLite file, but not the bot's database")
        return int(db.execute("PRAGMA user_version").fetchone()[0])


async def _open_once(database: Path) -> None:
    from storage.db import Database

    opened = await Database.open(database)
    await opened.close()
