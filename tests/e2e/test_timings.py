"""Where a press's time goes (issue 14): a whole game's updates, timed phase by phase.

`make bench` reads these figures from the bot under load; here a sandbox game over HTTP
shows that every update is timed, that each phase a press goes through is counted, and
that the phases never add up to more than the update's whole time.
"""

from __future__ import annotations

import random

import pytest

from bot import timings
from bot.cli.demo import Crowd, open_table, play


async def _game(seed: int, moves: int | None = None) -> int:
    """A 12-player game played by buttons, to its end or for a number of `moves`; the
    presses Telegram delivered."""
    async with open_table(12, seed=seed, lang="en", rate_limits=True) as table:
        await table.host.start_bot()  # the Host's panel follows each press
        await table.gather()
        await table.begin()
        crowd = Crowd(table, random.Random(seed), "en")
        if moves is None:
            await play(table, crowd)
        for _ in range(moves or 0):
            await table.settle()
            if not await crowd.act():
                await table.advance()
        table.sandbox.assert_no_bot_errors()
        return sum(
            1
            for record in table.sandbox.calls("getUpdates")
            for update in record.result or []
            if "callback_query" in update
        )


async def test_every_press_of_a_game_is_timed_phase_by_phase(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(timings, "ON", True)
    timings.forget()
    try:
        delivered = await _game(5)
        presses = timings.kept("callback_query")
        messages = timings.kept("message")
    finally:
        timings.forget()
    assert delivered > 50 and len(presses) == delivered
    assert messages  # the lobby's and the Host's commands
    for total, *spent in presses:
        assert min(spent) >= 0
        assert sum(spent) <= total * (1 + 1e-9)
    # An accepted press waits for the game's lock, loads the state, applies the rules,
    # renders, commits and answers: each phase has its share of the game's presses.
    summed = dict(
        zip(timings.PHASES, map(sum, zip(*(s for _, *s in presses), strict=True)), strict=True)
    )
    assert all(seconds > 0 for seconds in summed.values()), summed
    figures = timings.figures(presses)
    assert figures.count == delivered
    assert figures.ms["total"][2] >= sum(figures.ms[name][2] for name in timings.PHASES)


async def test_off_a_game_keeps_no_timings() -> None:
    timings.forget()
    assert not timings.ON
    assert await _game(6, moves=20) > 0
    assert timings.kept("callback_query") == [] and timings.kept("message") == []
