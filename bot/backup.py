"""`python -m bot backup PATH`: a consistent copy of the database while the bot runs.

SQLite's online backup API copies the database page by page as one snapshot: what a
transaction committed is in the copy or not, never half of it, and the bot goes on
writing meanwhile (WAL). The copy is written beside its final name and renamed only once
it is complete and passes SQLite's integrity check, so a file under the final name is
always a whole backup. It holds the seeds and cards of running games, like the database:
it is created readable by its owner only (0600). How to restore: README, "Backups".
"""

from __future__ import annotations

import os
import sqlite3
import time
from pathlib import Path
from typing import TextIO

from storage.db import PRIVATE

OK, PROBLEM = 0, 1
BUSY_TIMEOUT_MS = 5000  # a write of the bot's holds the file this long at most


def backup_name(now: float) -> str:
    return time.strftime("mafia-%Y%m%d-%H%M%S.sqlite3", time.gmtime(now))


def backup(database: Path, target: Path, out: TextIO, now: float | None = None) -> int:
    """Copy `database` to `target` (a file that must not exist yet, or a folder)."""
    if not database.is_file():
        print(f"✗ there is no database at {database}", file=out)
        return PROBLEM
    if target.is_dir():
        target = target / backup_name(time.time() if now is None else now)
    if target.exists():
        print(f"✗ {target} exists already; a backup never overwrites a file", file=out)
        return PROBLEM
    if not target.parent.is_dir():
        print(f"✗ the folder {target.parent} does not exist", file=out)
        return PROBLEM
    partial = target.with_name(f".{target.name}.partial")
    try:
        _copy(database, partial)
        os.replace(partial, target)
    except (sqlite3.Error, OSError, ValueError) as error:
        partial.unlink(missing_ok=True)
        print(f"✗ the backup failed: {error}", file=out)
        return PROBLEM
    size = target.stat().st_size
    print(f"✓ {database} backed up to {target} ({size:,} bytes)", file=out)
    return OK


def _copy(database: Path, partial: Path) -> None:
    # Owner-only before the first byte: the copy holds what the database holds.
    descriptor = os.open(partial, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, PRIVATE)
    os.fchmod(descriptor, PRIVATE)
    os.close(descriptor)
    source = sqlite3.connect(f"{database.resolve().as_uri()}?mode=ro", uri=True)
    copy = sqlite3.connect(partial)
    try:
        source.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
        source.backup(copy)
        # One self-contained file (no -wal beside it); the bot switches it back to WAL
        # when it opens a restored copy.
        copy.execute("PRAGMA journal_mode = DELETE")
        verdict = copy.execute("PRAGMA integrity_check").fetchone()[0]
        if verdict != "ok":
            raise ValueError(f"the copy fails SQLite's integrity check: {verdict}")
    finally:
        copy.close()
        source.close()
