"""Chats the bot is in: their language, their settings, and their move to a supergroup."""

from __future__ import annotations

import json
from collections.abc import Collection
from dataclasses import dataclass
from enum import StrEnum

import aiosqlite

from storage.db import Database
from storage.failures import ActiveGameExistsError, NotFoundError

# The chat's setting that names the game the bot paused when it was removed from the chat.
_AWAY = "paused_while_away"


class ChatType(StrEnum):
    """Telegram's kinds of chat, spelled as the Bot API spells them."""

    PRIVATE = "private"
    GROUP = "group"
    SUPERGROUP = "supergroup"
    CHANNEL = "channel"


@dataclass(frozen=True, slots=True)
class Chat:
    """A chat as last seen; `lang` is the language chosen with /lang, None for the default."""

    chat_id: int
    type: ChatType
    title: str | None
    lang: str | None


def _chat(row: aiosqlite.Row) -> Chat:
    return Chat(
        chat_id=row["chat_id"], type=ChatType(row["type"]), title=row["title"], lang=row["lang"]
    )


class ChatRepository:
    """Reads and writes `chats`, and moves a chat's data when Telegram changes its id."""

    def __init__(self, database: Database) -> None:
        self._db = database

    async def upsert(self, chat_id: int, *, type: ChatType, title: str | None) -> Chat:
        """Record the chat as an update shows it; its chosen language is kept."""
        row = await self._db.fetch_one(
            "INSERT INTO chats (chat_id, type, title) VALUES (?, ?, ?) "
            "ON CONFLICT (chat_id) DO UPDATE SET type = excluded.type, title = excluded.title "
            "RETURNING *",
            (chat_id, type.value, title),
        )
        assert row is not None  # RETURNING of an upsert always yields the row
        return _chat(row)

    async def get(self, chat_id: int) -> Chat | None:
        """The chat, or None if the bot has not recorded it."""
        row = await self._db.fetch_one("SELECT * FROM chats WHERE chat_id = ?", (chat_id,))
        return None if row is None else _chat(row)

    async def many(self, chat_ids: Collection[int]) -> dict[int, Chat]:
        """The recorded chats among `chat_ids`, in one read however many they are."""
        rows = await self._db.fetch_all(
            "SELECT * FROM chats WHERE chat_id IN (SELECT value FROM json_each(?))",
            (json.dumps(sorted(set(chat_ids))),),
        )
        return {row["chat_id"]: _chat(row) for row in rows}

    async def set_lang(self, chat_id: int, lang: str | None) -> None:
        """Set the chat's language (None: back to the bot's default)."""
        changed = await self._db.execute(
            "UPDATE chats SET lang = ? WHERE chat_id = ?", (lang, chat_id)
        )
        if not changed:
            raise NotFoundError(f"no chat {chat_id}")

    async def set_paused_away(self, chat_id: int, game_id: int | None) -> None:
        """Store which game the bot paused when it was removed from the chat (None: none),
        so that the bot, added back, resumes it even after a restart. Kept as one of the
        chat's settings (`chat_settings`), which move with the chat."""
        if game_id is None:
            await self._db.execute(
                "DELETE FROM chat_settings WHERE chat_id = ? AND key = ?", (chat_id, _AWAY)
            )
            return
        await self._db.execute(
            "INSERT INTO chat_settings (chat_id, key, value) VALUES (?, ?, ?) "
            "ON CONFLICT (chat_id, key) DO UPDATE SET value = excluded.value",
            (chat_id, _AWAY, str(game_id)),
        )

    async def paused_away(self, chat_id: int) -> int | None:
        """The game the bot paused when it was removed from the chat, if any."""
        row = await self._db.fetch_one(
            "SELECT value FROM chat_settings WHERE chat_id = ? AND key = ?", (chat_id, _AWAY)
        )
        return None if row is None or not str(row["value"]).isdigit() else int(row["value"])

    async def migrate_to_chat_id(self, chat_id: int, new_chat_id: int) -> int:
        """Move everything keyed by `chat_id` to `new_chat_id` (a group became a supergroup);
        the number of games moved.

        Messages already sent stay where they are in the outbox: their ids are the old
        group's (a restart must not edit a message of the supergroup by them); those still
        to go out go to the supergroup.

        The bot may already have seen the supergroup: then its own title, language and
        settings win, and only what it lacks is carried over. The old chat is deleted
        last, so a table that keys by chat and is not moved here makes this fail on its
        foreign key instead of being silently orphaned. Raises `ActiveGameExistsError`
        when both chats have a game in the lobby or running.
        """
        async with self._db.transaction():
            old = await self.get(chat_id)
            if old is None:
                raise NotFoundError(f"no chat {chat_id}")
            active = await self._db.fetch_all(
                "SELECT count(*) FROM games WHERE chat_id IN (?, ?) "
                "AND status IN ('lobby', 'running')",
                (chat_id, new_chat_id),
            )
            if active[0][0] > 1:
                raise ActiveGameExistsError(new_chat_id)
            await self._db.execute(
                "INSERT INTO chats (chat_id, type, title, lang) "
                "SELECT ?, ?, title, lang FROM chats WHERE chat_id = ? "
                "ON CONFLICT (chat_id) DO UPDATE SET "
                "title = coalesce(chats.title, excluded.title), "
                "lang = coalesce(chats.lang, excluded.lang)",
                (new_chat_id, ChatType.SUPERGROUP.value, chat_id),
            )
            games = await self._db.execute(
                "UPDATE games SET chat_id = ? WHERE chat_id = ?", (new_chat_id, chat_id)
            )
            await self._db.execute(
                "UPDATE outbox SET chat_id = ? WHERE chat_id = ? AND sent_at IS NULL",
                (new_chat_id, chat_id),
            )
            await self._db.execute(
                "UPDATE tour_groups SET chat_id = ? WHERE chat_id = ?", (new_chat_id, chat_id)
            )
            await self._db.execute(
                "UPDATE tour_invites SET chat_id = ? WHERE chat_id = ?", (new_chat_id, chat_id)
            )
            await self._db.execute(
                "INSERT INTO chat_settings (chat_id, key, value) "
                "SELECT ?, key, value FROM chat_settings WHERE chat_id = ? "
                "ON CONFLICT (chat_id, key) DO NOTHING",
                (new_chat_id, chat_id),
            )
            await self._db.execute("DELETE FROM chat_settings WHERE chat_id = ?", (chat_id,))
            await self._db.execute("DELETE FROM chats WHERE chat_id = ?", (chat_id,))
        return games
