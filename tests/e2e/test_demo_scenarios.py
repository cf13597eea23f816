"""`python -m bot demo --scenario`: the Host's work, the day's rarer endings and a small
tournament, each played through to the end in the sandbox (issue 13)."""

from __future__ import annotations

import io
import random

import pytest

from bot.__main__ import main
from bot.cli.demo import open_table, play, play_demo
from bot.cli.scenarios import SMALLEST_TOURNAMENT, Scripted
from bot.config import Config
from bot.rules.events import Cause
from bot.rules.sanctions import Penalty, VCode
from bot.rules.state import GameState


async def scenario(name: str, seed: int = 2) -> tuple[GameState, str]:
    async with open_table(8, seed=seed, lang="en", rate_limits=True) as table:
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


@pytest.mark.rule("T4")
@pytest.mark.rule("T5")
async def test_a_small_tournament_from_registration_to_the_final_standings() -> None:
    out = io.StringIO()
    assert await play_demo(Config(), SMALLEST_TOURNAMENT, 2, "en", out, "tournament") == 0
    transcript = out.getvalue()
    judge = "Judge Maria (private) | Judge Maria: "
    for command in ("/tournament Autumn Cup", "/groups", "/groups confirm", "/standings"):
        assert judge + command in transcript, command
    assert "Table T1R1G1 | Judge Maria: /bind T1R1G1 @host" in transcript
    assert transcript.count("You are registered in") == SMALLEST_TOURNAMENT
    assert transcript.count("new_chat_members") >= 2 * SMALLEST_TOURNAMENT  # club, table
    for command in ("/newgame", "/begin"):
        assert f"Table T1R1G1 | Host Sasha: {command}" in transcript
    # T3: the Host signs, and the sheet goes to the Judge.
    assert "Judge Maria (private) | Mafia Table [bot]: Sheet of game #1" in transcript
    # T5: everybody, the Judge included, gets the final standings.
    assert transcript.count("is over. Top three:") == SMALLEST_TOURNAMENT + 1
    assert transcript.rstrip().endswith("is over: one tour, 12 players (demo seed 2).")


async def test_only_the_configured_judge_runs_the_demo_tournament() -> None:
    """The sandbox runs with the Judge alone in `[access] judges`, as a club's server."""
    async with open_table(6, seed=1, lang="en", judge=True) as table:
        someone = table.people[0]
        await someone.start_bot()
        await someone.send(someone.private, "/tournament Mine")
        await table.settle()
        assert "Only the Judges named" in someone.inbox()[-1].content
        assert table.judge is not None
        await table.judge.start_bot()
        await table.judge.send(table.judge.private, "/tournament Autumn Cup")
        await table.settle()
        assert "?start=reg_" in table.judge.inbox()[-1].content


def test_a_tournament_demo_needs_a_table_of_players(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit:
        main(["demo", "--scenario", "tournament", "--players", "11"])
    assert exit.value.code == 2
    assert "12 players or more" in capsys.readouterr().err
