"""`python -m bench` (`make bench`): the bot under the load of many games, measured.

The sandbox Bot API and the simulated players run in this process, on one CPU; the bot
(`python -m bot run`, with a generated config that points it at the sandbox and keeps
its database in a temporary folder) runs as its own process on the other CPU. Phases:

1. pace: whole 16-player games at the default timers on the virtual clock (`open_table`
   and `Crowd`), to learn how many updates per second one game makes;
2. games: the bot under the load of `--games` games at that pace, played by tables of
   sixteen over HTTP with timers scaled by `--scale` (so 400 games are 400 x scale
   tables), then with more and more tables until p99 passes `--p99-limit` in two steps
   in a row; in the window at `--games`, the bot times where each press's time goes
   (`bot.timings`: lock wait, state, engine, render, commit, send);
3. bare: a bare aiogram bot (`bench.bare`) under the same rate and mix of updates,
   then faster and faster until its p99 passes the limit likewise: the framework's floor;
4. restart: `--restart-games` unfinished games stored, the bot started on them and timed
   until it logs "resumed N running games", then those games played for a while.

Phases 2 to 4 run `--repeat` times (3 by default), interleaved, so the bot and the bare
bot see the machine in the same state. Every round's figures are printed, each beside its
target and its baseline, then a summary: each figure's median over the rounds and its
spread (lowest to highest), the verdict taken on the median. `python -m bench --help`
lists the knobs; the defaults take 20 to 27 minutes (one round, `--repeat 1`, 7 to 9).
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import math
import os
import platform
import sqlite3
import statistics
import sys
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass

from bench import run as phases
from bench.probe import OVERALL_WINDOW, Window
from bench.procs import pin_to
from bot import timings
from bot.timings import percentile

PHASES = ("pace", "games", "bare", "restart")


def _floats(text: str) -> list[float]:
    return [float(part) for part in text.split(",") if part.strip()]


def arguments(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="python -m bench",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    add = parser.add_argument
    add("--phases", default=",".join(PHASES), help="which phases to run (comma-separated)")
    add("--games", type=int, default=400, help="the load, in games at the default pace")
    add("--scale", type=float, default=0.05, help="timers x this (0.05: 1 s is 50 ms)")
    add("--warmup", type=float, default=30, help="seconds for the first tables to start")
    add("--measure", type=float, default=60, help="seconds measured at the --games load")
    add(
        "--ramp",
        type=_floats,
        default=[1.5, 2, 2.5, 3, 4, 5, 6, 8],
        help="then x these many tables, in turn",
    )
    add("--step-warmup", type=float, default=10, help="seconds before each step is measured")
    add("--step", type=float, default=20, help="seconds measured per step")
    add("--bare-measure", type=float, default=20, help="seconds of the bare bot at our load")
    add(
        "--bare-rates",
        type=_floats,
        default=[200, 400, 600, 800, 1000, 1200, 1400, 1700, 2000],
        help="updates/s the bare bot is then driven at, in turn",
    )
    add("--bare-warmup", type=float, default=2, help="seconds before each bare step")
    add("--bare-step", type=float, default=8, help="seconds measured per bare step")
    add("--restart-games", type=int, default=500, help="unfinished games at the restart")
    add("--restart-scale", type=float, default=1.0, help="their timers x this")
    add("--restart-play", type=float, default=45, help="seconds they are played after it")
    add("--pace-games", type=int, default=2, help="games played to measure the pace")
    add("--p99-limit", type=float, default=250, help="ms: the p99 that bounds the ramps")
    add("--seed", type=int, default=1)
    add(
        "--repeat",
        type=int,
        default=3,
        help="rounds of the measured phases (the bot, the bare bot, the restart, interleaved); "
        "the summary gives each figure's median and spread",
    )
    add(
        "--synchronous",
        choices=("full", "normal"),
        default="full",
        help="the bot's SQLite synchronous setting (config.toml's bot.synchronous)",
    )
    add("--no-pin", action="store_true", help="let the OS place the processes on the CPUs")
    add(
        "--no-breakdown",
        dest="breakdown",
        action="store_false",
        help="run the bot without timing where a press's time goes (bot.timings)",
    )
    add(
        "--stock-runtime",
        action="store_true",
        help=(
            "run the bot without bot.delivery.runtime's savings"
            " (uvloop, orjson, kept models, frozen GC)"
        ),
    )
    opts = parser.parse_args(argv)
    opts.phases = [p.strip() for p in opts.phases.split(",") if p.strip()]
    unknown = set(opts.phases) - set(PHASES)
    if unknown:
        parser.error(f"unknown phases {sorted(unknown)}; choose from {', '.join(PHASES)}")
    if not 1 <= opts.repeat <= 20:
        parser.error("--repeat takes 1 to 20 rounds")
    two = len(os.sched_getaffinity(0)) > 1 and not opts.no_pin
    opts.bot_cpu, opts.driver_cpu = (1, 0) if two else (None, None)
    return opts


def say(text: str) -> None:
    print(text, flush=True)


@dataclass
class Round:
    """One round of the measured phases, run back to back on the same machine."""

    games: phases.LoadRun | None = None
    bare: phases.LoadRun | None = None
    restart: phases.Restart | None = None


async def bench(opts: argparse.Namespace) -> int:
    began = time.perf_counter()
    pin_to(opts.driver_cpu)
    # The sandbox keeps every message of the run; a full collection walking all that
    # would stall it and be measured as the bot's latency. Collect between phases only.
    gc.disable()
    header(opts)
    pace: phases.Pace | None = None
    if "pace" in opts.phases or "games" in opts.phases or "bare" in opts.phases:
        say(f"[pace] {opts.pace_games} games of 16 at the default timers, virtual clock")
        pace = await phases.measure_pace(opts.pace_games, opts.seed)
        say(
            f"  {pace.updates} updates in {pace.virtual_seconds:.0f} s of game time: "
            f"{pace.per_game:.4f} updates/s per game"
        )
    rounds: list[Round] = []
    for number in range(1, opts.repeat + 1):
        if opts.repeat > 1:
            say(f"\n=== round {number} of {opts.repeat} ===")
        rounds.append(await one_round(opts, pace))
        say(f"\nResults of round {number}" if opts.repeat > 1 else "\nResults")
        done = rounds[-1]
        report(opts, pace, done.games, done.bare, done.restart, describe_pace=number == 1)
    if opts.repeat > 1:
        summary(opts, rounds)
    say(f"\n(the benchmark took {time.perf_counter() - began:.0f} s)")
    return 0


async def one_round(opts: argparse.Namespace, pace: phases.Pace | None) -> Round:
    """The bot, then the bare bot, then the restart: each round sees the machine as it is."""
    done = Round()
    if "games" in opts.phases:
        assert pace is not None
        gc.collect()
        say(
            f"[games] the bot, {opts.games} games' load = {opts.games * pace.per_game:.1f} "
            f"updates/s, timers x{opts.scale:g}"
        )
        done.games = await phases.run_games(opts, pace, say)
    if "bare" in opts.phases:
        assert pace is not None
        games = done.games
        rate = games.main.window.rate if games else opts.games * pace.per_game
        mix = games.main.window.kinds if games else pace.kinds
        say(f"[bare] a bare aiogram bot, {rate:.1f} updates/s in the same mix, then more")
        gc.collect()
        done.bare = await phases.run_bare(opts, rate, mix, say)
    if "restart" in opts.phases:
        say(f"[restart] {opts.restart_games} unfinished games, timers x{opts.restart_scale:g}")
        gc.collect()
        done.restart = await phases.run_restart(opts, say)
    return done


def header(opts: argparse.Namespace) -> None:
    import aiogram
    import pydantic

    where = (
        f"the bot on CPU {opts.bot_cpu}, the sandbox and the players on CPU {opts.driver_cpu}"
        if opts.bot_cpu is not None
        else "processes not pinned"
    )
    say(
        f"Mafia Table benchmark: {os.cpu_count()} CPUs ({where}); Python "
        f"{platform.python_version()}, aiogram {aiogram.__version__}, pydantic "
        f"{pydantic.VERSION}, SQLite {sqlite3.sqlite_version}; the bot's runtime: "
        + (
            "stock (--stock-runtime)"
            if opts.stock_runtime
            else "bot.delivery.runtime (uvloop, orjson)"
        )
        + "; the bare bot: stock aiogram"
    )


# --- the report -------------------------------------------------------------------------------


def ms(value: float) -> str:
    return "—" if math.isnan(value) else f"{value * 1000:.1f}"


def latencies(w: Window) -> str:
    return f"{ms(w.p(50))} / {ms(w.p(95))} / {ms(w.p(99))}"


def verdict(ok: bool | None) -> str:
    return "" if ok is None else ("  ok" if ok else "  MISSED")


class Table:
    def __init__(self) -> None:
        self.rows: list[tuple[str, str, str, str, str]] = []

    def add(self, what: str, ours: str, target: str, baseline: str, ok: bool | None = None) -> None:
        self.rows.append((what, ours, target, baseline, verdict(ok)))

    def note(self, text: str) -> None:
        self.rows.append((text, "", "", "", ""))

    def print(self) -> None:
        head = ("", "the bot", "target", "baseline: bare aiogram", "")
        rows = [r for r in self.rows if r[1:] != ("", "", "", "")]
        widths = [max(len(r[i]) for r in (*rows, head)) for i in range(4)]
        for row in (head, *self.rows):
            if row[1:] == ("", "", "", "") and row is not head:
                say(f"  {row[0]}")
                continue
            cells = [row[0].ljust(widths[0])] + [row[i].rjust(widths[i]) for i in (1, 2, 3)]
            say("  " + "   ".join(cells) + row[4])


def report(
    opts: argparse.Namespace,
    pace: phases.Pace | None,
    games: phases.LoadRun | None,
    bare: phases.LoadRun | None,
    restart: phases.Restart | None,
    describe_pace: bool = True,
) -> None:
    limit = opts.p99_limit / 1000
    if pace is not None and describe_pace:
        share = Counter({k: v / max(1, pace.updates) for k, v in pace.kinds.items()})
        mix = ", ".join(f"{k} {v:.0%}" for k, v in share.most_common())
        say(
            f"  Pace of a game: {pace.per_game:.4f} updates/s per 16-player game at the "
            f"default timers ({pace.games} games, {pace.updates} updates, "
            f"{pace.virtual_seconds:.0f} s of game time; {pace.calls} bot calls; {mix})."
        )
        say(
            f"  {opts.games} games at that pace = {opts.games * pace.per_game:.1f} updates/s, "
            f"played as {round(opts.games * opts.scale)} tables with every timer "
            f"x{opts.scale:g}."
        )
        hours = pace.virtual_seconds / 3600
        order = (
            "group messages", "group edits", "private messages", "private edits",
            "deletions", "pins", "button answers", "other calls",
        )  # fmt: skip
        economy = ", ".join(
            f"{kind} {pace.outgoing[kind] / hours:.0f}" for kind in order if pace.outgoing[kind]
        )
        say(
            f"  Message economy of one 16-player game, per hour of play at the default "
            f"timers: {economy}; a game lasts {pace.virtual_seconds / pace.games / 60:.0f} min."
        )
        overall = OVERALL_WINDOW[0] / OVERALL_WINDOW[1]
        say(
            f"  A game makes the bot send {pace.messages_per_game:.4f} messages/s, so "
            f"{opts.games} games need {opts.games * pace.messages_per_game:.1f}/s; Telegram's "
            f"{overall:.0f}/s overall limit allows {overall / pace.messages_per_game:.0f} games."
        )
    table = Table()
    if games is not None:
        m, b = games.main, bare.main if bare else None
        target_rate = opts.games * pace.per_game if pace else math.nan
        table.add(
            f"updates handled per second ({opts.games} games)",
            f"{m.window.rate:.1f}",
            f"{target_rate:.1f} offered",
            f"{b.window.rate:.1f}" if b else "—",
        )
        table.add(
            "latency p50 / p95 / p99, ms",
            latencies(m.window),
            "p99 < 100",
            latencies(b.window) if b else "—",
            m.window.p(99) < 0.100,
        )
        held = m.window.held
        every = [*m.window.latencies, *held]
        table.note(
            f"  ({len(m.window.latencies)} answers timed; {len(held)} more, held back by the "
            f"bot's own flood pacing, are left out: p99 of all {len(every)} "
            f"{ms(percentile(every, 99))} ms; {m.window.unanswered} got no answer)"
        )
        kinds = ", ".join(
            f"{kind} {ms(percentile(values, 99))} ms (of {len(values)})"
            for kind, values in m.window.by_kind.items()
        )
        table.note(f"  (p99 by kind: {kinds})")
        if m.breakdown is not None:
            table.note(breakdown(m.breakdown))
        ratio = m.cpu_per_1000 / b.cpu_per_1000 if b else math.nan
        table.add(
            "CPU seconds per 1000 updates",
            f"{m.cpu_per_1000:.2f}",
            f"<= {2 * b.cpu_per_1000:.2f} (2x)" if b else "<= 2x bare",
            f"{b.cpu_per_1000:.2f}" if b else "—",
            ratio <= 2 if b else None,
        )
        if b:
            table.add("  ours / the bare bot's", f"{ratio:.1f}x", "<= 2x", "1x", ratio <= 2)
        table.add(
            f"CPU, share of one core ({opts.games} games)",
            f"{m.cpu_share:.0%}",
            "< 25%",
            f"{b.cpu_share:.0%}" if b else "—",
            m.cpu_share < 0.25,
        )
        table.add(
            f"peak memory (VmHWM) after the {opts.games}-game window, MB",
            f"{games.main_peak_mb:.0f}",
            "",
            f"{bare.main_peak_mb:.0f}" if bare else "—",
        )
        table.add(
            "games finished",
            f"{games.finished}",
            "",
            f"of {games.started} begun",
        )
        errors = sum(games.errors.values())
        table.add(
            "errors (calls the sandbox refused)",
            f"{errors}",
            "0",
            f"{sum(bare.errors.values())}" if bare else "—",
            errors == 0,
        )
        for what, count in games.errors.most_common(3):
            table.note(f"  {count} x {what}")
        chats = games.violations["group"] + games.violations["private"]
        table.add(
            f"flood-limit violations per chat (x{opts.scale:g} windows)",
            f"{chats}",
            "0",
            "—",
            chats == 0,
        )
        table.note(
            f"  (of {games.sends} messages sent: group 20/min {games.violations['group']}, "
            f"private 1/s {games.violations['private']}; overall "
            f"{OVERALL_WINDOW[0]}/s, unscaled: {games.violations['overall']} over)"
        )
        if games.log_errors:
            table.add("errors in the bot's log", f"{games.log_errors}", "0", "", False)
        if games.log_warnings:
            table.note(f"  ({games.log_warnings} warnings in the bot's log; the latest:)")
            for line in games.problems[-3:]:
                table.note(f"    {line[:150]}")
        best, best_bare = games.best(limit), bare.best(limit) if bare else None
        if best is not None:
            ratio = best.window.rate / best_bare.window.rate if best_bare else math.nan
            table.add(
                f"highest load with p99 < {opts.p99_limit:g} ms, updates/s",
                f"{best.window.rate:.1f}",
                "",
                f"{best_bare.window.rate:.1f}" if best_bare else "—",
            )
            table.add(
                "  as a ratio of the bare bot's",
                f"{ratio:.2f}",
                "",
                "1",
            )
            equivalent = best.window.rate / pace.per_game if pace else math.nan
            table.note(
                f"  (ours at {best.games} tables = {equivalent:.0f} games at the default pace: "
                f"p99 {ms(best.window.p(99))} ms, CPU {best.cpu_share:.0%})"
            )
            last = games.ramp[-1] if games.ramp else games.main
            if last is not best:
                table.note(
                    f"  (next step, {last.games} tables: {last.window.rate:.1f} updates/s, "
                    f"p99 {ms(last.window.p(99))} ms, CPU {last.cpu_share:.0%})"
                )
    elif bare is not None:
        table.add("bare bot at the offered load, updates/s", f"{bare.main.window.rate:.1f}", "", "")
    if restart is not None:
        table.add(
            f"restart with {restart.games} unfinished games: until all re-armed, s",
            f"{restart.to_resumed:.2f}",
            "< 5",
            f"{bare.to_first_call:.2f} to 1st call" if bare else "—",
            restart.to_resumed < 5 and restart.resumed == restart.games,
        )
        if restart.to_announced is not None:
            told = f"every group had a message from the bot again {restart.to_announced:.1f} s"
        else:  # some groups waited longer than the run: how many did not, is the figure
            told = (
                f"{restart.announced} of {restart.games} groups had a message from the bot "
                f"within {opts.restart_play:g} s of play"
            )
        table.note(
            f'  ("resumed {restart.resumed} running games"; from process start: all '
            f"re-armed at {restart.to_resumed:.2f} s, the first Bot API call at "
            f"{restart.to_first_call:.2f} s; {told})"
        )
        if bare is not None:
            table.note(
                f"  (the bare bot, importing aiogram alone: {bare.to_first_call:.2f} s from "
                "process start to its first Bot API call, the floor of any restart)"
            )
        w = restart.play.window
        table.add(
            f"peak memory with {restart.games} games in the database, MB",
            f"{restart.peak_mb:.0f}",
            "< 300",
            f"{bare.main_peak_mb:.0f}" if bare else "—",
            restart.peak_mb < 300,
        )
        if bare is not None:
            table.note(
                f"  (the bare bot's peak over its whole run, overload included: "
                f"{bare.peak_mb:.0f} MB)"
            )
        table.note(
            f"  (then those games played {opts.restart_play:g} s, timers x{opts.restart_scale:g}: "
            f"{w.rate:.1f} updates/s, p50/p95/p99 "
            f"{latencies(w)} ms, CPU {restart.play.cpu_share:.0%}, "
            f"{sum(restart.errors.values())} refused calls)"
        )
        for what, count in restart.errors.most_common(3):
            table.note(f"    {count} x {what}")
    if bare is not None:
        most = max((bare.main, *bare.ramp), key=lambda s: s.window.rate)
        table.note(
            f"the bare bot's busiest step: {most.window.rate:.0f} updates/s, "
            f"CPU {most.cpu_share:.0%}, {most.cpu_per_1000:.2f} CPU s per 1000 updates"
        )
    table.print()


# Each phase of a press as the report names it (`bot.timings`).
PHASE_NAMES = {"lock": "lock wait"}
PRESS = "callback_query"


def breakdown(by_kind: dict[str, timings.Figures], over: str = "") -> str:
    """Where a press's time went in the window: each phase's p50 / p99 / mean, in ms."""
    presses = by_kind.get(PRESS)
    if presses is None or not presses.count:
        return "  where a press's time goes: no presses timed"
    shown = ", ".join(
        f"{PHASE_NAMES.get(name, name)} {p50:.2f}/{p99:.2f}/{mean:.2f}"
        for name, (p50, p99, mean) in presses.ms.items()
    )
    return (
        f"  where a press's time goes (ms, p50 / p99 / mean, of {presses.count} presses"
        f"{over}): {shown}"
    )


def median_breakdown(rounds: list[Round]) -> dict[str, timings.Figures] | None:
    """Each phase's p50, p99 and mean: their medians over the rounds that timed presses."""
    timed = [
        r.games.main.breakdown[PRESS]
        for r in rounds
        if r.games is not None
        and r.games.main.breakdown is not None
        and PRESS in r.games.main.breakdown
    ]
    if not timed:
        return None
    ms = {
        name: (
            statistics.median(f.ms[name][0] for f in timed),
            statistics.median(f.ms[name][1] for f in timed),
            statistics.median(f.ms[name][2] for f in timed),
        )
        for name in timed[0].ms
        if all(name in f.ms for f in timed)
    }
    return {PRESS: timings.Figures(round(statistics.median(f.count for f in timed)), ms)}


# --- the summary over rounds ------------------------------------------------------------------


@dataclass(frozen=True)
class Figure:
    """A figure the summary gives as the median of the rounds, with its spread."""

    what: str
    of: Callable[[Round], float | None]  # None: the round did not measure it
    unit: str  # how a value is printed: "ms", "s", "x", "%", "MB", "/s"
    target: str = ""
    met: Callable[[float], bool] | None = None


def _main_p(n: int) -> Callable[[Round], float | None]:
    return lambda r: r.games.main.window.p(n) if r.games else None


def _bare_p99(r: Round) -> float | None:
    return r.bare.main.window.p(99) if r.bare else None


def _ratio(r: Round) -> float | None:
    if r.games is None or r.bare is None:
        return None
    return r.games.main.cpu_per_1000 / r.bare.main.cpu_per_1000


def _best_ratio(limit: float) -> Callable[[Round], float | None]:
    def of(r: Round) -> float | None:
        if r.games is None or r.bare is None:
            return None
        ours, bare = r.games.best(limit), r.bare.best(limit)
        if ours is None or bare is None:
            return math.nan if bare is not None else None  # ours never stayed under it
        return ours.window.rate / bare.window.rate

    return of


def figures(opts: argparse.Namespace) -> list[Figure]:
    limit = opts.p99_limit / 1000
    return [
        Figure(f"latency p50 at {opts.games} games' load", _main_p(50), "ms"),
        Figure(f"latency p95 at {opts.games} games' load", _main_p(95), "ms"),
        Figure(
            f"latency p99 at {opts.games} games' load",
            _main_p(99),
            "ms",
            "< 100",
            lambda v: v < 0.1,
        ),
        Figure("  the bare bot's p99 at the same load", _bare_p99, "ms"),
        Figure(
            "CPU seconds per 1000 updates",
            lambda r: r.games.main.cpu_per_1000 if r.games else None,
            "s",
        ),
        Figure("  the bare bot's", lambda r: r.bare.main.cpu_per_1000 if r.bare else None, "s"),
        Figure("  ours / the bare bot's", _ratio, "x", "<= 2", lambda v: v <= 2),
        Figure(
            f"CPU, share of one core ({opts.games} games)",
            lambda r: r.games.main.cpu_share if r.games else None,
            "%",
            "< 25%",
            lambda v: v < 0.25,
        ),
        Figure(
            f"highest load with p99 < {opts.p99_limit:g} ms, ratio of the bare bot's",
            _best_ratio(limit),
            "x",
            ">= 0.5",
            lambda v: v >= 0.5,
        ),
        Figure(
            f"restart, {opts.restart_games} games: process start to the first API call",
            lambda r: r.restart.to_first_call if r.restart else None,
            "s",
            "< 1",
            lambda v: v < 1,
        ),
        Figure(
            "  the bare bot, process start to its first API call (the floor)",
            lambda r: r.bare.to_first_call if r.bare else None,
            "s",
        ),
        Figure(
            "  process start until all are re-armed",
            lambda r: r.restart.to_resumed if r.restart else None,
            "s",
            "< 5",
            lambda v: v < 5,
        ),
        Figure(
            f"peak memory with {opts.restart_games} games in the database",
            lambda r: r.restart.peak_mb if r.restart else None,
            "MB",
            "< 300",
            lambda v: v < 300,
        ),
    ]


def shown(value: float, unit: str) -> str:
    if math.isnan(value):
        return "—"
    if unit == "ms":
        return f"{value * 1000:.1f}"
    if unit == "%":
        return f"{value:.0%}"
    if unit == "MB":
        return f"{value:.0f}"
    return f"{value:.2f}"


def summary(opts: argparse.Namespace, rounds: list[Round]) -> None:
    """Each figure's median over the rounds and its spread (lowest-highest); the verdict
    is the median's. A round that could not measure a figure (nan) counts as a miss."""
    say(f"\nSummary of {len(rounds)} rounds: median (lowest - highest)")
    rows: list[tuple[str, str, str, str, str]] = []
    for figure in figures(opts):
        values = [v for v in (figure.of(r) for r in rounds) if v is not None]
        if not values:
            continue
        measured = [v for v in values if not math.isnan(v)]
        middle = statistics.median(values) if len(measured) == len(values) else math.nan
        if measured:
            spread = f"{shown(min(measured), figure.unit)} - {shown(max(measured), figure.unit)}"
        else:
            spread = "—"
        unit = "" if figure.unit in ("%", "x") else f" {figure.unit}"
        ok = None if figure.met is None else (not math.isnan(middle) and figure.met(middle))
        rows.append(
            (figure.what + unit, shown(middle, figure.unit), spread, figure.target, verdict(ok))
        )
    widths = [max(len(row[i]) for row in rows) for i in range(4)]
    for row in rows:
        cells = [row[0].ljust(widths[0])] + [row[i].rjust(widths[i]) for i in (1, 2, 3)]
        say("  " + "   ".join(cells) + row[4])
    spent = median_breakdown(rounds)
    if spent is not None:
        say(breakdown(spent, over="; medians of the rounds"))


def main(argv: list[str] | None = None) -> int:
    opts = arguments(argv)
    return asyncio.run(bench(opts))


if __name__ == "__main__":
    sys.exit(main())
