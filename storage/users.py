"""People the bot knows, and the people it refuses."""

from __future__ import annotations

import json
from collections.abc import Collection
from dataclasses import dataclass

import aiosqlite

from storage.db import Database
from storage.failures import NotFoundError


@dataclass(frozen=True, slots=True)
class User:
    """A Telegram user as last seen, and what the bot needs to know to write to them.

    `started`: they pressed Start in the private chat, so the bot may message them.
    `blocked`: they blocked the bot since, so sending fails until they start it again.
    `lang`: the language they chose, None for the default. `nick`: their tournament nick.
    """

    user_id: int
    first_name: str
    username: str | None
    lang: str | None
    started: bool
    blocked: bool
    nick: str | None


def _user(row: aiosqlite.Row) -> User:
    return User(
        user_id=row["user_id"],
        first_name=row["first_name"],
        username=row["username"],
        lang=row["lang"],
        started=bool(row["started"]),
        blocked=bool(row["blocked"]),
        nick=row["nick"],
    )


class UserRepository:
    """Reads and writes `users`."""

    def __init__(self, database: Database) -> None:
        self._db = database

    async def upsert(self, user_id: int, *, first_name: str, username: str | None) -> User:
        """Record the user's Telegram name as an update shows it; everything else is kept.

        A username belongs to one account at a time, so whoever had it before (it was
        changed or given up since the bot saw them) loses it here.
        """
        async with self._db.transaction():
            await self._db.execute(
                "UPDATE users SET username = NULL "
                "WHERE username = ? COLLATE NOCASE AND user_id != ?",
                (username, user_id),
            )
            row = await self._db.fetch_one(
                "INSERT INTO users (user_id, first_name, username) VALUES (?, ?, ?) "
                "ON CONFLICT (user_id) DO UPDATE SET "
                "first_name = excluded.first_name, username = excluded.username "
                "RETURNING *",
                (user_id, first_name, username),
            )
        assert row is not None  # RETURNING of an upsert always yields the row
        return _user(row)

    async def by_username(self, username: str) -> User | None:
        """The user with this @username (given without the @, in any case), if known."""
        row = await self._db.fetch_one(
            "SELECT * FROM users WHERE username = ? COLLATE NOCASE", (username,)
        )
        return None if row is None else _user(row)

    async def get(self, user_id: int) -> User | None:
        """The user, or None if the bot has not recorded them."""
        row = await self._db.fetch_one("SELECT * FROM users WHERE user_id = ?", (user_id,))
        return None if row is None else _user(row)

    async def many(self, user_ids: Collection[int]) -> dict[int, User]:
        """The known users among `user_ids`, in one read however many they are."""
        rows = await self._db.fetch_all(
            "SELECT * FROM users WHERE user_id IN (SELECT value FROM json_each(?))",
            (json.dumps(sorted(set(user_ids))),),
        )
        return {row["user_id"]: _user(row) for row in rows}

    async def set_lang(self, user_id: int, lang: str | None) -> None:
        """Set the user's language (None: back to the bot's default)."""
        await self._set(user_id, "lang", lang)

    async def set_started(self, user_id: int, started: bool) -> None:
        """Record whether the user has pressed Start in the bot's private chat."""
        await self._set(user_id, "started", int(started))

    async def set_blocked(self, user_id: int, blocked: bool) -> None:
        """Record whether the user has blocked the bot (a send failed with 403)."""
        await self._set(user_id, "blocked", int(blocked))

    async def set_nick(self, user_id: int, nick: str | None) -> None:
        """Set the nick the user plays under (None: use their first name)."""
        await self._set(user_id, "nick", nick)

    async def _set(self, user_id: int, column: str, value: int | str | None) -> None:
        # `column` is one of this class's literals, never input.
        changed = await self._db.execute(
            f"UPDATE users SET {column} = ? WHERE user_id = ?", (value, user_id)
        )
        if not changed:
            raise NotFoundError(f"no user {user_id}")


@dataclass(frozen=True, slots=True)
class Ban:
    """A user the bot refuses to register or seat, why, and since when (unix seconds)."""

    user_id: int
    reason: str
    at: float


def _ban(row: aiosqlite.Row) -> Ban:
    return Ban(user_id=row["user_id"], reason=row["reason"], at=row["at"])


class BanRepository:
    """Reads and writes `bans`."""

    def __init__(self, database: Database) -> None:
        self._db = database

    async def ban(self, user_id: int, *, reason: str, now: float) -> Ban:
        """Ban the user; banning again replaces the reason and the time."""
        row = await self._db.fetch_one(
            "INSERT INTO bans (user_id, reason, at) VALUES (?, ?, ?) "
            "ON CONFLICT (user_id) DO UPDATE SET reason = excluded.reason, at = excluded.at "
            "RETURNING *",
            (user_id, reason, now),
        )
        assert row is not None  # RETURNING of an upsert always yields the row
        return _ban(row)

    async def unban(self, user_id: int) -> bool:
        """Lift the user's ban; False if they were not banned."""
        return await self._db.execute("DELETE FROM bans WHERE user_id = ?", (user_id,)) > 0

    async def get(self, user_id: int) -> Ban | None:
        """The user's ban, or None if they are not banned."""
        row = await self._db.fetch_one("SELECT * FROM bans WHERE user_id = ?", (user_id,))
        return None if row is None else _ban(row)

    async def all(self) -> list[Ban]:
        """Every ban, oldest first."""
        rows = await self._db.fetch_all("SELECT * FROM bans ORDER BY at, user_id")
        return [_ban(row) for row in rows]


@dataclass(frozen=True, slots=True)
class BanRequest:
    """A ban a Host's sanction asked for (V4), and the Judge's decision: pending, confirmed
    or declined."""

    request_id: int
    tournament_id: int
    game_id: int
    user_id: int
    reason: str
    status: str
    asked_at: float
    decided_at: float | None


def _request(row: aiosqlite.Row) -> BanRequest:
    return BanRequest(
        request_id=row["request_id"],
        tournament_id=row["tournament_id"],
        game_id=row["game_id"],
        user_id=row["user_id"],
        reason=row["reason"],
        status=row["status"],
        asked_at=row["asked_at"],
        decided_at=row["decided_at"],
    )


class BanRequestRepository:
    """Reads and writes `ban_requests`; a confirmation writes the ban with it."""

    def __init__(self, database: Database, bans: BanRepository) -> None:
        self._db = database
        self._bans = bans

    async def ask(
        self, *, tournament_id: int, game_id: int, user_id: int, reason: str, now: float
    ) -> BanRequest:
        row = await self._db.fetch_one(
            "INSERT INTO ban_requests (tournament_id, game_id, user_id, reason, asked_at) "
            "VALUES (?, ?, ?, ?, ?) RETURNING *",
            (tournament_id, game_id, user_id, reason, now),
        )
        assert row is not None  # RETURNING of an insert always yields the row
        return _request(row)

    async def get(self, request_id: int) -> BanRequest | None:
        row = await self._db.fetch_one(
            "SELECT * FROM ban_requests WHERE request_id = ?", (request_id,)
        )
        return None if row is None else _request(row)

    async def declined(self, tournament_id: int) -> set[tuple[int, int]]:
        """The (game, player) pairs whose V4 ban the tournament's Judge declined: removed
        from that game only."""
        rows = await self._db.fetch_all(
            "SELECT game_id, user_id FROM ban_requests "
            "WHERE tournament_id = ? AND status = 'declined'",
            (tournament_id,),
        )
        return {(row["game_id"], row["user_id"]) for row in rows}

    async def confirmed_by(self, user_id: int) -> list[tuple[int, str]]:
        """Who confirmed a ban of the user: each (Judge, tournament name) once, oldest
        tournament first."""
        rows = await self._db.fetch_all(
            "SELECT DISTINCT t.judge_user_id, t.name FROM ban_requests r "
            "JOIN tournaments t USING (tournament_id) "
            "WHERE r.user_id = ? AND r.status = 'confirmed' ORDER BY t.tournament_id",
            (user_id,),
        )
        return [(row["judge_user_id"], row["name"]) for row in rows]

    async def decide(self, request_id: int, *, confirm: bool, now: float) -> BanRequest | None:
        """Confirm (and ban) or decline a pending request, all or nothing; None if it was
        decided already (a second press)."""
        async with self._db.transaction():
            row = await self._db.fetch_one(
                "UPDATE ban_requests SET status = ?, decided_at = ? "
                "WHERE request_id = ? AND status = 'pending' RETURNING *",
                ("confirmed" if confirm else "declined", now, request_id),
            )
            if row is None:
                return None
            decided = _request(row)
            if confirm:
                await self._bans.ban(decided.user_id, reason=decided.reason, now=now)
        return decided
