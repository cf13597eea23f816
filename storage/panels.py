"""The Host's private panel of each game: the message that shows it, and what it shows."""

from __future__ import annotations

from dataclasses import dataclass

from storage.db import Database


@dataclass(frozen=True, slots=True)
class PanelMessage:
    game_id: int
    chat_id: int  # the Host's private chat: their user id
    message_id: int
    digest: str  # of the text and buttons it shows


class PanelRepository:
    """Reads and writes `host_panels`."""

    def __init__(self, database: Database) -> None:
        self._db = database

    async def get(self, game_id: int) -> PanelMessage | None:
        row = await self._db.fetch_one("SELECT * FROM host_panels WHERE game_id = ?", (game_id,))
        if row is None:
            return None
        return PanelMessage(row["game_id"], row["host_user_id"], row["message_id"], row["digest"])

    async def save(self, panel: PanelMessage) -> None:
        await self._db.execute(
            "INSERT INTO host_panels (game_id, host_user_id, message_id, digest) "
            "VALUES (?, ?, ?, ?) ON CONFLICT (game_id) DO UPDATE SET "
            "host_user_id = excluded.host_user_id, "
            "message_id = excluded.message_id, digest = excluded.digest",
            (panel.game_id, panel.chat_id, panel.message_id, panel.digest),
        )
