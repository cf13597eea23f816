"""Telegram updates and button presses already handled, so that a redelivery changes nothing.

Telegram redelivers an update when the bot crashed before confirming it. Marking it in
the same transaction as its effects makes handling it exactly-once: either both the
effects and the mark are stored, or neither is and the redelivery is handled afresh.
"""

from __future__ import annotations

import sqlite3

from storage.db import Database, Work


def marking_update(update_id: int, *, now: float) -> Work[bool]:
    """`ProcessedRepository.mark_update`, as a statement for `Database.atomic`."""

    def mark_update(connection: sqlite3.Connection) -> bool:
        changed = connection.execute(
            "INSERT INTO processed_updates (update_id, processed_at) VALUES (?, ?) "
            "ON CONFLICT (update_id) DO NOTHING",
            (update_id, now),
        ).rowcount
        return changed > 0

    return mark_update


class ProcessedRepository:
    """Reads and writes `processed_updates` and `processed_callback_queries`."""

    def __init__(self, database: Database) -> None:
        self._db = database

    async def mark_update(self, update_id: int, *, now: float) -> bool:
        """Mark the update handled; False if it already was, and must then be dropped."""
        return await self._db.atomic(marking_update(update_id, now=now))

    async def latest_update(self) -> int | None:
        """The highest update id marked handled, None if none is."""
        row = await self._db.fetch_one("SELECT max(update_id) AS latest FROM processed_updates")
        return None if row is None or row["latest"] is None else int(row["latest"])

    async def has_update(self, update_id: int) -> bool:
        """Whether the update was handled: a cheap check before doing any work for it."""
        row = await self._db.fetch_one(
            "SELECT 1 FROM processed_updates WHERE update_id = ?", (update_id,)
        )
        return row is not None

    async def prune(self, *, before: float, limit: int | None = None) -> int:
        """Forget marks older than `before`, long past any redelivery; return how many.

        Telegram keeps an unconfirmed update for at most 24 hours, so a mark older than
        that can no longer stop anything and only grows the file. `limit` caps the rows
        each table loses in one call, so that a bot catching up on a backlog holds the
        database for a few milliseconds at a time, not for one long delete.
        """
        cap = -1 if limit is None else limit  # SQLite: a negative LIMIT is none
        async with self._db.transaction():
            updates = await self._db.execute(
                "DELETE FROM processed_updates WHERE update_id IN (SELECT update_id "
                "FROM processed_updates WHERE processed_at < ? LIMIT ?)",
                (before, cap),
            )
            queries = await self._db.execute(
                "DELETE FROM processed_callback_queries WHERE callback_query_id IN (SELECT "
                "callback_query_id FROM processed_callback_queries WHERE processed_at < ? "
                "LIMIT ?)",
                (before, cap),
            )
        return updates + queries
