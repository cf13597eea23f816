"""A club's basic group upgraded to a supergroup mid-game (issue 21 §3, D10, T2).

Telegram gives the supergroup a new id and refuses the old one from then on. The game
moved in the database before, but what the group was shown stayed behind: the pinned
table drew an ERROR at every change, the turn just posted (with its buttons) never
reached the supergroup, and the lobby was never updated. Now all of it goes up in the
supergroup, and a message refused for the old id is sent again to the new one.
"""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator

import pytest

from bot.cli.demo import Table
from bot.rules.events import Phase
from sandbox.people import SimGroup
from sandbox.world import SimMessage
from tests.middle.games import open_game

UPGRADED = "group chat was upgraded to a supergroup chat"


@pytest.fixture
async def club() -> AsyncIterator[Table]:
    """Twelve players in a basic group, no game yet."""
    async with open_game(12, seed=5, lang="ru", basic_group=True) as table:
        await table.settle()
        yield table


def errors(caplog: pytest.LogCaptureFixture) -> list[str]:
    return [r.getMessage() for r in caplog.records if r.levelno >= logging.ERROR]


def refused_for_the_old_id(table: Table, old: SimGroup) -> list[str]:
    return [
        call.method
        for call in table.sandbox.calls(chat=old.id)
        if call.description is not None and UPGRADED in call.description
    ]


def buttons(message: SimMessage) -> list[list[str | None]]:
    return [[b.callback_data for b in row] for row in message.buttons()]


def upgrade(table: Table) -> tuple[SimGroup, SimGroup]:
    old = table.group
    assert old.type == "group"
    new = old.migrate_to_supergroup()
    table.group = new
    return old, new


@pytest.mark.rule("D10")
async def test_D10_a_game_in_a_group_upgraded_mid_day_goes_on_in_the_supergroup(
    club: Table, caplog: pytest.LogCaptureFixture
) -> None:
    table = club
    await table.gather()
    await table.begin()
    state = table.state
    assert state is not None and state.in_speech and state.speaker is not None
    old_turn = table.turn_message()  # just posted, in the basic group
    old_table = table.group.pinned
    assert old_table is not None

    old, new = upgrade(table)
    await table.settle()

    game = await table.app.service.active_game(new.id)
    assert game is not None and game.game_id == table.game_id
    turn = table.turn_message()  # the turn, with its buttons, in the supergroup
    assert turn.chat is new
    assert turn.text == old_turn.text and buttons(turn) == buttons(old_turn)
    await table.let_room_come()  # the table goes up in the group's spare room
    pinned = new.pinned
    assert pinned is not None and pinned.from_bot and pinned.text == old_table.text

    await table.pass_turn()  # pressed in the supergroup: the game goes on there
    after = table.state
    assert after is not None and after.step > state.step
    assert table.turn_message().chat is new and table.turn_message() is not turn
    await table.wait_for(lambda s: s.phase is not state.phase)
    await table.let_room_come()
    assert new.pinned is not None and new.pinned.message_id == pinned.message_id
    assert new.pinned.edit_date is not None  # the table follows the game there
    assert refused_for_the_old_id(table, old) == []  # nothing was tried there again
    assert errors(caplog) == []
    table.sandbox.assert_no_bot_errors()


@pytest.mark.rule("D10")
@pytest.mark.parametrize("told_late", [True, False])
async def test_D10_a_turn_sent_as_the_group_is_upgraded_reaches_the_supergroup(
    club: Table, caplog: pytest.LogCaptureFixture, told_late: bool
) -> None:
    """A press, then the upgrade: the next turn was queued for the old id. With the
    service messages in time, it follows the chat; with them late (`told_late`), it goes
    to the old id, is refused with the new one and sent there, the chat moves then, and
    the service messages, when they come, find nothing left to move."""
    table = club
    await table.gather()
    await table.begin()
    state = table.state
    assert state is not None and state.speaker is not None
    await table.person(state.speaker).press(table.turn_message(), 0)
    old, new = upgrade(table)
    updates = table.sandbox.world.updates
    late = []
    if told_late:
        late = updates.delay(lambda update: "message" in update)  # the two service messages
        assert [payload["chat"]["id"] for _, payload in late] == [old.id, new.id]
    await table.settle()
    for kind, payload in late:
        updates.push(kind, payload)
    await table.settle()

    after = table.state
    assert after is not None and after.step > state.step and after.speaker != state.speaker
    if told_late:
        assert refused_for_the_old_id(table, old)  # it was tried there first
    turn = table.turn_message()  # it reached the supergroup, with its buttons
    assert turn.chat is new and buttons(turn)
    game = await table.app.service.active_game(new.id)
    assert game is not None and game.game_id == table.game_id
    await table.let_room_come()
    assert new.pinned is not None and new.pinned.from_bot
    await table.pass_turn()
    final = table.state
    assert final is not None and final.step > after.step
    assert errors(caplog) == []


async def test_a_lobby_in_a_group_upgraded_is_posted_again_and_keeps_filling(
    club: Table, caplog: pytest.LogCaptureFixture
) -> None:
    table = club
    await table.gather(table.people[:5])
    old_lobby = next(m for m in reversed(table.group.messages()) if m.from_bot and m.reply_markup)

    old, new = upgrade(table)
    await table.settle()

    lobbies = [m for m in new.visible_messages() if m.from_bot and m.reply_markup]
    assert len(lobbies) == 1
    lobby = lobbies[0]
    assert lobby.text == old_lobby.text
    await table.people[5].follow(lobby, 0)  # Join, in the supergroup
    await table.settle()
    assert lobby.edit_date is not None and table.people[5].first_name in (lobby.text or "")
    game = await table.app.service.active_game(new.id)
    assert game is not None and game.lobby_message_id == lobby.message_id
    assert refused_for_the_old_id(table, old) == []
    assert errors(caplog) == []


@pytest.mark.rule("D6")
async def test_D6_an_open_vote_in_a_group_upgraded_is_posted_again_and_counted_there(
    club: Table, caplog: pytest.LogCaptureFixture
) -> None:
    table = club
    await table.gather()
    await table.begin()
    state = await table.wait_for(lambda s: s.phase is Phase.ROUND_2 and s.day == 1)
    target = next(s for s in state.living() if s not in (state.speaker, *state.queue[:1]))
    await table.nominate(target)
    state = await table.wait_for(lambda s: s.phase is Phase.VOTE)
    old_ballot = table.latest(table.group.messages(), "v:")
    assert old_ballot is not None

    old, new = upgrade(table)
    await table.settle()

    ballot = table.latest(new.messages(), "v:")
    assert ballot is not None and ballot.text == old_ballot.text
    assert buttons(ballot) == buttons(old_ballot)
    voter = next(s for s in state.living() if s != target)
    await table.vote(voter, target)  # on the ballot in the supergroup
    after = table.state
    assert after is not None and after.votes.get(voter) == target
    assert refused_for_the_old_id(table, old) == []
    assert errors(caplog) == []


async def test_after_a_restart_the_table_in_the_supergroup_is_the_one_edited(
    club: Table, caplog: pytest.LogCaptureFixture
) -> None:
    table = club
    await table.gather()
    await table.begin()
    state = table.state
    assert state is not None
    old, new = upgrade(table)
    await table.settle()
    await table.let_room_come()
    pinned = new.pinned
    assert pinned is not None

    await table.restart()  # what the process remembered of its messages is gone
    await table.wait_for(lambda s: s.phase is not state.phase)
    await table.let_room_come()

    assert new.pinned is pinned and pinned.edit_date is not None  # edited, not posted again
    assert len([m for m in new.messages() if m.service.get("pinned_message")]) == 1
    assert refused_for_the_old_id(table, old) == []
    assert errors(caplog) == []
