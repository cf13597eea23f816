"""The bot's activities (`bot.services.workers`): at work, parked, still, stopped."""

from __future__ import annotations

import asyncio
import logging

import pytest

from bot.services.clock import VirtualClock
from bot.services.workers import Workers


async def test_a_spawned_task_is_at_work_from_the_start_until_it_ends() -> None:
    workers = Workers()
    go = asyncio.Event()

    async def job() -> None:
        await go.wait()  # not a park: what it waits for is not another activity's

    task = workers.spawn(job(), "job")
    assert workers.working == 1 and workers.tasks() == [task]  # before its first step
    assert not await workers.still()
    await asyncio.sleep(0)
    assert not await workers.still()  # waiting, but not parked
    go.set()
    await task
    assert await workers.still()
    assert workers.working == 0 and workers.tasks() == []


async def test_a_park_on_the_clock_is_not_work_and_its_wake_is_at_once() -> None:
    workers = Workers()
    clock = VirtualClock()

    async def sleeper() -> None:
        await workers.park(clock.sleep_until(clock.now() + 5))
        await asyncio.sleep(0)  # some work after the wake

    task = workers.spawn(sleeper())
    assert not await workers.still()  # it has not reached its park yet
    await asyncio.sleep(0)
    assert await workers.still()  # parked: the bot waits on the clock
    clock.set(clock.now() + 5)
    assert not await workers.still()  # woken: at work again before it ends
    await task
    assert await workers.still()


async def test_an_activity_waiting_for_another_through_a_shield_is_at_work_when_that_ends() -> None:
    """A wait that asyncio resumes a pass late (a shield) ends as the future it waits
    for does (`until`), so the driver never sees a stillness that is not there."""
    workers = Workers()
    before: asyncio.Future[None] = asyncio.get_running_loop().create_future()

    async def next_in_line() -> None:
        await workers.park(asyncio.shield(before), until=before)

    task = workers.spawn(next_in_line())
    await asyncio.sleep(0)
    assert await workers.still()
    before.set_result(None)
    await asyncio.sleep(0)  # one pass: the shield has not resumed the task yet
    assert workers.working == 1
    await task


async def test_an_update_is_an_activity_and_is_told_before_it_waits() -> None:
    workers = Workers()
    told: list[int] = []
    workers.on_update = told.append
    with workers.update(42):
        assert told == [42] and workers.handling == {42} and workers.working == 1
    assert workers.handling == set() and workers.working == 0


async def test_a_park_outside_any_activity_counts_nothing() -> None:
    workers = Workers()
    moves = workers.moves
    assert await workers.park(asyncio.sleep(0, "done")) == "done"
    assert workers.moves == moves and workers.working == 0


async def test_nested_activities_of_one_task_are_one() -> None:
    workers = Workers()

    async def job() -> None:
        with workers.activity():
            assert workers.working == 1
        assert workers.working == 1  # still the spawned task's own

    await workers.spawn(job())
    assert workers.working == 0


async def test_stop_cancels_every_task_and_a_failure_is_logged(
    caplog: pytest.LogCaptureFixture,
) -> None:
    workers = Workers()
    clock = VirtualClock()

    async def forever() -> None:
        await workers.park(clock.sleep_until(clock.now() + 3600))

    async def failing() -> None:
        raise RuntimeError("boom")

    waiting = workers.spawn(forever())
    with caplog.at_level(logging.ERROR):
        await asyncio.gather(workers.spawn(failing(), "failing"), return_exceptions=True)
        await asyncio.sleep(0)
    assert any("failing" in record.getMessage() for record in caplog.records)
    await workers.stop()
    assert waiting.cancelled() and workers.tasks() == [] and workers.working == 0


async def test_changed_returns_at_once_after_a_move_and_else_at_the_next() -> None:
    workers = Workers()
    go = asyncio.Event()
    seen = workers.moves
    task = workers.spawn(go.wait())
    await asyncio.wait_for(workers.changed(seen, within=60), 5)  # moved already: at once
    seen = workers.moves
    asyncio.get_running_loop().call_soon(go.set)
    await asyncio.wait_for(workers.changed(seen, within=60), 5)  # the task's end
    assert task.done()
