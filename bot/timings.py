"""Where an update's time goes: a stopwatch of named phases, for `make bench`.

Each update the dispatcher handles gets a record (`update`); code on its way marks its
phases (`with phase("commit"):`), and the record adds up the real time spent in each:
`time.perf_counter()`, never the game's clock, since this measures the machine. A phase
entered inside another is that phase's time, not the outer one's as well, so the phases
of an update never add up to more than its whole time; what no phase names is "other".
Only the task that handles the update counts: tasks it starts (the sender's queues, the
Host's panel) inherit the record but run on their own time, and are not its wait.

Off by default, when `phase()` costs one check of a module flag. `MAFIA_TIMINGS=1` in
the bot's environment turns it on at start (`bot.app.run_bot`); then SIGUSR1 makes the
bot log one line, `timings: ...`, with each phase's p50, p99 and mean over the updates
handled since the last such line, and start counting afresh. The benchmark sends it at
both ends of its measured window and reads the line back (`parse`).
"""

from __future__ import annotations

import asyncio
import logging
import math
import os
import re
import signal
import time
from collections import deque
from collections.abc import Mapping, Sequence
from contextvars import ContextVar
from dataclasses import dataclass
from types import TracebackType
from typing import TYPE_CHECKING, Literal

from aiogram import Bot
from aiogram.client.session.middlewares.base import (
    BaseRequestMiddleware,
    NextRequestMiddlewareType,
)
from aiogram.methods import Response, TelegramMethod
from aiogram.methods.base import TelegramType

if TYPE_CHECKING:
    from bot.services.workers import Workers

log = logging.getLogger(__name__)

ENVIRONMENT = "MAFIA_TIMINGS"
MARKER = "timings:"

# The phases, in the order a button press goes through them.
PHASES = ("lock", "state", "engine", "render", "commit", "send")
# What the report adds: the remainder, and the update's whole time.
OTHER, TOTAL = "other", "total"
_INDEX = {name: index for index, name in enumerate(PHASES)}

# Updates kept per kind between two reports: far more than a benchmark's window holds,
# few enough that a bot left running with timings on keeps a few MB at most.
KEEP = 20_000

ON = False


def wanted(environ: Mapping[str, str] | None = None) -> bool:
    """Whether the environment asks for timings (`MAFIA_TIMINGS=1`)."""
    return (os.environ if environ is None else environ).get(ENVIRONMENT, "") not in ("", "0")


def switch(on: bool) -> None:
    global ON
    ON = on


def serve(loop: asyncio.AbstractEventLoop, environ: Mapping[str, str] | None = None) -> bool:
    """At the bot's start: on if the environment asks, and then SIGUSR1 reports."""
    if not wanted(environ):
        return False
    switch(True)
    loop.add_signal_handler(signal.SIGUSR1, report)
    return True


class _Idle:
    """What `phase()` and `update()` give when there is nothing to time."""

    __slots__ = ()

    def __enter__(self) -> None:
        return None

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        trace: TracebackType | None,
    ) -> None:
        return None


IDLE = _Idle()


class Record:
    """One update's time: each phase's sum, and which phase runs now."""

    __slots__ = ("_since", "_stack", "began", "kind", "owner", "spent")

    def __init__(self, kind: str, owner: asyncio.Task[object] | None) -> None:
        self.kind = kind
        self.owner = owner
        self.began = time.perf_counter()
        self.spent = [0.0] * len(PHASES)
        self._stack: list[int] = []
        self._since = self.began

    def enter(self, index: int) -> None:
        now = time.perf_counter()
        if self._stack:
            self.spent[self._stack[-1]] += now - self._since
        self._stack.append(index)
        self._since = now

    def leave(self) -> None:
        now = time.perf_counter()
        self.spent[self._stack.pop()] += now - self._since
        self._since = now


CURRENT: ContextVar[Record | None] = ContextVar("timings_record", default=None)


class _Phase:
    __slots__ = ("index", "record")

    def __init__(self, record: Record, index: int) -> None:
        self.record = record
        self.index = index

    def __enter__(self) -> None:
        self.record.enter(self.index)

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        trace: TracebackType | None,
    ) -> None:
        self.record.leave()


def _current_task() -> asyncio.Task[object] | None:
    try:
        return asyncio.current_task()
    except RuntimeError:  # no running loop: a test calling straight in
        return None


def phase(name: str) -> _Phase | _Idle:
    """Time a phase of the update being handled; nothing when off or outside one."""
    if not ON:
        return IDLE
    record = CURRENT.get()
    if record is None or record.owner is not _current_task():
        return IDLE
    return _Phase(record, _INDEX[name])


class _Update:
    __slots__ = ("kind", "record", "token")

    def __init__(self, kind: str) -> None:
        self.kind = kind

    def __enter__(self) -> Record:
        self.record = Record(self.kind, _current_task())
        self.token = CURRENT.set(self.record)
        return self.record

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        trace: TracebackType | None,
    ) -> None:
        CURRENT.reset(self.token)
        keep(self.record, time.perf_counter() - self.record.began)


def update(kind: str) -> _Update | _Idle:
    """Time one update of `kind` ("callback_query", "message") as a whole."""
    return _Update(kind) if ON else IDLE


class GameLock(asyncio.Lock):
    """A game's lock, whose wait is the phase "lock" of the update that waits, and a park
    of the activity that waits (its holder may be waiting on the clock: `Workers`)."""

    def __init__(self, workers: Workers | None = None) -> None:
        super().__init__()
        self._workers = workers

    async def acquire(self) -> Literal[True]:
        if self._workers is None:
            return await self._acquire()
        return await self._workers.park(self._acquire())

    async def _acquire(self) -> Literal[True]:
        if not ON:
            return await super().acquire()
        with phase("lock"):
            return await super().acquire()


class Calls(BaseRequestMiddleware):
    """A Bot API call the update's handler waits for (an answer to a button, a reply)
    is the phase "send"; the sender's queues send on their own time, not the update's."""

    async def __call__(
        self,
        make_request: NextRequestMiddlewareType[TelegramType],
        bot: Bot,
        method: TelegramMethod[TelegramType],
    ) -> Response[TelegramType]:
        if not ON:
            return await make_request(bot, method)
        with phase("send"):
            return await make_request(bot, method)


# --- what the process keeps, and reports -----------------------------------------------

# Per kind, per update: (total, then each phase's seconds in the order of PHASES).
_kept: dict[str, deque[tuple[float, ...]]] = {}


def keep(record: Record, total: float) -> None:
    kept = _kept.get(record.kind)
    if kept is None:
        kept = _kept[record.kind] = deque(maxlen=KEEP)
    kept.append((total, *record.spent))


def kept(kind: str) -> list[tuple[float, ...]]:
    """The updates of `kind` kept since the last report: (total, *phases), seconds."""
    return list(_kept.get(kind, ()))


def forget() -> None:
    _kept.clear()


@dataclass(frozen=True)
class Figures:
    """One kind of update's breakdown: per phase (with "other" and "total"), in ms,
    the p50, p99 and mean over `count` updates."""

    count: int
    ms: dict[str, tuple[float, float, float]]


def percentile(values: Sequence[float], q: float) -> float:
    """The q-th percentile (0-100), nearest rank; NaN for no values. The benchmark's
    latencies are taken the same way (`bench.probe`)."""
    if not values:
        return math.nan
    ordered = sorted(values)
    return ordered[max(1, math.ceil(q / 100 * len(ordered))) - 1]


def figures(updates: list[tuple[float, ...]]) -> Figures:
    columns: dict[str, list[float]] = {name: [] for name in (*PHASES, OTHER, TOTAL)}
    for total, *spent in updates:
        for name, seconds in zip(PHASES, spent, strict=True):
            columns[name].append(seconds)
        columns[OTHER].append(max(0.0, total - sum(spent)))
        columns[TOTAL].append(total)
    ms: dict[str, tuple[float, float, float]] = {}
    for name, values in columns.items():
        if not values:
            ms[name] = (math.nan, math.nan, math.nan)
            continue
        ms[name] = (
            1000 * percentile(values, 50),
            1000 * percentile(values, 99),
            1000 * sum(values) / len(values),
        )
    return Figures(len(updates), ms)


def line(by_kind: Mapping[str, Figures]) -> str:
    """The report: `timings: <kind> <n> updates, ms p50/p99/mean: <phase> a/b/c, ...; ...`."""
    parts = [
        f"{kind} {f.count} updates, ms p50/p99/mean: "
        + ", ".join(f"{name} {a:.3f}/{b:.3f}/{c:.3f}" for name, (a, b, c) in f.ms.items())
        for kind, f in by_kind.items()
    ]
    return f"{MARKER} " + ("; ".join(parts) if parts else "no updates")


_KIND = re.compile(r"(\w+) (\d+) updates, ms p50/p99/mean: (.*)")
_FIGURE = re.compile(r"(\w+) ([\d.na]+)/([\d.na]+)/([\d.na]+)")


def parse(text: str) -> dict[str, Figures]:
    """The figures of a report line (anything before the marker, a log's prefix, is skipped)."""
    _, _, body = text.rpartition(MARKER)  # the logger may be named "bot.timings:" too
    found: dict[str, Figures] = {}
    for part in body.strip().split("; "):
        kind = _KIND.fullmatch(part.strip())
        if kind is None:
            continue
        ms = {
            m.group(1): (float(m.group(2)), float(m.group(3)), float(m.group(4)))
            for m in _FIGURE.finditer(kind.group(3))
        }
        found[kind.group(1)] = Figures(int(kind.group(2)), ms)
    return found


def report() -> str:
    """Log the figures since the last report, and start afresh (SIGUSR1)."""
    text = line({kind: figures(list(kept)) for kind, kept in _kept.items() if kept})
    forget()
    log.info("%s", text)
    return text
