"""V over a tournament: a player's record gathers every game, so `penalty_for` sees
repeats across tours (V2, V3, V7) and counts V5 / V7 warnings within the game."""

from __future__ import annotations

import pytest

from bot.rules.sanctions import Offence, Penalty, VCode
from bot.rules.state import SanctionRecord
from bot.tournament.record import (
    TournamentOffence,
    disqualified_users,
    offences_in_game,
    record_of,
    tournament_penalty,
)

ANNA, BORIS = 501, 502
W, RG, RT, DQ = (
    Penalty.WARNING,
    Penalty.REMOVAL_FROM_GAME,
    Penalty.REMOVAL_FROM_TOUR,
    Penalty.DISQUALIFICATION,
)


def seen(user: int, game: int, code: VCode | None, penalty: Penalty) -> TournamentOffence:
    return TournamentOffence(user, game, code, penalty)


@pytest.mark.rule("V2")
@pytest.mark.rule("V5")
def test_V2_V5_seats_become_users_per_game() -> None:
    game_1 = offences_in_game(
        1, {3: ANNA, 4: BORIS}, [SanctionRecord(3, VCode.V2, W), SanctionRecord(4, None, RG)]
    )
    game_2 = offences_in_game(2, {7: ANNA}, [SanctionRecord(7, VCode.V5, W)])
    assert game_1 + game_2 == [
        seen(ANNA, 1, VCode.V2, W),
        seen(BORIS, 1, None, RG),
        seen(ANNA, 2, VCode.V5, W),
    ]
    assert record_of(ANNA, game_2 + game_1) == [Offence(VCode.V2, 1, W), Offence(VCode.V5, 2, W)]
    # A sanction without a V code is on the sheet but on no ladder.
    assert record_of(BORIS, game_1) == []


def step(code: VCode, offences: list[TournamentOffence], expected: Penalty, id: str) -> object:
    return pytest.param(code, offences, expected, id=id, marks=pytest.mark.rule(code.value))


LADDER = [
    step(VCode.V2, [seen(ANNA, 1, VCode.V2, W)], DQ, id="V2 2nd in a later tour"),
    step(VCode.V2, [seen(BORIS, 1, VCode.V2, W)], W, id="V2 someone else's record"),
    step(VCode.V3, [seen(ANNA, 1, VCode.V3, RT)], DQ, id="V3 2nd in a later tour"),
    step(VCode.V5, [seen(ANNA, 1, VCode.V5, W)], W, id="V5 counts within the game"),
    step(VCode.V5, [seen(ANNA, 2, VCode.V5, W)], RG, id="V5 2nd in this game"),
    step(
        VCode.V7,
        [seen(ANNA, 1, VCode.V7, W)] * 2 + [seen(ANNA, 1, VCode.V7, RT)],
        W,
        id="V7 warnings count within the game",
    ),
    step(
        VCode.V7,
        [seen(ANNA, 1, VCode.V7, W)] * 2
        + [seen(ANNA, 1, VCode.V7, RT)]
        + [seen(ANNA, 2, VCode.V7, W)] * 2,
        DQ,
        id="V7 removed in two tours",
    ),
]


@pytest.mark.parametrize(("code", "offences", "expected"), LADDER)
def test_V2_V3_V5_V7_ladder_over_the_tournament(
    code: VCode, offences: list[TournamentOffence], expected: Penalty
) -> None:
    assert tournament_penalty(ANNA, code, 2, offences) is expected


@pytest.mark.rule("T5")
@pytest.mark.rule("V4")
@pytest.mark.rule("V6")
def test_T5_V1_V4_V6_who_is_out_of_the_tournament() -> None:
    offences = [
        seen(ANNA, 1, VCode.V2, W),
        seen(BORIS, 1, VCode.V3, RT),
        seen(503, 1, VCode.V1, DQ),
        seen(504, 2, VCode.V6, Penalty.REMOVAL_FROM_TOURNAMENT),
        seen(505, 2, VCode.V4, Penalty.BAN),
        seen(506, 2, None, RG),
    ]
    assert disqualified_users(offences) == {503, 504, 505}
