"""Time as data: a clock and timers the game service is given, never reads itself.

Production runs on the wall clock and APScheduler. The demo and the tests run on a
`VirtualClock`: nothing fires until the driver advances it, so a two-hour game plays
in a second and the same seed always plays the same way.
"""

from __future__ import annotations

import asyncio
import contextlib
import heapq
import itertools
import time
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime
from typing import Protocol

from apscheduler.jobstores.base import JobLookupError
from apscheduler.schedulers.asyncio import AsyncIOScheduler
from apscheduler.triggers.date import DateTrigger

# What a due timer calls: (kind, game_id, step). Jobs carry ids only, never live objects.
TimerHandler = Callable[[str, int, int], Awaitable[None]]


class Clock(Protocol):
    def now(self) -> float: ...

    async def sleep_until(self, when: float, lazy: bool = False) -> None:
        """Return at `when`. A lazy sleep is for what may wait (stale buttons): a driver
        of virtual time does not move the clock for it, only wakes it on the way."""


class Timers(Protocol):
    def set_handler(self, handler: TimerHandler) -> None: ...

    def arm(self, kind: str, game_id: int, step: int, when: float) -> None:
        """Arm job `<kind>:<game_id>` for `when`, replacing any older one of that id."""

    def cancel(self, kind: str, game_id: int) -> None: ...


def job_id(kind: str, game_id: int) -> str:
    return f"{kind}:{game_id}"


class WallClock:
    def now(self) -> float:
        return time.time()

    async def sleep_until(self, when: float, lazy: bool = False) -> None:
        delay = when - time.time()
        if delay > 0:
            await asyncio.sleep(delay)


MAX_RUNNING = 100  # runs of one timer job at once (see SchedulerTimers.arm)


class SchedulerTimers:
    """Timers on APScheduler 3: one date job per game and kind, re-armed from the database."""

    def __init__(self, scheduler: AsyncIOScheduler | None = None) -> None:
        self.scheduler = scheduler or AsyncIOScheduler(timezone=UTC)
        self._handler: TimerHandler | None = None
        # What each job is armed for: most actions (a vote, a night pick) keep the step
        # and the deadline, and re-adding the same job would only cost time.
        self._armed: dict[str, tuple[int, float]] = {}

    def set_handler(self, handler: TimerHandler) -> None:
        self._handler = handler

    def start(self) -> None:
        if not self.scheduler.running:
            self.scheduler.start()

    def shutdown(self) -> None:
        if self.scheduler.running:
            self.scheduler.shutdown(wait=False)

    def arm(self, kind: str, game_id: int, step: int, when: float) -> None:
        job = job_id(kind, game_id)
        if self._armed.get(job) == (step, when):
            return
        self.scheduler.add_job(
            self._fire,
            DateTrigger(run_date=datetime.fromtimestamp(when, tz=UTC)),
            id=job,
            args=[kind, game_id, step],
            replace_existing=True,
            misfire_grace_time=None,  # a deadline that passed while we were down fires at once
            coalesce=True,
            # A timeout re-arms its own job id for the next turn while it still runs (its
            # messages may wait for a flood window); with APScheduler's default of one
            # instance, a next deadline due by then would be skipped and the game would
            # stall. Runs of one game are serialized by its lock and stale ones refused.
            max_instances=MAX_RUNNING,
        )
        self._armed[job] = (step, when)

    def cancel(self, kind: str, game_id: int) -> None:
        job = job_id(kind, game_id)
        if self._armed.pop(job, None) is not None:
            with contextlib.suppress(JobLookupError):  # it ran a moment ago
                self.scheduler.remove_job(job)

    async def _fire(self, kind: str, game_id: int, step: int) -> None:
        assert self._handler is not None
        self._armed.pop(job_id(kind, game_id), None)  # gone from the scheduler once run
        await self._handler(kind, game_id, step)


class VirtualClock:
    """A clock that moves only when told; sleepers and timers wake in time order."""

    def __init__(self, start: float = 1_767_225_600.0) -> None:  # 2026-01-01 00:00 UTC
        self._now = start
        self._seq = itertools.count()
        self._sleepers: list[tuple[float, int, asyncio.Future[None]]] = []
        self._lazy: list[tuple[float, int, asyncio.Future[None]]] = []  # not in next_wake

    def now(self) -> float:
        return self._now

    async def sleep_until(self, when: float, lazy: bool = False) -> None:
        if when <= self._now:
            return
        future: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        heapq.heappush(self._lazy if lazy else self._sleepers, (when, next(self._seq), future))
        await future

    def next_wake(self, lazy: bool = False) -> float | None:
        """The earliest sleeper's time; with `lazy`, the lazy sleepers' count too."""
        for sleepers in (self._sleepers, self._lazy):
            while sleepers and sleepers[0][2].done():
                heapq.heappop(sleepers)  # cancelled sleeper
        times = [s[0][0] for s in (self._sleepers, self._lazy if lazy else []) if s]
        return min(times, default=None)

    def set(self, when: float) -> None:
        """Move to `when` (never backwards) and wake every sleeper that is due."""
        self._now = max(self._now, when)
        for sleepers in (self._sleepers, self._lazy):
            while sleepers and sleepers[0][0] <= self._now:
                _, _, future = heapq.heappop(sleepers)
                if not future.done():
                    future.set_result(None)


class VirtualTimers:
    """Timers on a VirtualClock: the driver fires what is due with `fire_due()`."""

    def __init__(self, clock: VirtualClock) -> None:
        self.clock = clock
        self._jobs: dict[str, tuple[float, str, int, int]] = {}
        self._handler: TimerHandler | None = None
        self._running: set[asyncio.Future[None]] = set()

    def set_handler(self, handler: TimerHandler) -> None:
        self._handler = handler

    def arm(self, kind: str, game_id: int, step: int, when: float) -> None:
        # Refuse what the scheduler refuses (a date past the year 9999, inf, nan), so
        # that a test meets the same faults as production.
        datetime.fromtimestamp(when, tz=UTC)
        self._jobs[job_id(kind, game_id)] = (when, kind, game_id, step)

    def cancel(self, kind: str, game_id: int) -> None:
        self._jobs.pop(job_id(kind, game_id), None)

    def next_due(self) -> float | None:
        return min((job[0] for job in self._jobs.values()), default=None)

    def pending(self) -> list[tuple[float, str, int, int]]:
        return sorted(self._jobs.values())

    def busy(self) -> bool:
        """A fired job is still at work (it may be waiting on the clock)."""
        return bool(self.running())

    def running(self) -> list[asyncio.Future[None]]:
        """The fired jobs still at work."""
        self._running = {task for task in self._running if not task.done()}
        return list(self._running)

    def fire_due(self) -> int:
        """Start every job due at the clock's time, earliest first; return how many.

        Jobs run as tasks, as they would under a scheduler, so one that waits on the
        clock (a paced send) does not hold up the driver that moves the clock.
        """
        assert self._handler is not None
        due = sorted(job for job in self._jobs.values() if job[0] <= self.clock.now())
        for _, kind, game_id, step in due:
            del self._jobs[job_id(kind, game_id)]
            self._running.add(asyncio.ensure_future(self._handler(kind, game_id, step)))
        return len(due)
