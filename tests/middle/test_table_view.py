"""What everybody at the table sees, through the sandbox: the vote's count, keyboards that
go when their moment passes."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from bot.cli.demo import Table
from bot.rules.events import Phase
from bot.rules.state import GameState
from sandbox.calllog import SENDING_METHODS
from sandbox.world import SimMessage
from tests.middle.games import open_game


def at(phase: Phase, day: int | None = None) -> Callable[[GameState], bool]:
    return lambda s: s.phase is phase and (day is None or s.day == day)


def live_keyboards(table: Table) -> list[SimMessage]:
    """Group messages that still show turn or vote buttons."""
    return [
        m
        for m in table.group.messages()
        if m.from_bot
        and any((b.callback_data or "")[:2] in ("t:", "v:") for row in m.buttons() for b in row)
    ]


@pytest.mark.rule("D6")
async def test_D6_D7_only_the_live_moment_has_buttons_and_the_count_is_posted(
    table: Table,
) -> None:
    state = await table.wait_for(at(Phase.ROUND_2, 1))
    await table.linger(5.0)  # seconds after the turn: the group takes one call a second
    assert len(live_keyboards(table)) == 1  # every turn before this one lost its buttons
    turn = table.turn_message()
    first, *numbers = turn.buttons()
    assert [b.text for b in first] == ["Finish speech"]
    assert all(b.text.isdigit() and 4 <= len(row) <= 5 for row in numbers[:-1] for b in row)
    target = next(s for s in state.living() if s not in (state.speaker, *state.queue[:1]))
    await table.nominate(target)
    assert [[b.text for b in row] for row in turn.buttons()] == [["Finish speech"]]
    await table.pass_turn()
    await table.linger(5.0)
    assert turn.buttons() == []
    state = await table.wait_for(at(Phase.VOTE))
    await table.linger(5.0)
    (ballot,) = live_keyboards(table)
    assert [b.text for b in ballot.buttons()[-1]] == ["Abstain"]
    living = state.living()
    for voter in living[:7]:
        await table.vote(voter, target)
    await table.vote(living[7], None)
    state = await table.wait_for(lambda s: s.phase is not Phase.VOTE)
    await table.linger(5.0)
    assert ballot.buttons() == []  # the vote is closed: nothing left to press
    result = next(m for m in table.group.messages() if "The vote is closed" in m.content)
    voters = ", ".join(str(s) for s in sorted(living[:7]))
    assert f"#{target} ({state.seats[target].nick}) — 7 votes: {voters}" in result.content
    abstained = ", ".join(str(s) for s in sorted(living[7:]))
    assert f"Abstained: {abstained}" in result.content
    assert f"player #{target} leaves the game" in result.content
    assert len(live_keyboards(table)) <= 1  # the last word's turn, if any


async def test_taking_stale_buttons_off_keeps_a_quick_day_inside_the_group_window() -> None:
    """Every speaker finishes at once: a day of 36 turns in a few seconds. The group gets
    no more than 20 calls a minute, and once the bot caught up no turn but the live one
    shows buttons."""
    async with open_game(12, seed=3, lang="en", rate_limits=True) as table:
        await table.gather()
        await table.begin()
        turns = 0
        while turns < 36:  # the introductions, then day 1's two rounds
            state = table.state
            assert state is not None and not state.finished
            if state.in_speech:
                await table.pass_turn()
                turns += 1
            else:
                assert await table.advance()
        counted = SENDING_METHODS | {"editMessageText", "editMessageReplyMarkup", "pinChatMessage"}
        calls = table.sandbox.calls(counted, chat=table.group.id, ok=True)
        times = [c.time for c in calls]
        assert max(sum(1 for u in times if t <= u < t + 60) for t in times) <= 20
        # The stale buttons go later, as the window has room to spare: a few a minute.
        assert len(live_keyboards(table)) > 1
        await table.wait_for(lambda s: s.day == 2 and s.phase is Phase.ROUND_2)
        await table.linger(5.0)  # the turn that just ended: a second later, as it can
        assert len(live_keyboards(table)) == 1
        table.sandbox.assert_no_bot_errors()


@pytest.mark.rule("D10")
async def test_D10_N5_an_edit_out_of_turn_is_deleted_and_at_night_reported(table: Table) -> None:
    assert "edited_message" in table.app.dispatcher.resolve_used_update_types()
    await table.host.start_bot()  # so that reports reach the Host
    state = await table.wait_for(at(Phase.ROUND_1, 1))
    assert state.speaker is not None
    first, second = state.speaker, state.queue[0]
    own = await table.person(first).send(table.group, "I am a civilian.")
    await table.settle()
    await table.person(first).edit(own, "I am a civilian, and I mean it.")  # their turn
    await table.settle()
    assert not own.deleted
    await table.pass_turn()
    await table.person(first).edit(own, "Now I say something else.")  # not their turn
    await table.settle()
    assert own.deleted
    said = await table.person(second).send(table.group, "Good evening.")
    await table.settle()
    assert not said.deleted
    state = await table.wait_for(at(Phase.NIGHT))
    assert state.is_alive(second)
    before = [m.content for m in table.host.inbox()]
    await table.person(second).edit(said, "9 is the mafia, I saw him")  # at night
    await table.settle()
    assert said.deleted
    reports = [m.content for m in table.host.inbox()][len(before) :]
    assert len(reports) == 1 and "wrote in the group at night" in reports[0]
    assert f"player #{second} ({state.seats[second].nick})" in reports[0]


@pytest.mark.rule("D10")
async def test_D10_N5_a_question_out_of_turn_is_deleted_and_answered_in_private(
    table: Table,
) -> None:
    await table.host.start_bot()
    state = await table.wait_for(at(Phase.ROUND_1, 1))
    seat = next(s for s in state.living() if s != state.speaker)
    person = table.person(seat)
    inbox = len(person.inbox())
    group = len(table.group.messages())
    asked = await person.send(table.group, "/status 7 is the mafia, I saw him")
    await table.settle()
    assert asked.deleted
    assert not [m for m in table.group.messages()[group:] if m.from_bot]  # no answer there
    answers = person.inbox()[inbox:]
    assert len(answers) == 1 and answers[0].content.startswith("Day 1, ")
    again = await person.send(table.group, "/rules")  # within 10 s: deleted, not answered
    await table.settle()
    assert again.deleted and len(person.inbox()) == inbox + 1
    table.clock.set(table.clock.now() + 11)
    await person.send(table.group, "/help")
    await table.settle()
    assert len(person.inbox()) == inbox + 2
    # The speaker's own question stays and is answered in the group, as before.
    current = table.state
    assert current is not None and current.speaker is not None  # Day 1's turns go on
    speaker = table.person(current.speaker)
    mine = await speaker.send(table.group, "/status")
    await table.settle()
    assert not mine.deleted and table.group.messages()[-1].content.startswith("Day 1, ")
    # At night the question is opening one's eyes (V3): the Host hears of it.
    state = await table.wait_for(at(Phase.NIGHT))
    seat = state.living()[0]
    reports = len(table.host.inbox())
    night = await table.person(seat).send(table.group, "/status")
    await table.settle()
    assert night.deleted
    told = table.host.inbox()[reports:]
    text = told[0].content if told else ""
    assert len(told) == 1 and f"player {table.named(seat)} wrote in the group at night" in text
