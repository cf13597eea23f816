"""`python -m bot demo --scenario tournament`: a small tournament played through to its
standings over HTTP (issue 13). The game scenarios' rules are checked in process
(tests/middle/test_demo_scenarios.py), their transcripts here (test_demo_transcript.py)."""

from __future__ import annotations

import io

import pytest

from bot.__main__ import main
from bot.cli.demo import open_table, play_demo
from bot.cli.scenarios import SMALLEST_TOURNAMENT
from bot.config import Config


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
