"""Updates and button presses already handled."""

from __future__ import annotations

from storage_testdata import T0

from storage import Repositories


async def test_update_is_marked_once(repos: Repositories) -> None:
    processed = repos.processed
    assert not await processed.has_update(100)
    assert await processed.mark_update(100, now=T0)
    assert await processed.has_update(100)
    assert not await processed.mark_update(100, now=T0 + 1)
    assert not await processed.has_update(101)


async def test_callback_query_is_marked_once(repos: Repositories) -> None:
    processed = repos.processed
    assert await processed.mark_callback_query("4711", now=T0)
    assert not await processed.mark_callback_query("4711", now=T0 + 1)
    assert await processed.mark_callback_query("4712", now=T0)


async def test_prune_forgets_only_old_marks(repos: Repositories) -> None:
    processed = repos.processed
    await processed.mark_update(1, now=T0)
    await processed.mark_update(2, now=T0 + 100)
    await processed.mark_callback_query("old", now=T0)
    await processed.mark_callback_query("new", now=T0 + 100)
    assert await processed.prune(before=T0 + 50) == 2
    assert not await processed.has_update(1)
    assert await processed.has_update(2)
    assert await processed.mark_callback_query("old", now=T0 + 200)
    assert not await processed.mark_callback_query("new", now=T0 + 200)
