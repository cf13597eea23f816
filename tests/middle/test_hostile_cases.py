"""Hostile input, one case at a time, in process: junk arguments, commands in the wrong
chat, forged and garbage buttons, a sanction pressed twice, a demoted or blocked bot,
nicks made of markup, an over-long relay. Five thousand of them at random, against the
game's invariants, play over HTTP (tests/e2e/test_hostile.py).
"""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from bot.cli.demo import Table
from bot.rules.events import Phase
from bot.rules.roles import Role
from bot.rules.sanctions import Penalty
from tests.middle.games import open_game
from tests.steps import HOSTILE_NICKS, forge, hostile_table, no_handler_errors

# Every test here fails on a record at ERROR (a handler that raised).
__all__ = ["no_handler_errors"]

LOST_RIGHTS = "I no longer have these administrator rights"
STALE = "This button is from an earlier phase."

# --- each case on its own -----------------------------------------------------------------


@dataclass
class Case:
    who: str  # speaker, player, host, stranger
    where: str  # group, private, other
    text: str
    answer: str  # what the reply starts with


CASES = [
    Case("speaker", "group", "/nominate -1", "Usage: /nominate N"),
    Case("speaker", "group", "/nominate 99999999999", "Usage: /nominate N"),
    Case("speaker", "group", "/nominate ²", "Usage: /nominate N"),
    Case("speaker", "group", "/nominate 3", "Not now"),  # Day 0: no nominations
    Case("speaker", "group", "/nominate", "Usage: /nominate N"),
    Case("host", "group", "/extend abc", "Usage: /extend N"),
    Case("host", "group", "/extend ²", "Usage: /extend N"),
    Case("host", "group", "/extend 99999999999", "Usage: /extend N"),
    Case("host", "group", "/extend -5", "Usage: /extend N"),
    Case("host", "group", "/warn 3 V9", "Usage: /warn N"),
    Case("host", "group", "/warn ² V2", "Usage: /warn N"),
    Case("host", "group", "/warn", "Usage: /warn N"),
    Case("host", "group", "/remove", "Usage: /remove N"),
    Case("host", "group", "/remove 99", "Usage: /remove N"),
    Case("host", "group", "/resume", "The game is not paused."),
    Case("host", "group", "/begin", "The game is already running."),
    Case("player", "group", "/lang xx", "Usage: /lang"),
    Case("player", "group", "/join", "There is no open lobby"),
    Case("player", "group", "/start", "Commands"),
    Case("player", "group", "/nick Bob", "That command works in my private chat"),
    Case("player", "group", "/pause", "Only the Host can do that."),
    Case("player", "private", "/pass", "Write to me at night"),
    Case("host", "private", "/pause", "Write to me at night"),
    Case("player", "private", "/nominate 3", "Write to me at night"),
    Case("player", "private", "/start join_²", "Hello!"),
    # Issue 10: a token nobody was given names no lobby; an old numbered link is refused.
    Case("player", "private", "/start join_" + "9" * 30, "That game is no longer taking"),
    Case("player", "private", "/start join_1", "This link is out of date"),
    Case("player", "private", "/start reg_abc", "Hello!"),
    Case("player", "private", "/start reg_" + "9" * 30, "This registration link is not valid"),
    Case("player", "private", "/start reg_1", "This registration link is out of date"),
    Case("player", "private", "/nosuchcommand", "Write to me at night"),
    Case("stranger", "private", "/status", "You are not playing or hosting a game now."),
    Case("stranger", "private", "/sheet ²", "Usage: /sheet"),
    Case("player", "other", "/pause", "There is no game running in this chat."),
    Case("player", "other", "/pass", "There is no game running in this chat."),
    Case("player", "other", "/newgame", "I need to be an administrator"),
    Case("player", "other", "/status", "No game in this chat."),
]


@pytest.mark.parametrize("case", CASES, ids=[f"{c.who}-{c.where}-{c.text[:24]}" for c in CASES])
async def test_junk_arguments_and_wrong_chats_get_an_answer(table: Table, case: Case) -> None:
    state = table.state
    assert state is not None and state.speaker is not None
    speaker = table.person(state.speaker)
    player = table.person(next(s for s in state.living() if s != state.speaker))
    stranger = table.sandbox.add_user("Stranger", language_code="en")
    person = {"speaker": speaker, "player": player, "host": table.host, "stranger": stranger}[
        case.who
    ]
    other = table.sandbox.add_supergroup("Other Club", owner=player)
    other.add_bot(added_by=player)  # a member, no administrator: no game can run there
    for someone in (table.host, player, stranger):
        await someone.start_bot()
    chat = {"group": table.group, "private": person.private, "other": other}[case.where]
    await table.settle()
    before, inbox = len(chat.messages()), len(person.inbox())
    sent = await person.send(chat, case.text)
    await table.settle()
    answers = [m.content for m in chat.messages()[before:] if m.from_bot]
    if case.who == "player" and case.where == "group":
        # D10: out of turn the command goes, and the answer comes in private.
        assert sent.deleted and not answers, answers
        answers = [m.content for m in person.inbox()[inbox:]]
    assert answers and answers[0].startswith(case.answer), answers
    after = table.state
    assert after is not None and after.step == state.step and not after.paused


async def test_forged_and_garbage_buttons_are_refused_with_an_alert(table: Table) -> None:
    state = table.state
    assert state is not None and state.speaker is not None
    game, step = state.game_id, state.step
    speaker = table.person(state.speaker)
    civilian = next(
        s for s in state.living() if s != state.speaker and state.roles[s] is Role.CIVILIAN
    )
    turn = table.turn_message()
    forged = [
        (speaker, "x" * 5000, STALE),
        (speaker, "", STALE),
        (speaker, "t:1:2", STALE),
        (speaker, f"t:{10**20}:{step}:0", STALE),
        (speaker, f"t:{game}:{step + 1}:0", STALE),
        (speaker, f"t:{game}:{step}:-1", "Not now"),  # no nominations on Day 0
        (speaker, f"v:{game}:{step}:3", "Not now"),
        (table.person(civilian), f"n:{game}:{step}:3", "Not now"),
        (table.person(civilian), f"t:{game}:{step}:0", "It is not your turn."),
        (table.host, f"s:{game}:{civilian}:V2:ban:0", STALE),  # the ladder says a warning
        (table.host, f"s:{game}:{civilian}:V9:warning:0", STALE),
        (table.host, f"s:{game}:99:V2:warning:0", STALE),
        (table.host, f"s:{game}:{civilian}:V2:warning:7", STALE),
        (speaker, f"s:{game}:{civilian}:V2:warning:0", "Only the Host can do that."),
        (table.host, f"g:{game}", ""),  # nothing to sign yet
        (speaker, f"p:{game}", "That game is no longer taking players."),
    ]
    for person, data, alert in forged:
        press = forge(table, person, turn, data)
        await table.settle()
        assert press.answer is not None, data[:40]
        assert press.answer.show_alert and (press.answer.text or "").startswith(alert), (
            data[:40],
            press.answer,
        )
    after = table.state
    assert after is not None and after.step == step and after.sanctions == []


async def test_a_sanction_is_given_once_and_only_as_proposed(table: Table) -> None:
    state = table.state
    assert state is not None
    seat = state.living()[2]
    await table.host.send(table.group, f"/warn {seat} V2")
    await table.settle()
    first = table.group.messages()[-1]
    assert "a warning" in first.content
    confirm = first.buttons()[0][0]
    await table.host.press(first, "Confirm")
    await table.settle()
    # A second tap on the same proposal, that crossed the edit taking its buttons off.
    again = await table.host.press_seen(first, confirm)
    await table.settle()
    assert again.answer is not None and again.answer.text == STALE
    after = table.state
    assert after is not None and [s.penalty for s in after.sanctions] == [Penalty.WARNING]
    await table.host.send(table.group, f"/warn {seat} V2")
    await table.settle()
    second = table.group.messages()[-1]
    assert "disqualification" in second.content  # the record moved on: V2 the second time
    await table.host.press(second, "Cancel")
    await table.settle()
    after = table.state
    assert after is not None and len(after.sanctions) == 1 and after.is_alive(seat)


@pytest.mark.parametrize("host_started", [True, False], ids=["host-privately", "the-group"])
async def test_a_demoted_bot_tells_the_host_once_and_the_game_goes_on(host_started: bool) -> None:
    async with open_game(12, seed=7, lang="en") as table:
        if host_started:
            await table.host.start_bot()
        await table.gather()
        await table.begin()
        table.group.demote_bot(by=table.host)
        await table.settle()
        state = table.state
        assert state is not None and state.speaker is not None
        other = table.person(next(s for s in state.living() if s != state.speaker))
        # The bot, now no administrator, still sees commands; it cannot delete this one.
        await other.send(table.group, "/nosuchcommand")
        await other.send(table.group, "/status")
        await table.settle()
        assert "Day 0" in other.inbox()[-1].content  # out of turn: answered in private
        state = await table.wait_for(lambda s: s.phase is Phase.ROUND_1 and s.day == 1)
        told = table.host.inbox() if host_started else table.group.messages()
        notices = [m.content for m in told if LOST_RIGHTS in m.content]
        assert len(notices) == 1 and "delete messages" in notices[0], notices
        assert f"Game #{state.game_id}" in notices[0]
        if host_started:
            assert not any(LOST_RIGHTS in m.content for m in table.group.messages())
        table.sandbox.assert_no_bot_errors(allow=("message can't be deleted",))


async def test_a_player_who_blocks_the_bot_is_named_to_the_host_only() -> None:
    """Night messages go to the Commissioner and the mafia only: naming in the group whom
    one could not reach would tell everybody their role."""
    async with open_game(12, seed=5, lang="en") as table:
        await table.host.start_bot()
        await table.gather()
        await table.begin()
        state = table.state
        assert state is not None
        mafioso, commissioner = state.living_mafia()[0], state.commissioner()
        for seat in (mafioso, commissioner):
            await table.person(seat).block_bot()
        await table.settle()
        state = await table.wait_for(lambda s: s.phase is Phase.ROUND_1 and s.day == 2)
        assert not any("could not write" in m.content for m in table.group.messages())
        told = [m.content for m in table.host.inbox() if "could not write" in m.content]
        assert told and all(table.named(mafioso) in text for text in told)
        assert any(table.named(commissioner) in text for text in told)
        missed = len(table.person(mafioso).inbox())
        await table.person(mafioso).start_bot()  # back: what was missed comes now
        await table.settle()
        assert len(table.person(mafioso).inbox()) > missed
        table.sandbox.assert_no_bot_errors()


async def test_nicks_made_of_markup_are_shown_as_written() -> None:
    async with hostile_table(3, in_process=True) as table:
        await table.gather()
        lobby = table.group.messages()[-1].content
        await table.begin()
        state = table.state
        assert state is not None
        seating = next(m for m in table.group.messages() if "seating" in m.content).content
        for typed in HOSTILE_NICKS:
            nick = typed.replace("\u202e", "")  # issue 25: a bidi override is taken out
            seat = next(s for s, st in state.seats.items() if st.nick == nick)
            assert nick in lobby and f"{seat} · {nick}" in seating
        bold = next(s for s, st in state.seats.items() if st.nick == "<b>x</b>")
        state = await table.wait_for(lambda s: s.phase is Phase.ROUND_2 and s.speaker != bold)
        await table.nominate(bold)  # nomination keys are seat numbers; the ballot names
        state = await table.wait_for(lambda s: s.phase is Phase.VOTE)
        ballot = table.latest(table.group.messages(), "v:")
        assert ballot is not None
        buttons = [b.text for row in ballot.buttons() for b in row]
        assert buttons[0] == table.label(bold) == f"{bold} · <b>x</b>"
        table.sandbox.assert_no_bot_errors()


async def test_a_relay_of_4096_units_arrives_whole_in_two_messages(table: Table) -> None:
    """N1, issue 10: with its prefix it is too long for one message; nothing is cut off."""
    state = await table.wait_for(lambda s: s.phase is Phase.ACQUAINTANCE)
    first, second, *_ = state.living_mafia()
    await table.person(first).send(table.person(first).private, "🙂" * 2048)
    await table.settle()
    head, tail = (m.content for m in table.person(second).inbox()[-2:])
    assert head.startswith(f"💬 {table.named(first)}: 🙂")
    for part in (head, tail):
        assert len(part.encode("utf-16-le")) // 2 <= 4096
    assert (head + tail).count("🙂") == 2048
    table.sandbox.assert_no_bot_errors()
