"""The production timers (APScheduler): a timeout that re-arms its game is never skipped."""

from __future__ import annotations

import asyncio
import time

from bot.services.clock import SchedulerTimers


async def test_a_deadline_armed_while_the_last_one_still_runs_fires() -> None:
    """A timeout's messages may wait for a flood window while the next turn's deadline
    comes due: APScheduler would skip that run (one instance per job id by default) and
    the game would stall."""
    timers = SchedulerTimers()
    fired: list[int] = []
    second = asyncio.Event()
    release = asyncio.Event()

    async def handler(kind: str, game_id: int, step: int) -> None:
        fired.append(step)
        if step == 1:
            timers.arm(kind, game_id, 2, time.time())  # the next turn: due at once
            await release.wait()  # still delivering the first turn's messages
        else:
            second.set()

    timers.set_handler(handler)
    timers.start()
    try:
        timers.arm("turn", 7, 1, time.time())
        await asyncio.wait_for(second.wait(), timeout=5)
        assert fired == [1, 2]
    finally:
        release.set()
        timers.shutdown()


async def test_the_same_deadline_armed_again_keeps_one_job() -> None:
    timers = SchedulerTimers()
    timers.set_handler(lambda *_: asyncio.sleep(0))
    timers.start()
    try:
        when = time.time() + 60
        timers.arm("turn", 3, 5, when)
        job = timers.scheduler.get_job("turn:3")
        timers.arm("turn", 3, 5, when)  # a vote: same step, same deadline
        assert timers.scheduler.get_job("turn:3") is job
        timers.arm("turn", 3, 6, when + 30)  # the next turn
        job = timers.scheduler.get_job("turn:3")
        assert job is not None and tuple(job.args) == ("turn", 3, 6)
        timers.cancel("turn", 3)
        assert timers.scheduler.get_job("turn:3") is None
        timers.cancel("turn", 3)  # nothing armed: nothing to do
    finally:
        timers.shutdown()
