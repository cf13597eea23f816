"""Tournaments and their registered players.

Only what registration, seating and standings need is stored here; the standings
themselves are derived from the protocols of the tournament's games.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

import aiosqlite

from storage.db import Database
from storage.failures import AlreadyRegisteredError, NickTakenError, NotFoundError
from storage.nicks import looks_like, nick_key


class TournamentStatus(StrEnum):
    """REGISTRATION until the first tour starts (settings lock then), FINISHED after /finish."""

    REGISTRATION = "registration"
    RUNNING = "running"
    FINISHED = "finished"


class PlayerStatus(StrEnum):
    """Whether a registered player is still in the tournament, and if not, why."""

    REGISTERED = "registered"
    WITHDRAWN = "withdrawn"
    DISQUALIFIED = "disqualified"


@dataclass(frozen=True, slots=True)
class Tournament:
    """A tournament and its scheme (`settings_json`: timers, roles table, scoring, …)."""

    tournament_id: int
    name: str
    judge_user_id: int
    settings_json: str
    status: TournamentStatus
    created_at: float
    # What the registration deep link names the tournament by (`reg_<token>`).
    reg_token: str | None = None
    registration_open: bool = True


@dataclass(frozen=True, slots=True)
class TournamentPlayer:
    """A player registered in a tournament under a nick unique within it."""

    tournament_id: int
    user_id: int
    nick: str
    registered_at: float
    status: PlayerStatus


def _tournament(row: aiosqlite.Row) -> Tournament:
    return Tournament(
        tournament_id=row["tournament_id"],
        name=row["name"],
        judge_user_id=row["judge_user_id"],
        settings_json=row["settings_json"],
        status=TournamentStatus(row["status"]),
        created_at=row["created_at"],
        reg_token=row["reg_token"],
        registration_open=bool(row["registration_open"]),
    )


def _player(row: aiosqlite.Row) -> TournamentPlayer:
    return TournamentPlayer(
        tournament_id=row["tournament_id"],
        user_id=row["user_id"],
        nick=row["nick"],
        registered_at=row["registered_at"],
        status=PlayerStatus(row["status"]),
    )


@dataclass(frozen=True, slots=True)
class TournamentLot:
    """T5, S3: the seed of the tournament's tie-break lot, committed at its first tour;
    `revealed_at` is None while it is secret."""

    tournament_id: int
    seed: str
    commitment: str
    committed_at: float
    revealed_at: float | None


def _lot(row: aiosqlite.Row) -> TournamentLot:
    return TournamentLot(
        tournament_id=row["tournament_id"],
        seed=row["seed"],
        commitment=row["commitment"],
        committed_at=row["committed_at"],
        revealed_at=row["revealed_at"],
    )


class TournamentRepository:
    """Reads and writes `tournaments`, `tournament_players` and `tournament_lots`."""

    def __init__(self, database: Database) -> None:
        self._db = database

    async def create(
        self, *, name: str, judge_user_id: int, settings_json: str, now: float
    ) -> Tournament:
        """Create a tournament open for registration, with its Judge and initial scheme."""
        row = await self._db.fetch_one(
            "INSERT INTO tournaments (name, judge_user_id, settings_json, created_at, reg_token) "
            "VALUES (?, ?, ?, ?, ?) RETURNING *",
            (name, judge_user_id, settings_json, now, self._db.new_token()),
        )
        assert row is not None  # RETURNING of an insert always yields the row
        return _tournament(row)

    async def get(self, tournament_id: int) -> Tournament | None:
        """The tournament, or None if there is no such tournament."""
        row = await self._db.fetch_one(
            "SELECT * FROM tournaments WHERE tournament_id = ?", (tournament_id,)
        )
        return None if row is None else _tournament(row)

    async def by_reg_token(self, token: str) -> Tournament | None:
        """The tournament whose registration deep link carries `token`, if any."""
        row = await self._db.fetch_one("SELECT * FROM tournaments WHERE reg_token = ?", (token,))
        return None if row is None else _tournament(row)

    async def set_registration_open(self, tournament_id: int, is_open: bool) -> None:
        """Open or close registration (the Judge's /registration)."""
        changed = await self._db.execute(
            "UPDATE tournaments SET registration_open = ? WHERE tournament_id = ?",
            (int(is_open), tournament_id),
        )
        if not changed:
            raise NotFoundError(f"no tournament {tournament_id}")

    async def of_judge(self, judge_user_id: int) -> list[Tournament]:
        """The tournaments the user judges, newest first (the Judge's commands act on one)."""
        rows = await self._db.fetch_all(
            "SELECT * FROM tournaments WHERE judge_user_id = ? ORDER BY tournament_id DESC",
            (judge_user_id,),
        )
        return [_tournament(row) for row in rows]

    async def of_player(self, user_id: int) -> list[Tournament]:
        """The tournaments the user is registered in, oldest first (/stats)."""
        rows = await self._db.fetch_all(
            "SELECT t.* FROM tournaments t JOIN tournament_players p USING (tournament_id) "
            "WHERE p.user_id = ? ORDER BY t.tournament_id",
            (user_id,),
        )
        return [_tournament(row) for row in rows]

    async def current_of_player(self, user_id: int) -> Tournament | None:
        """The tournament the user is registered in that their commands mean: a running
        one first, then the newest."""
        row = await self._db.fetch_one(
            "SELECT t.* FROM tournament_players p JOIN tournaments t "
            "USING (tournament_id) WHERE p.user_id = ? "
            "ORDER BY t.status = 'finished', t.tournament_id DESC LIMIT 1",
            (user_id,),
        )
        return None if row is None else _tournament(row)

    async def ids_of_player(self, user_id: int) -> list[int]:
        """The ids of the tournaments the user is registered in (/nick changes each)."""
        rows = await self._db.fetch_all(
            "SELECT tournament_id FROM tournament_players WHERE user_id = ?", (user_id,)
        )
        return [row["tournament_id"] for row in rows]

    async def set_settings(self, tournament_id: int, settings_json: str) -> None:
        """Replace the tournament's scheme (whether it may still change is the service's rule)."""
        changed = await self._db.execute(
            "UPDATE tournaments SET settings_json = ? WHERE tournament_id = ?",
            (settings_json, tournament_id),
        )
        if not changed:
            raise NotFoundError(f"no tournament {tournament_id}")

    async def set_status(self, tournament_id: int, status: TournamentStatus) -> None:
        """Move the tournament to `status`."""
        changed = await self._db.execute(
            "UPDATE tournaments SET status = ? WHERE tournament_id = ?",
            (status.value, tournament_id),
        )
        if not changed:
            raise NotFoundError(f"no tournament {tournament_id}")

    async def move_status(self, tournament_id: int, status: TournamentStatus) -> bool:
        """Move the tournament to `status`; False if it already had it (a second /finish)."""
        changed = await self._db.execute(
            "UPDATE tournaments SET status = ? WHERE tournament_id = ? AND status != ?",
            (status.value, tournament_id, status.value),
        )
        return bool(changed)

    async def commit_lot(
        self, tournament_id: int, seed: str, commitment: str, now: float
    ) -> tuple[TournamentLot, bool]:
        """The tournament's lot, committed now unless it already was: (the lot, whether
        this call committed it). A committed seed is never replaced."""
        added = await self._db.execute(
            "INSERT OR IGNORE INTO tournament_lots (tournament_id, seed, commitment, committed_at) "
            "VALUES (?, ?, ?, ?)",
            (tournament_id, seed, commitment, now),
        )
        lot = await self.lot(tournament_id)
        assert lot is not None
        return lot, bool(added)

    async def lot(self, tournament_id: int) -> TournamentLot | None:
        row = await self._db.fetch_one(
            "SELECT * FROM tournament_lots WHERE tournament_id = ?", (tournament_id,)
        )
        return None if row is None else _lot(row)

    async def reveal_lot(self, tournament_id: int, now: float) -> None:
        """Mark the lot's seed as revealed (the first time only)."""
        await self._db.execute(
            "UPDATE tournament_lots SET revealed_at = ? "
            "WHERE tournament_id = ? AND revealed_at IS NULL",
            (now, tournament_id),
        )

    async def register(
        self, tournament_id: int, user_id: int, *, nick: str, now: float
    ) -> TournamentPlayer:
        """Register the user under `nick`.

        Raises `AlreadyRegisteredError` if the user has a registration (whatever its
        status) and `NickTakenError` if another player of the tournament has the nick.
        """
        async with self._db.transaction():
            if await self.player(tournament_id, user_id) is not None:
                raise AlreadyRegisteredError(tournament_id, user_id)
            await self._check_nick_free(tournament_id, nick)
            row = await self._db.fetch_one(
                "INSERT INTO tournament_players "
                "(tournament_id, user_id, nick, nick_key, registered_at) "
                "VALUES (?, ?, ?, ?, ?) RETURNING *",
                (tournament_id, user_id, nick, nick_key(nick), now),
            )
        assert row is not None  # RETURNING of an insert always yields the row
        return _player(row)

    async def player(self, tournament_id: int, user_id: int) -> TournamentPlayer | None:
        """The user's registration in the tournament, or None."""
        row = await self._db.fetch_one(
            "SELECT * FROM tournament_players WHERE tournament_id = ? AND user_id = ?",
            (tournament_id, user_id),
        )
        return None if row is None else _player(row)

    async def players(self, tournament_id: int) -> list[TournamentPlayer]:
        """Everyone who registered, whatever their status, in registration order."""
        rows = await self._db.fetch_all(
            "SELECT * FROM tournament_players WHERE tournament_id = ? "
            "ORDER BY registered_at, user_id",
            (tournament_id,),
        )
        return [_player(row) for row in rows]

    async def set_player_nick(self, tournament_id: int, user_id: int, nick: str) -> None:
        """Change the player's nick (/nick); raises `NickTakenError` if another player has it."""
        async with self._db.transaction():
            await self._check_nick_free(tournament_id, nick, except_user_id=user_id)
            changed = await self._db.execute(
                "UPDATE tournament_players SET nick = ?, nick_key = ? "
                "WHERE tournament_id = ? AND user_id = ?",
                (nick, nick_key(nick), tournament_id, user_id),
            )
            if not changed:
                raise NotFoundError(f"user {user_id} is not registered in {tournament_id}")

    async def by_nick(self, tournament_id: int, nick: str) -> TournamentPlayer | None:
        """The player whose nick is `nick` as the bot compares nicks (storage.nicks)."""
        row = await self._db.fetch_one(
            "SELECT * FROM tournament_players WHERE tournament_id = ? AND nick_key = ?",
            (tournament_id, nick_key(nick)),
        )
        return None if row is None else _player(row)

    async def unregister(self, tournament_id: int, user_id: int) -> bool:
        """Delete the registration; False if there was none."""
        changed = await self._db.execute(
            "DELETE FROM tournament_players WHERE tournament_id = ? AND user_id = ?",
            (tournament_id, user_id),
        )
        return changed > 0

    async def set_player_status(
        self, tournament_id: int, user_id: int, status: PlayerStatus
    ) -> None:
        """Withdraw, disqualify or reinstate the player."""
        changed = await self._db.execute(
            "UPDATE tournament_players SET status = ? WHERE tournament_id = ? AND user_id = ?",
            (status.value, tournament_id, user_id),
        )
        if not changed:
            raise NotFoundError(f"user {user_id} is not registered in {tournament_id}")

    async def _check_nick_free(
        self, tournament_id: int, nick: str, *, except_user_id: int | None = None
    ) -> None:
        # Compared here, not by the stored key alone: a nick that renders like another
        # one ("Аnna" with a Cyrillic А) is taken too.
        rows = await self._db.fetch_all(
            "SELECT nick FROM tournament_players WHERE tournament_id = ? AND user_id IS NOT ?",
            (tournament_id, except_user_id),
        )
        key, shape = nick_key(nick), looks_like(nick)
        if any(nick_key(r["nick"]) == key or looks_like(r["nick"]) == shape for r in rows):
            raise NickTakenError(tournament_id, nick)
