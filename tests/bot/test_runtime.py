"""bot.runtime: what keeps the bot lean, and what tells when it was not."""

from __future__ import annotations

import logging

import pytest

from bot import runtime


def test_a_long_garbage_collection_is_logged(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    """Every game stops while the collector walks the heap: a walk of 50 ms or more is
    worth a warning (the benchmark shows the bot's warnings under its results)."""
    now = iter([10.0, 10.01, 20.0, 20.08])
    monkeypatch.setattr(runtime.time, "perf_counter", lambda: next(now))
    watch = runtime._GcWatch()
    with caplog.at_level(logging.WARNING, logger="bot.runtime"):
        watch.observe("start", {"generation": 0})
        watch.observe("stop", {"generation": 0, "collected": 3})  # 10 ms: nothing said
        watch.observe("start", {"generation": 2})
        watch.observe("stop", {"generation": 2, "collected": 40})
    assert [r.getMessage() for r in caplog.records] == [
        "a garbage collection (generation 2, 40 collected) held every game for 80 ms"
    ]


def test_collections_are_watched_only_while_the_bot_serves() -> None:
    import gc

    before = list(gc.callbacks)
    with runtime.watching_collections():
        assert len(gc.callbacks) == len(before) + 1
    assert gc.callbacks == before
