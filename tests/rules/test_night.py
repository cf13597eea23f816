"""N1-N6: the nights and the morning."""

from __future__ import annotations

import pytest

from bot.rules import engine
from bot.rules.actions import Check, Kill, Nominate, Pass, Skip, Timeout, Vote
from bot.rules.errors import (
    AlreadyActed,
    InvalidTarget,
    NotYourRole,
    RuleError,
    SeatNotAlive,
    TooEarly,
    UnknownSeat,
    WrongPhase,
)
from bot.rules.events import (
    Cause,
    CheckMade,
    DayStarted,
    KillPicked,
    LastWordsBegan,
    NightEnded,
    NightStarted,
    Phase,
    PlayerLeft,
    SpeechEnded,
    SpeechStarted,
)
from bot.rules.moves import legal_actions
from bot.rules.roles import Role
from bot.rules.settings import KillRule

from .helpers import Game, first_of, of_type, to_night


def night_1(kill_rule: KillRule | None = None, seed: str = "rules-test-seed") -> Game:
    return to_night(Game(seed=seed, kill_rule=kill_rule))


# --- N1 Night 0 ------------------------------------------------------------------------


@pytest.mark.rule("N1")
def test_N1_night_0_is_acquaintance_for_60s_without_check_or_kill() -> None:
    game = Game().advance_to(Phase.ACQUAINTANCE)
    started = first_of(game.last, NightStarted)
    assert (started.night, started.phase) == (0, Phase.ACQUAINTANCE)
    assert started.deadline - game.now == 60.0
    mafioso, other = game.mafia()[0], game.civilians()[0]
    commissioner = game.commissioner()
    game.refused(Kill(mafioso, other), WrongPhase)
    game.refused(Check(commissioner, mafioso), WrongPhase)
    assert legal_actions(game.state) == []
    game.timeout()
    assert not of_type(game.last, PlayerLeft)
    assert first_of(game.last, DayStarted).day == 1


# --- N2 the check ----------------------------------------------------------------------


@pytest.mark.rule("N2")
@pytest.mark.parametrize(("role", "is_mafia"), [(Role.MAFIA, True), (Role.CIVILIAN, False)])
def test_N2_commissioner_gets_the_exact_answer(role: Role, is_mafia: bool) -> None:
    game = night_1()
    commissioner = game.commissioner()
    target = game.seats_of(role)[0]
    events = game.act(Check(commissioner, target))
    assert events[0] == CheckMade(commissioner, target, is_mafia)
    assert game.state.check == target
    assert CheckMade.SECRET


@pytest.mark.rule("N2")
def test_N2_commissioner_cannot_check_self() -> None:
    game = night_1()
    commissioner = game.commissioner()
    game.refused(Check(commissioner, commissioner), InvalidTarget)
    assert Check(commissioner, commissioner) not in legal_actions(game.state)


@pytest.mark.rule("N2")
def test_N2_one_check_a_night() -> None:
    game = night_1()
    commissioner = game.commissioner()
    first, second = game.civilians()[:2]
    game.act(Check(commissioner, first))
    err = game.refused(Check(commissioner, second), AlreadyActed)
    assert err.values == {"target": first}
    # The next night the Commissioner may check again.
    game.timeout()
    to_night(game)
    assert game.state.check is None
    game.act(Check(commissioner, second))
    assert game.state.check == second


@pytest.mark.rule("N2")
@pytest.mark.parametrize(
    ("who", "target", "error"),
    [
        ("civilian", "mafioso", NotYourRole),
        ("mafioso", "civilian", NotYourRole),
        ("commissioner", "dead", InvalidTarget),
        ("commissioner", "unknown", UnknownSeat),
        ("unknown", "civilian", UnknownSeat),
    ],
)
def test_N2_check_limits(who: str, target: str, error: type[RuleError]) -> None:
    game = night_1()
    dead = game.civilians()[-1]
    game.remove(dead)
    seats = {
        "civilian": game.civilians()[0],
        "mafioso": game.mafia()[0],
        "commissioner": game.commissioner(),
        "dead": dead,
        "unknown": 42,
    }
    game.refused(Check(seats[who], seats[target]), error)


@pytest.mark.rule("N2")
def test_N2_a_dead_commissioner_checks_nothing() -> None:
    game = night_1()
    commissioner = game.commissioner()
    game.remove(commissioner)
    game.refused(Check(commissioner, game.mafia()[0]), SeatNotAlive)


# --- N3 the kill -----------------------------------------------------------------------


@pytest.mark.rule("N3")
@pytest.mark.parametrize(
    ("rule", "picks", "victim"),
    [
        pytest.param(KillRule.UNANIMOUS, {3: 9, 4: 9, 5: 9}, 9, id="unanimous: all the same"),
        pytest.param(KillRule.UNANIMOUS, {3: 9, 4: 9, 5: 10}, None, id="unanimous: one differs"),
        pytest.param(KillRule.UNANIMOUS, {3: 9, 4: 9}, 9, id="unanimous: those who picked"),
        pytest.param(KillRule.UNANIMOUS, {3: 9}, 9, id="unanimous: a single pick"),
        pytest.param(KillRule.UNANIMOUS, {}, None, id="unanimous: nobody picked"),
        pytest.param(KillRule.MAJORITY, {3: 9, 4: 9, 5: 10}, 9, id="majority: 2 of 3"),
        pytest.param(KillRule.MAJORITY, {3: 9, 4: 10}, None, id="majority: 1-1 miss"),
        pytest.param(KillRule.MAJORITY, {3: 9, 4: 9, 5: 10, 6: 11}, None, id="majority: 2 of 4"),
        pytest.param(KillRule.MAJORITY, {3: 9, 4: 9, 5: 9, 6: 11}, 9, id="majority: 3 of 4"),
        pytest.param(KillRule.MAJORITY, {}, None, id="majority: nobody picked"),
    ],
)
def test_N3_kill_rule_table(rule: KillRule, picks: dict[int, int], victim: int | None) -> None:
    assert engine.night_victim(picks, rule) == victim


@pytest.mark.rule("N3")
@pytest.mark.parametrize(
    ("rule", "agree", "killed"),
    [
        (KillRule.UNANIMOUS, 3, True),
        (KillRule.UNANIMOUS, 2, False),  # the miss
        (KillRule.MAJORITY, 2, True),
        (KillRule.MAJORITY, 1, False),
    ],
)
def test_N3_unanimous_or_majority_and_the_miss(rule: KillRule, agree: int, killed: bool) -> None:
    game = night_1(rule)
    victim, others = game.civilians()[0], game.civilians()[1:]
    mafia = game.mafia()
    assert len(mafia) == 3
    kills = {m: (victim if i < agree else others[i]) for i, m in enumerate(mafia)}
    game.night(kills=kills)
    ended = of_type(game.events, NightEnded)[-1]
    assert ended.victim == (victim if killed else None)
    assert game.state.is_alive(victim) is not killed
    picked = [e for e in of_type(game.events, KillPicked) if e.by in mafia]
    assert {e.by: e.target for e in picked} == kills
    assert KillPicked.SECRET


@pytest.mark.rule("N3")
def test_N3_only_living_mafiosi_pick_living_targets_once() -> None:
    game = night_1()
    m1, m2, m3 = game.mafia()
    civilian, dead = game.civilians()[0], game.civilians()[-1]
    game.remove(dead)
    game.refused(Kill(civilian, m1), NotYourRole)
    game.refused(Kill(game.commissioner(), m1), NotYourRole)
    game.refused(Kill(m1, dead), InvalidTarget)
    game.refused(Kill(m1, 77), UnknownSeat)
    game.act(Kill(m1, civilian))
    err = game.refused(Kill(m1, m2), AlreadyActed)
    assert err.values == {"target": civilian}
    game.remove(m3)
    game.refused(Kill(m3, civilian), SeatNotAlive)


@pytest.mark.rule("N3")
def test_N3_no_kill_or_check_by_day() -> None:
    game = Game().advance_to(Phase.ROUND_1, day=1)
    game.refused(Kill(game.mafia()[0], game.civilians()[0]), WrongPhase)
    game.refused(Check(game.commissioner(), game.mafia()[0]), WrongPhase)


# --- N4 length -------------------------------------------------------------------------


@pytest.mark.rule("N4")
def test_N4_night_lasts_60s() -> None:
    game = night_1()
    started = first_of(game.last, NightStarted)
    assert (started.night, started.phase) == (1, Phase.NIGHT)
    assert started.deadline - game.now == 60.0
    game.refused(Timeout(game.state.step), TooEarly)
    game.timeout()
    assert first_of(game.last, NightEnded) == NightEnded(1, None)


def _night_length(game: Game) -> float:
    """How long the last night took, from its start to its morning."""
    started = [e for e in game.entries if isinstance(e.event, NightStarted)][-1]
    ended = [e for e in game.entries if isinstance(e.event, NightEnded)][-1]
    return ended.at - started.at


@pytest.mark.rule("N4")
def test_N4_night_runs_its_full_length_when_every_action_is_in() -> None:
    game = night_1()
    victim = game.civilians()[0]
    deadline = game.state.deadline
    game.act(Check(game.commissioner(), game.mafia()[0]))
    for m in game.mafia():
        game.act(Kill(m, victim))
    # Everything is in, and still the night goes on: its length tells nobody anything.
    assert game.phase is Phase.NIGHT
    assert game.state.deadline == deadline
    assert not of_type(game.last, NightEnded)
    game.refused(Timeout(game.state.step), TooEarly)
    game.timeout()
    assert first_of(game.last, NightEnded) == NightEnded(1, victim)
    assert _night_length(game) == 60.0


@pytest.mark.rule("N4")
def test_N4_actions_count_until_the_deadline() -> None:
    game = night_1()
    victim = game.civilians()[0]
    deadline = game.state.deadline
    assert deadline is not None
    game.act(Kill(game.mafia()[0], victim), dt=deadline - game.now - 0.01)
    game.act(Check(game.commissioner(), victim), dt=0.005)
    for m in game.mafia()[1:]:
        game.act(Kill(m, victim), dt=0.001)
    assert game.phase is Phase.NIGHT
    game.timeout()
    assert first_of(game.last, NightEnded) == NightEnded(1, victim)


@pytest.mark.rule("N4")
def test_N4_without_the_check_the_night_runs_its_time() -> None:
    game = night_1()
    victim = game.civilians()[0]
    for m in game.mafia():
        game.act(Kill(m, victim))
    assert game.phase is Phase.NIGHT
    game.timeout()
    assert first_of(game.last, NightEnded) == NightEnded(1, victim)
    assert _night_length(game) == 60.0


@pytest.mark.rule("N4")
@pytest.mark.parametrize("commissioner_alive", [True, False])
def test_N4_the_length_does_not_tell_whether_the_commissioner_lives(
    commissioner_alive: bool,
) -> None:
    game = night_1()
    if not commissioner_alive:
        game.remove(game.commissioner())
    victim = game.civilians()[0]
    if commissioner_alive:
        game.act(Check(game.commissioner(), victim))
    for m in game.mafia():
        game.act(Kill(m, victim))
    assert game.phase is Phase.NIGHT
    game.timeout()
    assert first_of(game.last, NightEnded) == NightEnded(1, victim)
    assert _night_length(game) == 60.0


@pytest.mark.rule("N4")
def test_N4_the_hosts_skip_still_ends_a_night_early() -> None:
    game = night_1()
    victim = game.civilians()[0]
    for m in game.mafia():
        game.act(Kill(m, victim))
    game.act(Skip(), dt=5.0)
    assert first_of(game.last, NightEnded) == NightEnded(1, victim)
    assert _night_length(game) < 60.0


# --- N5 silence ------------------------------------------------------------------------


@pytest.mark.rule("N5")
def test_N5_at_night_nobody_speaks_nominates_or_votes() -> None:
    game = night_1()
    seat = game.civilians()[0]
    game.refused(Pass(seat), WrongPhase)
    game.refused(Nominate(seat, game.mafia()[0]), WrongPhase)
    game.refused(Vote(seat, None), WrongPhase)
    assert game.state.speaker is None
    # The only moves at night are the check and the picks.
    assert {type(a) for a in legal_actions(game.state)} == {Check, Kill}


# --- N6 the morning --------------------------------------------------------------------


@pytest.mark.rule("N6")
def test_N6_morning_announces_the_victim_then_last_word_then_the_day() -> None:
    game = night_1()
    victim = game.civilians()[0]
    mark = len(game.events)
    game.night(check=(game.commissioner(), victim), kills=dict.fromkeys(game.mafia(), victim))
    names = [type(e).__name__ for e in game.since(mark)]
    assert names[names.index("NightEnded") :] == [
        "NightEnded",
        "PlayerLeft",
        "LastWordsBegan",
        "SpeechStarted",
    ]
    assert first_of(game.last, NightEnded) == NightEnded(1, victim)
    assert first_of(game.last, PlayerLeft) == PlayerLeft(victim, Cause.KILL)
    assert first_of(game.last, LastWordsBegan) == LastWordsBegan([victim], Phase.ROUND_1)
    assert game.state.speaker == victim
    game.act(Pass(victim))
    names = [type(e).__name__ for e in game.last]
    assert names == ["SpeechEnded", "DayStarted", "SpeechStarted"]
    day = first_of(game.last, DayStarted)
    assert day.day == 2
    assert day.first_speaker != victim
    assert first_of(game.last, SpeechStarted).phase is Phase.ROUND_1


@pytest.mark.rule("N6")
def test_N6_morning_after_a_miss_goes_straight_to_the_day() -> None:
    game = night_1()
    game.timeout()
    names = [type(e).__name__ for e in game.last]
    assert names == ["NightEnded", "DayStarted", "SpeechStarted"]
    assert first_of(game.last, NightEnded) == NightEnded(1, None)
    assert first_of(game.last, DayStarted).day == 2
    assert not of_type(game.last, SpeechEnded)


@pytest.mark.rule("N6")
def test_N6_victim_removed_during_the_night_is_a_miss() -> None:
    game = night_1()
    victim = game.civilians()[0]
    for m in game.mafia():
        game.act(Kill(m, victim))
    game.remove(victim)
    game.timeout()
    assert first_of(game.last, NightEnded) == NightEnded(1, None)
    assert game.state.seats[victim].left is Cause.REMOVAL
