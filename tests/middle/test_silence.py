"""D10, N5 for commands: during a game only the speaker and the Host write in the group.

Every command anyone else sends there (ours, a private one, an unknown one, another
bot's) is deleted, at night reported to the Host as V3 when a living player sent it; the
answer or refusal it would have had goes to the sender in private, at most once in 10 s,
and to nobody if they never pressed Start. The command is still acted on.
"""

from __future__ import annotations

from collections.abc import Callable

import pytest

from bot.cli.demo import Table
from bot.rules.events import Phase
from bot.rules.state import GameState
from sandbox import SimUser
from tests.middle.games import open_game

ONLY_HOST = "Only the Host can do that."
NOT_YOUR_TURN = "It is not your turn."
NOT_NOW = "Not now: that is for another phase of the game."
PRIVATE_ONLY = "That command works in my private chat, not in a group: open it and send it there."
EYES_OPEN = "wrote in the group at night"  # the Host's V3 report (N5)

# A command of each kind a group can see, and how the answer in private starts (None: no
# answer at all, but the message goes all the same).
BY_DAY: dict[str, str | None] = {
    "/pause": ONLY_HOST,  # the Host's
    "/pass": NOT_YOUR_TURN,  # the speaker's
    "/nominate 3": NOT_NOW,  # Day 0 has no nominations
    "/status": "Day 0, introductions",  # everybody's
    "/help": "Commands",
    "/rules": "Tournament Mafia in short",
    "/join": "There is no open lobby",  # the lobby's
    "/newgame": "This chat already has a game.",
    "/bind T1R1G1": "Only an administrator of this chat",  # the Judge's
    "/nick Ace": PRIVATE_ONLY,  # a private chat's
    "/nosuchcommand": None,  # no command of ours
    "/status@other_bot": None,  # speech addressed to another bot
}
AT_NIGHT = {
    **BY_DAY,
    "/pass": NOT_NOW,
    "/nominate 3": NOT_NOW,
    "/status": "Day 0, Night 0",
}


def at(phase: Phase, day: int | None = None) -> Callable[[GameState], bool]:
    return lambda s: s.phase is phase and (day is None or s.day == day)


@pytest.fixture
def table(hosted_table: Table) -> Table:
    return hosted_table


def others(state: GameState) -> list[int]:
    """Living seats that may not speak now."""
    return [s for s in state.living() if s != state.speaker]


async def hushed(table: Table, person: SimUser, text: str) -> str | None:
    """`text` from one who may not speak now: it goes and the bot says nothing in the
    group; what it said to them in private (None: nothing)."""
    group, inbox = len(table.group.messages()), len(person.inbox())
    sent = await person.send(table.group, text)
    await table.settle()
    assert sent.deleted, text
    assert not [m.content for m in table.group.messages()[group:] if m.from_bot], text
    answers = [m.content for m in person.inbox()[inbox:]]
    assert len(answers) <= 1, answers
    return answers[0] if answers else None


@pytest.mark.rule("D10")
async def test_D10_every_command_out_of_turn_is_deleted_and_answered_in_private(
    table: Table,
) -> None:
    state = table.state
    assert state is not None
    before = (state.step, state.paused, state.deadline, state.nominations)
    observer = table.sandbox.add_user("Olga", language_code="en")  # in the group, no seat
    table.group.add_member(observer)
    await observer.start_bot()
    # One person a command (answers are 10 s apart): the others at the table, the observer.
    people = [*(table.person(s) for s in others(state)), observer]
    assert len(people) >= len(BY_DAY)
    for person, (command, answer) in zip(people, BY_DAY.items(), strict=False):
        said = await hushed(table, person, command)
        assert said == answer if answer is None else (said or "").startswith(answer), command
    state = table.state
    assert state is not None and (state.step, state.paused, state.deadline) == before[:3]
    assert table.host.inbox() == [] or not any(EYES_OPEN in m.content for m in table.host.inbox())


@pytest.mark.rule("N5")
async def test_N5_every_command_at_night_is_deleted_answered_in_private_and_reported(
    table: Table,
) -> None:
    state = await table.wait_for(at(Phase.ACQUAINTANCE))
    seats = state.living()
    assert len(seats) >= len(AT_NIGHT)
    reports = len(table.host.inbox())
    for seat, (command, answer) in zip(seats, AT_NIGHT.items(), strict=False):
        said = await hushed(table, table.person(seat), command)
        assert said == answer if answer is None else (said or "").startswith(answer), command
        # V3: each living player who wrote, command or not, is the Host's to judge.
        told = [m.content for m in table.host.inbox()[reports:]]
        assert len(told) == 1 and EYES_OPEN in told[0] and table.named(seat) in told[0], command
        reports += 1
    assert table.state is not None and table.state.phase is Phase.ACQUAINTANCE


@pytest.mark.rule("N5")
async def test_N5_a_host_who_never_pressed_start_hears_of_open_eyes_in_the_group() -> None:
    """V3's report goes to the group when the Host never opened a chat with the bot, and
    the bot does not first try a private message that Telegram would refuse."""
    async with open_game(12, seed=5, lang="en") as table:
        await table.gather()
        await table.begin()
        state = await table.wait_for(at(Phase.ACQUAINTANCE))
        seat = state.living()[0]
        group = len(table.group.messages())
        sent = await table.person(seat).send(table.group, "I can see everything")
        await table.settle()
        assert sent.deleted
        told = [m.content for m in table.group.messages()[group:] if m.from_bot]
        assert len(told) == 1 and EYES_OPEN in told[0] and table.named(seat) in told[0], told
        assert table.sandbox.rejected() == []
        assert table.sandbox.calls("sendMessage", chat=table.host.id) == []


@pytest.mark.rule("D10")
async def test_D10_who_never_pressed_start_hears_nothing_and_nothing_stays(
    table: Table,
) -> None:
    observer = table.sandbox.add_user("Olga", language_code="en")
    table.group.add_member(observer)  # never pressed Start
    for command in ("/status", "/pause", "/join"):
        assert await hushed(table, observer, command) is None


@pytest.mark.rule("D10")
async def test_D10_one_private_answer_in_ten_seconds_a_person(table: Table) -> None:
    state = table.state
    assert state is not None
    person = table.person(others(state)[0])
    assert (await hushed(table, person, "/pause") or "") == ONLY_HOST
    for command in ("/status", "/help", "/pass", "/nosuchcommand", "/nick Ace"):
        assert await hushed(table, person, command) is None, command  # repeats: not answered
    table.clock.set(table.clock.now() + 10)
    assert (await hushed(table, person, "/rules") or "").startswith("Tournament Mafia")
    # A command that has no answer does not use up the next one's.
    other = table.person(others(state)[1])
    assert await hushed(table, other, "/nosuchcommand") is None
    assert (await hushed(table, other, "/status") or "").startswith("Day 0")


@pytest.mark.rule("D10")
async def test_D10_the_hosts_and_the_speakers_commands_stay(table: Table) -> None:
    state = table.state
    assert state is not None and state.speaker is not None
    speaker = table.person(state.speaker)
    asked = await speaker.send(table.group, "/status")
    await table.settle()
    assert not asked.deleted and table.group.messages()[-1].content.startswith("Day 0")
    refused = await speaker.send(table.group, "/pause")  # refused, in the group, as before
    await table.settle()
    assert not refused.deleted and table.group.messages()[-1].content == ONLY_HOST
    step = state.step
    passed = await speaker.send(table.group, "/pass")
    await table.settle()
    assert not passed.deleted and table.state is not None and table.state.step == step + 1
    for command in ("/status", "/pause", "/resume", "/nosuchcommand", "/nick Ace"):
        sent = await table.host.send(table.group, command)
        await table.settle()
        assert not sent.deleted, command
    assert table.state is not None and not table.state.paused
    assert table.group.messages()[-1].content == PRIVATE_ONLY  # answered there
