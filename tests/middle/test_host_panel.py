"""The Host's private panel through the sandbox (issue 11): what it shows, every button,
the sanction picker end to end, forged presses, a seated Host, a restart."""

from __future__ import annotations

import pytest

from bot.cli.demo import Table
from bot.rules.events import Cause, Phase
from bot.rules.sanctions import Penalty, VCode
from bot.views.callbacks import PanelCb
from sandbox import SimMessage
from tests.middle.games import open_game
from tests.steps import forge


@pytest.fixture
def table(hosted_table: Table) -> Table:
    return hosted_table


def panels(table: Table) -> list[SimMessage]:
    return [m for m in table.host.inbox() if "Host's panel" in m.content]


def panel(table: Table) -> SimMessage:
    (only,) = panels(table)
    return only


async def press(table: Table, button: str) -> str | None:
    """The Host presses a panel button; the alert, if any, it was answered with."""
    pressed = await table.host.press(panel(table), button)
    await table.settle()
    return pressed.answer.text if pressed.answer is not None else None


@pytest.mark.rule("S3")
async def test_the_host_gets_one_panel_with_the_deal(table: Table) -> None:
    state = table.state
    assert state is not None
    shown = panel(table)
    for seat, role in state.roles.items():
        assert f"{table.label(seat)} — {table.texts('en', f'role.{role.value}')}" in shown.content
    assert state.speaker is not None
    assert f"Speaking: {table.label(state.speaker)}." in shown.content
    # Nobody else hears of the roles: no player's inbox holds the panel.
    for person in table.people:
        assert not any("Host's panel" in m.content for m in person.inbox())


@pytest.mark.rule("T2")
async def test_pause_resume_extend_and_skip_from_the_panel(table: Table) -> None:
    state = table.state
    assert state is not None and state.deadline is not None
    deadline, speaker = state.deadline, state.speaker
    assert await press(table, "+30 s") is None
    after = table.state
    assert after is not None and after.deadline == deadline + 30
    assert "The Host added 30 s." in table.group.messages()[-1].content
    assert await press(table, "⏸ Pause") is None
    assert table.state is not None and table.state.paused
    assert "⏸ Paused:" in panel(table).content
    assert await press(table, "▶️ Resume") is None
    assert table.state is not None and not table.state.paused
    assert await press(table, "⏭ End turn") is None
    assert table.state is not None and table.state.speaker != speaker
    assert len(panels(table)) == 1  # edited in place, never posted again


@pytest.mark.rule("T2")
async def test_a_press_for_an_earlier_turn_is_stale(table: Table) -> None:
    state = table.state
    assert state is not None and state.game_id is not None
    old = PanelCb(game=state.game_id, step=state.step, do="skip").pack()
    await press(table, "⏭ End turn")
    moved = table.state
    assert moved is not None and moved.step == state.step + 1
    late = forge(table, table.host, panel(table), old)
    await table.settle()
    answer = await late.wait_answer()
    assert answer.text == table.texts("en", "error.stale")
    assert table.state is not None and table.state.step == moved.step  # nothing skipped


@pytest.mark.rule("V2")
async def test_the_sanction_picker_end_to_end(table: Table) -> None:
    state = table.state
    assert state is not None
    seat = state.living()[3]
    # Seat, then the violation in words, then the ladder's proposal; Back and Cancel undo.
    await press(table, "⚠️ Violation…")
    assert "Who broke the rules?" in panel(table).content
    await press(table, "« Back")
    assert "Who broke the rules?" not in panel(table).content
    await press(table, "⚠️ Violation…")
    await press(table, str(seat))
    names = [b.text for row in panel(table).buttons() for b in row]
    assert names[:7] == [table.texts("en", f"violation.{v.value}") for v in VCode]
    await press(table, "insult")
    assert "insult. The rules give a warning. Confirm?" in panel(table).content
    assert await press(table, "Cancel") == "Sanction cancelled."
    assert table.state is not None and table.state.sanctions == []
    assert "⚠️ Violation…" in [b.text for row in panel(table).buttons() for b in row]
    await press(table, "⚠️ Violation…")
    await press(table, str(seat))
    await press(table, "insult")
    assert await press(table, "Confirm") is None
    after = table.state
    assert after is not None
    assert [(s.seat, s.code, s.penalty) for s in after.sanctions] == [
        (seat, VCode.V2, Penalty.WARNING)
    ]
    told = table.group.messages()[-1].content
    assert f"Player {table.named(seat)}: warning #1 (insult)." in told
    assert "V2" not in told
    assert "warning #1 (insult)" in panel(table).content
    # The second insult: the ladder says disqualification (V2), and the seat leaves.
    await press(table, "⚠️ Violation…")
    await press(table, str(seat))
    await press(table, "insult")
    assert "disqualification" in panel(table).content
    await press(table, "Confirm")
    final = table.state
    assert final is not None and final.seats[seat].left is Cause.DISQUALIFICATION
    assert "disqualification (insult)" in table.group.messages()[-1].content
    assert "disqualified" in panel(table).content


@pytest.mark.rule("V2")
async def test_a_stale_proposal_is_refused(table: Table) -> None:
    state = table.state
    assert state is not None
    seat = state.living()[1]
    await press(table, "⚠️ Violation…")
    await press(table, str(seat))
    await press(table, "insult")
    proposal = panel(table)
    confirm = next(b for row in proposal.buttons() for b in row if b.text == "Confirm")
    # Meanwhile the Host warns the same seat by command: the panel's proposal is stale.
    await table.host.send(table.group, f"/warn {seat} V2")
    await table.settle()
    await table.host.press(table.host.inbox()[-1], "Confirm")  # in private (issue 22 §1)
    await table.settle()
    late = forge(table, table.host, proposal, confirm.callback_data or "")
    await table.settle()
    assert (await late.wait_answer()).text == table.texts("en", "error.stale")
    after = table.state
    assert after is not None and len(after.sanctions) == 1


async def test_a_foreign_or_forged_press_is_refused(table: Table) -> None:
    state = table.state
    assert state is not None
    player = table.person(state.living()[0])
    skip = PanelCb(game=state.game_id, step=state.step, do="skip").pack()
    # A player who copied the data, pressing it on a message of their own.
    pressed = forge(table, player, player.inbox()[-1], skip)
    await table.settle()
    assert (await pressed.wait_answer()).text == "Only the Host can do that."
    # The Host's data on another game's number, and a step of the picker nobody offers.
    other = PanelCb(game=state.game_id + 1, step=state.step, do="skip").pack()
    pressed = forge(table, table.host, panel(table), other)
    await table.settle()
    assert (await pressed.wait_answer()).text == "Only the Host can do that."
    odd = PanelCb(game=state.game_id, step=state.step, do="seat", seat=99).pack()
    pressed = forge(table, table.host, panel(table), odd)
    await table.settle()
    assert (await pressed.wait_answer()).text == table.texts("en", "error.stale")
    # The Host's own panel data pressed from the group: not the panel.
    pressed = forge(table, table.host, table.group.messages()[-1], skip)
    await table.settle()
    assert (await pressed.wait_answer()).text == "Only the Host can do that."
    after = table.state
    assert after is not None and after.step == state.step and after.speaker == state.speaker


async def test_a_host_who_holds_a_seat_gets_no_panel() -> None:
    async with open_game(11, seed=5, lang="en") as table:
        await table.host.start_bot()
        await table.gather([table.host, *table.people])
        await table.begin()
        state = table.state
        assert state is not None and state.seat_of(table.host.id) is not None
        assert panels(table) == []
        forged = PanelCb(game=state.game_id, step=state.step, do="skip").pack()
        pressed = forge(table, table.host, table.host.inbox()[-1], forged)
        await table.settle()
        assert (await pressed.wait_answer()).text == table.texts("en", "panel.seated")
        assert table.state is not None and table.state.step == state.step
        table.sandbox.assert_no_bot_errors()


async def test_the_panel_comes_when_the_host_presses_start() -> None:
    async with open_game(12, seed=5, lang="en") as table:
        await table.gather()
        await table.begin()
        assert panels(table) == []
        await table.host.start_bot()
        await table.settle()
        assert len(panels(table)) == 1
        table.sandbox.assert_no_bot_errors()


async def test_the_panel_survives_a_restart(table: Table) -> None:
    before = panel(table)
    await table.restart()
    assert panel(table).message_id == before.message_id
    await table.host.send(table.group, "/pause")
    await table.settle()
    assert panel(table).message_id == before.message_id
    assert "⏸ Paused:" in panel(table).content
    assert await press(table, "▶️ Resume") is None  # its buttons work after the restart
    assert table.state is not None and not table.state.paused


async def test_a_panel_lost_over_a_restart_is_posted_anew() -> None:
    async with open_game(12, seed=5, lang="en") as table:
        await table.host.start_bot()
        await table.gather()
        await table.begin()
        before = panel(table)
        before.deleted = True  # the Host deleted it while the bot was down
        await table.restart()
        await table.host.send(table.group, "/pause")
        await table.settle()
        fresh = panel(table)
        assert fresh.message_id != before.message_id and "⏸ Paused:" in fresh.content
        table.sandbox.assert_no_bot_errors(allow=["message to edit not found"])


async def test_the_panel_follows_a_whole_night(table: Table) -> None:
    state = await table.wait_for(lambda s: s.phase is Phase.NIGHT)
    commissioner = state.commissioner()
    mafia = state.living_mafia()
    target = next(s for s in state.living() if s not in mafia and s != commissioner)
    await table.night_pick(commissioner, mafia[0])
    assert f"check — {table.label(mafia[0])}, mafia" in panel(table).content
    await table.night_pick(mafia[0], target)
    assert f"shots {mafia[0]} → {target}" in panel(table).content


async def test_a_host_handed_the_game_gets_the_panel(table: Table) -> None:
    helper = table.sandbox.add_user("Sam", username="sam", language_code="en")
    table.group.add_member(helper)
    await helper.start_bot()
    await table.settle()
    old = panel(table)
    await table.host.send(table.group, "/host @sam")
    await table.settle()
    theirs = [m for m in helper.inbox() if "Host's panel" in m.content]
    assert len(theirs) == 1 and "⏸ Pause" in [b.text for r in theirs[0].buttons() for b in r]
    # The former Host's buttons no longer work.
    pressed = await table.host.press(old, "⏭ End turn")
    await table.settle()
    assert pressed.answer is not None and pressed.answer.text == "Only the Host can do that."
    pressed = await helper.press(theirs[0], "⏸ Pause")
    await table.settle()
    assert table.state is not None and table.state.paused


@pytest.mark.rule("V3")
async def test_a_night_report_quotes_what_was_written_and_opens_the_sanction(table: Table) -> None:
    """N5, V3: the Host's report says what the deleted message held (a text quoted, a
    photo as a photo with its caption), so `/status` is told apart from "5 is mafia"; its
    button opens the panel's proposal for that seat and V3, which the Host confirms."""
    state = await table.wait_for(lambda s: s.phase is Phase.ACQUAINTANCE)
    seat, other = state.living()[2], state.living()[5]
    reports = len(table.host.inbox())
    await table.person(seat).send(table.group, "5 is <b>mafia</b>")
    await table.person(other).send_media(table.group, "photo", caption="look")
    await table.settle()
    told = [m for m in table.host.inbox()[reports:] if "wrote in the group at night" in m.content]
    assert len(told) == 2
    assert told[0].content.endswith("It held: “5 is <b>mafia</b>”")  # escaped: shown as sent
    assert told[1].content.endswith("It held: a photo captioned “look”")
    pressed = await table.host.press(told[0], "Propose a sanction")
    await table.settle()
    assert pressed.answer is None or not pressed.answer.show_alert
    shown = panel(table).content
    assert table.texts("en", "violation.V3") in shown and "Confirm?" in shown
    assert str(seat) in shown
    await press(table, "Confirm")
    after = table.state
    assert after is not None and [(s.seat, s.code) for s in after.sanctions] == [(seat, VCode.V3)]


@pytest.mark.rule("N4")
async def test_skip_at_night_asks_the_host_to_confirm(table: Table) -> None:
    """Issue 22 §1: an early end of the night tells the table something; /skip and End
    turn at night ask the Host privately, and only Confirm skips; the buttons then go."""
    state = await table.wait_for(lambda s: s.phase is Phase.NIGHT)
    step = state.step
    await table.host.send(table.group, "/skip")
    await table.settle()
    assert table.state is not None and table.state.step == step  # not skipped yet
    asked = [m for m in table.host.inbox() if "End the night early?" in m.content]
    assert len(asked) == 1
    assert not any("End the night early?" in m.content for m in table.group.messages())
    await table.host.press(asked[0], "Cancel")
    await table.settle()
    assert table.state is not None and table.state.step == step
    assert table.host.inbox()[table.host.inbox().index(asked[0])].buttons() == []
    assert await press(table, "⏭ End turn") is None
    await table.settle()
    assert table.state is not None and table.state.step == step
    again = [m for m in table.host.inbox() if "End the night early?" in m.content]
    assert len(again) == 2
    await table.host.press(again[-1], "Confirm")
    await table.settle()
    assert table.state is not None and table.state.step != step
    table.sandbox.assert_no_bot_errors()
