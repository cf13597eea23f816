"""`python -m bot backup PATH`: a consistent copy of the database while the bot runs.

SQLite's online backup API copies the database page by page as one snapshot: what a
transaction committed is in the copy or not, never half of it, and the bot goes on
writing meanwhile (WAL). The copy is written beside its final name and renamed only once
it is complete and passes SQLite's integrity check, so a file under the final name is
always a whole backup. It holds the seeds and cards of running games, like the database:
it is created readable by its owner only (0600). How to restore: README, "Backups".
"""

from __future__ import annotations

import contextlib
import errno
import os
import sqlite3
import stat
import tempfile
import time
from pathlib import Path
from typing import TextIO

from storage.db import PRIVATE

OK, PROBLEM = 0, 1
BUSY_TIMEOUT_MS = 5000  # a write of the bot's holds the file this long at most


def backup_name(now: float) -> str:
    return time.strftime("mafia-%Y%m%d-%H%M%S.sqlite3", time.gmtime(now))


def backup(database: Path, target: Path | str, out: TextIO, now: float | None = None) -> int:
    """Copy `database` to `target`: a file that must not exist yet, or a folder (a path
    that ends with "/" is one, made if missing, as a nightly cron line expects)."""
    if not database.is_file():
        print(f"✗ there is no database at {database}", file=out)
        return PROBLEM
    folder_meant = str(target).endswith(("/", os.sep))
    target = Path(target)
    if folder_meant and not target.exists():
        try:
            target.mkdir(mode=0o700, parents=True)
        except OSError as error:
            print(f"✗ could not make the folder {target}: {error}", file=out)
            return PROBLEM
        print(f"· made the folder {target}", file=out)
    if target.is_dir():
        target = target / backup_name(time.time() if now is None else now)
    if target.exists() or target.is_symlink():
        print(f"✗ {target} exists already; a backup never overwrites a file", file=out)
        return PROBLEM
    if not target.parent.is_dir():
        print(
            f"✗ the folder {target.parent} does not exist (end the path with / to have it made)",
            file=out,
        )
        return PROBLEM
    if _open_to_others(target.parent):
        print(
            f"✗ others may write in {target.parent}: a copy of the database (seeds, roles) "
            "does not go there; choose a folder only its owner writes in",
            file=out,
        )
        return PROBLEM
    try:
        partial = _copy(database, target.parent, target.name)
    except (sqlite3.Error, OSError, ValueError) as error:
        print(f"✗ the backup failed: {error}", file=out)
        return PROBLEM
    try:
        _place(partial, target)
    except OSError as error:
        print(f"✗ the backup failed: {error}", file=out)
        return PROBLEM
    finally:
        partial.unlink(missing_ok=True)
    size = target.stat().st_size
    games, tournaments = holds(target)
    print(
        f"✓ {database} backed up to {target} ({size:,} bytes; "
        f"{games} games, {tournaments} tournaments)",
        file=out,
    )
    return OK


def _place(partial: Path, target: Path) -> None:
    """Give the finished copy its name, never over a file that appeared meanwhile: a hard
    link fails if the name is taken. A file system without hard links gets a rename after
    one more look."""
    try:
        os.link(partial, target)
    except OSError as error:
        if error.errno not in (errno.EPERM, errno.ENOTSUP, errno.EOPNOTSUPP, errno.EXDEV):
            raise
        if target.exists() or target.is_symlink():
            raise FileExistsError(errno.EEXIST, "exists already", str(target)) from error
        os.rename(partial, target)


def _open_to_others(folder: Path) -> bool:
    """A folder others may write in, without the sticky bit that keeps them from
    renaming or removing our files there."""
    mode = folder.stat().st_mode
    return bool(mode & (stat.S_IWGRP | stat.S_IWOTH)) and not mode & stat.S_ISVTX


def holds(copy: Path) -> tuple[int, int]:
    """How many games and tournaments a database (or a copy of one) holds."""
    with contextlib.closing(sqlite3.connect(f"{copy.resolve().as_uri()}?mode=ro", uri=True)) as db:
        tables = {row[0] for row in db.execute("SELECT name FROM sqlite_master")}
        games = db.execute("SELECT count(*) FROM games").fetchone()[0] if "games" in tables else 0
        tours = "tournaments" in tables
        tournaments = db.execute("SELECT count(*) FROM tournaments").fetchone()[0] if tours else 0
    return int(games), int(tournaments)


def _copy(database: Path, folder: Path, name: str) -> Path:
    """The copy, under a fresh name in `folder`, complete and checked.

    The file is created exclusively under a name nobody can have planted (a link put at
    a predictable name would have had the copy written, or truncated, wherever it
    pointed), owner-only before its first byte: it holds what the database holds.
    """
    descriptor, name_made = tempfile.mkstemp(prefix=f".{name}.", suffix=".partial", dir=folder)
    partial = Path(name_made)
    try:
        os.fchmod(descriptor, PRIVATE)
        os.close(descriptor)
        source = sqlite3.connect(f"{database.resolve().as_uri()}?mode=ro", uri=True)
        copy = sqlite3.connect(partial)
        try:
            source.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
            source.backup(copy)
            # One self-contained file (no -wal beside it); the bot switches it back to
            # WAL when it opens a restored copy.
            copy.execute("PRAGMA journal_mode = DELETE")
            verdict = copy.execute("PRAGMA integrity_check").fetchone()[0]
            if verdict != "ok":
                raise ValueError(f"the copy fails SQLite's integrity check: {verdict}")
        finally:
            copy.close()
            source.close()
    except BaseException:
        partial.unlink(missing_ok=True)
        raise
    return partial
