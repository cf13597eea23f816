"""Every repository over one database, to hand to the game service and the handlers."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Self

from storage.chats import ChatRepository
from storage.db import Database
from storage.games import GameRepository, LobbyRepository
from storage.marks import ProcessedRepository
from storage.outbox import OutboxRepository
from storage.panels import PanelRepository
from storage.protocol import ProtocolRepository
from storage.secrets import SecretRepository
from storage.tournaments import TournamentRepository
from storage.tours import TourRepository
from storage.users import BanRepository, BanRequestRepository, UserRepository


@dataclass(frozen=True, slots=True)
class Repositories:
    """The repositories of one `Database`; `database.transaction()` spans any of them."""

    database: Database
    chats: ChatRepository
    users: UserRepository
    bans: BanRepository
    ban_requests: BanRequestRepository
    games: GameRepository
    lobby: LobbyRepository
    protocol: ProtocolRepository
    outbox: OutboxRepository
    panels: PanelRepository
    processed: ProcessedRepository
    secrets: SecretRepository
    tournaments: TournamentRepository
    tours: TourRepository

    @classmethod
    def of(cls, database: Database) -> Self:
        """Build every repository over `database`."""
        bans = BanRepository(database)
        return cls(
            database=database,
            chats=ChatRepository(database),
            users=UserRepository(database),
            bans=bans,
            ban_requests=BanRequestRepository(database, bans),
            games=GameRepository(database),
            lobby=LobbyRepository(database),
            protocol=ProtocolRepository(database),
            outbox=OutboxRepository(database),
            panels=PanelRepository(database),
            processed=ProcessedRepository(database),
            secrets=SecretRepository(database),
            tournaments=TournamentRepository(database),
            tours=TourRepository(database),
        )
