"""D1-D10: the day, from the introduction to the last word."""

from __future__ import annotations

import dataclasses

import pytest

from bot.rules import draws, engine
from bot.rules.actions import (
    Announced,
    Extend,
    HandOver,
    Nominate,
    Pass,
    Pause,
    RestartClock,
    Resume,
    Skip,
    Vote,
)
from bot.rules.errors import (
    AlreadyNominated,
    AlreadyVoted,
    GamePaused,
    InvalidTarget,
    NotPaused,
    NotYourTurn,
    SeatNotAlive,
    StaleAction,
    UnknownSeat,
    WrongPhase,
)
from bot.rules.events import (
    Cause,
    ClockRestarted,
    DayStarted,
    Extended,
    HostChanged,
    LastWordsBegan,
    LeadersChosen,
    LotDrawn,
    NightStarted,
    NominationMade,
    Paused,
    Phase,
    PlayerLeft,
    Resumed,
    SpeechEnd,
    SpeechEnded,
    SpeechStarted,
    VoteClosed,
    VoteOpened,
)
from bot.rules.protocol import replay
from bot.rules.sanctions import Penalty
from bot.rules.settings import GameSettings

from .helpers import SEED, Game, first_of, of_type, snapshot, to_night

# --- D1 Day 0 --------------------------------------------------------------------------


@pytest.mark.rule("D1")
def test_D1_day_0_is_one_round_of_introductions_then_night_0() -> None:
    game = Game()
    assert (game.phase, game.state.day) == (Phase.INTRODUCTION, 0)
    assert game.state.deadline == 30.0  # 30 s per player
    mark = len(game.events)
    speakers = game.speak_round()
    assert sorted(speakers) == list(range(1, 13))  # everyone, once
    events = game.since(mark)
    assert {e.phase for e in of_type(events, SpeechStarted)} == {Phase.INTRODUCTION}
    assert not of_type(events, NominationMade)
    assert not of_type(events, VoteOpened)
    assert not of_type(events, PlayerLeft)
    night = first_of(events, NightStarted)
    assert (night.night, night.phase) == (0, Phase.ACQUAINTANCE)
    # Night 0, then Day 1 with its two rounds.
    game.timeout()
    day = first_of(game.last, DayStarted)
    assert day.day == 1
    assert game.phase is Phase.ROUND_1


@pytest.mark.rule("D1")
def test_D1_no_nomination_or_vote_on_day_0() -> None:
    game = Game()
    speaker = game.state.speaker
    assert speaker is not None
    game.refused(Nominate(speaker, speaker % 12 + 1), WrongPhase)
    game.refused(Vote(speaker, None), WrongPhase)


# --- D2 first speaker and order --------------------------------------------------------


@pytest.mark.rule("D2")
@pytest.mark.parametrize("seed", ["one", "two", "three", "four", "five"])
def test_D2_first_speaker_is_drawn_among_the_living(seed: str) -> None:
    game = Game(seed=seed)
    game.advance_to(Phase.ROUND_1, day=1)
    # Remove three players so the Day 2 draw runs over a smaller table.
    removed = game.civilians()[:3]
    game.remove(*removed)
    game.advance_to(Phase.ROUND_1, day=2)
    day2 = of_type(game.events, DayStarted)[-1]
    living = game.state.living()
    assert day2.first_speaker in living
    assert day2.first_speaker == draws.draw(seed, "day:2:first", living)


@pytest.mark.rule("D2")
@pytest.mark.parametrize("seed", ["one", "two", "three", "four"])
def test_D2_both_rounds_go_clockwise_from_the_first_speaker_skipping_the_dead(
    seed: str,
) -> None:
    game = Game(seed=seed)
    game.advance_to(Phase.ROUND_1, day=1)
    first = game.state.first_speaker
    assert first is not None
    # Two players leave before anyone speaks: neither the first speaker nor the next one.
    dead = [(first + 1) % 12 + 1, (first + 5) % 12 + 1]
    game.remove(*dead)
    living = game.state.living()
    expected = game.state.clockwise_from(first, living)
    assert expected[0] == first
    assert game.speak_round() == expected  # round 1
    assert game.phase is Phase.ROUND_2
    assert game.speak_round() == expected  # round 2, from the same first speaker
    assert not set(dead) & set(expected)


@pytest.mark.rule("D2")
def test_D2_round_2_starts_at_the_next_living_seat_if_the_first_speaker_left() -> None:
    game = Game()
    game.advance_to(Phase.ROUND_1, day=1)
    first = game.state.first_speaker
    assert first is not None
    game.speak_round()
    assert game.state.speaker == first
    game.remove(first)  # removed mid-speech in round 2
    # Removal of the speaker hands the turn to the next living seat clockwise.
    started = first_of(game.last, SpeechStarted)
    assert started.seat == game.state.clockwise_from(first, game.state.living())[0]
    assert started.seat == first % 12 + 1


@pytest.mark.rule("D2")
def test_D2_a_day_opened_without_its_first_speaker_starts_at_the_next_seat() -> None:
    game = Game()
    game.advance_to(Phase.ROUND_1, day=1)
    game.speak_round()
    first = game.state.first_speaker
    assert first is not None
    game.speak_round()  # round 2, no nominations: the lot
    lot = first_of(game.events, LotDrawn).seat
    game.pass_all(Phase.LAST_WORDS)
    game.timeout()  # night 1
    day2 = first_of(game.last, DayStarted)
    assert day2.first_speaker != lot
    assert game.state.speaker == day2.first_speaker


# --- D3 rounds and nominations ---------------------------------------------------------


@pytest.mark.rule("D3")
def test_D3_round_1_is_60s_and_round_2_is_30s_per_player() -> None:
    game = Game().advance_to(Phase.ROUND_1, day=1)
    started = of_type(game.last, SpeechStarted)[-1]
    assert started.deadline - game.now == 60.0
    game.advance_to(Phase.ROUND_2)
    started = of_type(game.last, SpeechStarted)[-1]
    assert started.deadline - game.now == 30.0


@pytest.mark.rule("D3")
def test_D3_nomination_during_own_round_2_turn() -> None:
    game = Game().advance_to(Phase.ROUND_2, day=1)
    speaker = game.state.speaker
    assert speaker is not None
    target = speaker % 12 + 1
    events = game.act(Nominate(speaker, target))
    assert events == [NominationMade(speaker, target)]
    assert game.state.nominations == {speaker: target}
    assert game.state.speaker == speaker  # nominating does not end the turn


def _round2() -> tuple[Game, int]:
    game = Game().advance_to(Phase.ROUND_2, day=1)
    speaker = game.state.speaker
    assert speaker is not None
    return game, speaker


@pytest.mark.rule("D3")
@pytest.mark.parametrize(
    ("case", "error"),
    [
        ("self", InvalidTarget),
        ("dead target", InvalidTarget),
        ("unknown target", UnknownSeat),
        ("not the speaker", NotYourTurn),
        ("dead nominator", SeatNotAlive),
        ("unknown nominator", UnknownSeat),
        ("second nomination", AlreadyNominated),
    ],
)
def test_D3_nomination_limits(case: str, error: type[Exception]) -> None:
    game, speaker = _round2()
    other = speaker % 12 + 1
    dead = (speaker + 5) % 12 + 1
    game.remove(dead)
    action = {
        "self": Nominate(speaker, speaker),
        "dead target": Nominate(speaker, dead),
        "unknown target": Nominate(speaker, 13),
        "not the speaker": Nominate(other, speaker),
        "dead nominator": Nominate(dead, speaker),
        "unknown nominator": Nominate(0, speaker),
        "second nomination": Nominate(speaker, (speaker + 2) % 12 + 1),
    }[case]
    if case == "second nomination":
        game.act(Nominate(speaker, other))
    game.refused(action, error)  # type: ignore[arg-type]


@pytest.mark.rule("D3")
def test_D3_nomination_only_in_round_2() -> None:
    game = Game().advance_to(Phase.ROUND_1, day=1)
    speaker = game.state.speaker
    assert speaker is not None
    game.refused(Nominate(speaker, speaker % 12 + 1), WrongPhase)


@pytest.mark.rule("D3")
def test_D3_nomination_cannot_be_withdrawn_or_changed() -> None:
    game, speaker = _round2()
    first_choice, second_choice = speaker % 12 + 1, (speaker + 1) % 12 + 1
    game.act(Nominate(speaker, first_choice))
    err = game.refused(Nominate(speaker, second_choice), AlreadyNominated)
    assert err.values == {"nominee": first_choice}
    game.act(Pass(speaker))
    game.speak_round()
    chosen = first_of(game.events, LeadersChosen)
    assert chosen.leaders == [first_choice]
    assert chosen.tally == {first_choice: 1}


# --- D4 leaders ------------------------------------------------------------------------

D4_CASES = [
    pytest.param({1: 9, 2: 9, 3: 9}, [9], id="sole nominee"),
    pytest.param({1: 9, 2: 10}, [9, 10], id="tie at the top of two, one each"),
    pytest.param({1: 9, 2: 9, 3: 10, 4: 10, 5: 11}, [9, 10], id="tie at the top of two"),
    pytest.param(
        {1: 9, 2: 9, 3: 10, 4: 10, 5: 11, 6: 11, 7: 12}, [9, 10, 11], id="tie at the top of three"
    ),
    pytest.param({1: 9, 2: 10, 3: 11, 4: 12}, [9, 10, 11, 12], id="everyone once: all go"),
    pytest.param(
        {1: 9, 2: 9, 3: 9, 4: 10, 5: 10, 6: 11}, [9, 10], id="clear first and clear second"
    ),
    pytest.param({1: 9, 2: 9, 3: 10, 4: 11}, [9, 10, 11], id="clear first, tie on second"),
    pytest.param(
        {1: 12, 2: 12, 3: 12, 4: 9, 5: 10, 6: 11}, [9, 10, 11, 12], id="clear first, three second"
    ),
    pytest.param({1: 10}, [10], id="one nomination"),
]


@pytest.mark.rule("D4")
@pytest.mark.parametrize(("nominations", "leaders"), D4_CASES)
def test_D4_leaders_table(nominations: dict[int, int], leaders: list[int]) -> None:
    chosen, tally = engine.leaders_from(nominations)
    assert chosen == leaders
    assert sum(tally.values()) == len(nominations)
    assert set(tally) == set(nominations.values())


@pytest.mark.rule("D4")
def test_D4_no_nominations_no_leaders() -> None:
    assert engine.leaders_from({}) == ([], {})


@pytest.mark.rule("D4")
@pytest.mark.parametrize(("nominations", "leaders"), D4_CASES)
def test_D4_tie_at_top_sends_all_in_a_game(nominations: dict[int, int], leaders: list[int]) -> None:
    game = Game()
    game.nominate(nominations)
    chosen = first_of(game.events, LeadersChosen)
    assert chosen.leaders == leaders
    assert chosen.tally == {s: list(nominations.values()).count(s) for s in nominations.values()}
    game.pass_all(Phase.DEFENCE)
    assert first_of(game.last, VoteOpened).leaders == leaders


# --- D5 defence ------------------------------------------------------------------------


@pytest.mark.rule("D5")
@pytest.mark.parametrize("seed", ["one", "two", "three"])
def test_D5_defence_in_seat_order_from_the_first_speaker(seed: str) -> None:
    game = Game(seed=seed)
    game.nominate({1: 3, 2: 6, 4: 9, 5: 12})
    first = game.state.first_speaker
    assert first is not None
    mark = len(game.events)
    game.pass_all(Phase.DEFENCE)
    defence = [e for e in of_type(game.events, SpeechStarted) if e.phase is Phase.DEFENCE]
    assert [e.seat for e in defence] == game.state.clockwise_from(first, [3, 6, 9, 12])
    for e in defence:
        assert e.deadline - game.entries[game.events.index(e)].at == 60.0
    assert of_type(game.since(mark), VoteOpened)


# --- D6 the final vote -----------------------------------------------------------------


def _vote_on(leaders_by: dict[int, int], seed: str = SEED) -> Game:
    game = Game(seed=seed)
    game.nominate(leaders_by)
    game.pass_all(Phase.DEFENCE)
    assert game.phase is Phase.VOTE
    return game


@pytest.mark.rule("D6")
def test_D6_vote_is_open_30s_and_not_voting_is_abstaining() -> None:
    game = _vote_on({1: 9, 2: 10})
    opened = first_of(game.last, VoteOpened)
    assert opened.deadline - game.now == 30.0
    game.act(Vote(1, 9))
    game.act(Vote(2, None))  # an explicit abstention
    game.timeout()
    closed = first_of(game.last, VoteClosed)
    assert closed.votes == {s: (9 if s == 1 else None) for s in range(1, 13)}
    assert closed.leaving == [9]


@pytest.mark.rule("D6")
def test_D6_a_cast_vote_is_final() -> None:
    game = _vote_on({1: 9, 2: 10})
    game.act(Vote(3, 9))
    err = game.refused(Vote(3, 10), AlreadyVoted)
    assert err.values == {"choice": 9}
    game.act(Vote(4, None))
    game.refused(Vote(4, 9), AlreadyVoted)


@pytest.mark.rule("D6")
@pytest.mark.parametrize(
    ("vote", "error"),
    [
        (Vote(3, 11), InvalidTarget),  # not a leader
        (Vote(3, 3), InvalidTarget),
        (Vote(13, 9), UnknownSeat),
        (Vote(8, 9), SeatNotAlive),  # seat 8 is removed below
    ],
)
def test_D6_only_living_players_vote_for_a_leader(vote: Vote, error: type[Exception]) -> None:
    game = _vote_on({1: 9, 2: 10})
    game.remove(8)
    game.refused(vote, error)  # type: ignore[arg-type]


@pytest.mark.rule("D6")
def test_D6_vote_closes_when_every_living_player_voted() -> None:
    game = _vote_on({1: 9, 2: 10})
    step = game.state.step
    for voter in range(1, 12):
        game.act(Vote(voter, 9 if voter <= 6 else 10))
        assert game.phase is Phase.VOTE
    game.act(Vote(12, None))
    closed = first_of(game.last, VoteClosed)
    assert closed.leaving == [9]
    assert game.state.step > step
    assert game.phase is Phase.LAST_WORDS


# --- D7 the result ---------------------------------------------------------------------


def _ballots(**counts: int) -> dict[int, int | None]:
    """`_ballots(l9=3, l10=2, none=1)`: voters 1.. with so many votes per leader."""
    votes: dict[int, int | None] = {}
    voter = 1
    for key, count in counts.items():
        choice = None if key == "none" else int(key[1:])
        for _ in range(count):
            votes[voter] = choice
            voter += 1
    return votes


@pytest.mark.rule("D7")
@pytest.mark.parametrize(
    ("leaders", "votes", "living", "leaving"),
    [
        pytest.param([9, 10], _ballots(l9=3, l10=2), 12, [9], id="most votes leaves"),
        pytest.param([9, 10], _ballots(l9=1, none=11), 12, [9], id="one vote is the most"),
        pytest.param([9, 10], _ballots(l9=3, l10=3, none=6), 12, [9, 10], id="tie: both leave"),
        pytest.param(
            [9, 10, 11], _ballots(l9=4, l10=4, l11=4), 12, [9, 10, 11], id="three-way tie"
        ),
        pytest.param([9, 10, 11], _ballots(l9=2, l10=2, l11=1), 12, [9, 10], id="tie of two of 3"),
        pytest.param([9, 10], _ballots(none=12), 12, [], id="no votes: nobody"),
        pytest.param([9, 10], {}, 12, [], id="nobody voted at all"),
        pytest.param([9], _ballots(l9=7, none=5), 12, [9], id="sole leader, more than half"),
        pytest.param([9], _ballots(l9=6, none=6), 12, [], id="sole leader, exactly half"),
        pytest.param([9], _ballots(l9=3), 12, [], id="sole leader, a minority"),
        pytest.param([9], _ballots(l9=5), 9, [9], id="sole leader, majority of 9 living"),
        pytest.param([9], _ballots(l9=1), 1, [9], id="sole leader, one living"),
        pytest.param([9, 10], _ballots(l11=5, l9=1), 12, [9], id="votes for non-leaders ignored"),
    ],
)
def test_D7_result_table(
    leaders: list[int], votes: dict[int, int | None], living: int, leaving: list[int]
) -> None:
    assert engine.vote_result(leaders, votes, living) == leaving


@pytest.mark.rule("D7")
@pytest.mark.parametrize(
    ("votes", "leaving"),
    [
        pytest.param({1: 9, 2: 9, 3: 10}, [9], id="most votes"),
        pytest.param({1: 9, 2: 10, 3: None}, [9, 10], id="tie: all tied leave"),
        pytest.param({1: None, 2: None}, [], id="no votes: nobody"),
    ],
)
def test_D7_most_votes_leave_in_a_game(votes: dict[int, int | None], leaving: list[int]) -> None:
    game = _vote_on({1: 9, 2: 10})
    mark = len(game.events)
    game.cast(votes)
    events = game.since(mark)
    assert first_of(events, VoteClosed).leaving == leaving
    left = of_type(events, PlayerLeft)
    assert [(e.seat, e.cause) for e in left] == [(s, Cause.VOTE) for s in leaving]
    for seat in leaving:
        assert game.state.seats[seat].left is Cause.VOTE
    if not leaving:
        assert first_of(events, NightStarted).night == 1


@pytest.mark.rule("D7")
@pytest.mark.parametrize(("for_him", "leaves"), [(7, True), (6, False)])
def test_D7_sole_leader_needs_more_than_half_of_the_living(for_him: int, leaves: bool) -> None:
    game = _vote_on({1: 9, 2: 9})
    game.cast(dict.fromkeys(range(1, for_him + 1), 9))
    assert (first_of(game.events, VoteClosed).leaving == [9]) is leaves
    assert game.state.is_alive(9) is not leaves


# --- D8 the lot ------------------------------------------------------------------------


@pytest.mark.rule("D8")
@pytest.mark.parametrize("seed", ["one", "two", "three"])
def test_D8_no_nomination_draws_a_lot(seed: str) -> None:
    game = Game(seed=seed)
    game.nominate({})
    lot = first_of(game.events, LotDrawn)
    living_then = list(range(1, 13))
    assert lot.seat == draws.draw(seed, "day:1:lot", living_then)
    assert not of_type(game.events, LeadersChosen)
    assert not of_type(game.events, VoteOpened)
    assert game.state.seats[lot.seat].left is Cause.LOT
    assert game.phase is Phase.LAST_WORDS
    game.pass_all(Phase.LAST_WORDS)
    assert first_of(game.last, NightStarted).night == 1


@pytest.mark.rule("D8")
def test_D8_lot_draws_only_among_the_living() -> None:
    game = Game(seed="lot")
    game.advance_to(Phase.ROUND_1, day=1)
    lot_if_all = draws.draw("lot", "day:1:lot", list(range(1, 13)))
    game.remove(lot_if_all)  # the seat the lot would pick over all 12
    game.nominate({})
    lot = first_of(game.events, LotDrawn)
    assert lot.seat != lot_if_all
    assert lot.seat == draws.draw("lot", "day:1:lot", sorted([*game.state.living(), lot.seat]))


@pytest.mark.rule("D8")
@pytest.mark.parametrize("count", [1, 2])
def test_D8_no_lot_when_every_nominee_left_before_the_vote(count: int) -> None:
    game = Game()
    game.advance_to(Phase.ROUND_2, day=1)
    first = game.state.speaker
    assert first is not None
    # The first speakers nominate the last ones; every nominee is removed before the end.
    order = game.state.clockwise_from(first, game.state.living())
    nominees = order[-count:]
    for nominator, nominee in zip(order[:count], nominees, strict=True):
        assert game.state.speaker == nominator
        game.act(Nominate(nominator, nominee))
        game.act(Pass(nominator))
    game.remove(*nominees)
    game.pass_all(Phase.ROUND_2)
    # Nominations were made, so no lot: no vote either, and the night comes.
    assert not of_type(game.events, LotDrawn)
    assert not of_type(game.events, LeadersChosen)
    assert not of_type(game.events, VoteOpened)
    assert first_of(game.last, NightStarted).night == 1
    assert game.phase is Phase.NIGHT
    assert len(game.state.living()) == 12 - len(nominees)


@pytest.mark.rule("D8")
def test_D8_a_standing_nominee_goes_to_the_vote_though_another_was_removed() -> None:
    game = Game()
    game.nominate({1: 9, 2: 10, 3: 9})
    assert game.phase is Phase.DEFENCE
    game.remove(9)
    game.pass_all(Phase.DEFENCE)
    # mypy keeps game.phase narrowed to DEFENCE across the moves above, which change it
    assert game.phase is Phase.VOTE  # type: ignore[comparison-overlap]
    assert game.state.leaders == [10]
    assert not of_type(game.events, LotDrawn)


# --- D9 last word ----------------------------------------------------------------------


def _departure(cause: Cause) -> tuple[Game, int, int]:
    """A game right after `seat` left by `cause`; returns (game, seat, event mark)."""
    game = Game()
    if cause is Cause.VOTE:
        game.nominate({1: 9})
        mark = len(game.events)
        game.cast(dict.fromkeys(range(1, 9), 9))
        return game, 9, mark
    if cause is Cause.LOT:
        game.advance_to(Phase.ROUND_2, day=1)
        mark = len(game.events)
        game.speak_round()
        return game, first_of(game.since(mark), LotDrawn).seat, mark
    if cause is Cause.KILL:
        to_night(game)
        victim = game.civilians()[0]
        mark = len(game.events)
        game.night(kills=dict.fromkeys(game.mafia(), victim))
        return game, victim, mark
    game.advance_to(Phase.ROUND_1, day=1)
    seat = game.civilians()[0]
    mark = len(game.events)
    penalty = Penalty.REMOVAL_FROM_GAME if cause is Cause.REMOVAL else Penalty.DISQUALIFICATION
    game.remove(seat, penalty=penalty)
    return game, seat, mark


@pytest.mark.rule("D9")
@pytest.mark.parametrize("cause", [Cause.VOTE, Cause.LOT, Cause.KILL])
def test_D9_last_word_after_vote_lot_or_kill(cause: Cause) -> None:
    game, seat, mark = _departure(cause)
    events = game.since(mark)
    assert PlayerLeft(seat, cause) in events
    began = first_of(events, LastWordsBegan)
    assert began.seats == [seat]
    speech = [e for e in of_type(events, SpeechStarted) if e.phase is Phase.LAST_WORDS]
    assert [e.seat for e in speech] == [seat]
    assert speech[0].deadline - game.now == 40.0
    assert game.state.speaker == seat
    assert not game.state.is_alive(seat)
    game.act(Pass(seat))  # the departed may end their last word early
    assert first_of(game.last, SpeechEnded) == SpeechEnded(seat, SpeechEnd.PASSED)
    assert game.phase is not Phase.LAST_WORDS


@pytest.mark.rule("D9")
@pytest.mark.parametrize("cause", [Cause.REMOVAL, Cause.DISQUALIFICATION])
def test_D9_no_last_word_after_a_removal(cause: Cause) -> None:
    game, seat, mark = _departure(cause)
    events = game.since(mark)
    assert PlayerLeft(seat, cause) in events
    assert not of_type(events, LastWordsBegan)
    assert all(e.phase is not Phase.LAST_WORDS for e in of_type(events, SpeechStarted))
    assert game.phase is Phase.ROUND_1


@pytest.mark.rule("D9")
def test_D9_several_last_words_in_seat_order_from_the_first_speaker() -> None:
    game = _vote_on({1: 3, 2: 11})
    game.cast({1: 3, 2: 11})
    first = game.state.first_speaker
    assert first is not None
    expected = game.state.clockwise_from(first, [3, 11])
    assert first_of(game.last, LastWordsBegan) == LastWordsBegan(expected, Phase.NIGHT)
    spoken = []
    while game.phase is Phase.LAST_WORDS:
        assert game.state.speaker is not None
        spoken.append(game.state.speaker)
        game.timeout()  # a last word runs out like any speech
    assert spoken == expected
    assert game.phase is Phase.NIGHT


@pytest.mark.rule("D9")
def test_D9_a_departed_player_removed_before_their_last_word_gets_none() -> None:
    game = _vote_on({1: 3, 2: 11})
    game.cast({1: 3, 2: 11})
    speaking, waiting = first_of(game.last, LastWordsBegan).seats
    game.remove(waiting, penalty=Penalty.DISQUALIFICATION)
    assert game.state.speaker == speaking
    game.act(Pass(speaking))
    assert game.phase is Phase.NIGHT
    spoken = [e.seat for e in of_type(game.events, SpeechStarted) if e.phase is Phase.LAST_WORDS]
    assert spoken == [speaking]


@pytest.mark.rule("D9")
def test_D9_a_removal_during_ones_own_last_word_ends_it() -> None:
    game = _vote_on({1: 3, 2: 11})
    game.cast({1: 3, 2: 11})
    speaking, waiting = first_of(game.last, LastWordsBegan).seats
    game.remove(speaking)
    assert first_of(game.last, SpeechEnded) == SpeechEnded(speaking, SpeechEnd.REMOVED)
    assert game.state.speaker == waiting
    # The record keeps both the vote and the sanction.
    assert game.state.seats[speaking].left is Cause.VOTE
    assert [r.seat for r in game.state.sanctions] == [speaking]


# --- D10 the speaker and the Host's clock ----------------------------------------------


@pytest.mark.rule("D10")
def test_D10_only_the_speaker_may_pass() -> None:
    game = Game()
    speaker = game.state.speaker
    assert speaker is not None
    other = speaker % 12 + 1
    game.refused(Pass(other), NotYourTurn)
    game.refused(Pass(99), NotYourTurn)
    events = game.act(Pass(speaker))
    assert events[0] == SpeechEnded(speaker, SpeechEnd.PASSED)
    assert game.state.speaker == other


@pytest.mark.rule("D10")
def test_D10_nobody_passes_outside_a_speech() -> None:
    game = _vote_on({1: 9, 2: 10})
    game.refused(Pass(1), WrongPhase)


@pytest.mark.rule("D10")
def test_D10_host_skip_ends_the_turn() -> None:
    game = Game()
    speaker = game.state.speaker
    assert speaker is not None
    events = game.act(Skip())
    assert events[0] == SpeechEnded(speaker, SpeechEnd.SKIPPED)
    assert game.state.speaker == speaker % 12 + 1


@pytest.mark.rule("D10")
@pytest.mark.parametrize(
    ("phase", "then"),
    [
        (Phase.ACQUAINTANCE, Phase.ROUND_1),
        (Phase.VOTE, Phase.NIGHT),
        (Phase.NIGHT, Phase.ROUND_1),
    ],
)
def test_D10_host_skip_ends_a_phase(phase: Phase, then: Phase) -> None:
    game = Game()
    if phase is Phase.VOTE:
        game.nominate({1: 9, 2: 10})
        game.pass_all(Phase.DEFENCE)
    elif phase is Phase.NIGHT:
        to_night(game)
    else:
        game.advance_to(phase)
    assert game.phase is phase
    game.act(Skip())
    assert game.phase is then


@pytest.mark.rule("D10")
def test_D10_pause_and_resume_keep_the_remaining_time() -> None:
    game = Game()
    speaker = game.state.speaker
    deadline = game.state.deadline
    assert deadline == 30.0
    game.act(Pause(), dt=10.0)  # 20 s left
    assert game.last == [Paused(remaining=20.0)]
    assert (game.state.paused, game.state.deadline) == (True, None)
    game.refused(Pass(speaker or 0), GamePaused)
    game.refused(Pause(), GamePaused)
    game.act(Resume(), dt=300.0)
    assert game.last == [Resumed(deadline=game.now + 20.0, remaining=20.0)]
    assert game.state.deadline == 330.0
    assert game.state.speaker == speaker
    game.refused(Resume(), NotPaused)


@pytest.mark.rule("D10")
def test_D10_extend_adds_time_running_or_paused() -> None:
    game = Game()
    game.act(Extend(15.0), dt=5.0)
    assert game.last == [Extended(15.0, 45.0)]
    assert game.state.deadline == 45.0
    game.act(Pause(), dt=5.0)  # 35 s left
    game.act(Extend(10.0))
    assert game.last == [Extended(10.0, None)]
    assert game.state.paused_remaining == 45.0
    game.act(Resume(), dt=100.0)
    assert game.state.deadline == game.now + 45.0


@pytest.mark.rule("D10")
@pytest.mark.parametrize("seconds", [0.0, -5.0])
def test_D10_extension_must_be_positive(seconds: float) -> None:
    Game().refused(Extend(seconds), InvalidTarget)


@pytest.mark.rule("T2")
def test_T2_a_turn_skipped_during_a_pause_starts_paused_with_its_full_time() -> None:
    game = Game()
    speaker = game.state.speaker
    assert speaker is not None
    game.act(Pause(), dt=10.0)
    events = game.act(Skip(), dt=50.0)
    assert events[0] == SpeechEnded(speaker, SpeechEnd.SKIPPED)
    assert events[-1] == Paused(remaining=30.0)
    assert game.state.speaker == speaker % 12 + 1
    assert (game.state.paused, game.state.deadline) == (True, None)
    game.refused(Pass(speaker % 12 + 1), GamePaused)
    game.act(Resume(), dt=100.0)
    assert game.state.deadline == game.now + 30.0


@pytest.mark.rule("T2")
@pytest.mark.parametrize(
    ("phase", "then", "seconds"),
    [
        (Phase.DEFENCE, Phase.VOTE, 30.0),
        (Phase.VOTE, Phase.NIGHT, 60.0),
        (Phase.NIGHT, Phase.ROUND_1, 60.0),
        (Phase.ACQUAINTANCE, Phase.ROUND_1, 60.0),
    ],
)
def test_T2_a_phase_skipped_during_a_pause_starts_the_next_paused(
    phase: Phase, then: Phase, seconds: float
) -> None:
    game = Game()
    if phase in (Phase.DEFENCE, Phase.VOTE):
        game.nominate({1: 9})
        if phase is Phase.VOTE:
            game.pass_all(Phase.DEFENCE)
    elif phase is Phase.NIGHT:
        to_night(game)
    else:
        game.advance_to(phase)
    assert game.phase is phase
    game.act(Pause())
    game.act(Skip(), dt=500.0)
    assert game.phase is then
    assert game.state.paused_remaining == seconds


@pytest.mark.rule("T2")
def test_T2_removing_the_speaker_during_a_pause_starts_the_next_turn_paused() -> None:
    game = Game()
    speaker = game.state.speaker
    assert speaker is not None
    game.act(Pause(), dt=10.0)
    events = game.remove(speaker)
    assert first_of(events, SpeechEnded) == SpeechEnded(speaker, SpeechEnd.REMOVED)
    assert events[-1] == Paused(remaining=30.0)
    assert game.state.paused and game.state.speaker == speaker % 12 + 1
    game.refused(Pass(speaker % 12 + 1), GamePaused)


@pytest.mark.rule("T2")
def test_T2_removing_another_player_during_a_pause_keeps_the_turns_time() -> None:
    game = Game()
    speaker = game.state.speaker
    assert speaker is not None
    game.act(Pause(), dt=10.0)
    events = game.remove(speaker % 12 + 2)
    assert not of_type(events, Paused)
    assert (game.state.speaker, game.state.paused_remaining) == (speaker, 20.0)


@pytest.mark.rule("T2")
def test_T2_a_removal_that_ends_the_game_during_a_pause_leaves_no_clock() -> None:
    game = Game(n=5)
    game.advance_to(Phase.ROUND_1, day=1)
    game.act(Pause())
    mafioso = game.mafia()[0]
    events = game.remove(mafioso)
    assert game.phase is Phase.OVER
    assert not of_type(events, Paused)
    assert (game.state.paused, game.state.deadline) == (False, None)


@pytest.mark.rule("D10")
def test_D10_pause_blocks_every_player_action() -> None:
    game = Game()
    game.act(Pause())
    assert game.state.deadline is None
    speaker = game.state.speaker
    assert speaker is not None
    game.refused(Pass(speaker), GamePaused)
    game.refused(Nominate(speaker, 1), GamePaused)
    game.refused(Vote(speaker, None), GamePaused)


@pytest.mark.rule("D10")
def test_D10_T2_a_restarted_clock_gives_the_turn_its_full_time_on_the_same_step() -> None:
    """A turn whose announcement never reached the group (the bot died first) starts
    its clock again at resume: the step stays, so its buttons stay good."""
    game = Game()
    step = game.state.step
    game.act(RestartClock(), dt=500.0)  # long past the deadline: the bot was down
    assert game.last == [ClockRestarted(step, game.now + 30.0)]
    assert game.state.step == step and game.state.deadline == game.now + 30.0
    assert replay(game.entries) == game.state  # the protocol stays the truth
    game.act(Pause())
    game.refused(RestartClock(), GamePaused)  # the Host's pause keeps what it left


@pytest.mark.rule("D10")
def test_D10_T2_a_restarted_night_gets_the_full_night() -> None:
    game = to_night(Game())
    game.act(RestartClock(), dt=100.0)
    assert game.state.deadline == game.now + game.settings.night_seconds


@pytest.mark.rule("D10")
def test_D10_T2_an_announcement_seen_in_time_changes_nothing() -> None:
    game = Game()
    late = game.settings.late_announcement_seconds
    before = snapshot(game.state)
    assert game.act(Announced(game.state.step), dt=late) == []
    assert snapshot(game.state) == before


@pytest.mark.rule("D10")
def test_D10_T2_an_announcement_seen_late_starts_the_turn_again_with_its_full_time() -> None:
    """The group's window held the turn's post: the speaker's seconds count from when
    the table saw it, on the same step (its buttons stay good)."""
    game = Game()
    step, late = game.state.step, game.settings.late_announcement_seconds
    game.act(Announced(step), dt=late + 0.25)
    assert game.last == [ClockRestarted(step, game.now + 30.0)]
    assert game.state.step == step and game.state.deadline == game.now + 30.0
    assert replay(game.entries) == game.state
    game.refused(Announced(step - 1), StaleAction)  # an earlier turn's post, seen at last


@pytest.mark.rule("D10")
def test_D10_T2_a_late_announcement_of_a_paused_turn_keeps_what_the_host_left() -> None:
    game = Game()
    step = game.state.step
    game.act(Pause())
    assert game.act(Announced(step), dt=20.0) == []
    assert game.state.paused_remaining is not None


@pytest.mark.rule("D10")
def test_D10_T2_how_late_is_too_late_is_the_settings() -> None:
    patient = dataclasses.replace(GameSettings(), late_announcement_seconds=5.0)
    game = Game(settings=patient)
    assert game.act(Announced(game.state.step), dt=4.0) == []
    game = Game(settings=patient)
    assert isinstance(game.act(Announced(game.state.step), dt=6.0)[0], ClockRestarted)


# --- the Host hands the game over (T3: the sheet names every Host) ----------------------


@pytest.mark.rule("T3")
def test_T3_a_hand_over_is_recorded_and_changes_nothing_at_the_table() -> None:
    game = Game()
    before = snapshot(game.state)
    events = game.act(HandOver(previous=1, host=2), dt=0.0)
    assert events == [HostChanged(1, 2)]
    assert snapshot(game.state) == before  # the turn, its clock and the seats go on
    assert snapshot(game.replayed()) == before
    game.act(Pause())
    assert game.act(HandOver(previous=2, host=3)) == [HostChanged(2, 3)]  # paused too
    game.refused(HandOver(previous=3, host=3), InvalidTarget)
