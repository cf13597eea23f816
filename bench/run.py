"""The benchmark's phases: the pace of a game, the bot under game load, the bare bot, a restart.

Every phase has its own sandbox (in this process, with the players) and its own bot
process, pinned to the other CPU, on a database in a temporary folder.
"""

from __future__ import annotations

import argparse
import asyncio
import math
import random
import signal
import tempfile
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from bench.fill import Filled, fill
from bench.players import GameLoad, Tables, UpdateStream
from bench.probe import Probe, Window
from bench.procs import BotProcess, cpu_seconds
from bot import timings
from bot.config import Config, GameSection
from bot.delivery.runtime import STOCK
from bot.rules.settings import TIMER_FIELDS, GameSettings
from sandbox import SENDING_METHODS, CallRecord, Sandbox

# Every timer of the config's [game] section: the game's own, and the warning before a
# turn ends.
TIMERS = (*TIMER_FIELDS, "warning_seconds")
GRACE = 1.0  # seconds to wait for the answers to the last updates of a window


# --- results -------------------------------------------------------------------------------


@dataclass
class Pace:
    """Updates per second of one game, at the default timers, on the virtual clock."""

    games: int
    updates: int
    calls: int
    messages: int  # new messages the bot sent (Telegram's overall limit counts these)
    virtual_seconds: float
    kinds: Counter[str]
    outgoing: Counter[str] = field(default_factory=Counter)  # what the bot did, by kind

    @property
    def per_game(self) -> float:
        return self.updates / self.virtual_seconds

    @property
    def messages_per_game(self) -> float:
        return self.messages / self.virtual_seconds


@dataclass
class Step:
    """One measured stretch of load."""

    label: str
    window: Window
    bot_cpu: float  # CPU seconds the bot used
    driver_cpu: float  # CPU seconds the sandbox and the players used
    games: int | None = None
    # Where the bot's time went, by kind of update (`bot.timings`), if it was asked.
    breakdown: dict[str, timings.Figures] | None = None

    @property
    def cpu_share(self) -> float:
        return self.bot_cpu / self.window.seconds

    @property
    def driver_share(self) -> float:
        return self.driver_cpu / self.window.seconds

    @property
    def cpu_per_1000(self) -> float:
        return 1000 * self.bot_cpu / self.window.fetched if self.window.fetched else math.nan

    def ok(self, p99_limit: float) -> bool:
        w = self.window
        measured = len(w.latencies) + len(w.held) + w.unanswered
        return (
            w.p(99) < p99_limit
            and w.unanswered <= 0.01 * max(1, measured)
            and w.fetched >= 0.95 * w.pushed
        )


@dataclass
class LoadRun:
    """A bot under a load: the main window, the steps up, and what the whole run left."""

    main: Step
    ramp: list[Step] = field(default_factory=list)
    peak_mb: float = math.nan  # VmHWM at the end of the run
    main_peak_mb: float = math.nan  # VmHWM right after the main window
    started: int = 0
    finished: int = 0
    sends: int = 0
    violations: Counter[str] = field(default_factory=Counter)
    errors: Counter[str] = field(default_factory=Counter)
    log_errors: int = 0
    log_warnings: int = 0
    problems: list[str] = field(default_factory=list)
    refused: dict[str, int] = field(default_factory=dict)
    # From process start to its first Bot API call: the bare bot's is the floor of a
    # restart (importing aiogram and building its types).
    to_first_call: float = math.nan
    games_main: int = 0

    def best(self, p99_limit: float) -> Step | None:
        """The busiest step whose p99 stayed under the limit."""
        passing = [s for s in (self.main, *self.ramp) if s.ok(p99_limit)]
        return max(passing, key=lambda s: s.window.rate, default=None)


@dataclass
class Restart:
    games: int
    fill_seconds: float
    to_first_call: float  # from process start to the bot's first API call
    to_resumed: float  # from process start to "resumed N running games"
    resumed: int
    to_announced: float | None  # from process start until every group had a message again
    announced: int  # groups that had a message from the bot during the run
    play: Step
    peak_mb: float
    errors: Counter[str]
    log_errors: int
    problems: list[str]


# --- helpers -------------------------------------------------------------------------------


def scaled_game(scale: float) -> GameSection:
    defaults = GameSection()
    return GameSection(**{name: getattr(defaults, name) * scale for name in TIMERS})


def config_text(sandbox: Sandbox, database: Path, scale: float, synchronous: str = "full") -> str:
    game = scaled_game(scale)
    timers = "\n".join(f"{name} = {getattr(game, name)!r}" for name in TIMERS)
    return (
        f'[bot]\ntoken = "{sandbox.token}"\napi_server = "{sandbox.base_url}"\n'
        f'database = "{database}"\nlanguage = "en"\nflood_window_scale = {scale!r}\n'
        f'synchronous = "{synchronous}"\n'
        f"[game]\n{timers}\n"
    )


def our_bot(opts: argparse.Namespace, config: Path, breakdown: bool = False) -> BotProcess:
    """The bot; with `breakdown`, timing the phases of every update it handles."""
    args = ["-m", "bot", "--config", str(config), "run"]
    env = {STOCK: "1"} if opts.stock_runtime else {}
    if breakdown:
        env[timings.ENVIRONMENT] = "1"
    return BotProcess("the bot", args, cpu=opts.bot_cpu, env=env)


async def ask_timings(bot: BotProcess, within: float = 10.0) -> dict[str, timings.Figures]:
    """The bot's figures since it was last asked (SIGUSR1: it logs them and starts afresh)."""
    answer = bot.expect(timings.MARKER)
    assert bot.process is not None
    bot.process.send_signal(signal.SIGUSR1)
    _, line = await asyncio.wait_for(answer, within)
    return timings.parse(line)


def bare_bot(opts: argparse.Namespace, sandbox: Sandbox) -> BotProcess:
    args = ["-m", "bench.bare", "--api-server", sandbox.base_url, "--token", sandbox.token]
    return BotProcess("the bare bot", args, cpu=opts.bot_cpu)


async def until_polling(sandbox: Sandbox, bot: BotProcess, within: float = 90.0) -> None:
    polling = asyncio.ensure_future(sandbox.wait_polling(within=within))
    assert bot.process is not None
    exited = asyncio.ensure_future(bot.process.wait())
    done, _ = await asyncio.wait({polling, exited}, return_when=asyncio.FIRST_COMPLETED)
    for task in (polling, exited):
        task.cancel()
    if polling not in done or polling.cancelled() or polling.exception() is not None:
        raise RuntimeError(f"{bot.name} did not start polling:\n{bot.tail()}")


async def measure(
    probe: Probe,
    bot: BotProcess,
    seconds: float,
    label: str,
    games: int | None = None,
    breakdown: bool = False,
) -> Step:
    """A window of `seconds`; with `breakdown`, the bot's timings of the same window."""
    if breakdown:
        await ask_timings(bot)  # what came before the window is not its
    start, bot_cpu, own_cpu = time.perf_counter(), bot.cpu_seconds(), cpu_seconds()
    await asyncio.sleep(seconds)
    end = time.perf_counter()
    bot_used, own_used = bot.cpu_seconds() - bot_cpu, cpu_seconds() - own_cpu
    spent = await ask_timings(bot) if breakdown else None
    await asyncio.sleep(GRACE)
    probe.close_unanswered(before=end)
    return Step(label, probe.window(start, end), bot_used, own_used, games, spent)


def _finish(run: LoadRun, probe: Probe, bot: BotProcess) -> None:
    run.peak_mb = bot.peak_mb()
    run.sends = probe.sends
    run.violations = Counter(probe.violations)
    run.errors = Counter(what for _, what in probe.errors)
    run.log_errors, run.log_warnings = bot.error_lines, bot.warning_lines
    run.problems = list(bot.problems)


# --- the pace of one game --------------------------------------------------------------------


async def measure_pace(games: int, seed: int) -> Pace:
    """Play whole games at the default timers on the virtual clock; count updates per second."""
    import logging

    from bot.cli.demo import Crowd, open_table, play

    logging.getLogger("aiogram").setLevel(logging.WARNING)
    config = Config()
    updates = calls = messages = 0
    seconds = 0.0
    kinds: Counter[str] = Counter()
    outgoing: Counter[str] = Counter()
    for number in range(games):
        async with open_table(
            16,
            seed=seed + number,
            lang="en",
            settings=config.casual_settings(),
            warning_seconds=config.game.warning_seconds,
        ) as table:
            sandbox = table.sandbox
            before = {u["update_id"] for r in sandbox.calls("getUpdates") for u in r.result or []}
            made_before = len(sandbox.calls())
            begun = table.clock.now()
            await table.gather()
            await table.begin()
            await play(table, Crowd(table, random.Random(seed + number), "en"))
            seconds += table.clock.now() - begun
            # What waits for a quiet minute (stale buttons, the table's last edit) would
            # wait for ever once the virtual clock stops: not sent, as a process ending.
            await table.app.workers.stop()
            made = sandbox.calls()[made_before:]
            calls += sum(1 for r in made if r.method != "getUpdates")
            messages += sum(1 for r in made if r.ok and r.method in SENDING_METHODS)
            outgoing.update(economy_kind(r) for r in made if r.ok and r.method != "getUpdates")
            for record in sandbox.calls("getUpdates"):
                for update in record.result or []:
                    if update["update_id"] in before:
                        continue
                    before.add(update["update_id"])
                    kind = next(k for k in update if k != "update_id")
                    if kind == "message":
                        kind = f"message:{update[kind]['chat']['type']}"
                    kinds[kind] += 1
                    updates += 1
    return Pace(games, updates, calls, messages, seconds, kinds, outgoing)


def economy_kind(record: CallRecord) -> str:
    """What a successful call did, in the words of the message economy."""
    where = "group" if record.chat_id is not None and record.chat_id < 0 else "private"
    if record.method in SENDING_METHODS:
        return f"{where} messages"
    if record.method.startswith("edit"):
        return f"{where} edits"
    if record.method.startswith("delete"):
        return "deletions"
    if record.method == "answerCallbackQuery":
        return "button answers"
    if record.method.startswith("pin"):
        return "pins"
    return "other calls"


# --- the bot under game load -------------------------------------------------------------------


async def run_games(opts: argparse.Namespace, pace: Pace, say: Callable[[str], None]) -> LoadRun:
    games = max(1, round(opts.games * opts.scale))
    most = math.ceil(games * max([1.0, *opts.ramp]))
    sandbox = Sandbox(clock=time.time)
    tables = Tables(sandbox, most)
    probe = Probe(sandbox, opts.scale)
    await sandbox.start()
    with tempfile.TemporaryDirectory(prefix="mafia-bench-") as tmp:
        config = Path(tmp) / "config.toml"
        config.write_text(
            config_text(sandbox, Path(tmp) / "mafia.sqlite3", opts.scale, opts.synchronous)
        )
        bot = our_bot(opts, config, breakdown=opts.breakdown)
        await bot.start()
        try:
            await until_polling(sandbox, bot)
            load = GameLoad(sandbox, probe, tables, opts.scale, opts.seed)
            load.grow(games, spread=opts.warmup * 0.9)
            say(f"  {games} games starting, {opts.warmup:g} s of warm-up")
            await asyncio.sleep(opts.warmup)
            main = await measure(probe, bot, opts.measure, "load", games, opts.breakdown)
            run = LoadRun(main, games_main=games, main_peak_mb=bot.peak_mb())
            say(f"  {_line(main)}")
            for multiple in opts.ramp:
                more = round(games * multiple)
                load.grow(more, spread=opts.step_warmup * 0.8)
                await asyncio.sleep(opts.step_warmup)
                step = await measure(probe, bot, opts.step, f"x{multiple:g}", more)
                run.ramp.append(step)
                say(f"  {_line(step)}")
                if _exhausted(run.ramp, opts.p99_limit / 1000):
                    break
            load.stop()
            run.started = sum(1 for t in load.table_list if t.game is not None) + load.finished
            run.finished = load.finished
            run.refused = dict(load.refused)
            _finish(run, probe, bot)
        finally:
            await bot.stop()
            await sandbox.stop()
    return run


def _exhausted(ramp: list[Step], p99_limit: float) -> bool:
    """Two steps in a row over the limit: one may be a burst, two are the bot's limit."""
    return len(ramp) >= 2 and not ramp[-1].ok(p99_limit) and not ramp[-2].ok(p99_limit)


def _line(step: Step) -> str:
    w = step.window
    games = f"{step.games:4d} games, " if step.games is not None else ""
    return (
        f"{step.label:>6}: {games}{w.rate:6.1f} updates/s, p50 {w.p(50) * 1000:6.1f} ms, "
        f"p99 {w.p(99) * 1000:7.1f} ms, bot CPU {step.cpu_share * 100:5.1f}%, "
        f"sandbox+players CPU {step.driver_share * 100:5.1f}%"
    )


# --- the bare bot --------------------------------------------------------------------------------


async def run_bare(
    opts: argparse.Namespace, rate: float, mix: Counter[str], say: Callable[[str], None]
) -> LoadRun:
    sandbox = Sandbox(clock=time.time)
    stream = UpdateStream(sandbox, groups=50, seed=opts.seed)
    probe = Probe(sandbox, 1.0)
    await sandbox.start()
    bot = bare_bot(opts, sandbox)
    await bot.start()
    try:
        await until_polling(sandbox, bot)
        first_call = (probe.first_call or math.nan) - bot.started_at
        stream.set_load(rate, {k: float(v) for k, v in mix.items()})
        stream.start()
        await asyncio.sleep(opts.step_warmup)
        main = await measure(probe, bot, opts.bare_measure, "same", None)
        run = LoadRun(main, main_peak_mb=bot.peak_mb(), to_first_call=first_call)
        say(f"  {_line(main)}")
        for target in sorted(r for r in opts.bare_rates if r > rate):
            stream.set_load(target)
            await asyncio.sleep(opts.bare_warmup)
            step = await measure(probe, bot, opts.bare_step, f"{target:g}/s")
            run.ramp.append(step)
            say(f"  {_line(step)}")
            if _exhausted(run.ramp, opts.p99_limit / 1000):
                break
        await stream.stop()
        _finish(run, probe, bot)
    finally:
        await bot.stop()
        await sandbox.stop()
    return run


# --- a restart with many unfinished games ---------------------------------------------------


async def run_restart(opts: argparse.Namespace, say: Callable[[str], None]) -> Restart:
    scale = opts.restart_scale
    sandbox = Sandbox(clock=time.time)
    tables = Tables(sandbox, opts.restart_games, started=True)
    probe = Probe(sandbox, scale)
    settings: GameSettings = Config().casual_settings().scaled(scale)
    with tempfile.TemporaryDirectory(prefix="mafia-bench-") as tmp:
        database = Path(tmp) / "mafia.sqlite3"
        began = time.perf_counter()
        filled: list[Filled] = await fill(database, tables, settings, opts.seed)
        fill_seconds = time.perf_counter() - began
        say(f"  {len(filled)} running games stored in {fill_seconds:.1f} s; restarting the bot")
        await sandbox.start()
        config = Path(tmp) / "config.toml"
        config.write_text(config_text(sandbox, database, scale, opts.synchronous))
        bot = our_bot(opts, config)
        resumed = bot.expect(r"resumed (\d+) running games")
        told: dict[int, float] = {}

        def announced(record: CallRecord) -> None:
            if record.ok and record.method == "sendMessage" and (record.chat_id or 0) < 0:
                told.setdefault(record.chat_id or 0, time.perf_counter())

        sandbox.observers.append(announced)
        await bot.start()
        try:
            moment, line = await asyncio.wait_for(resumed, 120)
            count = int(line.rsplit("resumed ", 1)[1].split()[0])
            load = GameLoad(sandbox, probe, tables, scale, opts.seed)
            load.resume(filled)
            play = await measure(probe, bot, opts.restart_play, "500", len(filled))
            first = (probe.first_call or math.nan) - bot.started_at
            say(f"  {_line(play)}")
            result = Restart(
                games=len(filled),
                fill_seconds=fill_seconds,
                to_first_call=first,
                to_resumed=moment - bot.started_at,
                resumed=count,
                to_announced=(
                    max(told.values()) - bot.started_at if len(told) >= len(filled) else None
                ),
                announced=len(told),
                play=play,
                peak_mb=bot.peak_mb(),
                errors=Counter(what for _, what in probe.errors),
                log_errors=bot.error_lines,
                problems=list(bot.problems),
            )
            load.stop()
        finally:
            await bot.stop()
            await sandbox.stop()
    return result
