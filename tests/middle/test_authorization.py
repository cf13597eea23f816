"""Who may do what (README: "Who may do what"): every cell of the table, allowed and refused.

Each test takes one row of the table and tries it as each kind of person: the Host,
the player whose turn it is, another living player, the Commissioner or a mafioso at
night, and anyone else (a member of the group who does not play, or a player who has
left). What is allowed happens; what is refused gets a clear answer and changes nothing.

Then the secrets: before a game ends, no group message, no alert and no log line shows a
role or the game's seed, and the bot token is in no log line at all.
"""

from __future__ import annotations

import logging
import random
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass

import pytest

from bot.cli.demo import Crowd, Table
from bot.rules.events import Phase
from bot.rules.roles import Role
from bot.rules.state import GameState
from sandbox import CallbackAnswer, SimGroup, SimMessage, SimUser
from sandbox.world import Chat
from tests.middle.games import open_game
from tests.steps import forge

ONLY_HOST = "Only the Host can do that."
NOT_PLAYING = "You are not playing in this game."
NOT_YOUR_TURN = "It is not your turn."
LEFT = "You have left the game."
NOT_YOUR_ROLE = "Your role cannot do that."
NOT_NOW = "Not now: that is for another phase of the game."
STALE = "This button is from an earlier phase."
HINT = (
    "Write to me at night if you are in the mafia; otherwise use the group. "
    "/help lists the commands."
)


@dataclass
class Club:
    """A game begun in English, the Host and an observer having pressed Start."""

    table: Table
    observer: SimUser  # in the group, not playing

    @property
    def group(self) -> SimGroup:
        return self.table.group

    @property
    def host(self) -> SimUser:
        return self.table.host

    @property
    def state(self) -> GameState:
        state = self.table.state
        assert state is not None
        return state

    def speaker(self) -> SimUser:
        assert self.state.speaker is not None
        return self.table.person(self.state.speaker)

    def seat(self, role: Role, *, besides: tuple[int | None, ...] = ()) -> int:
        """A living seat with `role`, not the speaker and not one of `besides`."""
        state = self.state
        return next(
            s
            for s in state.living()
            if state.roles[s] is role and s != state.speaker and s not in besides
        )

    def player(self, role: Role = Role.CIVILIAN) -> SimUser:
        return self.table.person(self.seat(role))

    async def say(self, person: SimUser, text: str, chat: Chat | None = None) -> str:
        """The bot's first message in the chat after `person` wrote `text` there."""
        where = chat or self.group
        before = len(where.messages())
        await person.send(where, text)
        await self.table.settle()
        answers = [m.content for m in where.messages()[before:] if m.from_bot]
        return answers[0] if answers else ""

    async def hushed(self, person: SimUser, text: str) -> str:
        """D10: `text` from one who may not speak now is deleted and nothing is said in the
        group; the answer they would have had comes in private (this one, if any)."""
        before, inbox = len(self.group.messages()), len(person.inbox())
        sent = await person.send(self.group, text)
        await self.table.settle()
        assert sent.deleted, (person.first_name, text)
        assert not [m.content for m in self.group.messages()[before:] if m.from_bot]
        answers = person.inbox()[inbox:]
        return answers[0].content if answers else ""

    async def press(self, person: SimUser, message: SimMessage, button: str | int) -> str:
        """Press a button on a message the person sees; the alert or note they got."""
        press = await person.press(message, button)
        await self.table.settle()
        return _text(press.answer)

    async def forged(self, person: SimUser, message: SimMessage, data: str) -> CallbackAnswer:
        """A press of a button the person was never given."""
        press = forge(self.table, person, message, data)
        await self.table.settle()
        assert press.answer is not None
        return press.answer

    async def remove(self, seat: int) -> SimUser:
        await self.host.send(self.group, f"/remove {seat}")
        await self.table.settle()
        assert not self.state.is_alive(seat)
        return self.table.person(seat)

    async def until(self, phase: Phase, day: int | None = None) -> GameState:
        return await self.table.wait_for(
            lambda s: s.phase is phase and (day is None or s.day == day)
        )


def _text(answer: CallbackAnswer | None) -> str:
    assert answer is not None, "the press got no answer"
    return answer.text or ""


def snapshot(state: GameState) -> tuple[object, ...]:
    return (state.step, state.phase, state.paused, state.deadline, state.sanctions, state.living())


@pytest.fixture
async def club() -> AsyncIterator[Club]:
    async with open_game(12, seed=5, lang="en") as table:
        observer = table.sandbox.add_user("Olga", username="olga", language_code="en")
        table.group.add_member(observer)
        for person in (table.host, observer):
            await person.start_bot()
        await table.gather()
        await table.begin()
        yield Club(table, observer)
        table.sandbox.assert_no_bot_errors()


# --- the lobby ------------------------------------------------------------------------------


async def test_newgame_is_anyones_and_makes_them_the_host() -> None:
    async with open_game(12, seed=5, lang="en") as table:
        member = table.people[3]
        await member.send(table.group, "/newgame")  # anyone: allowed
        await table.settle()
        game = await table.app.service.active_game(table.group.id)
        assert game is not None and game.host_user_id == member.id
        # The chat has its game now (its administrators may take it over: test_squat.py).
        await table.people[4].send(table.group, "/newgame")
        await table.settle()
        assert table.group.messages()[-1].content.startswith("This chat already has a game.")
        await member.send(table.group, "/begin")  # and the one who opened it runs it
        await table.settle()
        assert "players have joined" in table.group.messages()[-1].content
        table.sandbox.assert_no_bot_errors()


async def test_join_and_leave_are_anyones_while_the_lobby_is_open() -> None:
    async with open_game(12, seed=5, lang="en") as table:
        await table.gather(table.people[:-1])
        anyone = table.people[-1]
        lobby = await table.app.service.active_game(table.group.id)
        assert lobby is not None
        players = table.app.service.repos.lobby.players
        await anyone.send(table.group, "/join")
        await table.settle()
        assert anyone.id in {p.user_id for p in await players(lobby.game_id)}
        await anyone.send(table.group, "/leave")
        await table.settle()
        assert anyone.id not in {p.user_id for p in await players(lobby.game_id)}
        await anyone.send(table.group, "/join")
        await anyone.start_bot()  # so that the bot can send the card
        await table.begin()
        assert table.state is not None and table.state.seat_of(anyone.id) is not None
        observer = table.sandbox.add_user("Olga", language_code="en")
        table.group.add_member(observer)
        await observer.start_bot()
        joining = await observer.send(table.group, "/join")  # after the deal: refused
        await table.settle()
        # D10: out of turn the command goes, and the refusal with it, to the observer.
        assert joining.deleted and not table.group.messages()[-1].from_bot
        assert observer.inbox()[-1].content.startswith("There is no open lobby")
        table.sandbox.assert_no_bot_errors()


async def test_begin_is_the_hosts() -> None:
    async with open_game(12, seed=5, lang="en") as table:
        observer = table.sandbox.add_user("Olga", language_code="en")
        table.group.add_member(observer)
        await table.gather()
        for person in (table.people[0], observer):  # a player in the lobby; anyone else
            await person.send(table.group, "/begin")
            await table.settle()
            assert table.group.messages()[-1].content == ONLY_HOST
            assert table.state is None
        await table.begin()  # the Host
        assert table.state is not None and table.state.phase is Phase.INTRODUCTION
        table.sandbox.assert_no_bot_errors()


# --- the Host's commands and buttons ---------------------------------------------------------

Done = Callable[[Club, GameState, GameState], Awaitable[bool]]


async def _paused(c: Club, before: GameState, after: GameState) -> bool:
    return after.paused


async def _resumed(c: Club, before: GameState, after: GameState) -> bool:
    return not after.paused


async def _skipped(c: Club, before: GameState, after: GameState) -> bool:
    return after.step == before.step + 1


async def _extended(c: Club, before: GameState, after: GameState) -> bool:
    assert before.deadline is not None and after.deadline is not None
    return abs(after.deadline - before.deadline - 15) < 1e-6


async def _proposed(c: Club, before: GameState, after: GameState) -> bool:
    # To the Host privately, who pressed Start (issue 22 §1).
    return c.host.private.messages()[-1].content.endswith("Confirm?")


async def _removed(c: Club, before: GameState, after: GameState) -> bool:
    return len(after.living()) == len(before.living()) - 1


async def _stopped(c: Club, before: GameState, after: GameState) -> bool:
    return after.phase is Phase.ABORTED


async def _handed_over(c: Club, before: GameState, after: GameState) -> bool:
    game = await c.table.app.service.repos.games.get(after.game_id)
    return game is not None and game.host_user_id == c.observer.id


HOST_COMMANDS: list[tuple[str, Done, str | None]] = [
    ("/pause", _paused, None),
    ("/resume", _resumed, "/pause"),
    ("/skip", _skipped, None),
    ("/extend 15", _extended, None),
    ("/warn {seat} V2", _proposed, None),
    ("/remove {seat}", _removed, None),
    ("/stop", _stopped, None),
    ("/host @olga", _handed_over, None),
]


@pytest.mark.parametrize(
    ("command", "done", "first"), HOST_COMMANDS, ids=[c[0].split()[0] for c in HOST_COMMANDS]
)
async def test_host_commands_are_the_hosts(
    club: Club, command: str, done: Done, first: str | None
) -> None:
    text = command.format(seat=club.seat(Role.CIVILIAN))
    # Day 0: the speaker, another living player and anyone else are refused; the last two
    # in private, their command deleted (D10).
    before = snapshot(club.state)
    assert await club.say(club.speaker(), text) == ONLY_HOST
    for person in (club.player(), club.observer):
        assert await club.hushed(person, text) == ONLY_HOST, person.first_name
    assert snapshot(club.state) == before
    # Night 0: the Commissioner and a mafioso too.
    await club.until(Phase.ACQUAINTANCE)
    if first is not None:
        await club.say(club.host, first)
    for role in (Role.COMMISSIONER, Role.MAFIA):
        before = snapshot(club.state)
        assert await club.hushed(club.player(role), text) == ONLY_HOST, role
        assert snapshot(club.state) == before
    # The Host: done.
    hosts_before = club.state
    await club.say(club.host, text)
    assert await done(club, hosts_before, club.state), command


async def test_sanction_buttons_are_the_hosts(club: Club) -> None:
    seat = club.seat(Role.CIVILIAN)
    await club.say(club.host, f"/warn {seat} V2")
    # Issue 22 §1: the proposal is the Host's, in private: nobody else sees its buttons,
    # and their data pressed by anyone else (a forged press in the group) is refused.
    proposal = club.host.private.messages()[-1]
    assert proposal.content.endswith("Confirm?")
    data = {b.text: b.callback_data or "" for row in proposal.buttons() for b in row}
    somewhere = club.group.messages()[-1]
    warned = club.table.person(seat)
    for person in (club.speaker(), club.player(), warned, club.observer):
        for button in ("Confirm", "Cancel"):
            assert _text(await club.forged(person, somewhere, data[button])) == ONLY_HOST
    assert club.state.sanctions == []
    await club.until(Phase.ACQUAINTANCE)
    for role in (Role.COMMISSIONER, Role.MAFIA):
        answer = await club.forged(club.player(role), somewhere, data["Confirm"])
        assert _text(answer) == ONLY_HOST
    assert club.state.sanctions == []
    await club.press(club.host, proposal, "Confirm")  # the Host: given
    assert [s.seat for s in club.state.sanctions] == [seat]
    await club.say(club.host, f"/warn {seat} V5")
    assert await club.press(club.host, club.host.private.messages()[-1], "Cancel") == (
        "Sanction cancelled."
    )
    assert len(club.state.sanctions) == 1


async def test_the_sheet_is_signed_by_the_host_alone(club: Club) -> None:
    mafia = club.state.living_mafia()
    civilian = club.player()
    for seat in mafia:  # the Host removes the mafia: the peaceful side wins at once (W2)
        await club.host.send(club.group, f"/remove {seat}")
        await club.table.settle()
    assert club.state.phase is Phase.OVER
    sheet = club.table.latest(club.group.messages(), "g:")
    assert sheet is not None
    removed = club.table.person(mafia[0])
    for person in (civilian, removed, club.observer):
        assert await club.press(person, sheet, "Sign the sheet") == ONLY_HOST
    await club.press(club.host, sheet, "Sign the sheet")
    assert "The sheet is signed" in club.group.messages()[-1].content


# --- the speaker's --------------------------------------------------------------------------


async def test_pass_is_the_speakers(club: Club) -> None:
    left = await club.remove(club.seat(Role.CIVILIAN))
    turn = club.table.turn_message()
    finish = turn.button("Finish speech")
    step = club.state.step
    refusals = [
        (club.player(), NOT_YOUR_TURN),  # another living player
        (club.host, NOT_PLAYING),
        (club.observer, NOT_PLAYING),
        (left, NOT_YOUR_TURN),  # a player who has left
    ]
    for person, why in refusals:
        # D10: the Host's answer stays in the group; anyone else's comes in private.
        asked = club.say if person is club.host else club.hushed
        assert await asked(person, "/pass") == why, person.first_name
        assert await club.press(person, turn, "Finish speech") == why, person.first_name
    assert club.state.step == step
    await club.say(club.speaker(), "/pass")  # the speaker, by command
    assert club.state.step == step + 1
    await club.press(club.speaker(), club.table.turn_message(), "Finish speech")  # by button
    assert club.state.step == step + 2
    await club.until(Phase.ACQUAINTANCE)  # at night nobody speaks
    mafioso = club.player(Role.MAFIA)
    assert await club.hushed(mafioso, "/pass") == NOT_NOW
    # The day's keyboards are gone by now; a press that crossed their removal is stale.
    stale = await mafioso.press_seen(turn, finish)
    await club.table.settle()
    assert _text(stale.answer) == STALE


async def test_nominating_is_the_speakers_in_round_two(club: Club) -> None:
    await club.until(Phase.ACQUAINTANCE)
    assert await club.hushed(club.player(Role.MAFIA), "/nominate 3") == NOT_NOW  # at night
    await club.until(Phase.ROUND_1, 1)
    assert await club.say(club.speaker(), "/nominate 3") == NOT_NOW  # round 1
    await club.until(Phase.ROUND_2, 1)
    target = club.seat(Role.CIVILIAN)
    button = str(target)  # nomination keys are seat numbers
    turn = club.table.turn_message()
    for person, why in (
        (club.table.person(club.seat(Role.CIVILIAN, besides=(target,))), NOT_YOUR_TURN),
        (club.host, NOT_PLAYING),
        (club.observer, NOT_PLAYING),
    ):
        asked = club.say if person is club.host else club.hushed
        assert await asked(person, f"/nominate {target}") == why
        assert await club.press(person, turn, button) == why
    assert club.state.nominations == {}
    speaker = club.state.speaker
    await club.say(club.speaker(), f"/nominate {target}")  # the speaker, by command
    assert club.state.nominations == {speaker: target}
    await club.table.pass_turn()
    other = club.seat(Role.CIVILIAN, besides=(target,))
    await club.table.nominate(other)  # the next speaker, by button
    assert other in club.state.nominations.values()


async def test_voting_is_for_living_players(club: Club) -> None:
    await club.until(Phase.ROUND_2, 1)
    target = club.seat(Role.CIVILIAN)
    await club.table.nominate(target)
    left = await club.remove(club.seat(Role.CIVILIAN, besides=(target,)))
    await club.until(Phase.VOTE)
    ballot = club.table.latest(club.group.messages(), "v:")
    assert ballot is not None
    button = club.table.label(target)
    for person, why in ((club.host, NOT_PLAYING), (club.observer, NOT_PLAYING), (left, LEFT)):
        assert await club.press(person, ballot, button) == why
    assert club.state.votes == {}
    voter = club.player(Role.MAFIA)
    named = club.table.named(target)
    assert await club.press(voter, ballot, button) == f"Your vote: player {named}."
    assert club.state.votes == {club.state.seat_of(voter.id): target}


# --- the night ------------------------------------------------------------------------------


async def test_night_buttons_are_the_commissioners_and_the_mafias(club: Club) -> None:
    gone = await club.remove(club.state.living_mafia()[0])
    state = await club.until(Phase.ACQUAINTANCE)  # Night 0: acquaintance only (N1)
    target = club.seat(Role.CIVILIAN)
    night_zero = f"n:{state.game_id}:{state.step}:{target}"
    for role in (Role.COMMISSIONER, Role.MAFIA):
        answer = await club.forged(club.player(role), club.group.messages()[-1], night_zero)
        assert answer.text == NOT_NOW
    state = await club.until(Phase.NIGHT, 1)
    target = club.seat(Role.CIVILIAN)
    forged = f"n:{state.game_id}:{state.step}:{target}"
    anywhere = club.group.messages()[-1]
    for person, why in (
        (club.player(Role.CIVILIAN), NOT_YOUR_ROLE),  # a civilian has no keyboard: forged
        (club.host, NOT_PLAYING),
        (club.observer, NOT_PLAYING),
        (gone, LEFT),  # a mafioso who has left
    ):
        answer = await club.forged(person, anywhere, forged)
        assert answer.show_alert and answer.text == why, person.first_name
    assert club.state.check is None and club.state.kill_picks == {}
    commissioner, mafioso = club.player(Role.COMMISSIONER), club.player(Role.MAFIA)
    label = club.table.label(target)
    keyboard = club.table.latest(commissioner.inbox(), "n:")
    assert keyboard is not None
    named = club.table.named(target)
    assert await club.press(commissioner, keyboard, label) == f"Checking player {named}…"
    keyboard = club.table.latest(mafioso.inbox(), "n:")
    assert keyboard is not None
    assert await club.press(mafioso, keyboard, label) == f"Your pick: player {named}."
    assert club.state.check == target and target in club.state.kill_picks.values()


async def test_the_night_relay_is_the_mafias(club: Club) -> None:
    gone = await club.remove(club.state.living_mafia()[0])
    mafioso = club.player(Role.MAFIA)
    by_day = await club.say(mafioso, "psst", mafioso.private)
    assert by_day == "The mafia can only confer at night."
    state = await club.until(Phase.ACQUAINTANCE)
    partners = [
        club.table.person(m) for m in state.living_mafia() if m != state.seat_of(mafioso.id)
    ]
    for person in (
        club.player(Role.CIVILIAN),
        club.player(Role.COMMISSIONER),
        club.host,
        club.observer,
        gone,
    ):
        assert await club.say(person, "who is mafia?", person.private) == HINT
    assert not any("who is mafia?" in m.content for p in partners for m in p.inbox())
    await mafioso.send(mafioso.private, "seat 3")
    await club.table.settle()
    seat = state.seat_of(mafioso.id)
    assert seat is not None
    for partner in partners:
        assert partner.inbox()[-1].content == f"💬 {club.table.named(seat)}: seat 3"


async def test_in_the_group_only_the_speaker_and_the_host_write(club: Club) -> None:
    left = await club.remove(club.seat(Role.CIVILIAN))
    written = {
        "speaker": await club.speaker().send(club.group, "my turn"),
        "host": await club.host.send(club.group, "a word from the Host"),
        "player": await club.player().send(club.group, "out of turn"),
        "observer": await club.observer.send(club.group, "a comment"),
        "left": await left.send(club.group, "from beyond"),
    }
    await club.table.settle()
    assert {who: m.deleted for who, m in written.items()} == {
        "speaker": False,
        "host": False,
        "player": True,
        "observer": True,
        "left": True,
    }
    await club.until(Phase.ACQUAINTANCE)
    reports = len(club.host.inbox())
    commissioner, mafioso = club.player(Role.COMMISSIONER), club.player(Role.MAFIA)
    night = {
        "host": await club.host.send(club.group, "the city sleeps"),
        "commissioner": await commissioner.send(club.group, "hm"),
        "mafioso": await mafioso.send(club.group, "hm"),
        "observer": await club.observer.send(club.group, "hm"),
    }
    await club.table.settle()
    assert {who: m.deleted for who, m in night.items()} == {
        "host": False,
        "commissioner": True,
        "mafioso": True,
        "observer": True,
    }
    # N5: a player's eyes open at night are the Host's to judge (V3); an observer's are not.
    reported = [m.content for m in club.host.inbox()[reports:]]
    assert len(reported) == 2 and all("wrote in the group at night" in text for text in reported)


# --- everybody's ----------------------------------------------------------------------------


async def test_everybodys_commands_answer_everybody(club: Club) -> None:
    expected = {
        "/status": "Day 0, introductions",
        "/rules": "Tournament Mafia in short",
        "/help": "Commands",
        "/lang en": "Language: English.",
    }
    left = await club.remove(club.seat(Role.CIVILIAN))
    people = [club.host, club.speaker(), club.player(), club.observer, left]

    async def asked(person: SimUser, command: str) -> str:
        """The answer in the group; for one who may not speak now (D10), in private."""
        speaker = club.state.speaker
        speaking = speaker is not None and person is club.table.person(speaker)
        if person is club.host or speaking:
            return await club.say(person, command)
        club.table.clock.set(club.table.clock.now() + 11)  # answers are 10 s apart at most
        return await club.hushed(person, command)

    for person in people:
        for command, answer in expected.items():
            assert (await asked(person, command)).startswith(answer), (person, command)
    await club.until(Phase.ACQUAINTANCE)
    expected["/status"] = "Day 0, Night 0"
    for role in (Role.COMMISSIONER, Role.MAFIA):
        for command, answer in expected.items():
            assert (await asked(club.player(role), command)).startswith(answer)
    private = {"/help": "Commands", "/rules": "Tournament Mafia", "/start": "Hello!"}
    for person in people:
        for command, answer in private.items():
            assert (await club.say(person, command, person.private)).startswith(answer)


# --- the secrets ----------------------------------------------------------------------------

# How a role shows: its name on a card or a sheet, a check's verdict, the state's own form.
ROLE_WORDS = ("Civilian", "Commissioner", "Mafia", "Your card", "is mafia", "is a civilian")
# In a log line "Mafia" is also the bot's name ("Mafia Table"); the rest still tells a role.
LOG_WORDS = ("Civilian", "Commissioner", "Role.", '"roles"', "is mafia", "is a civilian")


async def test_roles_and_the_seed_stay_secret_until_the_end(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """Group messages, alerts and log lines (INFO and up, as the bot logs) before the end:
    no role, no seed; and the bot token in no log line, DEBUG included."""
    caplog.set_level(logging.DEBUG)
    async with open_game(12, seed=9, lang="en") as table:
        observer = table.sandbox.add_user("Olga", language_code="en")
        table.group.add_member(observer)
        await observer.start_bot()
        await table.gather()
        await table.begin()
        state = table.state
        assert state is not None
        seed = state.seed
        crowd = Crowd(table, random.Random(9), "en")
        rng = random.Random(9)
        blocked = False
        everybody = [*table.people, table.host, observer]
        for _ in range(5000):
            await table.settle()
            state = table.state
            assert state is not None
            if state.finished:
                break
            if not blocked and state.day == 1:
                # The Commissioner blocks the bot: the night keyboard cannot reach them.
                await table.person(state.commissioner()).block_bot()
                blocked = True
            # Errors and refusals of every kind, from everybody.
            person = rng.choice(everybody)
            anywhere = table.group.messages()[-1]
            data = rng.choice(["n", "v", "t", "s"]) + f":{state.game_id}:{state.step}:1"
            forge(table, person, anywhere, data + (":V2:warning:0" if data[0] == "s" else ""))
            await person.send(table.group, rng.choice(["/status", "/pass", "/nominate 2", "hi"]))
            if not await crowd.act() and not await table.advance():
                raise AssertionError("stalled")
        assert state.finished and state.winner is not None
        end = next(i for i, m in enumerate(table.group.messages()) if m.content.startswith("🏁"))
        for message in table.group.messages()[:end]:
            text = message.content
            assert seed not in text, text
            # Naming who missed a night message would name the Commissioner or a mafioso.
            assert "could not write" not in text, text
            if message.from_bot and not text.startswith("Tournament Mafia in short"):
                assert not any(word in text for word in ROLE_WORDS), text
        answers = [a.text or "" for person in everybody for a in person.answers()]
        assert answers and not any(seed in a or any(w in a for w in ROLE_WORDS) for a in answers)
        shown = [r for r in caplog.records if r.levelno >= logging.INFO]
        assert any(r.name.startswith("aiogram") for r in shown)  # the capture works
        for record in shown:
            line = record.getMessage() + (record.exc_text or "")
            assert seed not in line and not any(w in line for w in LOG_WORDS), line
        token = table.sandbox.token
        for record in caplog.records:
            line = f"{record.getMessage()} {record.exc_text or ''} {record.args!r}"
            assert token not in line and token.split(":")[1] not in line, record.name
        table.sandbox.assert_no_bot_errors()
