"""The Host's /warn (issue 22 §1, §4; V): the proposal goes to the Host privately when
the bot can write there, its buttons go once it is decided, and `/warn N` with no
violation opens the list of violations in words. Through the sandbox."""

from __future__ import annotations

import pytest

from bot.cli.demo import Table
from bot.rules.sanctions import Penalty, VCode
from bot.views.callbacks import SanctionCb, WarnCb
from sandbox import Chat, SimMessage
from tests.steps import forge


def keys(message: SimMessage) -> list[str]:
    return [b.text for row in message.buttons() for b in row]


def offers(chat: Chat) -> list[SimMessage]:
    """The bot's messages in `chat` that offer a sanction (a Confirm, or a violation list)."""
    return [
        m
        for m in chat.messages()
        if m.from_bot
        and any((b.callback_data or "")[:2] in ("s:", "w:") for row in m.buttons() for b in row)
    ]


def latest(chat: Chat, message_id: int) -> SimMessage:
    return next(m for m in chat.messages() if m.message_id == message_id)


async def command(table: Table, text: str) -> None:
    await table.host.send(table.group, text)
    await table.settle()


@pytest.mark.rule("V2")
async def test_the_proposal_goes_to_the_host_privately_and_its_buttons_go(
    hosted_table: Table,
) -> None:
    table = hosted_table
    state = table.state
    assert state is not None
    seat = state.living()[2]
    seen = len(table.group.messages())
    await command(table, f"/warn {seat} V2")
    # The table does not watch the Host decide: nothing with buttons reaches the group.
    assert offers(table.group) == []
    assert all("Confirm?" not in m.content for m in table.group.messages()[seen:])
    (proposal,) = offers(table.host.private)
    assert proposal.content.startswith(f"Game #{state.game_id}.")
    assert f"Player {table.named(seat)}: insult. The rules give a warning. Confirm?" in (
        proposal.content
    )
    assert keys(proposal) == ["Confirm", "Cancel"]
    confirm = proposal.buttons()[0][0].callback_data or ""
    pressed = await table.host.press(proposal, "Confirm")
    await table.settle()
    assert pressed.answer is not None
    after = table.state
    assert after is not None
    assert [(s.seat, s.code, s.penalty) for s in after.sanctions] == [
        (seat, VCode.V2, Penalty.WARNING)
    ]
    assert f"Player {table.named(seat)}: warning #1 (insult)." in table.group.messages()[-1].content
    # Decided: the buttons are gone; a press that crossed the edit changes nothing.
    assert latest(table.host.private, proposal.message_id).buttons() == []
    late = forge(table, table.host, proposal, confirm)
    await table.settle()
    assert (await late.wait_answer()).text == table.texts("en", "error.stale")
    assert table.state is not None and len(table.state.sanctions) == 1


@pytest.mark.rule("V2")
async def test_a_host_who_never_pressed_start_decides_in_the_group(table: Table) -> None:
    state = table.state
    assert state is not None
    seat = state.living()[2]
    await command(table, f"/warn {seat} V2")
    (proposal,) = offers(table.group)
    assert not proposal.content.startswith("Game #")
    # A player's press is refused and leaves the buttons for the Host.
    other = await table.person(seat).press(proposal, "Confirm")
    await table.settle()
    assert other.answer is not None and other.answer.text == table.texts("en", "host.only_host")
    assert keys(latest(table.group, proposal.message_id)) == ["Confirm", "Cancel"]
    cancelled = await table.host.press(proposal, "Cancel")
    await table.settle()
    assert cancelled.answer is not None and cancelled.answer.text == "Sanction cancelled."
    assert latest(table.group, proposal.message_id).buttons() == []
    assert table.state is not None and table.state.sanctions == []


@pytest.mark.rule("V1")
async def test_warn_with_no_violation_opens_the_list_in_words(hosted_table: Table) -> None:
    table = hosted_table
    state = table.state
    assert state is not None
    seat = state.living()[4]
    await command(table, f"/warn {seat}")
    assert "Usage" not in table.group.messages()[-1].content
    (picker,) = offers(table.host.private)
    assert f"Violation: {table.named(seat)}. What did they do?" in picker.content
    words = [table.texts("en", f"violation.{v.value}") for v in VCode]
    assert keys(picker) == [*words, "Cancel"]
    assert not any(v.value in key for v in VCode for key in keys(picker))  # no rule codes
    await table.host.press(picker, table.texts("en", "violation.V2"))
    await table.settle()
    proposal = latest(table.host.private, picker.message_id)  # the same message, now asking
    assert "insult. The rules give a warning. Confirm?" in proposal.content
    assert keys(proposal) == ["Confirm", "Cancel"]
    await table.host.press(proposal, "Confirm")
    await table.settle()
    after = table.state
    assert after is not None
    assert [(s.seat, s.code, s.penalty) for s in after.sanctions] == [
        (seat, VCode.V2, Penalty.WARNING)
    ]
    assert latest(table.host.private, picker.message_id).buttons() == []


@pytest.mark.rule("V1")
async def test_the_violation_list_in_the_group_is_the_hosts_alone(table: Table) -> None:
    state = table.state
    assert state is not None
    seat = state.living()[4]
    await command(table, f"/warn {seat}")
    (picker,) = offers(table.group)
    insult = table.texts("en", "violation.V2")
    other = await table.person(seat).press(picker, insult)
    await table.settle()
    assert other.answer is not None and other.answer.text == table.texts("en", "host.only_host")
    assert keys(latest(table.group, picker.message_id))[-1] == "Cancel"  # still the list
    # The record moved on meanwhile (a warning by command): the list's press is stale.
    await command(table, f"/warn {seat} V2")
    proposal = offers(table.group)[-1]
    await table.host.press(proposal, "Confirm")
    await table.settle()
    late = await table.host.press(picker, insult)
    await table.settle()
    assert late.answer is not None and late.answer.text == table.texts("en", "error.stale")
    assert latest(table.group, picker.message_id).buttons() == []
    assert table.state is not None and len(table.state.sanctions) == 1


@pytest.mark.rule("V1")
async def test_an_offer_pressed_on_another_message_changes_that_message_not(table: Table) -> None:
    state = table.state
    assert state is not None and state.game_id is not None
    seat = state.living()[4]
    turn = table.turn_message()
    shown, buttons = turn.content, keys(turn)
    # The Host's own data, forged onto the turn message: neither edits it.
    pick = WarnCb(game=state.game_id, seat=seat, code="V2", given=0).pack()
    cancel = SanctionCb(game=state.game_id, seat=seat, code="V2", penalty="", given=0).pack()
    for data in (pick, cancel):
        forge(table, table.host, turn, data)
        await table.settle()
    turn = latest(table.group, turn.message_id)
    assert (turn.content, keys(turn)) == (shown, buttons)
    assert table.state is not None and table.state.sanctions == []
