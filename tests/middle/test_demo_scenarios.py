"""The demo's game scenarios (`python -m bot demo --scenario host|lot|tie|sanction`): the
Host's work and the day's rarer endings, each played through to the end, in process
(issue 13). Their transcripts over HTTP: tests/e2e/test_demo_transcript.py."""

from __future__ import annotations

import random

import pytest

from bot.cli.demo import play
from bot.cli.scenarios import Scripted
from bot.rules.events import Cause
from bot.rules.sanctions import Penalty, VCode
from bot.rules.state import GameState
from tests.middle.games import open_game


async def scenario(name: str, seed: int = 2) -> tuple[GameState, str]:
    async with open_game(8, seed=seed, lang="en", rate_limits=True) as table:
        await table.gather()
        await table.begin()
        state = await play(table, Scripted(table, random.Random(seed), "en", scenario=name))
        table.sandbox.assert_no_bot_errors()
        return state, table.transcript()


@pytest.mark.rule("T2")
async def test_the_host_pauses_extends_warns_and_removes() -> None:
    state, transcript = await scenario("host")
    for command in ("/pause", "/status", "/resume", "/extend 20", "/warn", "/remove"):
        assert f"Host Sasha: {command}" in transcript, command
    assert [s.penalty for s in state.sanctions] == [Penalty.WARNING, Penalty.REMOVAL_FROM_GAME]
    removal = state.sanctions[-1]
    assert removal.code is None and state.seats[removal.seat].left is Cause.REMOVAL
    assert state.finished


@pytest.mark.rule("D8")
async def test_nobody_nominated_on_day_one_draws_a_lot() -> None:
    state, transcript = await scenario("lot")
    day_one = transcript.split("Day 2.")[0]
    assert " nominates " not in day_one.split("Day 1.")[1]
    assert any(s.left is Cause.LOT for s in state.seats.values())


@pytest.mark.rule("D7")
async def test_an_even_split_sends_both_leaders_away() -> None:
    state, transcript = await scenario("tie")
    assert "have the same number of votes — all of them leave the game" in transcript
    assert state.finished


@pytest.mark.rule("V5")
async def test_the_sanction_ladder() -> None:
    state, _ = await scenario("sanction")
    ladder = [(s.code, s.penalty) for s in state.sanctions]
    assert ladder == [
        (VCode.V5, Penalty.WARNING),
        (VCode.V2, Penalty.WARNING),
        (VCode.V5, Penalty.REMOVAL_FROM_GAME),
    ]
