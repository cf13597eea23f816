"""`make bench` asks the bot where a press's time went and prints it (issue 14)."""

from __future__ import annotations

import argparse
import asyncio
from collections import Counter

import pytest

from bench import __main__ as bench
from bench.probe import Window
from bench.procs import BotProcess
from bench.run import LoadRun, Step, ask_timings
from bot import timings

PHASES = (*timings.PHASES, "other", "total")


def figures(count: int, base: float) -> dict[str, timings.Figures]:
    ms = {name: (base + i, 2 * base + i, base + i + 0.5) for i, name in enumerate(PHASES)}
    return {"callback_query": timings.Figures(count, ms)}


def window() -> Window:
    return Window(
        start=0.0,
        end=60.0,
        pushed=600,
        fetched=600,
        kinds=Counter({"callback_query": 400, "message:supergroup": 200}),
        latencies=[0.01] * 600,
        waits=[],
        held=[],
        unanswered=0,
        errors=Counter(),
    )


def test_the_report_says_where_a_press_went_under_the_games_phase(
    capsys: pytest.CaptureFixture[str],
) -> None:
    opts = argparse.Namespace(games=400, p99_limit=250.0, scale=0.05)
    main = Step("load", window(), bot_cpu=6.0, driver_cpu=12.0, games=20)
    main.breakdown = figures(400, 0.25)
    bench.report(opts, None, LoadRun(main), None, None)
    lines = [line for line in capsys.readouterr().out.splitlines() if "press's time" in line]
    assert lines == [
        "    where a press's time goes (ms, p50 / p99 / mean, of 400 presses): "
        "lock wait 0.25/0.50/0.75, state 1.25/1.50/1.75, engine 2.25/2.50/2.75, "
        "render 3.25/3.50/3.75, commit 4.25/4.50/4.75, send 5.25/5.50/5.75, "
        "other 6.25/6.50/6.75, total 7.25/7.50/7.75"
    ]


def test_without_presses_timed_the_line_says_so() -> None:
    assert bench.breakdown({}) == "  where a press's time goes: no presses timed"


def test_the_summary_gives_each_figures_median_over_the_rounds() -> None:
    rounds = []
    for base in (0.5, 0.25, 1.0):
        step = Step("load", window(), 6.0, 12.0, 20, breakdown=figures(int(base * 400), base))
        rounds.append(bench.Round(games=LoadRun(step)))
    rounds.append(bench.Round())  # a round without the games phase has no say
    middle = bench.median_breakdown(rounds)
    assert middle is not None
    assert middle["callback_query"].count == 200
    assert middle["callback_query"].ms["lock"] == (0.5, 1.0, 1.0)
    assert bench.median_breakdown([bench.Round()]) is None


SERVED = """
import asyncio, logging
from bot import timings
from bot.logs import setup_logging

async def main() -> None:
    setup_logging()
    assert timings.serve(asyncio.get_running_loop())
    with timings.update("callback_query"), timings.phase("engine"):
        pass
    logging.getLogger("served").info("ready")
    await asyncio.Event().wait()

asyncio.run(main())
"""


async def test_the_bench_asks_a_running_bot_over_sigusr1_and_it_starts_afresh() -> None:
    served = BotProcess("served", ["-c", SERVED], env={timings.ENVIRONMENT: "1"})
    await served.start()
    try:
        await asyncio.wait_for(served.expect("ready"), 30)
        first = await ask_timings(served)
        assert first["callback_query"].count == 1
        assert set(first["callback_query"].ms) == set(PHASES)
        assert await ask_timings(served) == {}  # counted afresh since
        assert served.error_lines == 0, served.tail()
    finally:
        await served.stop()


def test_off_unless_the_environment_asks() -> None:
    loop = asyncio.new_event_loop()
    try:
        assert not timings.serve(loop, {})
        assert not timings.ON
    finally:
        loop.close()
