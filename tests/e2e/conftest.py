"""Whole games through the sandbox Bot API over HTTP, on a virtual clock."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from bot.cli.demo import Table
from tests.steps import begun_table


@pytest.fixture
async def table() -> AsyncIterator[Table]:
    """Twelve players, the game begun (over HTTP); no bad request allowed."""
    async with begun_table(host_started=False, in_process=False) as table:
        yield table


@pytest.fixture
async def hosted_table() -> AsyncIterator[Table]:
    """The same, begun by a Host who has pressed Start."""
    async with begun_table(host_started=True, in_process=False) as table:
        yield table
