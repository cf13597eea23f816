"""Every illegal action raises a typed RuleError and changes nothing."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from bot.rules import errors
from bot.rules.actions import (
    Action,
    Check,
    Extend,
    Kill,
    Nominate,
    Pass,
    Pause,
    Resume,
    Sanction,
    Skip,
    Timeout,
    Vote,
)
from bot.rules.errors import (
    AlreadyActed,
    AlreadyNominated,
    AlreadyVoted,
    GamePaused,
    InvalidTarget,
    NotPaused,
    NotYourRole,
    NotYourTurn,
    RuleError,
    SeatNotAlive,
    StaleAction,
    TooEarly,
    UnknownSeat,
    WrongPhase,
)
from bot.rules.events import Phase
from bot.rules.roles import Role
from bot.rules.sanctions import Penalty

from .helpers import Game, to_night


def speaker(g: Game) -> int:
    assert g.state.speaker is not None
    return g.state.speaker


def not_speaker(g: Game) -> int:
    return speaker(g) % 12 + 1


def dead(g: Game) -> int:
    return next(s for s in sorted(g.state.seats) if not g.state.is_alive(s))


def dead_of(g: Game, role: Role) -> int:
    return next(s for s in g.seats_of(role, living=False) if not g.state.is_alive(s))


def at_intro() -> Game:
    return Game()


def at_round1() -> Game:
    return Game().advance_to(Phase.ROUND_1, day=1)


def at_round2() -> Game:
    """Round 2, the speaker has nominated, and one seat (not the speaker) was removed."""
    game = Game().advance_to(Phase.ROUND_2, day=1)
    game.act(Nominate(speaker(game), not_speaker(game)))
    game.remove((speaker(game) + 5) % 12 + 1)
    return game


def at_vote() -> Game:
    game = Game()
    game.nominate({1: 9, 2: 10})
    game.pass_all(Phase.DEFENCE)
    game.act(Vote(1, 9))
    return game


def at_night() -> Game:
    game = to_night(Game())
    game.act(Check(game.commissioner(), game.civilians()[0]))
    game.act(Kill(game.mafia()[0], game.civilians()[0]))
    return game


def at_round2_fresh() -> Game:
    game = Game().advance_to(Phase.ROUND_2, day=1)
    game.remove(not_speaker(game))
    return game


def at_vote_with_dead() -> Game:
    game = at_vote()
    game.remove(12)
    return game


def at_night_with_dead_civilian() -> Game:
    game = to_night(Game())
    game.remove(game.civilians()[0])
    return game


def at_night_with_dead() -> Game:
    game = to_night(Game())
    game.remove(game.commissioner(), game.mafia()[0], game.civilians()[0])
    return game


def paused() -> Game:
    game = Game()
    game.act(Pause())
    return game


Case = tuple[Callable[[], Game], Callable[[Game], Action], type[RuleError]]

CASES: dict[str, Case] = {
    # wrong phase
    "vote on day 0": (at_intro, lambda g: Vote(1, None), WrongPhase),
    "vote in round 1": (at_round1, lambda g: Vote(1, None), WrongPhase),
    "nominate in round 1": (at_round1, lambda g: Nominate(speaker(g), not_speaker(g)), WrongPhase),
    "nominate during the vote": (at_vote, lambda g: Nominate(2, 3), WrongPhase),
    "check by day": (at_round1, lambda g: Check(g.commissioner(), g.mafia()[0]), WrongPhase),
    "kill by day": (at_vote, lambda g: Kill(g.mafia()[0], g.civilians()[0]), WrongPhase),
    "pass at night": (at_night, lambda g: Pass(g.civilians()[0]), WrongPhase),
    "pass during the vote": (at_vote, lambda g: Pass(2), WrongPhase),
    # not your turn / not your role
    "pass by another seat": (at_intro, lambda g: Pass(not_speaker(g)), NotYourTurn),
    "nominate by another seat": (at_round2, lambda g: Nominate(not_speaker(g), 1), NotYourTurn),
    "check by a civilian": (at_night, lambda g: Check(g.civilians()[1], 1), NotYourRole),
    "kill by the commissioner": (at_night, lambda g: Kill(g.commissioner(), 1), NotYourRole),
    # repeated actions
    "second nomination": (at_round2, lambda g: Nominate(speaker(g), 1), AlreadyNominated),
    "second vote": (at_vote, lambda g: Vote(1, 10), AlreadyVoted),
    "second check": (at_night, lambda g: Check(g.commissioner(), g.mafia()[1]), AlreadyActed),
    "second pick": (at_night, lambda g: Kill(g.mafia()[0], g.civilians()[1]), AlreadyActed),
    # dead seats acting
    "dead seat checks": (at_night_with_dead, lambda g: Check(dead(g), 1), SeatNotAlive),
    "dead commissioner checks": (
        at_night_with_dead,
        lambda g: Check(dead_of(g, Role.COMMISSIONER), 1),
        SeatNotAlive,
    ),
    "dead mafioso picks": (
        at_night_with_dead,
        lambda g: Kill(dead_of(g, Role.MAFIA), 1),
        SeatNotAlive,
    ),
    "dead seat votes": (at_vote_with_dead, lambda g: Vote(dead(g), 9), SeatNotAlive),
    "dead seat nominates": (at_round2, lambda g: Nominate(dead(g), 1), SeatNotAlive),
    # invalid targets
    "vote for a non-leader": (at_vote, lambda g: Vote(2, 11), InvalidTarget),
    "check a dead seat": (
        at_night_with_dead_civilian,
        lambda g: Check(g.commissioner(), dead(g)),
        InvalidTarget,
    ),
    "check oneself": (
        at_night_with_dead_civilian,
        lambda g: Check(*[g.commissioner()] * 2),
        InvalidTarget,
    ),
    "kill a dead seat": (
        at_night_with_dead_civilian,
        lambda g: Kill(g.mafia()[0], dead(g)),
        InvalidTarget,
    ),
    "nominate a dead seat": (
        at_round2_fresh,
        lambda g: Nominate(speaker(g), dead(g)),
        InvalidTarget,
    ),
    "nominate oneself": (
        at_round2_fresh,
        lambda g: Nominate(speaker(g), speaker(g)),
        InvalidTarget,
    ),
    "extend by nothing": (at_intro, lambda g: Extend(0), InvalidTarget),
    # unknown seats
    "vote by seat 13": (at_vote, lambda g: Vote(13, 9), UnknownSeat),
    "nominate seat 0": (at_round2, lambda g: Nominate(0, 1), UnknownSeat),
    "check seat 13": (at_night_with_dead, lambda g: Check(13, 1), UnknownSeat),
    "kill seat 99": (at_night_with_dead, lambda g: Kill(g.mafia()[0], 99), UnknownSeat),
    "sanction seat 0": (at_intro, lambda g: Sanction(0, Penalty.WARNING), UnknownSeat),
    # the clock
    "stale timeout": (at_round1, lambda g: Timeout(g.state.step - 1), StaleAction),
    "future timeout": (at_round1, lambda g: Timeout(g.state.step + 1), StaleAction),
    "too early timeout": (at_round1, lambda g: Timeout(g.state.step), TooEarly),
    # paused
    "pass while paused": (paused, lambda g: Pass(speaker(g)), GamePaused),
    "timeout while paused": (paused, lambda g: Timeout(g.state.step), GamePaused),
    "pause while paused": (paused, lambda g: Pause(), GamePaused),
    "resume while running": (at_intro, lambda g: Resume(), NotPaused),
}


@pytest.mark.parametrize(("build", "action", "error"), CASES.values(), ids=CASES.keys())
def test_illegal_action_raises_a_typed_error_and_changes_nothing(
    build: Callable[[], Game], action: Callable[[Game], Action], error: type[RuleError]
) -> None:
    game = build()
    err = game.refused(action(game), error)
    assert isinstance(err, RuleError)
    assert err.code == error.code
    assert str(err)


def _paused_at(phase: Phase) -> Game:
    game = {
        Phase.ROUND_2: at_round2,
        Phase.VOTE: at_vote,
        Phase.NIGHT: at_night_with_dead,
    }[phase]()
    game.act(Pause())
    return game


@pytest.mark.rule("D10")
@pytest.mark.parametrize(
    ("phase", "action"),
    [
        (Phase.ROUND_2, lambda g: Nominate(speaker(g), 1)),
        (Phase.ROUND_2, lambda g: Pass(speaker(g))),
        (Phase.VOTE, lambda g: Vote(2, 9)),
        (Phase.NIGHT, lambda g: Kill(g.mafia()[0], 1)),
        (Phase.NIGHT, lambda g: Check(g.mafia()[0], 1)),
    ],
)
def test_D10_player_actions_while_paused_are_refused(
    phase: Phase, action: Callable[[Game], Action]
) -> None:
    game = _paused_at(phase)
    game.refused(action(game), GamePaused)
    # The Host's own actions still work while paused.
    game.act(Extend(5.0))
    game.act(Resume())
    assert not game.state.paused


def test_a_late_timer_after_a_pass_is_stale() -> None:
    game = Game()
    step = game.state.step
    game.act(Pass(speaker(game)))
    game.now = 1000.0
    err = game.refused(Timeout(step), StaleAction)
    assert err.values == {"step": game.state.step}


def test_a_timer_a_hair_early_counts_as_due() -> None:
    game = Game()
    first = speaker(game)
    deadline = game.state.deadline
    assert deadline is not None
    game.now = deadline - 0.0005
    game.act(Timeout(game.state.step), dt=0.0)
    assert speaker(game) == first % 12 + 1


def test_error_codes_are_distinct() -> None:
    classes = [
        c
        for c in vars(errors).values()
        if isinstance(c, type) and issubclass(c, RuleError) and c is not RuleError
    ]
    codes = [c.code for c in classes]
    assert len(codes) == len(set(codes)) >= 16
    assert RuleError().values == {}
    assert str(RuleError()) == "rule"
    assert WrongPhase("x", phase=Phase.VOTE).values == {"phase": Phase.VOTE}


def test_skip_needs_no_seat() -> None:
    game = Game()
    game.act(Skip())
    assert game.state.step == 2
