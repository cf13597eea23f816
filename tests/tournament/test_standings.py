"""T5: standings from signed sheets; shared places; the disqualified are not placed;
the Judge's adjustments with reasons; CSV exports."""

from __future__ import annotations

import csv
import io

import pytest

from bot.rules.sheet import sheet
from bot.tournament.settings import TournamentSettings
from bot.tournament.standings import (
    SHEETS_HEADER,
    STANDINGS_HEADER,
    Adjustment,
    StandingsRow,
    sheets_csv,
    standings,
    standings_csv,
    top_three,
)

from .helpers import game_sheet, peaceful_win_by_removals

DEFAULT = TournamentSettings()


def places(rows: list[StandingsRow]) -> list[tuple[int, int | None, int]]:
    return [(r.user_id, r.place, r.total_tenths) for r in rows]


# Each case: game id -> (winners, losers, removed); adjustments (user, tenths); the
# disqualified; the expected (user, place, total) in order.
TABLES = [
    pytest.param(
        {1: ([1, 2], [3, 4], [])},
        [],
        [],
        [(1, 1, 10), (2, 1, 10), (3, 3, 0), (4, 3, 0)],
        id="two tied winners share 1st, the next place is 3rd",
    ),
    pytest.param(
        {1: ([1, 2, 3], [4], []), 2: ([1], [2, 3, 4], [])},
        [],
        [],
        [(1, 1, 20), (2, 2, 10), (3, 2, 10), (4, 4, 0)],
        id="competition ranking 1, 2, 2, 4",
    ),
    pytest.param(
        {1: ([1, 2], [3], [4])},
        [],
        [],
        [(1, 1, 10), (2, 1, 10), (3, 3, 0), (4, 3, 0)],
        id="a removed winner has 0 for the game",
    ),
    pytest.param(
        {1: ([1, 2], [3, 4], [])},
        [],
        [2],
        [(1, 1, 10), (3, 2, 0), (4, 2, 0), (2, None, 10)],
        id="the disqualified are listed after, not placed",
    ),
    pytest.param(
        {1: ([1, 2], [3, 4], [])},
        [(3, 15), (1, -5)],
        [],
        [(3, 1, 15), (2, 2, 10), (1, 3, 5), (4, 4, 0)],
        id="adjustments move players",
    ),
]


@pytest.mark.rule("T5")
@pytest.mark.parametrize(("games", "adjusted", "disqualified", "expected"), TABLES)
def test_T5_standings_table(
    games: dict[int, tuple[list[int], list[int], list[int]]],
    adjusted: list[tuple[int, int]],
    disqualified: list[int],
    expected: list[tuple[int, int | None, int]],
) -> None:
    sheets = {g: game_sheet(*parts) for g, parts in games.items()}
    adjustments = [
        Adjustment(uid, tenths, f"reason {i}", float(i)) for i, (uid, tenths) in enumerate(adjusted)
    ]
    rows = standings(sheets, DEFAULT, adjustments, disqualified=frozenset(disqualified))
    assert places(rows) == expected


@pytest.mark.rule("T5")
def test_T5_games_wins_and_nicks() -> None:
    sheets = {
        1: game_sheet([1], [2], [3]),
        2: game_sheet([2], [1, 3]),
    }
    rows = {r.user_id: r for r in standings(sheets, DEFAULT, nicks={1: "Anna"})}
    assert (rows[1].games, rows[1].wins, rows[1].nick) == (2, 1, "Anna")
    # A removed winner's side won: a win without the point.
    assert (rows[3].games, rows[3].wins, rows[3].total_tenths) == (2, 1, 0)
    assert rows[2].nick == "nick2"  # from the sheet when no registered nick is given


@pytest.mark.rule("T5")
def test_T5_registered_players_without_games_are_listed_with_zero() -> None:
    rows = standings({1: game_sheet([1], [2])}, DEFAULT, nicks={1: "A", 2: "B", 9: "Late"})
    assert places(rows) == [(1, 1, 10), (2, 2, 0), (9, 2, 0)]
    assert rows[2].games == 0 and rows[2].nick == "Late"


@pytest.mark.rule("T5")
def test_T5_adjustments_keep_their_reasons_in_time_order() -> None:
    late = Adjustment(1, -5, "sheet corrected: seat 4 was removed", at=200.0)
    early = Adjustment(1, 10, "replayed game 2 by the Judge's decision", at=100.0)
    other = Adjustment(2, 3, "fair play", at=150.0)
    rows = {
        r.user_id: r for r in standings({1: game_sheet([1], [2])}, DEFAULT, [late, other, early])
    }
    assert rows[1].adjustments == (early, late)
    assert rows[1].total_tenths == 10 + 10 - 5
    assert rows[2].adjustments == (other,)
    assert rows[2].total_tenths == 3


@pytest.mark.rule("T5")
def test_T5_a_disqualified_player_with_no_games_is_still_listed() -> None:
    rows = standings({1: game_sheet([1], [2])}, DEFAULT, disqualified={7})
    assert places(rows)[-1] == (7, None, 0)
    assert rows[-1].disqualified and not rows[0].disqualified


@pytest.mark.rule("T5")
def test_T5_top_three_includes_everyone_sharing_a_place() -> None:
    sheets = {
        1: game_sheet([1, 2, 3, 4], [5]),
        2: game_sheet([1], [2, 3, 4, 5]),
    }
    rows = standings(sheets, DEFAULT, disqualified={1})
    # 1 is out; 2, 3 and 4 tie for 1st; 5 is 4th.
    assert [r.user_id for r in top_three(rows)] == [2, 3, 4]
    tie = standings({1: game_sheet([1], [2, 3, 4, 5])}, DEFAULT)
    assert [(r.user_id, r.place) for r in top_three(tie)] == [
        (1, 1),
        (2, 2),
        (3, 2),
        (4, 2),
        (5, 2),
    ]


@pytest.mark.rule("T5")
def test_T5_scores_follow_the_player_count_of_each_game() -> None:
    big = sheet(peaceful_win_by_removals(15))
    small = sheet(peaceful_win_by_removals(14))
    rows = standings({1: big, 2: small}, DEFAULT)
    winner_of_both = next(
        r.user_id
        for r in big
        if r.earns_point and any(s.user_id == r.user_id and s.earns_point for s in small)
    )
    row = next(r for r in rows if r.user_id == winner_of_both)
    assert row.total_tenths == 22 and row.wins == 2 and row.games == 2


def read_csv(text: str) -> list[list[str]]:
    return list(csv.reader(io.StringIO(text)))


@pytest.mark.rule("T5")
def test_T5_standings_csv() -> None:
    adjustments = [
        Adjustment(2, -5, "late", 1.0),
        Adjustment(2, 10, "=HYPERLINK(evil)", 2.0),
    ]
    rows = standings(
        {1: game_sheet([1, 2], [3])},
        DEFAULT,
        adjustments,
        disqualified={3},
        nicks={1: 'Anna, the "first"', 2: "-Boris", 3: "Vera"},
    )
    table = read_csv(standings_csv(rows))
    assert tuple(table[0]) == STANDINGS_HEADER
    assert table[1:] == [
        ["1", "2", "'-Boris", "1.5", "1", "1", "0", "0.5", "late (-0.5); =HYPERLINK(evil) (+1.0)"],
        ["2", "1", 'Anna, the "first"', "1.0", "1", "1", "0", "0.0", ""],
        ["", "3", "Vera", "0.0", "1", "0", "1", "0.0", ""],
    ]


@pytest.mark.rule("T5")
def test_T5_standings_csv_reasons_that_look_like_formulas_are_quoted() -> None:
    rows = standings({}, DEFAULT, [Adjustment(1, 10, "=1+1", 0.0)], nicks={1: "@me"})
    table = read_csv(standings_csv(rows))
    assert table[1][2] == "'@me"
    assert table[1][8] == "'=1+1 (+1.0)"


@pytest.mark.rule("T3")
def test_T3_T4_sheets_csv_has_every_row_with_its_points() -> None:
    big = sheet(peaceful_win_by_removals(15, removed_civilians=1))
    table = read_csv(sheets_csv({9: big, 4: game_sheet([1], [2])}, DEFAULT))
    assert tuple(table[0]) == SHEETS_HEADER
    body = table[1:]
    assert len(body) == 2 + 15
    assert [r[0] for r in body] == ["4", "4"] + ["9"] * 15  # by game, then seat
    assert [int(r[1]) for r in body[2:]] == list(range(1, 16))
    by_points = {r[9] for r in body[2:]}
    assert by_points == {"1.2", "0.0"}
    removed = [r for r in body if r[6] == "removal"]
    assert len(removed) == 1
    assert removed[0][7:11] == ["1", "0", "0.0", "removal_from_game"]
    disqualified = [r for r in body if r[6] == "disqualification"]
    assert all(r[4] == "mafia" and r[10] == "disqualification" for r in disqualified)
