"""Tours and their groups, the Judge's point adjustments, and changes to signed sheets."""

from __future__ import annotations

import json
from dataclasses import dataclass

import aiosqlite

from storage.db import Database


@dataclass(frozen=True, slots=True)
class TourGroup:
    """One table of a tour (T1): its players, and once bound, its chat, Host and game."""

    code: str
    tournament_id: int
    tour: int
    players: tuple[int, ...]
    chat_id: int | None
    host_user_id: int | None
    game_id: int | None


@dataclass(frozen=True, slots=True)
class StoredAdjustment:
    tournament_id: int
    user_id: int
    tenths: int
    reason: str
    at: float


@dataclass(frozen=True, slots=True)
class SheetChange:
    game_id: int
    judge_user_id: int
    change: dict[str, object]
    reason: str
    at: float


@dataclass(frozen=True, slots=True)
class JournalEntry:
    """One thing the Judge did to a tour or to the tournament's end (T1, T5)."""

    tournament_id: int
    tour: int | None
    kind: str  # cancelled, redrawn, forced, finished, reopened
    detail: str
    judge_user_id: int
    at: float


def _group(row: aiosqlite.Row) -> TourGroup:
    return TourGroup(
        code=row["code"],
        tournament_id=row["tournament_id"],
        tour=row["tour"],
        players=tuple(json.loads(row["players_json"])),
        chat_id=row["chat_id"],
        host_user_id=row["host_user_id"],
        game_id=row["game_id"],
    )


class TourRepository:
    def __init__(self, database: Database) -> None:
        self._db = database

    async def add_group(
        self, code: str, tournament_id: int, tour: int, players: list[int], *, now: float
    ) -> None:
        await self._db.execute(
            "INSERT INTO tour_groups (code, tournament_id, tour, players_json, created_at) "
            "VALUES (?, ?, ?, ?, ?)",
            (code, tournament_id, tour, json.dumps(players), now),
        )

    async def group(self, code: str) -> TourGroup | None:
        row = await self._db.fetch_one("SELECT * FROM tour_groups WHERE code = ?", (code,))
        return _group(row) if row else None

    async def groups(self, tournament_id: int, tour: int | None = None) -> list[TourGroup]:
        """By tour, then as people read the codes (T1R1G2 before T1R1G10): within a tour
        the codes differ only in the group's number, so a shorter one is a smaller one."""
        if tour is None:
            rows = await self._db.fetch_all(
                "SELECT * FROM tour_groups WHERE tournament_id = ? "
                "ORDER BY tour, length(code), code",
                (tournament_id,),
            )
        else:
            rows = await self._db.fetch_all(
                "SELECT * FROM tour_groups WHERE tournament_id = ? AND tour = ? "
                "ORDER BY length(code), code",
                (tournament_id, tour),
            )
        return [_group(r) for r in rows]

    async def last_tour(self, tournament_id: int) -> int:
        row = await self._db.fetch_one(
            "SELECT coalesce(max(tour), 0) AS tour FROM tour_groups WHERE tournament_id = ?",
            (tournament_id,),
        )
        return int(row["tour"]) if row else 0

    async def drop_tour(self, tournament_id: int, tour: int) -> None:
        """A cancelled or redrawn tour's groups are gone; the journal keeps that it was."""
        await self._db.execute(
            "DELETE FROM tour_groups WHERE tournament_id = ? AND tour = ?", (tournament_id, tour)
        )

    async def add_invite(self, code: str, chat_id: int, invite_link: str, *, now: float) -> None:
        """An invite link the bot made to the chat of table `code` (T1)."""
        await self._db.execute(
            "INSERT INTO tour_invites (invite_link, code, chat_id, created_at) "
            "VALUES (?, ?, ?, ?) ON CONFLICT (invite_link) DO NOTHING",
            (invite_link, code, chat_id, now),
        )

    async def invites(self, codes: list[str]) -> list[tuple[int, str]]:
        """The (chat, link) of every invite link kept for the tables `codes`, oldest first."""
        if not codes:
            return []
        marks = ", ".join("?" for _ in codes)
        rows = await self._db.fetch_all(
            f"SELECT chat_id, invite_link FROM tour_invites WHERE code IN ({marks}) "
            "ORDER BY created_at, invite_link",
            tuple(codes),
        )
        return [(row["chat_id"], row["invite_link"]) for row in rows]

    async def drop_invite(self, invite_link: str) -> None:
        await self._db.execute("DELETE FROM tour_invites WHERE invite_link = ?", (invite_link,))

    async def note(
        self,
        tournament_id: int,
        tour: int | None,
        kind: str,
        judge_user_id: int,
        *,
        detail: str = "",
        now: float,
    ) -> None:
        await self._db.execute(
            "INSERT INTO tournament_journal (tournament_id, tour, kind, detail, judge_user_id, at) "
            "VALUES (?, ?, ?, ?, ?, ?)",
            (tournament_id, tour, kind, detail, judge_user_id, now),
        )

    async def journal(self, tournament_id: int) -> list[JournalEntry]:
        rows = await self._db.fetch_all(
            "SELECT * FROM tournament_journal WHERE tournament_id = ? ORDER BY entry_id",
            (tournament_id,),
        )
        return [
            JournalEntry(
                r["tournament_id"], r["tour"], r["kind"], r["detail"], r["judge_user_id"], r["at"]
            )
            for r in rows
        ]

    async def bind(self, code: str, chat_id: int, host_user_id: int) -> None:
        await self._db.execute(
            "UPDATE tour_groups SET chat_id = ?, host_user_id = ? WHERE code = ?",
            (chat_id, host_user_id, code),
        )

    async def unbind(self, code: str) -> None:
        """The group has no game chat (and no Host) until it is bound again."""
        await self._db.execute(
            "UPDATE tour_groups SET chat_id = NULL, host_user_id = NULL WHERE code = ?", (code,)
        )

    async def group_of_chat(self, chat_id: int) -> TourGroup | None:
        """The newest group bound to the chat that has no finished game yet.

        A stopped game (aborted) did not finish the table: its next /newgame is the same
        table again, not a casual game in a tournament's chat.
        """
        row = await self._db.fetch_one(
            "SELECT g.* FROM tour_groups g LEFT JOIN games x ON x.game_id = g.game_id "
            "WHERE g.chat_id = ? "
            "AND (g.game_id IS NULL OR x.status IN ('lobby', 'running', 'aborted')) "
            "ORDER BY g.tour DESC LIMIT 1",
            (chat_id,),
        )
        return _group(row) if row else None

    async def group_of_game(self, game_id: int) -> TourGroup | None:
        row = await self._db.fetch_one("SELECT * FROM tour_groups WHERE game_id = ?", (game_id,))
        return _group(row) if row else None

    async def set_game(self, code: str, game_id: int) -> None:
        await self._db.execute("UPDATE tour_groups SET game_id = ? WHERE code = ?", (game_id, code))

    async def replace_player(self, code: str, old: int, new: int) -> None:
        async with self._db.transaction():  # read and write the roster as one change
            group = await self.group(code)
            assert group is not None
            players = [new if p == old else p for p in group.players]
            await self._db.execute(
                "UPDATE tour_groups SET players_json = ? WHERE code = ?",
                (json.dumps(players), code),
            )

    async def remove_player(self, code: str, user_id: int) -> None:
        """The player leaves the group's roster (out of the tournament before it played)."""
        async with self._db.transaction():  # read and write the roster as one change
            group = await self.group(code)
            assert group is not None
            players = [p for p in group.players if p != user_id]
            await self._db.execute(
                "UPDATE tour_groups SET players_json = ? WHERE code = ?",
                (json.dumps(players), code),
            )

    async def adjust(
        self, tournament_id: int, user_id: int, tenths: int, reason: str, *, now: float
    ) -> None:
        await self._db.execute(
            "INSERT INTO adjustments (tournament_id, user_id, tenths, reason, at) "
            "VALUES (?, ?, ?, ?, ?)",
            (tournament_id, user_id, tenths, reason, now),
        )

    async def adjustments(self, tournament_id: int) -> list[StoredAdjustment]:
        rows = await self._db.fetch_all(
            "SELECT * FROM adjustments WHERE tournament_id = ? ORDER BY at, adjustment_id",
            (tournament_id,),
        )
        return [
            StoredAdjustment(r["tournament_id"], r["user_id"], r["tenths"], r["reason"], r["at"])
            for r in rows
        ]

    async def change_sheet(
        self,
        game_id: int,
        judge_user_id: int,
        change: dict[str, object],
        reason: str,
        *,
        now: float,
    ) -> None:
        await self._db.execute(
            "INSERT INTO sheet_changes (game_id, judge_user_id, change_json, reason, at) "
            "VALUES (?, ?, ?, ?, ?)",
            (game_id, judge_user_id, json.dumps(change), reason, now),
        )

    async def sheet_changes(self, game_id: int) -> list[SheetChange]:
        rows = await self._db.fetch_all(
            "SELECT * FROM sheet_changes WHERE game_id = ? ORDER BY at, change_id", (game_id,)
        )
        return [
            SheetChange(
                r["game_id"], r["judge_user_id"], json.loads(r["change_json"]), r["reason"], r["at"]
            )
            for r in rows
        ]
