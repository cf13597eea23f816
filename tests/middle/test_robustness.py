"""No value, fault or input stops the bot or strands a game (issue 10).

Absurd settings are refused where they are made; a game that cannot be resumed is
reported and never stops the others; a deadline whose commit failed is tried again;
an action whose commit failed is answered "not recorded", never as accepted.
"""

from __future__ import annotations

import contextlib
import sqlite3
from pathlib import Path
from typing import Any

import pytest

from bot.cli.demo import RIGHTS, Table
from bot.rules.events import Phase
from bot.services.game.clockwork import COMMIT_RETRIES
from bot.services.game.shared import TURN
from sandbox import SimGroup, SimUser
from storage.games import GameStatus
from tests.middle.games import open_game
from tests.steps import NOT_RECORDED, failing_appends


async def say(table: Table, who: SimUser, chat: Any, text: str) -> str:
    await who.send(chat, text)
    await table.settle()
    return str(chat.messages()[-1].content)


# --- settings: refused where they are made ----------------------------------------------


@pytest.mark.rule("T6")
async def test_T6_the_judge_cannot_set_an_absurd_value() -> None:
    async with open_game(12, seed=2, lang="en") as table:
        judge = table.host
        await judge.start_bot()
        await table.settle()
        await say(table, judge, judge.private, "/tournament Spring Cup")
        # The command's arguments are parsed and bounded before anything is built
        # (handlers.args.SETTINGS, from JUDGE_RANGES): an absurd value gets the usage,
        # which names the ranges, and changes nothing.
        for args in (
            "game.introduction_seconds 1e12",
            "game.night_seconds inf",
            "game.vote_seconds 1e-9",
            "game.round1_seconds nan",
            "game.round1_seconds 3601",
            "group_min 11",
            "group_max 17",
            "bonus_threshold 99999999999999999999",
            "bonus_coefficient 1000",
            "bonus_coefficient 12.5",
        ):
            answer = await say(table, judge, judge.private, f"/settings {args}")
            assert answer.startswith("Usage: /settings"), args
            assert "timers 1 to 3600 s, group sizes 12 to 16" in answer
        shown = await say(table, judge, judge.private, "/settings")
        # T6: in words and units, each with the key that changes it.
        assert "Day 0, introductions: 30 s per player — game.introduction_seconds" in shown
        assert "Fewest players in a group: 12 — group_min" in shown
        changed = await say(table, judge, judge.private, "/settings game.introduction_seconds 45")
        assert "Day 0, introductions: 30 s per player → 45 s per player" in changed
        table.sandbox.assert_no_bot_errors()


# --- resuming: each game on its own -----------------------------------------------------


async def second_table(table: Table, people: list[SimUser]) -> tuple[SimGroup, int]:
    """Another club in the same sandbox: its own group, Host and players, its game begun."""
    host = table.sandbox.add_user("Second Host", username="host2", language_code="en")
    group = table.sandbox.add_supergroup("Second Club", owner=host)
    group.add_bot(added_by=host)
    group.promote_bot(by=host, **RIGHTS)
    for person in people:
        group.add_member(person)
    await host.send(group, "/newgame")
    await table.settle()
    lobby = group.visible_messages()[-1]
    for person in people:
        await person.follow(lobby, 0)
        await table.settle()
    await host.send(group, "/begin")
    await table.settle()
    game = await table.app.service.active_game(group.id)
    assert game is not None and game.status is GameStatus.RUNNING
    return group, game.game_id


def damage(database: Path, game_id: int, **paths: object) -> None:
    """What a game committed before the settings were checked left in the database."""
    with contextlib.closing(sqlite3.connect(database)) as db:
        for path, value in paths.items():
            db.execute(
                "UPDATE games SET state_json = json_set(state_json, ?, ?) WHERE game_id = ?",
                (f"$.{path}", value, game_id),
            )
        db.commit()


async def test_a_game_that_cannot_resume_never_stops_the_others(tmp_path: Path) -> None:
    """`/settings game.introduction_seconds 1e12` used to be committed; every restart then
    raised `year 33714 is out of range` and the bot exited. Now the broken game is closed
    and its Host told; the other game and the bot go on."""
    async with open_game(24, seed=6, lang="en", folder=tmp_path) as table:
        await table.gather(table.people[:12])
        await table.begin()
        broken = table.game_id
        assert broken is not None
        other_group, other = await second_table(table, table.people[12:])
        await table.shut_down()
        far = table.clock.now() + 1e12
        damage(table.database_path, broken, **{"settings.introduction_seconds": 1e12})
        damage(table.database_path, broken, deadline=far)
        await table.boot()
        await table.settle()
        service = table.app.service
        game = await service.repos.games.get(broken)
        assert game is not None and game.status is GameStatus.ABORTED  # the group is free
        told = table.group.messages()[-1].content  # the Host never opened a private chat
        assert f"Game #{broken}: after the restart its saved state could not be read" in told
        assert any(f"game #{other} goes on" in m.content for m in other_group.messages())
        state = service.cached_state(other)
        assert state is not None
        assert [job for job in table.timers.pending() if job[2] == other]  # its clock runs
        for _ in range(2):  # the speaker's warning, then the deadline
            assert await table.advance()
        after = service.cached_state(other)
        assert after is not None and after.step == state.step + 1
        # The freed group can play again.
        await table.host.send(table.group, "/newgame")
        await table.settle()
        assert await service.active_game(table.group.id) is not None


async def test_a_deadline_that_cannot_be_armed_is_reported_not_raised(tmp_path: Path) -> None:
    async with open_game(12, seed=8, lang="en", folder=tmp_path) as table:
        await table.gather()
        await table.begin()
        assert table.game_id is not None
        await table.shut_down()
        damage(table.database_path, table.game_id, deadline=table.clock.now() + 1e12)
        await table.boot()  # used to raise out of resume_all: the bot exited
        await table.settle()
        told = table.group.messages()[-1].content
        assert f"Game #{table.game_id}: I could not set the clock for this turn" in told
        # The Host ends the turn by hand; the next one has its clock again.
        state = table.state
        assert state is not None
        await table.host.send(table.group, "/skip")
        await table.settle()
        after = table.state
        assert after is not None and after.step == state.step + 1
        assert [job for job in table.timers.pending() if job[1] == TURN]


async def test_arming_after_a_commit_never_raises(
    table: Table, monkeypatch: pytest.MonkeyPatch
) -> None:
    state = table.state
    assert state is not None

    def refuse(*_: object) -> None:
        raise ValueError("year 33714 is out of range")

    monkeypatch.setattr(table.timers, "arm", refuse)
    await table.host.send(table.group, "/skip")
    await table.settle()
    after = table.state
    assert after is not None and after.step == state.step + 1  # committed, and told
    assert "I could not set the clock for this turn" in table.group.messages()[-1].content


# --- a failing commit ------------------------------------------------------------------


def turn_due(table: Table) -> float | None:
    return next((job[0] for job in table.timers.pending() if job[1] == TURN), None)


async def deadline(table: Table) -> None:
    """The clock runs to the turn's deadline (past the speaker's warning), which fires."""
    due = turn_due(table)
    assert due is not None, "no deadline armed"
    table.clock.set(due)
    table.timers.fire_due()
    await table.settle()


@pytest.mark.rule("T2")
async def test_T2_a_deadline_whose_commit_failed_is_tried_again(
    table: Table, monkeypatch: pytest.MonkeyPatch
) -> None:
    state = table.state
    assert state is not None and state.deadline is not None
    failed = failing_appends(monkeypatch, 2)
    await deadline(table)  # the deadline fires; its commit fails
    assert failed() == 1 and table.state is not None and table.state.step == state.step
    assert turn_due(table) == pytest.approx(table.clock.now() + COMMIT_RETRIES[0])
    await deadline(table)  # fails again: the next try waits longer
    assert failed() == 2 and turn_due(table) == pytest.approx(table.clock.now() + COMMIT_RETRIES[1])
    await deadline(table)  # stored at last: the game goes on
    after = table.state
    assert after is not None and after.step == state.step + 1
    table.sandbox.assert_no_bot_errors()


@pytest.mark.rule("T2")
async def test_T2_when_the_retries_are_spent_the_host_is_told(
    table: Table, monkeypatch: pytest.MonkeyPatch
) -> None:
    state = table.state
    assert state is not None
    failing_appends(monkeypatch, len(COMMIT_RETRIES) + 1)
    for _ in range(len(COMMIT_RETRIES) + 1):
        await deadline(table)
    assert not [job for job in table.timers.pending() if job[1] == TURN]
    told = table.group.messages()[-1].content
    assert "the turn is over, but I could not save that" in told
    assert table.state is not None and table.state.step == state.step
    await table.host.send(table.group, "/skip")  # storage works again: the Host ends it
    await table.settle()
    after = table.state
    assert after is not None and after.step == state.step + 1


async def test_a_press_whose_commit_failed_is_not_recorded(
    table: Table, monkeypatch: pytest.MonkeyPatch
) -> None:
    state = await table.wait_for(lambda s: s.phase is Phase.ROUND_1)
    failing_appends(monkeypatch, 2)
    press = await table.pass_turn()
    assert press.answer is not None and press.answer.show_alert
    assert press.answer.text == NOT_RECORDED
    assert table.state is not None and table.state.step == state.step
    await table.host.send(table.group, "/skip")
    await table.settle()
    reply = table.group.messages()[-1]
    assert reply.content == NOT_RECORDED
    assert table.state is not None and table.state.step == state.step
    again = await table.pass_turn()  # the next try is stored
    assert again.answer is not None and not again.answer.show_alert
    after = table.state
    assert after is not None and after.step == state.step + 1
    stored = await table.app.service.repos.protocol.read(state.game_id)
    passes = [e for e in stored if '"passed"' in e.payload_json]
    assert len(passes) == 1  # the refused tries left nothing in the protocol
