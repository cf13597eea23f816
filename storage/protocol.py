"""The game protocol: an append-only, gap-free log of each game's events.

The protocol is the truth: the sheet, the standings and a resumed game are derived
from it. So this module offers no way to change or remove an event, and the schema's
triggers refuse one made any other way.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence
from dataclasses import dataclass

import aiosqlite

from storage.db import Database, Work

LAST_SEQ = "SELECT coalesce(max(seq), 0) FROM events WHERE game_id = ?"
READ_FROM = "SELECT * FROM events WHERE game_id = ? AND seq >= ? ORDER BY seq"


@dataclass(frozen=True, slots=True)
class NewEvent:
    """An event to append: when it happened, and the event as a JSON object.

    `payload_json` is the whole event as the rules core serialises it, a JSON object
    whose "type" key names the event; the stored `type` is taken from it.
    """

    at: float
    payload_json: str


@dataclass(frozen=True, slots=True)
class StoredEvent:
    """An event of the protocol: `seq` counts the game's events from 1 without gaps."""

    game_id: int
    seq: int
    at: float
    type: str
    payload_json: str


def _event(row: aiosqlite.Row | sqlite3.Row) -> StoredEvent:
    return StoredEvent(
        game_id=row["game_id"],
        seq=row["seq"],
        at=row["at"],
        type=row["type"],
        payload_json=row["payload_json"],
    )


def appending(game_id: int, events: Sequence[NewEvent]) -> Work[list[StoredEvent]]:
    """`ProtocolRepository.append`, as statements for `Database.atomic`."""

    def append(connection: sqlite3.Connection) -> list[StoredEvent]:
        (last,) = connection.execute(LAST_SEQ, (game_id,)).fetchone()
        connection.executemany(
            "INSERT INTO events (game_id, seq, at, type, payload_json) "
            "VALUES (?, ?, ?, json_extract(?, '$.type'), ?)",
            [
                (game_id, seq, event.at, event.payload_json, event.payload_json)
                for seq, event in enumerate(events, start=last + 1)
            ],
        ).close()
        rows = connection.execute(READ_FROM, (game_id, last + 1)).fetchall()
        return [_event(row) for row in rows]

    return append


class ProtocolRepository:
    """Appends to and reads `events`."""

    def __init__(self, database: Database) -> None:
        self._db = database

    async def append(self, game_id: int, events: Sequence[NewEvent]) -> list[StoredEvent]:
        """Append the events, in order, after the game's last one; all of them or none.

        Call it inside the transaction that also saves the state the events lead to,
        so that the protocol and the state never disagree.
        """
        return await self._db.atomic(appending(game_id, events))

    async def read(self, game_id: int, *, from_seq: int = 1) -> list[StoredEvent]:
        """The game's events from `from_seq` on (all of them by default), in order."""
        rows = await self._db.fetch_all(READ_FROM, (game_id, from_seq))
        return [_event(row) for row in rows]
