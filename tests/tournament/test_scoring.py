"""T4: a point per winner, x1.2 above 14 players, nothing for a removed player; tenths."""

from __future__ import annotations

import pytest

from bot.rules.sheet import sheet
from bot.tournament.errors import BadPoints
from bot.tournament.scoring import format_tenths, game_points, parse_tenths, win_tenths
from bot.tournament.settings import TournamentSettings

from .helpers import game_sheet, peaceful_win_by_removals

DEFAULT = TournamentSettings()


@pytest.mark.rule("T4")
@pytest.mark.parametrize(
    ("players", "tenths"),
    [(12, 10), (13, 10), (14, 10), (15, 12), (16, 12)],
    ids=lambda v: str(v),
)
def test_T4_a_winner_earns_1_0_up_to_14_players_and_1_2_above(players: int, tenths: int) -> None:
    assert win_tenths(players, DEFAULT) == tenths


GAMES = [
    pytest.param(15, [1, 2], [3], [], {1: 12, 2: 12, 3: 0}, id="15 players: 1.2 per winner"),
    pytest.param(14, [1, 2], [3], [], {1: 10, 2: 10, 3: 0}, id="14 players: 1.0 per winner"),
    pytest.param(16, [1], [3], [2], {1: 12, 2: 0, 3: 0}, id="a removed winner earns 0"),
    pytest.param(12, [], [3, 4], [], {3: 0, 4: 0}, id="losers earn 0"),
]


@pytest.mark.rule("T4")
@pytest.mark.parametrize(("players", "winners", "losers", "removed", "expected"), GAMES)
def test_T4_game_points_by_sheet_rows(
    players: int,
    winners: list[int],
    losers: list[int],
    removed: list[int],
    expected: dict[int, int],
) -> None:
    rows = game_sheet(winners, losers, removed)
    assert game_points(rows, DEFAULT, players) == expected


@pytest.mark.rule("T4")
def test_T4_player_count_defaults_to_the_rows_on_the_sheet() -> None:
    rows = game_sheet(range(1, 12), losers=range(12, 16))  # 15 rows
    assert set(game_points(rows, DEFAULT).values()) == {12, 0}
    assert set(game_points(rows[:14], DEFAULT).values()) == {10, 0}


@pytest.mark.rule("T4")
def test_T4_the_threshold_and_coefficient_are_settings() -> None:
    custom = TournamentSettings(bonus_threshold=12, bonus_coefficient=15)
    assert win_tenths(12, custom) == 10
    assert win_tenths(13, custom) == 15
    assert win_tenths(16, TournamentSettings(bonus_coefficient=10)) == 10


@pytest.mark.rule("T4")
@pytest.mark.parametrize(("players", "per_win"), [(15, 12), (14, 10)])
def test_T4_a_played_game_scores_from_its_sheet(players: int, per_win: int) -> None:
    """A real game: one civilian removed (V5), every mafioso disqualified, peace wins."""
    state = peaceful_win_by_removals(players, removed_civilians=1)
    rows = sheet(state)
    points = game_points(rows, DEFAULT)
    removed = [r for r in rows if r.won and not r.earns_point]
    assert len(removed) == 1 and points[removed[0].user_id] == 0
    for row in rows:
        assert points[row.user_id] == (per_win if row.earns_point else 0)
    assert sum(points.values()) == per_win * (players - state.settings.mafiosi_for(players) - 1)


@pytest.mark.rule("T4")
@pytest.mark.parametrize(
    ("tenths", "text", "signed"),
    [
        (12, "1.2", "+1.2"),
        (10, "1.0", "+1.0"),
        (0, "0.0", "+0.0"),
        (5, "0.5", "+0.5"),
        (-5, "-0.5", "-0.5"),
        (-12, "-1.2", "-1.2"),
        (125, "12.5", "+12.5"),
    ],
)
def test_T4_tenths_are_printed_as_exact_decimals(tenths: int, text: str, signed: str) -> None:
    assert format_tenths(tenths) == text
    assert format_tenths(tenths, signed=True) == signed
    assert parse_tenths(text) == tenths


@pytest.mark.rule("T4")
@pytest.mark.parametrize(
    ("text", "tenths"),
    [("1", 10), ("+1", 10), ("-0,5", -5), (".5", 5), (" 2.50 ", 25), ("-0", 0)],
)
def test_T4_judge_typed_points_parse_to_tenths(text: str, tenths: int) -> None:
    assert parse_tenths(text) == tenths


@pytest.mark.rule("T4")
@pytest.mark.parametrize("text", ["", ".", "1.", "1.25", "abc", "1e3", "--1", "0.5.1"])
def test_T4_points_with_more_than_one_decimal_or_junk_are_refused(text: str) -> None:
    with pytest.raises(BadPoints) as caught:
        parse_tenths(text)
    assert caught.value.code == "bad_points"
