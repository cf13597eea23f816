"""The bot's own secrets, each made once at random and kept in the database."""

from __future__ import annotations

import secrets

from storage.db import Database

PAGE_KEY = "page_key"  # what the live page's addresses are derived from (bot/web/page.py)


class SecretRepository:
    def __init__(self, database: Database) -> None:
        self._db = database

    async def get_or_make(self, name: str) -> str:
        """The secret called `name`, made now if this database has none yet. Two bots
        racing to make it keep the first one stored (INSERT OR IGNORE, then read)."""
        await self._db.execute(
            "INSERT OR IGNORE INTO bot_secrets (name, value) VALUES (?, ?)",
            (name, secrets.token_urlsafe(32)),
        )
        row = await self._db.fetch_one("SELECT value FROM bot_secrets WHERE name = ?", (name,))
        assert row is not None
        return str(row["value"])
