"""What every test shares: the heaviest start first."""

from __future__ import annotations

import pytest


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """The heaviest tests first, longest to shortest, the rest in their order after them.

    `make test` shares the suite between two workers, each taking the next test as it
    finishes one; a minute-long test collected last would run on alone at the end.
    """

    def seconds(item: pytest.Item) -> float:
        heavy = item.get_closest_marker("heavy")
        return float(heavy.args[0]) if heavy is not None else 0.0

    items.sort(key=seconds, reverse=True)  # stable: the order of the rest is kept
