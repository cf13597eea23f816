"""The stopwatch of an update's phases (`bot.timings`, issue 14): what `make bench` reads."""

from __future__ import annotations

import asyncio
import logging
import math
from collections.abc import Iterator

import pytest

from bot import timings


class FakeCounter:
    """`time.perf_counter` moved by hand, so that the sums are exact."""

    def __init__(self) -> None:
        self.now = 100.0

    def perf_counter(self) -> float:
        return self.now


@pytest.fixture
def counter(monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeCounter]:
    fake = FakeCounter()
    monkeypatch.setattr(timings, "time", fake)
    monkeypatch.setattr(timings, "ON", True)
    timings.forget()
    yield fake
    timings.forget()


async def test_off_it_is_the_shared_no_op_and_keeps_nothing() -> None:
    timings.forget()
    assert not timings.ON  # the default: nothing asked for it
    assert timings.update("callback_query") is timings.IDLE
    assert timings.phase("engine") is timings.IDLE
    with timings.update("callback_query"), timings.phase("engine"):
        await asyncio.sleep(0)
    async with timings.GameLock():
        pass
    assert timings.kept("callback_query") == []
    assert timings.CURRENT.get() is None


async def test_phases_are_summed_and_a_nested_one_is_not_counted_twice(
    counter: FakeCounter,
) -> None:
    with timings.update("callback_query"):
        counter.now += 1.0  # other
        with timings.phase("state"):
            counter.now += 2.0
        with timings.phase("commit"):
            counter.now += 3.0
            with timings.phase("send"):  # inside the commit: the send's, not both
                counter.now += 4.0
            counter.now += 0.5
        with timings.phase("state"):  # entered again: added to the first
            counter.now += 0.25
            with timings.phase("state"):  # and within itself
                counter.now += 0.125
        counter.now += 1.0  # other
    [(total, *spent)] = timings.kept("callback_query")
    phases = dict(zip(timings.PHASES, spent, strict=True))
    assert total == pytest.approx(11.875)
    assert phases == pytest.approx(
        {"lock": 0, "state": 2.375, "engine": 0, "render": 0, "commit": 3.5, "send": 4.0}
    )
    assert sum(spent) <= total
    figures = timings.figures(timings.kept("callback_query"))
    assert figures.ms["other"] == pytest.approx((2000.0, 2000.0, 2000.0))
    assert figures.ms["total"][2] == pytest.approx(11875.0)


async def test_outside_an_update_and_in_tasks_it_starts_nothing_is_timed(
    counter: FakeCounter,
) -> None:
    assert timings.phase("engine") is timings.IDLE  # a timer's work: no update
    with timings.update("message"):

        async def queued() -> None:  # a sender's queue, started by the update
            with timings.phase("send"):
                counter.now += 5.0

        task = asyncio.ensure_future(queued())
        await task
    [(total, *spent)] = timings.kept("message")
    assert spent == [0.0] * len(timings.PHASES)
    assert total == 5.0  # the update waited for it: its own time, though no phase's


async def test_the_wait_for_a_game_lock_is_the_lock_phase() -> None:
    timings.forget()
    lock = timings.GameLock()
    try:
        timings.switch(True)
        await lock.acquire()

        async def press() -> None:
            with timings.update("callback_query"):
                async with lock:  # held by another: waited for
                    pass

        waiting = asyncio.ensure_future(press())
        await asyncio.sleep(0.02)
        lock.release()
        await waiting
        [(total, *spent)] = timings.kept("callback_query")
        assert spent[timings.PHASES.index("lock")] >= 0.015
        assert sum(spent) <= total
    finally:
        timings.switch(False)
        timings.forget()


async def test_the_report_is_one_line_the_bench_reads_back_and_it_starts_afresh(
    counter: FakeCounter, caplog: pytest.LogCaptureFixture
) -> None:
    for seconds in (0.001, 0.002, 0.003, 0.1):
        with timings.update("callback_query"), timings.phase("engine"):
            counter.now += seconds
    with timings.update("message"):
        counter.now += 0.004
    with caplog.at_level(logging.INFO, logger="bot.timings"):
        text = timings.report()
    assert caplog.messages == [text]
    assert text.startswith("timings: callback_query 4 updates, ms p50/p99/mean: lock 0.000/")
    figures = timings.parse(f"2026-12-01 10:00:00,000 INFO bot.timings: {text}")
    presses = figures["callback_query"]
    assert presses.count == 4
    assert list(presses.ms) == [*timings.PHASES, "other", "total"]
    p50, p99, mean = presses.ms["engine"]
    assert (p50, p99) == (2.0, 100.0)
    assert mean == pytest.approx(26.5)
    assert figures["message"].ms["other"] == (4.0, 4.0, 4.0)
    assert timings.kept("callback_query") == []
    assert timings.report() == "timings: no updates"
    assert timings.parse("timings: no updates") == {}


def test_a_kind_with_no_updates_reads_as_nan() -> None:
    empty = timings.figures([])
    assert empty.count == 0 and math.isnan(empty.ms["total"][0])


def test_the_environment_turns_it_on() -> None:
    assert timings.wanted({"MAFIA_TIMINGS": "1"})
    assert not timings.wanted({"MAFIA_TIMINGS": "0"})
    assert not timings.wanted({})
