"""T5: the tie-break order where shared places cross a prize place (issue 20 §4)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import pytest

from bot.rules.draws import shuffled
from bot.rules.errors import BadSettings
from bot.rules.roles import Role
from bot.rules.sheet import SheetRow
from bot.tournament.scoring import Scheme
from bot.tournament.settings import TournamentSettings
from bot.tournament.standings import Adjustment, standings
from bot.tournament.tiebreak import DEFAULT_ORDER, break_ties, parse_order, records
from tests.tournament.helpers import make_row

SEED = "0123456789abcdef0123456789abcdef"


def table(
    sheets: Mapping[int, Sequence[SheetRow]],
    sanctions: Mapping[int, int] | None = None,
    order: Sequence[str] = DEFAULT_ORDER,
    seed: str | None = SEED,
) -> dict[int, tuple[int | None, str | None]]:
    """Each player's place and what decided it (user id -> (place, criterion))."""
    settings = TournamentSettings()
    schemes = dict.fromkeys(sheets, Scheme())
    rows = standings(sheets, settings, schemes=schemes)
    record, games = records(sheets, schemes, sanctions or {})
    return {
        r.user_id: (r.place, r.decided_by) for r in break_ties(rows, order, record, games, seed)
    }


def win(uid: int, seat: int, role: Role = Role.CIVILIAN) -> SheetRow:
    return make_row(uid, seat=seat, role=role)


def loss(uid: int, seat: int) -> SheetRow:
    return make_row(uid, seat=seat, won=False, role=Role.MAFIA)


@pytest.mark.rule("T5")
@pytest.mark.rule("T4")
def test_T5_more_wins_at_tables_above_the_threshold_decide_equal_totals() -> None:
    # 1 won at 15 (1.2) and at 12 (1.0); 2 won twice at 12 and the Judge gave +0.2:
    # both 2.2 with two wins, but only 1 won above the threshold.
    big = [win(1, 1)] + [loss(100 + i, i + 2) for i in range(14)]
    sheets = {1: big, 2: [win(1, 1), win(2, 2), loss(3, 3)], 3: [win(2, 1), loss(4, 2)]}
    schemes = dict.fromkeys(sheets, Scheme())
    bonus = [Adjustment(2, 2, "решение судьи", 0.0)]
    rows = standings(sheets, TournamentSettings(), bonus, schemes=schemes)
    assert rows[0].place == rows[1].place == 1 and rows[0].total_tenths == 22
    record, games = records(sheets, schemes, {})
    out = {
        r.user_id: (r.place, r.decided_by)
        for r in break_ties(rows, DEFAULT_ORDER, record, games, SEED)
    }
    assert out[1] == (1, "bonus_wins") and out[2] == (2, "bonus_wins")


@pytest.mark.rule("T5")
def test_T5_commissioner_wins_then_fewer_sanctions_then_the_lot() -> None:
    sheets = {
        1: [win(1, 1, Role.COMMISSIONER), win(2, 2), win(3, 3), win(4, 4), loss(9, 5)],
    }
    out = table(sheets, sanctions={3: 2, 4: 1})
    assert out[1] == (1, "commissioner_wins")
    # 2 has no sanctions, 4 one, 3 two.
    assert out[2] == (2, "fewer_sanctions") and out[4] == (3, "fewer_sanctions")
    assert out[3] == (4, "fewer_sanctions")


@pytest.mark.rule("T5")
@pytest.mark.rule("S3")
def test_T5_the_lot_is_the_documented_shuffle_of_the_committed_seed() -> None:
    sheets = {1: [win(10, 1), win(20, 2), win(30, 3), loss(9, 4)]}
    out = table(sheets)
    drawn = shuffled(SEED, "tiebreak:1", [10, 20, 30])
    assert [out[u] for u in drawn] == [(1, "lot"), (2, "lot"), (3, "lot")]
    # Without a seed the lot is not drawn: they keep sharing the place.
    unseeded = table(sheets, seed=None)
    assert {unseeded[u] for u in (10, 20, 30)} == {(1, None)}


@pytest.mark.rule("T5")
def test_T5_only_shared_places_that_reach_the_prize_places_are_split() -> None:
    # 1 alone first (two wins); 2..6 share places 2-6 with one win, 2's as Commissioner;
    # 7, 8 and 9 share 7th with none.
    sheets = {
        1: [win(1, 1), win(2, 2, Role.COMMISSIONER)]
        + [win(u, u) for u in (3, 4, 5, 6)]
        + [loss(7, 7), loss(8, 8)],
        2: [win(1, 1), loss(9, 2)],
    }
    out = table(sheets)
    assert out[1] == (1, None)
    assert out[2] == (2, "commissioner_wins")
    drawn = shuffled(SEED, "tiebreak:3", [3, 4, 5, 6])
    assert out[drawn[0]] == (3, "lot")  # the lot settles 3rd ...
    assert {out[u] for u in drawn[1:]} == {(4, "lot")}  # ... and the rest share 4th
    assert out[7] == out[8] == out[9] == (7, None)  # below the prize places: untouched


@pytest.mark.rule("T5")
def test_T5_games_won_against_each_other() -> None:
    # 1 and 2 each won twice; 1 beat 2 once (2 on the losing side), 2 never beat 1.
    sheets = {
        1: [win(1, 1), loss(2, 2)],
        2: [win(2, 1), loss(9, 2)],
        3: [win(2, 1), loss(9, 2)],
        4: [win(1, 1), loss(9, 2)],
    }
    out = table(sheets, order=("head_to_head", "lot"))
    assert out[1] == (1, "head_to_head") and out[2] == (2, "head_to_head")


@pytest.mark.rule("T5")
@pytest.mark.rule("T6")
def test_T5_the_order_is_known_criteria_each_once_with_the_lot_last() -> None:
    assert parse_order("wins,head_to_head") == ("wins", "head_to_head", "lot")
    assert parse_order("lot") == ("lot",)
    assert parse_order("none") == ()  # no tie-break: the Judge decides (7.1)
    for bad in ("", "wins,wins", "lot,wins", "luck", "wins;lot"):
        with pytest.raises(BadSettings):
            parse_order(bad)
