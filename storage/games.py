"""Games and their lobbies: where each game is, who runs it, and when it next times out.

The game's rules state is opaque JSON here; the game service converts it. What storage
does know is the lifecycle, because start-up and the one-game-a-chat rule depend on it.
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass
from enum import StrEnum

import aiosqlite

from storage.db import Database, SqlValue, Work
from storage.failures import ActiveGameExistsError, GameStatusError, NotFoundError


class GameStatus(StrEnum):
    """Where a game is in its life; LOBBY and RUNNING are "active"."""

    LOBBY = "lobby"
    RUNNING = "running"
    OVER = "over"
    ABORTED = "aborted"


# The statuses a game may come from to reach each status: a game never goes back.
_PREVIOUS: dict[GameStatus, frozenset[GameStatus]] = {
    GameStatus.LOBBY: frozenset(),
    GameStatus.RUNNING: frozenset({GameStatus.LOBBY}),
    GameStatus.OVER: frozenset({GameStatus.RUNNING}),
    GameStatus.ABORTED: frozenset({GameStatus.LOBBY, GameStatus.RUNNING}),
}


@dataclass(frozen=True, slots=True)
class Game:
    """A game as stored. Times are unix seconds.

    `state_json` is None until the game begins. `deadline` is when the current turn or
    phase times out (None: nothing pending, e.g. paused or ended). `lobby_message_id`
    is the lobby post that is edited as players join.
    """

    game_id: int
    chat_id: int
    host_user_id: int
    status: GameStatus
    tournament_id: int | None
    settings_json: str
    state_json: str | None
    deadline: float | None
    lobby_message_id: int | None
    created_at: float
    updated_at: float
    signed_by: int | None = None  # the Host who signed the sheet (T3)
    signed_at: float | None = None
    # What the Join deep link names the lobby by (`join_<token>`): not guessable.
    join_token: str | None = None
    # T3, T4: the tournament's scoring scheme when the game was opened (None: casual).
    scoring_json: str | None = None
    # The forum topic the game lives in (its message_thread_id); None: no topic (a group
    # without topics, or a forum's General).
    thread_id: int | None = None


# One game by its id: `get` reads it through the writing connection, `get_committed`
# through the reader.
_GAME_BY_ID = "SELECT * FROM games WHERE game_id = ?"


def _game(row: aiosqlite.Row | sqlite3.Row) -> Game:
    return Game(
        game_id=row["game_id"],
        chat_id=row["chat_id"],
        host_user_id=row["host_user_id"],
        status=GameStatus(row["status"]),
        tournament_id=row["tournament_id"],
        settings_json=row["settings_json"],
        state_json=row["state_json"],
        deadline=row["deadline"],
        lobby_message_id=row["lobby_message_id"],
        created_at=row["created_at"],
        updated_at=row["updated_at"],
        signed_by=row["signed_by"],
        signed_at=row["signed_at"],
        join_token=row["join_token"],
        scoring_json=row["scoring_json"],
        thread_id=row["thread_id"],
    )


def setting_status(game_id: int, status: GameStatus, *, now: float) -> Work[Game]:
    """`GameRepository.set_status`, as statements for `Database.atomic`."""

    def set_status(connection: sqlite3.Connection) -> Game:
        row = connection.execute(
            "SELECT status FROM games WHERE game_id = ?", (game_id,)
        ).fetchone()
        if row is None:
            raise NotFoundError(f"no game {game_id}")
        if GameStatus(row["status"]) not in _PREVIOUS[status]:
            raise GameStatusError(f"game {game_id} cannot go from {row['status']} to {status}")
        ended = status in (GameStatus.OVER, GameStatus.ABORTED)
        (row,) = connection.execute(
            "UPDATE games SET status = ?, updated_at = ?, "
            "deadline = CASE WHEN ? THEN NULL ELSE deadline END "
            "WHERE game_id = ? RETURNING *",
            (status.value, now, ended, game_id),
        ).fetchall()
        return _game(row)

    return set_status


def saving_state(
    game_id: int, *, state_json: str, deadline: float | None, now: float
) -> Work[None]:
    """`GameRepository.save_state`, as a statement for `Database.atomic`."""

    def save_state(connection: sqlite3.Connection) -> None:
        changed = connection.execute(
            "UPDATE games SET state_json = ?, deadline = ?, updated_at = ? WHERE game_id = ?",
            (state_json, deadline, now, game_id),
        ).rowcount
        if not changed:
            raise NotFoundError(f"no game {game_id}")

    return save_state


def setting_host(game_id: int, host_user_id: int, *, now: float) -> Work[None]:
    """`GameRepository.set_host`, as a statement for `Database.atomic` (a hand-over stands
    or falls with its event in the protocol)."""

    def set_host(connection: sqlite3.Connection) -> None:
        changed = connection.execute(
            "UPDATE games SET host_user_id = ?, updated_at = ? WHERE game_id = ?",
            (host_user_id, now, game_id),
        ).rowcount
        if not changed:
            raise NotFoundError(f"no game {game_id}")

    return set_host


class GameRepository:
    """Reads and writes `games`."""

    def __init__(self, database: Database) -> None:
        self._db = database

    async def create(
        self,
        *,
        chat_id: int,
        host_user_id: int,
        settings_json: str,
        now: float,
        tournament_id: int | None = None,
        scoring_json: str | None = None,
        thread_id: int | None = None,
    ) -> Game:
        """Open a lobby in the chat; raises `ActiveGameExistsError` if it already has a game.

        The check and the insert are one transaction: two /newgame at once open one lobby.
        """
        async with self._db.transaction():
            if await self.active_in_chat(chat_id) is not None:
                raise ActiveGameExistsError(chat_id)
            row = await self._db.fetch_one(
                "INSERT INTO games (chat_id, host_user_id, tournament_id, settings_json, "
                "created_at, updated_at, join_token, scoring_json, thread_id) "
                "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING *",
                (
                    chat_id,
                    host_user_id,
                    tournament_id,
                    settings_json,
                    now,
                    now,
                    self._db.new_token(),
                    scoring_json,
                    thread_id,
                ),
            )
        assert row is not None  # RETURNING of an insert always yields the row
        return _game(row)

    async def get(self, game_id: int) -> Game | None:
        """The game, or None if there is no such game."""
        row = await self._db.fetch_one(_GAME_BY_ID, (game_id,))
        return None if row is None else _game(row)

    async def get_committed(self, game_id: int) -> Game | None:
        """`get`, as last committed, without waiting for the writes under way (for an
        action that holds the game's lock: `Database.fetch_committed`)."""
        rows = await self._db.fetch_committed(_GAME_BY_ID, (game_id,))
        return _game(rows[0]) if rows else None

    async def by_join_token(self, token: str) -> Game | None:
        """The game whose Join deep link carries `token`, if any."""
        row = await self._db.fetch_one("SELECT * FROM games WHERE join_token = ?", (token,))
        return None if row is None else _game(row)

    async def active_in_chat(self, chat_id: int) -> Game | None:
        """The chat's game in the lobby or running, if it has one (it has at most one)."""
        row = await self._db.fetch_one(
            "SELECT * FROM games WHERE chat_id = ? AND status IN ('lobby', 'running')",
            (chat_id,),
        )
        return None if row is None else _game(row)

    async def running(self) -> list[Game]:
        """Every running game, oldest first."""
        rows = await self._db.fetch_all(
            "SELECT * FROM games WHERE status = 'running' ORDER BY game_id"
        )
        return [_game(row) for row in rows]

    async def pending_deadlines(self) -> list[Game]:
        """Every game with a deadline, soonest first: what start-up must re-arm."""
        rows = await self._db.fetch_all(
            "SELECT * FROM games WHERE deadline IS NOT NULL ORDER BY deadline, game_id"
        )
        return [_game(row) for row in rows]

    async def of_tournament(self, tournament_id: int) -> list[Game]:
        """Every game played in the tournament, in the order they were created."""
        rows = await self._db.fetch_all(
            "SELECT * FROM games WHERE tournament_id = ? ORDER BY game_id", (tournament_id,)
        )
        return [_game(row) for row in rows]

    async def casual_over_of(self, user_id: int) -> list[Game]:
        """The casual games the user was dealt into that ended, oldest first (/stats).

        A running game's seats are its lobby as dealt, and the lobby's rows stay.
        """
        rows = await self._db.fetch_all(
            "SELECT g.* FROM games g JOIN lobby l USING (game_id) WHERE l.user_id = ? "
            "AND g.status = 'over' AND g.tournament_id IS NULL ORDER BY g.game_id",
            (user_id,),
        )
        return [_game(row) for row in rows]

    async def set_status(self, game_id: int, status: GameStatus, *, now: float) -> Game:
        """Move the game on in its life and return it; an ending clears its deadline.

        Raises `GameStatusError` for a move backwards (e.g. from over to running).
        """
        return await self._db.atomic(setting_status(game_id, status, now=now))

    async def save_state(
        self, game_id: int, *, state_json: str, deadline: float | None, now: float
    ) -> None:
        """Store the game's state after an action, with the deadline that state sets."""
        await self._db.atomic(
            saving_state(game_id, state_json=state_json, deadline=deadline, now=now)
        )

    async def set_deadline(self, game_id: int, deadline: float | None, *, now: float) -> None:
        """Move or clear the pending deadline (pause, resume, /extend) without a new state."""
        await self._update(game_id, now, deadline=deadline)

    async def set_host(self, game_id: int, host_user_id: int, *, now: float) -> None:
        """Hand the game over to another Host."""
        await self._update(game_id, now, host_user_id=host_user_id)

    async def sign(self, game_id: int, user_id: int, *, now: float) -> bool:
        """T3: record the signature of an ended game's sheet; False if it was signed already."""
        changed = await self._db.execute(
            "UPDATE games SET signed_by = ?, signed_at = ?, updated_at = ? "
            "WHERE game_id = ? AND signed_by IS NULL AND status = 'over'",
            (user_id, now, now, game_id),
        )
        return changed > 0

    async def set_thread(self, game_id: int, thread_id: int | None, *, now: float) -> None:
        """Move the game to another forum topic (None: the group's General)."""
        await self._update(game_id, now, thread_id=thread_id)

    async def set_lobby_message(self, game_id: int, message_id: int, *, now: float) -> None:
        """Remember the lobby post, so that it can be edited as players join and leave."""
        await self._update(game_id, now, lobby_message_id=message_id)

    async def _update(self, game_id: int, now: float, **columns: SqlValue) -> None:
        # Column names come from this class's keyword arguments, never from input.
        assignments = ", ".join(f"{column} = ?" for column in columns)
        changed = await self._db.execute(
            f"UPDATE games SET {assignments}, updated_at = ? WHERE game_id = ?",
            (*columns.values(), now, game_id),
        )
        if not changed:
            raise NotFoundError(f"no game {game_id}")


@dataclass(frozen=True, slots=True)
class LobbyPlayer:
    """A player who joined a game's lobby, under the nick they will be seated with."""

    game_id: int
    user_id: int
    nick: str
    joined_at: float


def _lobby_player(row: aiosqlite.Row) -> LobbyPlayer:
    return LobbyPlayer(
        game_id=row["game_id"], user_id=row["user_id"], nick=row["nick"], joined_at=row["joined_at"]
    )


class LobbyRepository:
    """Reads and writes `lobby`: who has joined a game before it begins."""

    def __init__(self, database: Database) -> None:
        self._db = database

    async def join(self, game_id: int, user_id: int, *, nick: str, now: float) -> bool:
        """Add the player to the lobby; False if they had already joined (a second press)."""
        changed = await self._db.execute(
            "INSERT INTO lobby (game_id, user_id, nick, joined_at) VALUES (?, ?, ?, ?) "
            "ON CONFLICT (game_id, user_id) DO NOTHING",
            (game_id, user_id, nick, now),
        )
        return changed > 0

    async def seated_elsewhere(self, user_id: int, game_id: int) -> Game | None:
        """Another open lobby or running game the user holds a seat in, if any.

        A running game's seats are its lobby as dealt, so one query covers both.
        """
        row = await self._db.fetch_one(
            "SELECT g.* FROM lobby AS l JOIN games AS g ON g.game_id = l.game_id "
            "WHERE l.user_id = ? AND l.game_id != ? AND g.status IN ('lobby', 'running') "
            "ORDER BY g.game_id LIMIT 1",
            (user_id, game_id),
        )
        return None if row is None else _game(row)

    async def leave(self, game_id: int, user_id: int) -> bool:
        """Take the player out of the lobby; False if they were not in it."""
        changed = await self._db.execute(
            "DELETE FROM lobby WHERE game_id = ? AND user_id = ?", (game_id, user_id)
        )
        return changed > 0

    async def players(self, game_id: int) -> list[LobbyPlayer]:
        """The lobby in join order (ties, at the same instant, in insertion order)."""
        rows = await self._db.fetch_all(
            "SELECT * FROM lobby WHERE game_id = ? ORDER BY joined_at, rowid", (game_id,)
        )
        return [_lobby_player(row) for row in rows]
