"""The middle layer's desks: the app wired as in production, fed updates in process (its
tables, `table` and `hosted_table`, are tests/conftest.py's, in process too)."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from tests.middle.harness import Desk, open_desk


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
