"""An honest clock (issue 22 §2, T2): the turn message shows the end time that holds now.

A pause, a resume and an extension edit the turn's own message in place, in the chat's
time zone ("МСК" in Russian), and leave its buttons as they were. Through the sandbox.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from datetime import datetime
from zoneinfo import ZoneInfo

import pytest

from bot.cli.demo import Table
from sandbox import SimMessage
from tests.middle.games import open_game


def moscow(moment: float) -> str:
    return datetime.fromtimestamp(moment, ZoneInfo("Europe/Moscow")).strftime("%H:%M:%S")


@pytest.fixture
async def stol() -> AsyncIterator[Table]:
    """Twelve players at a Russian table, the game begun; no bad request allowed."""
    async with open_game(12, seed=5, lang="ru") as table:
        await table.gather()
        await table.begin()
        yield table
        table.sandbox.assert_no_bot_errors()


async def say(table: Table, text: str) -> None:
    await table.host.send(table.group, text)
    await table.settle()


def keys(message: SimMessage) -> list[str]:
    return [b.text for row in message.buttons() for b in row]


@pytest.mark.rule("T2")
async def test_pause_resume_and_extend_edit_the_turn_message(stol: Table) -> None:
    state = stol.state
    assert state is not None and state.deadline is not None and state.speaker is not None
    turn = stol.turn_message()
    buttons, shown = keys(turn), turn.message_id
    # The end time names its zone, as every clock time a player reads does.
    assert f"До {moscow(state.deadline)} МСК." in turn.content, turn.content

    await say(stol, "/extend 20")
    extended = stol.state
    assert extended is not None and extended.deadline == pytest.approx(state.deadline + 20)
    assert extended.deadline is not None
    turn = stol.turn_message()
    assert turn.message_id == shown and turn.edit_date is not None  # edited in place
    assert f"До {moscow(extended.deadline)} МСК." in turn.content, turn.content
    assert moscow(state.deadline) not in turn.content
    assert keys(turn) == buttons

    stol.clock.set(stol.clock.now() + 7)
    await say(stol, "/pause")
    paused = stol.state
    assert paused is not None and paused.paused_remaining is not None
    turn = stol.turn_message()
    left = round(paused.paused_remaining)
    assert f"⏸ Пауза: осталось {left} с." in turn.content, turn.content
    assert "До " not in turn.content.split("\n", 1)[1]  # no end time while it stands still
    assert keys(turn) == buttons

    stol.clock.set(stol.clock.now() + 300)  # a long dispute
    await say(stol, "/resume")
    resumed = stol.state
    assert resumed is not None and resumed.deadline is not None
    turn = stol.turn_message()
    assert f"До {moscow(resumed.deadline)} МСК." in turn.content, turn.content
    assert "Пауза" not in turn.content
    assert keys(turn) == buttons
    # One message, edited in place: the turn was never announced again.
    assert turn.message_id == shown
    speaker = stol.named(state.speaker)
    assert sum(speaker in m.content and "Слово" in m.content for m in stol.group.messages()) == 1


@pytest.mark.rule("T2")
async def test_extend_during_a_pause_shows_the_longer_time_left(stol: Table) -> None:
    await say(stol, "/pause")
    before = stol.state
    assert before is not None and before.paused_remaining is not None
    await say(stol, "/extend 20")
    turn = stol.turn_message()
    left = round(before.paused_remaining + 20)
    assert f"⏸ Пауза: осталось {left} с." in turn.content, turn.content


@pytest.mark.rule("T2")
async def test_the_next_speaker_named_on_the_turn_message_follows_a_removal(stol: Table) -> None:
    state = stol.state
    assert state is not None and len(state.queue) >= 2
    following, after = state.queue[0], state.queue[1]
    assert f"Следующий — игрок {stol.named(following)}." in stol.turn_message().content
    await say(stol, f"/remove {following}")
    moved = stol.state
    assert moved is not None and moved.speaker == state.speaker
    assert next(s for s in moved.queue if moved.is_alive(s)) == after
    turn = stol.turn_message()
    assert f"Следующий — игрок {stol.named(after)}." in turn.content, turn.content
    assert f"Следующий — игрок {stol.named(following)}." not in turn.content
