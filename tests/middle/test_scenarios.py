"""The casual game's situations, each driven the way people would drive it.

Every test runs the real bot against the sandbox over HTTP; the `table` fixture fails
a test on any request the official Bot API would refuse.
"""

from __future__ import annotations

from collections.abc import Callable

import pytest

from bot.cli.demo import Table
from bot.rules.events import Cause, Phase
from bot.rules.roles import Role
from bot.rules.state import GameState
from tests.middle.games import open_game


def at(phase: Phase, day: int | None = None) -> Callable[[GameState], bool]:
    return lambda s: s.phase is phase and (day is None or s.day == day)


async def round_two(table: Table) -> GameState:
    return await table.wait_for(at(Phase.ROUND_2, 1))


@pytest.mark.rule("D4")
async def test_D4_three_nominees_tied_all_go_to_the_vote(table: Table) -> None:
    state = await round_two(table)
    speakers = [state.speaker, *state.queue][:3]
    targets = [s for s in state.living() if s not in speakers][:3]
    for target in targets:
        await table.nominate(target)
        await table.pass_turn()
    state = await table.wait_for(at(Phase.DEFENCE))
    assert sorted(state.leaders) == sorted(targets)
    named = [table.named(s) for s in sorted(targets)]
    names = ", ".join(named[:-1]) + " and " + named[-1]  # "A, B and C"
    assert any(f"To the final vote: {names}" in m.content for m in table.group.messages())
    await table.wait_for(at(Phase.VOTE))
    ballot = table.latest(table.group.messages(), "v:")
    assert ballot is not None
    assert [b.text for row in ballot.buttons() for b in row] == [
        *(table.label(s) for s in sorted(targets)),
        "Abstain",
    ]


@pytest.mark.rule("D7")
async def test_D7_a_final_vote_tie_sends_both_leaders_out(table: Table) -> None:
    state = await round_two(table)
    first, second = state.speaker, state.queue[0]
    a, b = [s for s in state.living() if s not in (first, second)][:2]
    await table.nominate(a)
    await table.pass_turn()
    await table.nominate(b)
    await table.pass_turn()
    state = await table.wait_for(at(Phase.VOTE))
    living = state.living()
    for i, voter in enumerate(living):
        await table.vote(voter, a if i < len(living) // 2 else b)
    after = table.state
    assert after is not None
    assert not after.is_alive(a) and not after.is_alive(b)
    assert after.seats[a].left is Cause.VOTE and after.seats[b].left is Cause.VOTE
    result = next(m for m in reversed(table.group.messages()) if "A tie" in m.content)
    half = len(living) // 2

    def nick(seat: int) -> str:
        return after.seats[seat].nick

    for leader, voters in ((a, living[:half]), (b, living[half:])):  # the open vote (D6)
        seats = ", ".join(str(s) for s in sorted(voters))
        assert f"#{leader} ({nick(leader)}) — {len(voters)} votes: {seats}" in result.content
    low, high = sorted((a, b))
    assert (
        f"A tie: players #{low} ({nick(low)}) and #{high} ({nick(high)}) have the same"
        " number of votes — all of them leave the game." in result.content
    )
    assert after.phase is Phase.LAST_WORDS and after.speaker in (a, b)  # D9


@pytest.mark.rule("D8")
async def test_D8_a_day_without_nominations_ends_with_the_lot(table: Table) -> None:
    state = await table.wait_for(at(Phase.LAST_WORDS, 1))
    lot = next(m for m in table.group.messages() if "By lot, player" in m.content)
    seat = state.speaker
    assert seat is not None and state.seats[seat].left is Cause.LOT
    assert f"By lot, player {table.named(seat)} leaves the game." in lot.content


@pytest.mark.rule("N3")
async def test_N3_mafia_picks_that_disagree_are_a_miss(table: Table) -> None:
    state = await table.wait_for(at(Phase.NIGHT, 1))
    mafia = state.living_mafia()
    peaceful = [s for s in state.living() if state.roles[s] is not Role.MAFIA]
    living_before = len(state.living())
    for mafioso, target in zip(mafia, peaceful, strict=False):
        await table.night_pick(mafioso, target)
    commissioner = state.commissioner()
    suspect = mafia[0]
    await table.night_pick(commissioner, suspect)
    later = table.state
    assert later is not None and later.phase is Phase.NIGHT  # N4: the night runs its length
    state = await table.wait_for(at(Phase.ROUND_1, 2))
    assert len(state.living()) == living_before
    assert any("Nobody died tonight" in m.content for m in table.group.messages())
    verdict = table.person(commissioner).inbox()[-1].content
    assert verdict == f"🔎 Player {table.named(suspect)} is mafia."  # N2: the exact answer


@pytest.mark.rule("N3")
async def test_N3_a_partners_pick_is_added_to_the_kill_message_not_sent_anew(table: Table) -> None:
    state = await table.wait_for(at(Phase.NIGHT, 1))
    first, second, *rest = state.living_mafia()
    victim = next(s for s in state.living() if state.roles[s] is Role.CIVILIAN)
    partner = table.person(second)
    before = len(partner.inbox())
    await table.night_pick(first, victim)
    # Message economy: the partner's kill message shows the pick; nothing new is sent.
    assert len(partner.inbox()) == before
    kill = table.latest(partner.inbox(), "n:")
    assert kill is not None
    assert f"🔪 Player {table.named(first)} picks player {table.named(victim)}." in kill.content
    await table.restart()  # the kill message's id is forgotten with the process
    await table.night_pick(second, victim)
    line = f"🔪 Player {table.named(second)} picks player {table.named(victim)}."
    assert table.person(first).inbox()[-1].content == line  # so the pick comes on its own
    assert kill.buttons(), "the night goes on: the keyboard stays"
    for mafioso in rest:
        await table.night_pick(mafioso, victim)
    state = await table.wait_for(at(Phase.LAST_WORDS, 1))
    assert state.seats[victim].left is Cause.KILL


@pytest.mark.rule("N6")
async def test_N6_an_agreed_kill_is_announced_in_the_morning(table: Table) -> None:
    state = await table.wait_for(at(Phase.NIGHT, 1))
    victim = next(s for s in state.living() if state.roles[s] is Role.CIVILIAN)
    for mafioso in state.living_mafia():
        await table.night_pick(mafioso, victim)
    state = await table.wait_for(at(Phase.LAST_WORDS, 1))
    assert state.speaker == victim and state.seats[victim].left is Cause.KILL
    assert any(
        f"Killed tonight: player {table.named(victim)}" in m.content for m in table.group.messages()
    )


@pytest.mark.rule("D10")
async def test_D10_out_of_turn_messages_are_deleted_and_the_speakers_kept(table: Table) -> None:
    state = table.state
    assert state is not None and state.phase is Phase.INTRODUCTION
    speaker = state.speaker
    assert speaker is not None
    other = next(s for s in state.living() if s != speaker)
    spoken = await table.person(speaker).send(table.group, "I am a civilian, trust me.")
    interrupt = await table.person(other).send(table.group, "No, he is lying!")
    sticker = await table.person(other).send_media(table.group, "sticker")
    await table.settle()
    assert not spoken.deleted
    assert interrupt.deleted and sticker.deleted


@pytest.mark.rule("N5")
async def test_N5_writing_in_the_group_at_night_is_deleted_and_reported(table: Table) -> None:
    await table.host.start_bot()
    state = await table.wait_for(at(Phase.ACQUAINTANCE))
    seat = state.living()[0]
    message = await table.person(seat).send(table.group, "psst")
    await table.settle()
    assert message.deleted
    report = table.host.inbox()[-1].content
    assert f"player {table.named(seat)} wrote in the group at night" in report


@pytest.mark.rule("N1")
async def test_N1_the_mafia_meet_and_confer_through_the_bot(table: Table) -> None:
    state = await table.wait_for(at(Phase.ACQUAINTANCE))
    first, *others = state.living_mafia()
    named = [table.named(m) for m in state.living_mafia()]
    names = ", ".join(named[:-1]) + " and " + named[-1]  # "A, B and C"
    assert names in table.person(first).inbox()[-1].content
    await table.person(first).send(table.person(first).private, "Let's go for seat 2")
    await table.settle()
    for partner in others:
        assert table.person(partner).inbox()[-1].content == (
            f"💬 {table.named(first)}: Let's go for seat 2"
        )
    civilian = next(s for s in state.living() if state.roles[s] is Role.CIVILIAN)
    assert all("Let's go" not in m.content for m in table.person(civilian).inbox())


async def test_host_commands_from_anyone_else_are_refused(table: Table) -> None:
    state = table.state
    assert state is not None
    assert state.speaker is not None
    speaker = table.person(state.speaker)
    others = [table.person(s) for s in state.living() if s != state.speaker]
    commands = ("/pause", "/skip", "/stop", "/remove 3", "/warn 3 V2")
    for command in commands:  # the speaker is refused in the group
        sent = await speaker.send(table.group, command)
        await table.settle()
        reply = table.group.messages()[-1]
        assert reply.from_bot and reply.content == "Only the Host can do that.", command
        assert not sent.deleted
    for player, command in zip(others, commands, strict=False):
        # Anyone else is out of turn (D10): the command goes, the refusal comes in private.
        sent = await player.send(table.group, command)
        await table.settle()
        assert sent.deleted and not table.group.messages()[-1].from_bot, command
        assert player.inbox()[-1].content == "Only the Host can do that.", command
    after = table.state
    assert after is not None and not after.paused and after.step == state.step


async def test_buttons_of_someone_else_or_of_an_earlier_turn_are_refused(table: Table) -> None:
    state = table.state
    assert state is not None and state.speaker is not None
    old_turn = table.turn_message()
    other = next(s for s in state.living() if s != state.speaker)
    press = await table.press(other, old_turn, 0)
    assert press.answer is not None and press.answer.show_alert
    assert press.answer.text == "It is not your turn."
    finish = old_turn.button(0)
    await table.pass_turn()
    after = table.state
    assert after is not None and after.step == state.step + 1
    # Its keyboard goes when the group's window has room to spare; a press made before
    # (or crossing the edit) is refused by step.
    stale = await table.person(state.speaker).press_seen(old_turn, finish)
    await table.settle()
    assert stale.answer is not None and stale.answer.text == "This button is from an earlier phase."
    assert table.state is not None and table.state.step == after.step


async def test_pause_and_resume_keep_the_time_left(table: Table) -> None:
    state = table.state
    assert state is not None and state.deadline is not None
    table.clock.set(table.clock.now() + 12)
    left = state.deadline - table.clock.now()  # 18 s, less any second the cards' pacing took
    await table.host.send(table.group, "/pause")
    await table.settle()
    paused = table.state
    assert paused is not None and paused.paused_remaining == pytest.approx(left)
    assert 17 <= left <= 18
    table.clock.set(table.clock.now() + 600)  # a long dispute: nothing times out
    await table.settle()
    assert not await table.advance() or (table.state is not None and table.state.paused)
    await table.host.send(table.group, "/resume")
    await table.settle()
    resumed = table.state
    assert resumed is not None and resumed.step == state.step
    assert resumed.deadline == pytest.approx(table.clock.now() + left)
    assert table.timers.next_due() is not None


async def test_extend_and_skip(table: Table) -> None:
    state = table.state
    assert state is not None and state.deadline is not None
    await table.host.send(table.group, "/extend 15")
    await table.settle()
    extended = table.state
    assert extended is not None and extended.deadline == pytest.approx(state.deadline + 15)
    await table.host.send(table.group, "/skip")
    await table.settle()
    skipped = table.state
    assert skipped is not None and skipped.step == state.step + 1


@pytest.mark.rule("T2")
@pytest.mark.parametrize("command", ["/skip", "/remove"])
async def test_T2_a_turn_begun_during_a_pause_starts_paused(table: Table, command: str) -> None:
    state = table.state
    assert state is not None and state.speaker is not None
    await table.host.send(table.group, "/pause")
    await table.settle()
    text = command if command == "/skip" else f"/remove {state.speaker}"
    await table.host.send(table.group, text)
    await table.settle()
    after = table.state
    assert after is not None and after.step == state.step + 1 and after.speaker != state.speaker
    assert after.paused and after.paused_remaining == after.settings.introduction_seconds
    table.clock.set(table.clock.now() + 600)  # nothing times out while paused
    assert table.timers.next_due() is None
    said = table.group.messages()[-1].content
    assert "The Host paused the game (30 s left on the clock)." in said
    await table.host.send(table.group, "/resume")
    await table.settle()
    resumed = table.state
    assert resumed is not None and resumed.step == after.step
    assert resumed.deadline == pytest.approx(table.clock.now() + 30)


async def test_a_player_who_never_pressed_start_holds_the_deal_until_they_do() -> None:
    async with open_game(12, seed=2, lang="en") as table:
        late = table.people[-1]
        await table.gather(table.people[:-1])
        await late.send(table.group, "/join")
        await table.settle()
        await table.host.send(table.group, "/begin")
        await table.settle()
        notice = table.group.messages()[-1]
        assert late.first_name in notice.content and "press Start" in notice.content
        assert table.state is None  # /begin waits
        await late.follow(notice, 0)  # the button opens the bot's chat with Start
        await table.settle()
        state = table.state
        assert state is not None and state.phase is Phase.INTRODUCTION
        assert any("Your card" in m.content and m.protect_content for m in late.inbox())
        table.sandbox.assert_no_bot_errors(allow=("bot can't initiate conversation",))


async def test_newgame_names_the_missing_rights() -> None:
    async with open_game(12, seed=2, lang="en") as table:
        table.group.promote_bot(by=table.host, can_delete_messages=True)
        await table.host.send(table.group, "/newgame")
        await table.settle()
        answer = table.group.messages()[-1].content
        assert "ban users" in answer and "pin messages" in answer and "invite users" in answer
        assert "delete messages" not in answer
        assert await table.app.service.active_game(table.group.id) is None


async def test_resume_says_who_speaks_and_how_much_is_left(table: Table) -> None:
    # Issue 22 §2 (T2): after a pause the table hears whose turn goes on and for how long.
    state = table.state
    assert state is not None and state.deadline is not None and state.speaker is not None
    table.clock.set(table.clock.now() + 12)
    left = round(state.deadline - table.clock.now())
    await table.host.send(table.group, "/pause")
    await table.settle()
    table.clock.set(table.clock.now() + 600)
    await table.host.send(table.group, "/resume")
    await table.settle()
    said = next(m.content for m in reversed(table.group.messages()) if "goes on" in m.content)
    assert f"player {state.speaker}" in said.lower() or f"#{state.speaker}" in said, said
    assert f"{left} s left" in said, said
    assert said.rstrip(".").split()[-1].isalpha(), said  # the end time names its zone
