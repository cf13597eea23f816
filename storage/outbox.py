"""Messages a game depends on (role cards, night results), stored before they are sent.

A role card that was dealt but never delivered breaks the game, and a crash can fall
between committing the deal and sending the card. So the card is enqueued in the
transaction that appends the deal to the protocol; a sender delivers what is unsent,
at once and again at start-up, and marks each message sent with its Telegram id.
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass

import aiosqlite

from storage.db import Database, Work
from storage.failures import NotFoundError


@dataclass(frozen=True, slots=True)
class OutboxMessage:
    """A message to deliver: `kind` tells the renderer what `payload_json` describes.

    `sent_at` and `message_id` are both None until the message has been delivered.
    """

    outbox_id: int
    game_id: int
    chat_id: int
    kind: str
    payload_json: str
    created_at: float
    sent_at: float | None
    message_id: int | None


def _message(row: aiosqlite.Row | sqlite3.Row) -> OutboxMessage:
    return OutboxMessage(
        outbox_id=row["outbox_id"],
        game_id=row["game_id"],
        chat_id=row["chat_id"],
        kind=row["kind"],
        payload_json=row["payload_json"],
        created_at=row["created_at"],
        sent_at=row["sent_at"],
        message_id=row["message_id"],
    )


def enqueuing(
    *, game_id: int, chat_id: int, kind: str, payload_json: str, now: float
) -> Work[OutboxMessage]:
    """`OutboxRepository.enqueue`, as a statement for `Database.atomic`."""

    def enqueue(connection: sqlite3.Connection) -> OutboxMessage:
        (row,) = connection.execute(
            "INSERT INTO outbox (game_id, chat_id, kind, payload_json, created_at) "
            "VALUES (?, ?, ?, ?, ?) RETURNING *",
            (game_id, chat_id, kind, payload_json, now),
        ).fetchall()
        return _message(row)

    return enqueue


def marking_sent(outbox_id: int, *, message_id: int, now: float) -> Work[bool]:
    """`OutboxRepository.mark_sent`, as statements for `Database.atomic`."""

    def mark_sent(connection: sqlite3.Connection) -> bool:
        if connection.execute(
            "UPDATE outbox SET sent_at = ?, message_id = ? WHERE outbox_id = ? AND sent_at IS NULL",
            (now, message_id, outbox_id),
        ).rowcount:
            return True
        if connection.execute("SELECT 1 FROM outbox WHERE outbox_id = ?", (outbox_id,)).fetchone():
            return False
        raise NotFoundError(f"no outbox message {outbox_id}")

    return mark_sent


class OutboxRepository:
    """Reads and writes `outbox`."""

    def __init__(self, database: Database) -> None:
        self._db = database

    async def enqueue(
        self, *, game_id: int, chat_id: int, kind: str, payload_json: str, now: float
    ) -> OutboxMessage:
        """Store a message to send; call it in the transaction that records why it is sent."""
        return await self._db.atomic(
            enqueuing(
                game_id=game_id, chat_id=chat_id, kind=kind, payload_json=payload_json, now=now
            )
        )

    async def mark_sent(self, outbox_id: int, *, message_id: int, now: float) -> bool:
        """Record the delivery; False if the message had already been marked sent."""
        # One trip, its own transaction: every message sent is ticked off.
        return await self._db.atomic(marking_sent(outbox_id, message_id=message_id, now=now))

    async def showing(self, outbox_id: int, message_id: int, payload_json: str) -> None:
        """The row's message, `message_id`, now shows what `payload_json` says (an edited
        table message: a restart reads what it shows); nothing unless the row is that
        message. By the row's key: one row read, not the outbox searched for the game's
        (a search took the database's thread for milliseconds at each edit, and the
        games' commits waited behind it). One trip, committed with whatever else waits
        (group commit): a game's action never waits behind it."""

        def show(connection: sqlite3.Connection) -> None:
            connection.execute(
                "UPDATE outbox SET payload_json = ? WHERE outbox_id = ? AND message_id = ?",
                (payload_json, outbox_id, message_id),
            )

        await self._db.atomic(show)

    async def prune(self, *, before: float, limit: int | None = None) -> int:
        """Forget the messages delivered before `before` of games no longer running;
        return how many. Nothing reads them again (a restart resends what is unsent and
        recalls a running game's table message), and they would grow the file for ever.
        `limit` caps the rows one call deletes, as for the update marks."""
        cap = -1 if limit is None else limit  # SQLite: a negative LIMIT is none
        async with self._db.transaction():
            return await self._db.execute(
                "DELETE FROM outbox WHERE outbox_id IN (SELECT o.outbox_id FROM outbox AS o "
                "JOIN games AS g ON g.game_id = o.game_id WHERE o.sent_at IS NOT NULL "
                "AND o.sent_at < ? AND g.status != 'running' LIMIT ?)",
                (before, cap),
            )

    async def unsent(self, game_id: int | None = None) -> list[OutboxMessage]:
        """Messages not yet delivered, in the order they were enqueued; of one game if given."""
        rows = await self._db.fetch_all(
            "SELECT * FROM outbox WHERE sent_at IS NULL AND (? IS NULL OR game_id = ?) "
            "ORDER BY outbox_id",
            (game_id, game_id),
        )
        return [_message(row) for row in rows]

    async def latest(self, game_id: int, kind: str) -> OutboxMessage | None:
        """The game's last message of `kind`, sent or not (the table message: `bot.views.board`)."""
        row = await self._db.fetch_one(
            "SELECT * FROM outbox WHERE game_id = ? AND kind = ? ORDER BY outbox_id DESC LIMIT 1",
            (game_id, kind),
        )
        return None if row is None else _message(row)

    async def latest_of_running(self, kind: str) -> dict[int, OutboxMessage]:
        """Every running game's last message of `kind`, by game, in one read (a restart
        picks up all the table messages at once)."""
        rows = await self._db.fetch_all(
            "SELECT o.* FROM outbox AS o JOIN ("
            "  SELECT max(outbox_id) AS last FROM outbox WHERE kind = ? AND game_id IN "
            "  (SELECT game_id FROM games WHERE status = 'running') GROUP BY game_id"
            ") AS l ON o.outbox_id = l.last",
            (kind,),
        )
        return {row["game_id"]: _message(row) for row in rows}
