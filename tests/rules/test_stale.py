"""A button's action is for the step it was made for (issue 21 §4).

Every kind of button: the action made for step k is refused at a later step with
`StaleAction`, and changes nothing, even when the same seat acts again there. An action
with no step (a typed command) is for the step it arrives at.
"""

from __future__ import annotations

import pytest

from bot.rules import engine
from bot.rules.actions import (
    Check,
    Extend,
    Kill,
    Nominate,
    Pass,
    Pause,
    Resume,
    Sanction,
    Skip,
    Vote,
)
from bot.rules.errors import GameFinished, StaleAction
from bot.rules.events import Phase, VoteOpened
from bot.rules.roles import Role
from bot.rules.sanctions import Penalty
from bot.rules.sheet import sheet

from .helpers import Game, of_type, snapshot, to_night


def _to_last_round_2_turn(game: Game) -> tuple[int, int]:
    """Round 2 of day 1, the first speaker nominating the last one alone; returns the last
    speaker, now speaking, and the day's first speaker."""
    game.advance_to(Phase.ROUND_2, day=1)
    first = game.state.speaker
    assert first is not None
    last = game.state.queue[-1]
    game.act(Nominate(first, last, step=game.state.step))
    while game.state.speaker != last:
        game.step()
    return last, first


@pytest.mark.rule("D5")
@pytest.mark.rule("D10")
def test_finish_speech_for_round_2_never_ends_the_same_seats_defence() -> None:
    game = Game()
    last, _ = _to_last_round_2_turn(game)
    made_for = game.state.step
    game.timeout()  # the deadline comes first: the same seat's defence begins (D4, D5)
    assert game.phase is Phase.DEFENCE and game.state.speaker == last
    assert game.state.step == made_for + 1
    error = game.refused(Pass(last, step=made_for), StaleAction)
    assert error.values == {"step": made_for + 1}
    game.act(Pass(last, step=game.state.step))  # the defence's own button ends it
    # mypy keeps game.phase narrowed to DEFENCE across the moves above, which change it
    assert game.phase is Phase.VOTE  # type: ignore[comparison-overlap]


@pytest.mark.rule("D10")
def test_finish_speech_for_an_earlier_turn_never_ends_a_later_one() -> None:
    game = Game()
    game.advance_to(Phase.ROUND_1, day=1)
    speaker, made_for = game.state.speaker, game.state.step
    assert speaker is not None
    game.act(Pass(speaker, step=made_for))
    game.refused(Pass(speaker, step=made_for), StaleAction)  # pressed twice
    nxt = game.state.speaker
    assert nxt is not None
    game.refused(Pass(nxt, step=made_for), StaleAction)  # the next speaker's old keyboard
    game.refused(Pass(nxt, step=game.state.step + 1), StaleAction)  # a forged later step


@pytest.mark.rule("D3")
def test_a_nomination_for_one_days_turn_never_lands_on_the_next_days() -> None:
    game = Game()
    game.advance_to(Phase.ROUND_2, day=1)
    seat, made_for = game.state.speaker, game.state.step
    assert seat is not None
    target = next(s for s in game.state.living() if s != seat)
    to_night(game)
    game.timeout()  # nobody is killed
    game.advance_to(Phase.ROUND_2, day=2)
    while game.state.speaker != seat:
        game.step()
    assert seat not in game.state.nominations  # the same seat may nominate again
    game.refused(Nominate(seat, target, step=made_for), StaleAction)
    game.act(Nominate(seat, target, step=game.state.step))
    assert game.state.nominations[seat] == target


@pytest.mark.rule("D6")
def test_a_vote_for_one_days_ballot_never_lands_on_the_next_days() -> None:
    game = Game()
    living = game.state.living()
    voter, leader = living[2], living[1]
    to_night(game)  # day 1: `leader` alone nominated, nobody votes, nobody leaves (D7)
    vote_1 = of_type(game.events, VoteOpened)[-1].step
    game.timeout()  # night 1: no kill
    game.nominate({living[0]: leader})
    game.pass_all(Phase.DEFENCE)
    assert game.phase is Phase.VOTE and game.state.leaders == [leader]
    game.refused(Vote(voter, leader, step=vote_1), StaleAction)
    game.refused(Vote(voter, None, step=vote_1), StaleAction)
    game.act(Vote(voter, leader, step=game.state.step))
    assert game.state.votes[voter] == leader


def _two_nights(game: Game) -> int:
    """Night 1, with no action, then on to night 2; returns night 1's step."""
    to_night(game)
    night_1 = game.state.step
    game.timeout()
    to_night(game)
    assert game.state.day == 2 and game.state.step > night_1
    return night_1


@pytest.mark.rule("N2")
def test_a_check_for_one_night_never_lands_on_the_next() -> None:
    game = Game()
    commissioner = game.commissioner()
    target = game.mafia()[0]
    night_1 = _two_nights(game)
    game.refused(Check(commissioner, target, step=night_1), StaleAction)
    assert game.state.check is None
    game.act(Check(commissioner, target, step=game.state.step))
    assert game.state.check == target


@pytest.mark.rule("N3")
def test_a_kill_for_one_night_never_lands_on_the_next() -> None:
    game = Game()
    mafioso = game.mafia()[0]
    target = game.civilians()[0]
    night_1 = _two_nights(game)
    game.refused(Kill(mafioso, target, step=night_1), StaleAction)
    assert mafioso not in game.state.kill_picks
    game.act(Kill(mafioso, target, step=game.state.step))
    assert game.state.kill_picks[mafioso] == target


@pytest.mark.rule("N1")
def test_night_buttons_of_night_0_never_act_on_the_day() -> None:
    game = Game()
    game.advance_to(Phase.ACQUAINTANCE)
    night_0 = game.state.step
    game.timeout()
    game.refused(Kill(game.mafia()[0], game.civilians()[0], step=night_0), StaleAction)
    game.refused(Check(game.commissioner(), game.mafia()[0], step=night_0), StaleAction)


@pytest.mark.rule("T2")
def test_end_turn_pressed_for_one_turn_never_ends_the_next() -> None:
    game = Game()
    game.advance_to(Phase.ROUND_1, day=1)
    made_for = game.state.step
    game.act(Skip(made_for))
    speaker = game.state.speaker
    game.refused(Skip(made_for), StaleAction)  # a second press of the same End turn
    assert game.state.speaker == speaker and game.state.step == made_for + 1


@pytest.mark.rule("T2")
def test_pause_and_extend_for_an_earlier_turn_are_stale() -> None:
    game = Game()
    game.advance_to(Phase.ROUND_1, day=1)
    made_for = game.state.step
    game.step()
    game.refused(Pause(made_for), StaleAction)
    game.refused(Extend(30.0, made_for), StaleAction)
    game.act(Extend(30.0, game.state.step))
    game.act(Pause(game.state.step))
    assert game.state.paused


@pytest.mark.rule("T2")
def test_resume_for_the_turn_skipped_during_a_pause_is_stale() -> None:
    game = Game()
    game.advance_to(Phase.ROUND_1, day=1)
    game.act(Pause(game.state.step))
    made_for = game.state.step
    game.act(Skip(made_for))  # the next turn starts paused (T2)
    assert game.state.paused and game.state.step == made_for + 1
    game.refused(Resume(made_for), StaleAction)
    game.act(Resume(game.state.step))
    assert not game.state.paused


@pytest.mark.rule("T3")
def test_the_sheet_a_sign_button_shows_is_final() -> None:
    """The Sign button comes with the sheet at the game's end: no action, with a step or
    without, lands after it, so the sheet signed is the sheet shown."""
    game = Game(n=5)
    game.shrink(mafia=1, peaceful=2)
    game.remove(game.mafia()[0])
    assert game.state.finished
    shown = sheet(game.state)
    final = game.state.step
    before = snapshot(game.state)
    for action in (
        Pass(1, step=final),
        Skip(final),
        Skip(),
        Sanction(1, Penalty.DISQUALIFICATION),
    ):
        with pytest.raises(GameFinished):
            engine.apply(game.state, action, game.now + 1)
    assert snapshot(game.state) == before and sheet(game.state) == shown


def test_actions_without_a_step_are_for_the_step_they_meet() -> None:
    """A typed command (/pass, /nominate, /skip) carries no step; neither did any action
    before buttons carried theirs. The protocol holds events, never actions: an old one
    replays as it was."""
    game = Game()
    game.advance_to(Phase.ROUND_2, day=1)
    speaker = game.state.speaker
    assert speaker is not None
    target = next(s for s in game.state.living() if s != speaker)
    game.act(Nominate(speaker, target))
    game.act(Pass(speaker))
    game.act(Pause())
    game.act(Extend(30.0))
    game.act(Resume())
    game.act(Skip())
    assert game.state.nominations[speaker] == target
    assert snapshot(game.replayed()) == snapshot(game.state)


def test_a_stale_press_is_refused_before_its_role_or_phase() -> None:
    """A stale press is refused before anything else is checked: the presser is told the
    button is old, not that the role or the phase is wrong."""
    game = Game()
    to_night(game)
    night_1 = game.state.step
    game.timeout()
    assert game.phase is not Phase.NIGHT
    civilian = game.civilians()[0]
    assert game.state.roles[civilian] is Role.CIVILIAN
    game.refused(Kill(civilian, game.mafia()[0], step=night_1), StaleAction)
