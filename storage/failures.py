"""Errors that storage raises on purpose, so that the game service can answer a person.

Anything else (a raw ``sqlite3`` error) means a bug or a broken database file, not a
situation a player can cause.
"""

from __future__ import annotations


class StorageError(Exception):
    """Base class of every error this package raises on purpose."""


class SchemaTooNewError(StorageError):
    """The database was written by newer code; opening it could corrupt what it added."""

    def __init__(self, found: int, known: int) -> None:
        super().__init__(
            f"the database is at schema version {found}, but this code knows only up to "
            f"version {known}: run a newer version of the bot or restore a backup"
        )
        self.found = found
        self.known = known


class MigrationError(StorageError):
    """The migration list is malformed, or a migration left the data inconsistent."""


class NotFoundError(StorageError):
    """An update named a row that does not exist (a stale id, usually a bug upstream)."""


class ConflictError(StorageError):
    """A write would break a uniqueness rule of the data."""


class ActiveGameExistsError(ConflictError):
    """A chat already has a game in its lobby or running: one game per chat at a time."""

    def __init__(self, chat_id: int) -> None:
        super().__init__(f"chat {chat_id} already has a game in the lobby or running")
        self.chat_id = chat_id


class GameStatusError(ConflictError):
    """A game may only move forward: lobby → running → over, or to aborted before it ends."""


class NickTakenError(ConflictError):
    """Another player of the tournament already uses this nick; sheets need them distinct."""

    def __init__(self, tournament_id: int, nick: str) -> None:
        super().__init__(f"nick {nick!r} is already taken in tournament {tournament_id}")
        self.tournament_id = tournament_id
        self.nick = nick


class AlreadyRegisteredError(ConflictError):
    """The user is already registered in the tournament (under some nick)."""

    def __init__(self, tournament_id: int, user_id: int) -> None:
        super().__init__(f"user {user_id} is already registered in tournament {tournament_id}")
        self.tournament_id = tournament_id
        self.user_id = user_id
