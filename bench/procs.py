"""The bot under test as its own process: started, watched through /proc, stopped.

CPU time is utime + stime of /proc/<pid>/stat (every thread of the process, so the
SQLite thread counts too); peak memory is VmHWM of /proc/<pid>/status. The process's
log (standard error) is read as it comes, each line stamped on arrival, so the moment
a line appears ("resumed N running games") can be timed.
"""

from __future__ import annotations

import asyncio
import contextlib
import ctypes
import os
import re
import signal
import sys
import time
from collections import deque
from collections.abc import Sequence
from pathlib import Path

TICKS = os.sysconf("SC_CLK_TCK")
_PR_SET_PDEATHSIG = 1  # Linux prctl: the signal a process gets when its parent dies
ROOT = Path(__file__).resolve().parents[1]  # the checkout: `python -m bench.bare` runs from it


def cpu_seconds(pid: int | str = "self") -> float:
    """User plus system CPU seconds the process has used so far."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICKS


def memory_mb(pid: int | str = "self", field: str = "VmHWM") -> float:
    """A memory figure of /proc/<pid>/status (VmHWM: the peak resident set) in MB."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith(f"{field}:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def _child_setup(cpu: int | None) -> None:
    """In the child before exec: die with the benchmark, and keep to `cpu`."""
    with contextlib.suppress(OSError, AttributeError):
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(_PR_SET_PDEATHSIG, signal.SIGTERM)
    pin_to(cpu)


def pin_to(cpu: int | None) -> None:
    """Keep this process (and the threads it starts later) on one CPU, if there are two."""
    if cpu is not None and len(os.sched_getaffinity(0)) > 1:
        with contextlib.suppress(OSError):
            os.sched_setaffinity(0, {cpu})


class BotProcess:
    """A bot started with `args` (after the interpreter), optionally pinned to a CPU."""

    def __init__(
        self,
        name: str,
        args: Sequence[str],
        cpu: int | None = None,
        env: dict[str, str] | None = None,
    ) -> None:
        self.name = name
        self.args = list(args)
        self.cpu = cpu
        self.env = env or {}
        self.process: asyncio.subprocess.Process | None = None
        self.started_at = 0.0
        self.lines: deque[str] = deque(maxlen=200)
        self.problems: deque[str] = deque(maxlen=20)
        self.error_lines = 0
        self.warning_lines = 0
        self._reader: asyncio.Task[None] | None = None
        self._watch: list[tuple[re.Pattern[str], asyncio.Future[tuple[float, str]]]] = []

    @property
    def pid(self) -> int:
        assert self.process is not None
        return self.process.pid

    async def start(self) -> None:
        cpu = self.cpu
        self.started_at = time.perf_counter()
        self.process = await asyncio.create_subprocess_exec(
            sys.executable,
            *self.args,
            cwd=ROOT,
            stdin=asyncio.subprocess.DEVNULL,
            stdout=asyncio.subprocess.DEVNULL,
            stderr=asyncio.subprocess.PIPE,
            env={**os.environ, "PYTHONUNBUFFERED": "1", **self.env},
            preexec_fn=lambda: _child_setup(cpu),
        )
        self._reader = asyncio.get_running_loop().create_task(self._read())

    def expect(self, pattern: str) -> asyncio.Future[tuple[float, str]]:
        """A future of (arrival time, line) for the first log line matching `pattern`."""
        future: asyncio.Future[tuple[float, str]] = asyncio.get_running_loop().create_future()
        self._watch.append((re.compile(pattern), future))
        return future

    async def _read(self) -> None:
        assert self.process is not None and self.process.stderr is not None
        stream = self.process.stderr
        while True:
            raw = await stream.readline()
            if not raw:
                break
            now = time.perf_counter()
            line = raw.decode(errors="replace").rstrip()
            self.lines.append(line)
            if " ERROR " in line or line.startswith("Traceback"):
                self.error_lines += 1
                self.problems.append(line)
            elif " WARNING " in line:
                self.warning_lines += 1
                self.problems.append(line)
            for pattern, future in self._watch:
                if not future.done() and pattern.search(line):
                    future.set_result((now, line))
        for _, future in self._watch:
            if not future.done():
                future.set_exception(RuntimeError(f"{self.name} ended:\n" + self.tail()))

    def tail(self, lines: int = 30) -> str:
        return "\n".join(list(self.lines)[-lines:])

    def cpu_seconds(self) -> float:
        return cpu_seconds(self.pid)

    def peak_mb(self) -> float:
        return memory_mb(self.pid, "VmHWM")

    def alive(self) -> bool:
        return self.process is not None and self.process.returncode is None

    async def stop(self) -> None:
        if self.process is None:
            return
        if self.process.returncode is None:
            self.process.send_signal(signal.SIGINT)
            try:
                await asyncio.wait_for(self.process.wait(), 10)
            except TimeoutError:
                self.process.kill()
                await self.process.wait()
        if self._reader is not None:
            await self._reader
