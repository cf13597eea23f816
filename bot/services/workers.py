"""Every background task of the bot, owned by one object that knows whether any is at work.

The bot's work runs as *activities*: an update being handled, a timer's job, and every
task the bot starts in the background (a chat's queue, the stale buttons' and the table
message's edits, the Host's panel, the outbox's ticks, the limiter's wakes, the notices
after a restart). Each is *at work* unless it is *parked*: waiting, at one of the places
that say so (`Workers.park`), for another activity or for the clock. Waiting for Telegram
or for the database is work, not a park: their answer comes without anybody moving.

So when no activity is at work, the bot can go on only when the clock moves or somebody
acts. A driver of virtual time (the demo, the tests) asks `still()` and then moves the
clock or takes the bot as done; production owns every task here so that a stop ends
them all (`stop()`).

A park ends (the activity is at work again) when what it waits for is done: on the
resumption of the parked task, or, where that takes asyncio more than one pass of its
loop (a shielded wait), as soon as the awaited future is done (`until`). Every change is
counted in `moves`, so a driver can tell "nothing moved" from "the same number at work".
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable, Coroutine, Iterator
from typing import Any, TypeVar

log = logging.getLogger(__name__)

T = TypeVar("T")


class Workers:
    """The bot's activities: the tasks it started, and the updates and jobs under way."""

    def __init__(self) -> None:
        # Each activity's task, with how many activities it runs nested (a spawned task
        # that also handles a timer's job is one activity, not two).
        self._active: dict[asyncio.Task[Any], int] = {}
        self._parked: set[asyncio.Task[Any]] = set()
        self._spawned: set[asyncio.Task[Any]] = set()
        self._changed: asyncio.Event | None = None
        # Bumped at every start, end, park and unpark.
        self.moves = 0
        # The updates being handled now, by id.
        self.handling: set[int] = set()
        # Told the id of every update as its handling begins, before it waits for anything
        # (a driver matches it against the updates Telegram still holds for the bot).
        self.on_update: Callable[[int], None] | None = None

    # --- what the bot does -------------------------------------------------------

    def spawn(self, work: Coroutine[Any, Any, T], name: str | None = None) -> asyncio.Task[T]:
        """Run `work` in the background as an activity of its own, at work from now."""
        task = asyncio.get_running_loop().create_task(work, name=name)
        self._spawned.add(task)
        self._enter(task)
        task.add_done_callback(self._ended)
        return task

    @contextlib.contextmanager
    def activity(self) -> Iterator[None]:
        """The current task does the bot's work meanwhile (an update, a timer's job)."""
        task = asyncio.current_task()
        assert task is not None, "an activity runs in a task"
        self._enter(task)
        try:
            yield
        finally:
            self._leave(task)

    @contextlib.contextmanager
    def update(self, update_id: int) -> Iterator[None]:
        """The current task handles update `update_id` meanwhile."""
        if self.on_update is not None:
            self.on_update(update_id)
        self.handling.add(update_id)
        try:
            with self.activity():
                yield
        finally:
            self.handling.discard(update_id)

    async def park(self, waited: Awaitable[T], until: asyncio.Future[Any] | None = None) -> T:
        """Await `waited`, which only another activity or the clock brings about; the
        current activity is not at work meanwhile. `until`: the future whose end ends
        the wait, where asyncio takes more than a pass to resume the task after it."""
        task = asyncio.current_task()
        if task is None or task not in self._active or task in self._parked:
            return await waited  # not an activity (a test's own call), or parked already
        self._parked.add(task)
        self._moved()

        def ended(_: asyncio.Future[Any]) -> None:
            self._unpark(task)

        if until is not None:
            until.add_done_callback(ended)
        try:
            return await waited
        finally:
            if until is not None:
                until.remove_done_callback(ended)
            self._unpark(task)

    # --- what a driver asks -------------------------------------------------------

    @property
    def working(self) -> int:
        """Activities at work: neither parked nor ended."""
        return len(self._active) - len(self._parked)

    async def still(self, quiet: Callable[[], bool] = lambda: True) -> bool:
        """No activity is at work, and `quiet()` holds (nothing on its way from outside:
        a call to Telegram, a statement, an update), across two passes of the event
        loop with nothing moving: what a wake schedules takes its first step in the
        first pass, and a wait that asyncio resumes one hop later (a lock handed on, a
        task awaited) in the second."""
        moves = self.moves
        for passes in range(3):
            if passes:
                await asyncio.sleep(0)
            if self.working or not quiet() or self.moves != moves:
                return False
        return True

    async def changed(self, since: int, within: float) -> None:
        """Until a move after the `moves` count `since` (at once if there was one), or
        `within` seconds: what comes from outside (a call's answer) moves nothing here
        until its activity parks or ends."""
        if self.moves != since:
            return
        if self._changed is None:
            self._changed = asyncio.Event()
        self._changed.clear()
        with contextlib.suppress(TimeoutError):
            async with asyncio.timeout(within):
                await self._changed.wait()

    def at_work(self) -> list[str]:
        """What each activity at work is doing: its task's name and innermost frame (what
        a driver that gives up says)."""
        described = []
        for task in self._active:
            if task in self._parked:
                continue
            frames = task.get_stack()
            where = f"{frames[-1].f_code.co_name}:{frames[-1].f_lineno}" if frames else "?"
            described.append(f"{task.get_name()} at {where}")
        return described

    def tasks(self) -> list[asyncio.Task[Any]]:
        """The background tasks started here and not yet ended."""
        return [task for task in self._spawned if not task.done()]

    async def stop(self) -> None:
        """Cancel every background task, with what it had still to do (a process that
        ends), and wait for them to end."""
        tasks = self.tasks()
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)

    # --- the counts ---------------------------------------------------------------

    def _enter(self, task: asyncio.Task[Any]) -> None:
        self._active[task] = self._active.get(task, 0) + 1
        self._moved()

    def _leave(self, task: asyncio.Task[Any]) -> None:
        depth = self._active.get(task, 0) - 1
        if depth > 0:
            self._active[task] = depth
        else:
            self._active.pop(task, None)
            self._parked.discard(task)
        self._moved()

    def _unpark(self, task: asyncio.Task[Any]) -> None:
        if task in self._parked:
            self._parked.discard(task)
            self._moved()

    def _ended(self, task: asyncio.Task[Any]) -> None:
        self._spawned.discard(task)
        self._active.pop(task, None)
        self._parked.discard(task)
        self._moved()
        if not task.cancelled() and (error := task.exception()) is not None:
            log.error("a background task failed: %s", task.get_name(), exc_info=error)

    def _moved(self) -> None:
        self.moves += 1
        if self._changed is not None:
            self._changed.set()
