"""Storage on SQLite (aiosqlite): the bot's chats, users, games, protocols and tournaments.

Storage knows nothing of the rules: a game's state and its events are JSON text here,
and the game service converts them. Open the database with `Database.open`, build the
repositories with `Repositories.of`, and group writes with `Database.transaction`.
"""

from storage.chats import Chat, ChatRepository, ChatType
from storage.db import Database, SqlValue
from storage.failures import (
    ActiveGameExistsError,
    AlreadyRegisteredError,
    ConflictError,
    GameStatusError,
    MigrationError,
    NickTakenError,
    NotFoundError,
    SchemaTooNewError,
    StorageError,
)
from storage.games import Game, GameRepository, GameStatus, LobbyPlayer, LobbyRepository
from storage.marks import ProcessedRepository
from storage.migrations import MIGRATIONS, Migration
from storage.outbox import OutboxMessage, OutboxRepository
from storage.protocol import NewEvent, ProtocolRepository, StoredEvent
from storage.repositories import Repositories
from storage.tournaments import (
    PlayerStatus,
    Tournament,
    TournamentPlayer,
    TournamentRepository,
    TournamentStatus,
)
from storage.users import Ban, BanRepository, User, UserRepository

__all__ = [
    "MIGRATIONS",
    "ActiveGameExistsError",
    "AlreadyRegisteredError",
    "Ban",
    "BanRepository",
    "Chat",
    "ChatRepository",
    "ChatType",
    "ConflictError",
    "Database",
    "Game",
    "GameRepository",
    "GameStatus",
    "GameStatusError",
    "LobbyPlayer",
    "LobbyRepository",
    "Migration",
    "MigrationError",
    "NewEvent",
    "NickTakenError",
    "NotFoundError",
    "OutboxMessage",
    "OutboxRepository",
    "PlayerStatus",
    "ProcessedRepository",
    "ProtocolRepository",
    "Repositories",
    "SchemaTooNewError",
    "SqlValue",
    "StorageError",
    "StoredEvent",
    "Tournament",
    "TournamentPlayer",
    "TournamentRepository",
    "TournamentStatus",
    "User",
    "UserRepository",
]
