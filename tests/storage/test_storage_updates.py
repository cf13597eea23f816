"""Updates and button presses already handled."""

from __future__ import annotations

from storage import Repositories
from tests.storage.storage_testdata import T0


async def test_update_is_marked_once(repos: Repositories) -> None:
    processed = repos.processed
    assert not await processed.has_update(100)
    assert await processed.mark_update(100, now=T0)
    assert await processed.has_update(100)
    assert not await processed.mark_update(100, now=T0 + 1)
    assert not await processed.has_update(101)


async def mark_press(repos: Repositories, callback_query_id: str, *, now: float) -> None:
    """A press marked as an older version marked it: prune still clears those marks."""
    await repos.database.execute(
        "INSERT INTO processed_callback_queries (callback_query_id, processed_at) VALUES (?, ?)",
        (callback_query_id, now),
    )


async def marked_presses(repos: Repositories) -> set[str]:
    rows = await repos.database.fetch_all(
        "SELECT callback_query_id FROM processed_callback_queries"
    )
    return {row[0] for row in rows}


async def test_prune_forgets_only_old_marks(repos: Repositories) -> None:
    processed = repos.processed
    await processed.mark_update(1, now=T0)
    await processed.mark_update(2, now=T0 + 100)
    await mark_press(repos, "old", now=T0)
    await mark_press(repos, "new", now=T0 + 100)
    assert await processed.prune(before=T0 + 50) == 2
    assert not await processed.has_update(1)
    assert await processed.has_update(2)
    assert await marked_presses(repos) == {"new"}
