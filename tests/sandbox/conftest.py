"""Fixtures for the sandbox's own tests: a served sandbox on a free port, and an aiogram
Bot pointed at it, on the sandbox's deterministic clock."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest
from aiogram import Bot

from sandbox import ManualClock, Sandbox


@pytest.fixture
def clock() -> ManualClock:
    return ManualClock()


@pytest.fixture
async def sandbox(clock: ManualClock) -> AsyncIterator[Sandbox]:
    served = Sandbox(bot_username="mafia_table_bot", clock=clock)
    await served.start()
    yield served
    await served.stop()


@pytest.fixture
async def bot(sandbox: Sandbox) -> AsyncIterator[Bot]:
    client = sandbox.make_bot()
    yield client
    await client.session.close()
