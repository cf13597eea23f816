"""V1-V7: the sanction ladder, and what a removal does to a running game."""

from __future__ import annotations

import pytest

from bot.rules.actions import Check, Kill, Pass, Sanction, Vote
from bot.rules.errors import InvalidTarget, UnknownSeat
from bot.rules.events import (
    Cause,
    NightEnded,
    NightStarted,
    Phase,
    PlayerLeft,
    SanctionGiven,
    SpeechEnd,
    SpeechEnded,
    SpeechStarted,
    VoteClosed,
)
from bot.rules.roles import Side
from bot.rules.sanctions import (
    Offence,
    Penalty,
    VCode,
    disqualifies,
    penalty_for,
    removes_from_game,
)
from bot.rules.sheet import sheet
from bot.rules.state import SanctionRecord

from .helpers import Game, first_of, of_type, to_night

GAME = 5  # the game the new violation happens in
OTHER = 4  # an earlier game of the same tournament

W, RG, RT, DQ, RTN, BAN = (
    Penalty.WARNING,
    Penalty.REMOVAL_FROM_GAME,
    Penalty.REMOVAL_FROM_TOUR,
    Penalty.DISQUALIFICATION,
    Penalty.REMOVAL_FROM_TOURNAMENT,
    Penalty.BAN,
)


def rec(code: VCode, game: int, penalty: Penalty) -> Offence:
    return Offence(code, game, penalty)


def row(code: VCode, record: list[Offence], expected: Penalty, id: str) -> object:
    return pytest.param(code, record, expected, id=id, marks=pytest.mark.rule(code.value))


LADDER = [
    # V1: disqualification at once.
    row(VCode.V1, [], DQ, id="V1 1st"),
    # V2: warning, then disqualification (over the tournament).
    row(VCode.V2, [], W, id="V2 1st"),
    row(VCode.V2, [rec(VCode.V2, GAME, W)], DQ, id="V2 2nd same game"),
    row(VCode.V2, [rec(VCode.V2, OTHER, W)], DQ, id="V2 2nd over the tournament"),
    row(VCode.V2, [rec(VCode.V5, GAME, W)], W, id="V2 1st after another code"),
    # V3: removal from the tour, then disqualification.
    row(VCode.V3, [], RT, id="V3 1st"),
    row(VCode.V3, [rec(VCode.V3, OTHER, RT)], DQ, id="V3 2nd"),
    # V4: removal from the tournament and a ban.
    row(VCode.V4, [], BAN, id="V4 1st"),
    # V5: warning, then removal from the game, counted per game.
    row(VCode.V5, [], W, id="V5 1st"),
    row(VCode.V5, [rec(VCode.V5, GAME, W)], RG, id="V5 2nd in the game"),
    row(VCode.V5, [rec(VCode.V5, OTHER, W)], W, id="V5 1st in this game"),
    row(VCode.V5, [rec(VCode.V5, OTHER, W), rec(VCode.V5, OTHER, RG)], W, id="V5 two elsewhere"),
    # V6: removal from the tournament.
    row(VCode.V6, [], RTN, id="V6 1st"),
    # V7: warnings 1st and 2nd in a game, removal from the tour the 3rd,
    # disqualification when removed for V7 in a second tour.
    row(VCode.V7, [], W, id="V7 1st"),
    row(VCode.V7, [rec(VCode.V7, GAME, W)], W, id="V7 2nd"),
    row(VCode.V7, [rec(VCode.V7, GAME, W)] * 2, RT, id="V7 3rd"),
    row(VCode.V7, [rec(VCode.V7, OTHER, W)] * 2, W, id="V7 warnings count per game"),
    row(
        VCode.V7,
        [rec(VCode.V7, OTHER, W), rec(VCode.V7, OTHER, W), rec(VCode.V7, OTHER, RT)]
        + [rec(VCode.V7, GAME, W)] * 2,
        DQ,
        id="V7 removed in two tours",
    ),
    row(
        VCode.V7,
        [rec(VCode.V7, OTHER, RT), rec(VCode.V7, GAME, W)],
        W,
        id="V7 earlier removal, 2nd here: still a warning",
    ),
    row(
        VCode.V7,
        [rec(VCode.V3, OTHER, RT)] + [rec(VCode.V7, GAME, W)] * 2,
        RT,
        id="V7 a removal for another code does not count",
    ),
]


@pytest.mark.parametrize(("code", "record", "expected"), LADDER)
def test_V1_V2_V3_V4_V5_V6_V7_ladder_rows(
    code: VCode, record: list[Offence], expected: Penalty
) -> None:
    assert penalty_for(code, record, GAME) is expected


@pytest.mark.rule("V1")
def test_V1_revealing_the_card_disqualifies_even_the_first_time() -> None:
    assert penalty_for(VCode.V1, [], GAME) is DQ
    assert disqualifies(penalty_for(VCode.V1, [], GAME))


@pytest.mark.rule("V2")
def test_V2_warning_then_disqualification() -> None:
    first = penalty_for(VCode.V2, [], GAME)
    assert first is W
    assert penalty_for(VCode.V2, [rec(VCode.V2, OTHER, first)], GAME) is DQ


@pytest.mark.rule("V3")
def test_V3_removal_from_the_tour_then_disqualification() -> None:
    first = penalty_for(VCode.V3, [], OTHER)
    assert first is RT
    assert removes_from_game(first)
    assert not disqualifies(first)
    assert penalty_for(VCode.V3, [rec(VCode.V3, OTHER, first)], GAME) is DQ


@pytest.mark.rule("V4")
def test_V4_removal_from_the_tournament_and_a_ban() -> None:
    assert penalty_for(VCode.V4, [], GAME) is BAN
    assert disqualifies(BAN)


@pytest.mark.rule("V5")
def test_V5_counts_per_game() -> None:
    record: list[Offence] = []
    for game_id in (1, 2, 3):
        first = penalty_for(VCode.V5, record, game_id)
        record.append(rec(VCode.V5, game_id, first))
        second = penalty_for(VCode.V5, record, game_id)
        record.append(rec(VCode.V5, game_id, second))
        assert (first, second) == (W, RG)
    assert removes_from_game(RG)
    assert not disqualifies(RG)


@pytest.mark.rule("V6")
def test_V6_removal_from_the_tournament() -> None:
    assert penalty_for(VCode.V6, [], GAME) is RTN
    assert disqualifies(RTN)


@pytest.mark.rule("V7")
def test_V7_two_tours_of_removal_disqualify() -> None:
    record: list[Offence] = []
    got = []
    for game_id in (1, 2):
        for _ in range(3):
            penalty = penalty_for(VCode.V7, record, game_id)
            record.append(rec(VCode.V7, game_id, penalty))
            got.append(penalty)
    assert got == [W, W, RT, W, W, DQ]


@pytest.mark.rule("V7")
@pytest.mark.parametrize(
    ("penalty", "removes", "disqualifies_"),
    [
        (W, False, False),
        (RG, True, False),
        (RT, True, False),
        (DQ, True, True),
        (RTN, True, True),
        (BAN, True, True),
    ],
)
def test_V7_penalties_and_their_effect(
    penalty: Penalty, removes: bool, disqualifies_: bool
) -> None:
    assert removes_from_game(penalty) is removes
    assert disqualifies(penalty) is disqualifies_


# --- the sanctions in a running game ----------------------------------------------------


@pytest.mark.rule("V2")
def test_V2_a_warning_is_recorded_and_the_player_stays() -> None:
    game = Game()
    speaker = game.state.speaker
    assert speaker is not None
    events = game.act(Sanction(speaker, Penalty.WARNING, VCode.V2))
    assert events == [SanctionGiven(speaker, VCode.V2, Penalty.WARNING)]
    assert game.state.is_alive(speaker)
    assert game.state.speaker == speaker
    assert game.state.sanctions == [SanctionRecord(speaker, VCode.V2, Penalty.WARNING)]


@pytest.mark.rule("V5")
@pytest.mark.parametrize(
    ("penalty", "cause"),
    [
        (RG, Cause.REMOVAL),
        (RT, Cause.REMOVAL),
        (DQ, Cause.DISQUALIFICATION),
        (RTN, Cause.DISQUALIFICATION),
        (BAN, Cause.DISQUALIFICATION),
    ],
)
def test_V5_removal_leaves_at_once_without_a_last_word(penalty: Penalty, cause: Cause) -> None:
    game = Game().advance_to(Phase.ROUND_1, day=1)
    seat = game.civilians()[0]
    events = game.act(Sanction(seat, penalty, VCode.V5))
    assert events[:2] == [SanctionGiven(seat, VCode.V5, penalty), PlayerLeft(seat, cause)]
    assert game.state.seats[seat].left is cause
    assert game.phase is Phase.ROUND_1


@pytest.mark.rule("V3")
def test_V3_sanction_for_an_unknown_seat_is_refused() -> None:
    Game().refused(Sanction(13, RT, VCode.V3), UnknownSeat)


@pytest.mark.rule("V3")
def test_V3_a_sanction_for_a_departed_player_is_recorded_only() -> None:
    game = to_night(Game())
    dead = game.civilians()[0]
    game.remove(dead)
    step = game.state.step
    events = game.act(Sanction(dead, RT, VCode.V3))  # wrote in the group at night
    assert events == [SanctionGiven(dead, VCode.V3, RT)]
    assert game.state.step == step
    assert game.state.seats[dead].left is Cause.REMOVAL


@pytest.mark.rule("V1")
def test_V1_mid_speech_the_turn_passes_to_the_next_living_seat() -> None:
    game = Game()
    speaker = game.state.speaker
    assert speaker is not None
    events = game.act(Sanction(speaker, DQ, VCode.V1))
    assert SpeechEnded(speaker, SpeechEnd.REMOVED) in events
    started = first_of(events, SpeechStarted)
    assert started.seat == speaker % 12 + 1
    assert started.phase is Phase.INTRODUCTION


@pytest.mark.rule("V7")
def test_V7_removal_of_a_leader_mid_defence_skips_their_defence() -> None:
    game = Game()
    game.nominate({1: 9, 2: 10, 3: 11})
    speaking = game.state.speaker
    waiting = [s for s in [9, 10, 11] if s != speaking]
    game.remove(waiting[0], penalty=RT, code=VCode.V7)
    spoken = []
    while game.phase is Phase.DEFENCE:
        assert game.state.speaker is not None
        spoken.append(game.state.speaker)
        game.act(Pass(game.state.speaker))
    assert waiting[0] not in spoken
    assert game.phase is Phase.VOTE
    assert game.state.leaders == sorted({9, 10, 11} - {waiting[0]})  # who can be voted for


@pytest.mark.rule("V7")
def test_V7_removal_of_every_leader_before_the_vote_means_no_vote() -> None:
    game = Game()
    game.nominate({1: 9})
    assert game.state.speaker == 9
    game.remove(9, penalty=RT, code=VCode.V7)
    assert game.phase is Phase.NIGHT
    assert first_of(game.last, NightStarted).night == 1


@pytest.mark.rule("V7")
def test_V7_a_leader_removed_mid_vote() -> None:
    game = Game()
    game.nominate({1: 9, 2: 10})
    game.pass_all(Phase.DEFENCE)
    game.act(Vote(1, 9))
    game.act(Vote(2, 9))
    game.act(Vote(3, 10))
    game.remove(9, penalty=RT, code=VCode.V7)
    assert game.phase is Phase.VOTE  # the vote goes on with the other leader
    game.refused(Vote(4, 9), InvalidTarget)
    for voter in range(4, 9):
        game.act(Vote(voter, 10))
    game.timeout()
    closed = first_of(game.last, VoteClosed)
    # The votes cast for the removed leader count for nobody; 6 of 11 living for seat 10.
    assert closed.votes[1] == 9
    assert closed.leaving == [10]


@pytest.mark.rule("V7")
def test_V7_the_last_leader_removed_mid_vote_closes_it() -> None:
    game = Game()
    game.nominate({1: 9, 2: 10})
    game.pass_all(Phase.DEFENCE)
    game.act(Vote(1, 9))
    game.remove(9, 10, penalty=RT, code=VCode.V7)
    closed = first_of(game.events[::-1], VoteClosed)
    assert closed.leaving == []
    assert game.phase is Phase.NIGHT


@pytest.mark.rule("V2")
def test_V2_the_last_voter_removed_closes_the_vote() -> None:
    game = Game()
    game.nominate({1: 9, 2: 10})
    game.pass_all(Phase.DEFENCE)
    for voter in range(1, 12):
        game.act(Vote(voter, 9))
    assert game.phase is Phase.VOTE
    game.act(Sanction(12, DQ, VCode.V2))
    closed = first_of(game.last, VoteClosed)
    assert 12 not in closed.votes
    assert closed.leaving == [9]


@pytest.mark.rule("V3")
def test_V3_a_mafioso_removed_mid_night_leaves_the_night_its_length_N4() -> None:
    game = to_night(Game())
    m1, m2, m3 = game.mafia()
    victim = game.civilians()[0]
    game.act(Check(game.commissioner(), m1))
    game.act(Kill(m1, victim))
    game.act(Kill(m2, victim))
    events = game.act(Sanction(m3, RT, VCode.V3))
    assert not of_type(events, NightEnded)
    assert game.phase is Phase.NIGHT
    game.timeout()
    assert first_of(game.last, NightEnded) == NightEnded(1, victim)


@pytest.mark.rule("V3")
def test_V3_a_removed_mafiosos_pick_no_longer_counts() -> None:
    game = to_night(Game())
    m1, m2, m3 = game.mafia()
    victim, other = game.civilians()[:2]
    game.act(Kill(m1, victim))
    game.act(Kill(m2, victim))
    game.act(Kill(m3, other))  # unanimity broken: a miss so far
    game.act(Sanction(m3, RT, VCode.V3))
    game.timeout()
    assert first_of(game.last, NightEnded) == NightEnded(1, victim)


@pytest.mark.rule("V3")
def test_V3_a_commissioner_removed_mid_night_leaves_the_night_its_length_N4() -> None:
    game = to_night(Game())
    victim = game.civilians()[0]
    for m in game.mafia():
        game.act(Kill(m, victim))
    events = game.act(Sanction(game.commissioner(), RT, VCode.V3))
    assert not of_type(events, NightEnded)
    game.timeout()
    assert first_of(game.last, NightEnded) == NightEnded(1, victim)


@pytest.mark.rule("V6")
def test_V6_removal_on_night_0_changes_nothing_else() -> None:
    game = Game().advance_to(Phase.ACQUAINTANCE)
    step = game.state.step
    game.act(Sanction(game.civilians()[0], RTN, VCode.V6))
    assert (game.phase, game.state.step) == (Phase.ACQUAINTANCE, step)


# --- the sheet (T3/T4) shows the sanctions ----------------------------------------------


@pytest.mark.rule("V5")
def test_V5_removed_players_win_with_their_side_but_earn_no_point() -> None:
    game = Game().advance_to(Phase.ROUND_1, day=1)
    warned, removed, voted = game.civilians()[:3]
    game.act(Sanction(warned, W, VCode.V5))
    game.act(Sanction(removed, RG, VCode.V5))
    mafia = game.mafia()
    for m in mafia[:-1]:
        game.remove(m)
    game.nominate({warned: voted})
    game.cast(dict.fromkeys(game.state.living(), voted))
    game.pass_all(Phase.LAST_WORDS)
    game.remove(mafia[-1], penalty=DQ)  # W2
    assert game.state.winner is Side.PEACEFUL
    rows = {row.seat: row for row in sheet(game.state)}
    assert len(rows) == 12
    assert rows[warned].penalties == (W,)
    assert (rows[warned].won, rows[warned].earns_point) == (True, True)
    assert (rows[removed].won, rows[removed].earns_point, rows[removed].left) == (
        True,
        False,
        Cause.REMOVAL,
    )
    assert (rows[voted].won, rows[voted].earns_point, rows[voted].left) == (True, True, Cause.VOTE)
    for m in mafia:
        assert (rows[m].won, rows[m].earns_point, rows[m].side) == (False, False, Side.MAFIA)
    assert rows[mafia[-1]].left is Cause.DISQUALIFICATION
    alive = [row for row in rows.values() if row.left is None]
    assert alive
    assert all(row.earns_point for row in alive)
    for seat, row in rows.items():
        assert (row.user_id, row.nick, row.role) == (
            game.state.seats[seat].user_id,
            game.state.seats[seat].nick,
            game.state.roles[seat],
        )
    assert of_type(game.events, SanctionGiven)


# --- the ladder at a casual game (RULES V interpretation) ------------------------------


@pytest.mark.rule("V4")
def test_V4_at_a_casual_game_takes_the_player_out_of_this_game_only() -> None:
    game = Game()
    seat = game.civilians()[0]
    # No tournament to bar from: the ban's place is taken by a removal from the game.
    assert game.state.casual_penalty(seat, VCode.V4) is RG
    assert game.state.casual_penalty(seat, VCode.V1) is DQ


@pytest.mark.rule("V5")
def test_V5_at_a_casual_game_counts_this_games_record_of_that_seat_only() -> None:
    game = Game()
    seat, other = game.civilians()[:2]
    assert game.state.casual_penalty(seat, VCode.V5) is W
    game.act(Sanction(other, W, VCode.V5))
    assert game.state.casual_penalty(seat, VCode.V5) is W  # another seat's warning
    assert game.state.sanctions_of(seat) == 0
    game.act(Sanction(seat, W, VCode.V5))
    assert game.state.sanctions_of(seat) == 1
    assert game.state.casual_penalty(seat, VCode.V5) is RG
