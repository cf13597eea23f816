"""Whole games through the sandbox Bot API over HTTP, on a virtual clock."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from bot.cli.demo import Table, open_table


@pytest.fixture
async def table() -> AsyncIterator[Table]:
    """Twelve players in the lobby and the game begun, in English; no bad request allowed."""
    async with open_table(12, seed=5, lang="en") as table:
        await table.gather()
        await table.begin()
        yield table
        table.sandbox.assert_no_bot_errors()


@pytest.fixture
async def hosted_table() -> AsyncIterator[Table]:
    """The same, begun by a Host who has pressed Start: the bot can write to them (the
    Host's panel, what happens out of turn at night)."""
    async with open_table(12, seed=5, lang="en") as table:
        await table.host.start_bot()
        await table.gather()
        await table.begin()
        yield table
        table.sandbox.assert_no_bot_errors()
