"""What every test shares: the heaviest start first, and a begun table of twelve."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from bot.cli.demo import Table
from tests.steps import begun_table


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """The heaviest tests first, longest to shortest, the rest in their order after them.

    `make test` shares the suite between two workers, each taking the next test as it
    finishes one; a minute-long test collected last would run on alone at the end.
    """

    def seconds(item: pytest.Item) -> float:
        heavy = item.get_closest_marker("heavy")
        return float(heavy.args[0]) if heavy is not None else 0.0

    items.sort(key=seconds, reverse=True)  # stable: the order of the rest is kept


@pytest.fixture
def over_http() -> bool:
    """Whether a layer's tables play over HTTP (tests/e2e) or in process (the rest)."""
    return False


@pytest.fixture
async def table(over_http: bool) -> AsyncIterator[Table]:
    """Twelve players, the game begun; no bad request allowed."""
    async with begun_table(host_started=False, in_process=not over_http) as table:
        yield table


@pytest.fixture
async def hosted_table(over_http: bool) -> AsyncIterator[Table]:
    """The same, begun by a Host who has pressed Start."""
    async with begun_table(host_started=True, in_process=not over_http) as table:
        yield table
