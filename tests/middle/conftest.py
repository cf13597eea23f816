"""The middle layer's desks and tables: the app wired as in production, fed updates in
process (no wire)."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from bot.cli.demo import Table
from tests.middle.harness import Desk, open_desk
from tests.steps import begun_table


@pytest.fixture
async def desk() -> AsyncIterator[Desk]:
    """Ten members and their Host in one group, no game yet; no bad request allowed."""
    async with open_desk(10) as desk:
        yield desk
        assert desk.refused() == []


@pytest.fixture
async def lobby(desk: Desk) -> Desk:
    """The Host's lobby with all ten joined."""
    await desk.open_lobby()
    return desk


@pytest.fixture
async def playing(lobby: Desk) -> Desk:
    """The game begun: Day 0's introductions, the first speaker's turn."""
    await lobby.begin()
    return lobby


@pytest.fixture
async def table() -> AsyncIterator[Table]:
    """Twelve players, the game begun (in process); no bad request allowed."""
    async with begun_table(host_started=False, in_process=True) as table:
        yield table


@pytest.fixture
async def hosted_table() -> AsyncIterator[Table]:
    """The same, begun by a Host who has pressed Start."""
    async with begun_table(host_started=True, in_process=True) as table:
        yield table
