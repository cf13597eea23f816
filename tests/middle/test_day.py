"""The day through the handlers: the Host's clock, order at the table, stale buttons."""

from __future__ import annotations

import pytest

from bot.rules.state import GameState
from storage.games import GameStatus
from tests.middle.harness import Desk


async def test_the_hosts_pause_stops_the_clock_and_resume_starts_it(playing: Desk) -> None:
    assert playing.game_id is not None
    before = playing.state
    assert before is not None and before.deadline is not None
    left = before.deadline - playing.clock.now()
    mark = playing.mark()

    await playing.send(playing.host, "/pause")

    paused = playing.state
    assert paused is not None and paused.paused and paused.paused_remaining == left
    said = [post.text for post in playing.sent("sendMessage", chat=playing.group.id, since=mark)]
    assert playing.t("host.paused", seconds=int(left)) in said
    stored = await playing.app.service.repos.games.get(playing.game_id)
    assert stored is not None and stored.deadline is None  # no timeout pending while paused
    # Time passes and nothing happens: the speaker keeps the floor.
    assert not await playing.advance() or playing.state == paused

    mark, asked = playing.mark(), playing.clock.now()
    await playing.send(playing.host, "/resume")

    resumed = playing.state
    assert resumed is not None and not resumed.paused and resumed.deadline is not None
    assert resumed.speaker == before.speaker
    # The time left counts from the resume, or from when the group could see it (the
    # announcement waits for room in the group's window, and the clock restarts then).
    assert asked <= resumed.deadline - left <= playing.clock.now()
    stored = await playing.app.service.repos.games.get(playing.game_id)
    assert stored is not None and stored.deadline == resumed.deadline
    assert playing.sent("sendMessage", chat=playing.group.id, since=mark)


async def test_pause_by_a_player_is_refused(playing: Desk) -> None:
    mark = playing.mark()
    state = playing.state
    assert state is not None and state.speaker is not None

    await playing.send(playing.person(state.speaker), "/pause")

    assert playing.state == state
    said = [post.text for post in playing.sent("sendMessage", since=mark)]
    assert playing.t("host.only_host") in said


@pytest.mark.rule("D10")
async def test_a_word_out_of_turn_is_deleted_and_the_speaker_keeps_the_floor(
    playing: Desk,
) -> None:
    state = playing.state
    assert state is not None and state.speaker is not None
    other = next(seat for seat in state.living() if seat != state.speaker)
    mark = playing.mark()

    said = await playing.send(playing.person(other), "Not my turn, but listen!")
    spoken = await playing.send(playing.person(state.speaker), "I am a civilian.")

    deletions = playing.sent("deleteMessage", chat=playing.group.id, since=mark)
    assert [request.params["message_id"] for request in deletions] == [str(said.message_id)]
    assert said.deleted and not spoken.deleted
    assert playing.state == state  # neither the speaker nor the clock moved


async def test_status_tells_the_phase_the_speaker_and_the_seats(playing: Desk) -> None:
    state = playing.state
    assert state is not None and state.speaker is not None and state.deadline is not None
    mark, asked = playing.mark(), playing.clock.now()

    await playing.send(playing.host, "/status")

    answers = playing.sent("sendMessage", since=mark)
    assert len(answers) == 1
    assert answers[0].text == _status(playing, state, asked)


async def test_a_stale_turn_button_is_answered_and_changes_nothing(playing: Desk) -> None:
    first = playing.state
    assert first is not None and first.speaker is not None
    turn = playing.latest(playing.group.messages(), "t:")
    assert turn is not None
    passing = turn.button(0)
    await playing.press(playing.person(first.speaker), turn, 0)
    moved = playing.state
    assert moved is not None and moved.step > first.step and moved.speaker != first.speaker
    mark = playing.mark()

    # The same button again, as a slow screen still shows it.
    late = await playing.person(first.speaker).press_seen(turn, passing)
    await playing.feed()

    assert late.answer is not None and late.answer.text == playing.t("error.stale")
    assert playing.state == moved
    posts = playing.sent(("sendMessage", "editMessageText"), chat=playing.group.id, since=mark)
    assert posts == []
    assert playing.app.service.repos is not None
    game = await playing.app.service.repos.games.get(moved.game_id)
    assert game is not None and game.status is GameStatus.RUNNING


@pytest.mark.rule("D10")
async def test_a_players_command_out_of_turn_is_deleted_and_answered_in_private(
    playing: Desk,
) -> None:
    state = playing.state
    assert state is not None and state.speaker is not None and state.deadline is not None
    other = playing.person(next(seat for seat in state.living() if seat != state.speaker))
    mark, asked = playing.mark(), playing.clock.now()

    command = await playing.send(other, "/status")

    assert command.deleted
    assert playing.sent("sendMessage", chat=playing.group.id, since=mark) == []
    answers = playing.sent("sendMessage", chat=other.id, since=mark)
    assert len(answers) == 1
    assert answers[0].text == _status(playing, state, asked)
    assert playing.state == state  # the speaker keeps the floor


async def test_the_hosts_skip_gives_the_floor_to_the_next_speaker(playing: Desk) -> None:
    state = playing.state
    assert state is not None and state.speaker is not None
    mark = playing.mark()

    await playing.send(playing.host, "/skip")

    moved = playing.state
    assert moved is not None and moved.step > state.step
    assert moved.speaker is not None and moved.speaker != state.speaker
    nick = moved.seats[moved.speaker].nick
    posts = playing.sent("sendMessage", chat=playing.group.id, since=mark)
    assert any(nick in post.text for post in posts)  # the new turn is announced


def _status(desk: Desk, state: GameState, asked: float) -> str:
    """What /status says of Day 0's introductions, asked at `asked`."""
    assert state.speaker is not None and state.deadline is not None
    nick = state.seats[state.speaker].nick
    return desk.t(
        "status.running",
        day=0,
        phase=desk.t("phase.introduction"),
        speaker=desk.t("vote.seat", seat=state.speaker, nick=nick),
        seconds=int(state.deadline - asked),  # as it was when asked
        paused="",
        living=", ".join(str(seat) for seat in state.living()),
    )
