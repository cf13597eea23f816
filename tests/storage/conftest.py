"""Fixtures for storage tests: a fresh database file per test, and a few known rows."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from storage import ChatType, Database, Game, Repositories
from tests.storage.storage_testdata import CHAT, HOST, OTHER_CHAT, PLAYERS, T0


@pytest.fixture
def db_path(tmp_path: Path) -> Path:
    return tmp_path / "bot.sqlite3"


@pytest.fixture
async def db(db_path: Path) -> AsyncIterator[Database]:
    async with await Database.open(db_path) as database:
        yield database


@pytest.fixture
def repos(db: Database) -> Repositories:
    return Repositories.of(db)


@pytest.fixture
async def seeded(repos: Repositories) -> Repositories:
    """Two group chats, a host and three players: what a game row needs to point at."""
    await repos.chats.upsert(CHAT, type=ChatType.SUPERGROUP, title="Mafia club")
    await repos.chats.upsert(OTHER_CHAT, type=ChatType.SUPERGROUP, title="Second table")
    for user_id in (HOST, *PLAYERS):
        await repos.users.upsert(user_id, first_name=f"User {user_id}", username=None)
    return repos


@pytest.fixture
async def game(seeded: Repositories) -> Game:
    """A game in the lobby of CHAT."""
    return await seeded.games.create(
        chat_id=CHAT, host_user_id=HOST, settings_json='{"speech": 60}', now=T0
    )
