"""Chats, their settings, and the move of a group to a supergroup."""

from __future__ import annotations

import pytest

from storage import (
    ActiveGameExistsError,
    Chat,
    ChatType,
    Database,
    Game,
    GameStatus,
    NotFoundError,
    Repositories,
)
from tests.storage.storage_testdata import CHAT, HOST, T0

SUPERGROUP = -1009


async def test_upsert_records_and_updates_a_chat_keeping_its_language(
    repos: Repositories,
) -> None:
    created = await repos.chats.upsert(CHAT, type=ChatType.GROUP, title="Club")
    assert created == Chat(chat_id=CHAT, type=ChatType.GROUP, title="Club", lang=None)
    await repos.chats.set_lang(CHAT, "en")
    renamed = await repos.chats.upsert(CHAT, type=ChatType.GROUP, title="Club 2")
    assert renamed == Chat(chat_id=CHAT, type=ChatType.GROUP, title="Club 2", lang="en")
    assert await repos.chats.get(CHAT) == renamed


async def test_get_unknown_chat_is_none(repos: Repositories) -> None:
    assert await repos.chats.get(CHAT) is None


async def test_set_lang_back_to_default(seeded: Repositories) -> None:
    await seeded.chats.set_lang(CHAT, "en")
    await seeded.chats.set_lang(CHAT, None)
    chat = await seeded.chats.get(CHAT)
    assert chat is not None
    assert chat.lang is None


async def test_set_lang_of_unknown_chat_fails(repos: Repositories) -> None:
    with pytest.raises(NotFoundError):
        await repos.chats.set_lang(CHAT, "en")


async def put_setting(repos: Repositories, chat_id: int, key: str, value: str) -> None:
    """A per-chat setting as an older version stored it: the table still moves with a
    migration, though nothing in this version writes it."""
    await repos.database.execute(
        "INSERT INTO chat_settings (chat_id, key, value) VALUES (?, ?, ?)", (chat_id, key, value)
    )


async def settings_of(repos: Repositories, chat_id: int) -> dict[str, str]:
    rows = await repos.database.fetch_all(
        "SELECT key, value FROM chat_settings WHERE chat_id = ? ORDER BY key", (chat_id,)
    )
    return {row["key"]: row["value"] for row in rows}


async def test_migration_moves_games_outbox_and_settings(seeded: Repositories, game: Game) -> None:
    await seeded.chats.set_lang(CHAT, "en")
    await put_setting(seeded, CHAT, "speech", "45")
    message = await seeded.outbox.enqueue(
        game_id=game.game_id, chat_id=CHAT, kind="seating", payload_json="{}", now=T0
    )
    card = await seeded.outbox.enqueue(
        game_id=game.game_id, chat_id=HOST, kind="role_card", payload_json="{}", now=T0
    )

    await seeded.chats.migrate_to_chat_id(CHAT, SUPERGROUP)

    assert await seeded.chats.get(CHAT) is None
    assert await seeded.chats.get(SUPERGROUP) == Chat(
        chat_id=SUPERGROUP, type=ChatType.SUPERGROUP, title="Mafia club", lang="en"
    )
    moved = await seeded.games.active_in_chat(SUPERGROUP)
    assert moved is not None
    assert moved.game_id == game.game_id
    assert await seeded.games.active_in_chat(CHAT) is None
    assert {m.outbox_id: m.chat_id for m in await seeded.outbox.unsent()} == {
        message.outbox_id: SUPERGROUP,
        card.outbox_id: HOST,
    }
    assert await settings_of(seeded, SUPERGROUP) == {"speech": "45"}
    assert await settings_of(seeded, CHAT) == {}


async def test_migration_leaves_sent_messages_in_the_group_they_were_sent_to(
    seeded: Repositories, game: Game
) -> None:
    """Issue 21 §3: a message id is the old group's; moved, a restart would edit the
    supergroup's message of that id (the pinned table)."""
    table = await seeded.outbox.enqueue(
        game_id=game.game_id, chat_id=CHAT, kind="board", payload_json="{}", now=T0
    )
    await seeded.outbox.mark_sent(table.outbox_id, message_id=7, now=T0)

    assert await seeded.chats.migrate_to_chat_id(CHAT, SUPERGROUP) == 1  # the game moved

    kept = await seeded.outbox.latest(game.game_id, "board")
    assert kept is not None and (kept.chat_id, kept.message_id) == (CHAT, 7)


async def test_migration_into_a_chat_already_seen_keeps_its_own_data(
    seeded: Repositories, game: Game
) -> None:
    await seeded.chats.set_lang(CHAT, "en")
    await put_setting(seeded, CHAT, "speech", "45")
    await put_setting(seeded, CHAT, "night", "30")
    await seeded.chats.upsert(SUPERGROUP, type=ChatType.SUPERGROUP, title="New club")
    await put_setting(seeded, SUPERGROUP, "speech", "90")

    await seeded.chats.migrate_to_chat_id(CHAT, SUPERGROUP)

    assert await seeded.chats.get(SUPERGROUP) == Chat(
        chat_id=SUPERGROUP, type=ChatType.SUPERGROUP, title="New club", lang="en"
    )
    assert await settings_of(seeded, SUPERGROUP) == {"speech": "90", "night": "30"}
    moved = await seeded.games.get(game.game_id)
    assert moved is not None
    assert moved.chat_id == SUPERGROUP


async def test_migration_moves_finished_games_too(seeded: Repositories, game: Game) -> None:
    await seeded.games.set_status(game.game_id, GameStatus.ABORTED, now=T0)
    await seeded.chats.migrate_to_chat_id(CHAT, SUPERGROUP)
    moved = await seeded.games.get(game.game_id)
    assert moved is not None
    assert moved.chat_id == SUPERGROUP


async def test_migration_refuses_to_merge_two_active_games(
    seeded: Repositories, game: Game
) -> None:
    await seeded.chats.upsert(SUPERGROUP, type=ChatType.SUPERGROUP, title="New club")
    await seeded.games.create(chat_id=SUPERGROUP, host_user_id=HOST, settings_json="{}", now=T0)
    with pytest.raises(ActiveGameExistsError):
        await seeded.chats.migrate_to_chat_id(CHAT, SUPERGROUP)
    assert await seeded.games.get(game.game_id) == game
    assert await seeded.chats.get(CHAT) is not None


async def test_migration_of_unknown_chat_fails(repos: Repositories) -> None:
    with pytest.raises(NotFoundError):
        await repos.chats.migrate_to_chat_id(CHAT, SUPERGROUP)


async def test_migration_covers_every_table_keyed_by_chat(db: Database) -> None:
    # A new table with a chat_id must be added to migrate_to_chat_id, then to this list.
    moved_by_migration = {
        *("chats", "chat_settings", "games", "outbox", "tour_groups", "tour_invites"),
    }
    tables = await db.fetch_all("SELECT name FROM sqlite_schema WHERE type = 'table'")
    keyed_by_chat = set()
    for table in tables:
        columns = await db.fetch_all(f"PRAGMA table_info({table['name']})")
        if any(column["name"] == "chat_id" for column in columns):
            keyed_by_chat.add(table["name"])
    assert keyed_by_chat == moved_by_migration


async def test_the_game_paused_while_the_bot_was_away_is_kept_and_moves_with_the_chat(
    seeded: Repositories, game: Game
) -> None:
    """Issue 21 §3: the bot back in the group resumes the game it paused, after a
    restart too; the group upgraded meanwhile, it is the supergroup's."""
    assert await seeded.chats.paused_away(CHAT) is None
    await seeded.chats.set_paused_away(CHAT, game.game_id)
    assert await seeded.chats.paused_away(CHAT) == game.game_id

    await seeded.chats.migrate_to_chat_id(CHAT, SUPERGROUP)

    assert await seeded.chats.paused_away(SUPERGROUP) == game.game_id
    await seeded.chats.set_paused_away(SUPERGROUP, None)
    assert await seeded.chats.paused_away(SUPERGROUP) is None
