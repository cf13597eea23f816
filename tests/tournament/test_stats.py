"""Player statistics (issue 12): games, wins and points, in all and by role (T4)."""

from __future__ import annotations

import csv
import io

import pytest

from bot.rules.roles import Role
from bot.tournament.settings import TournamentSettings
from bot.tournament.stats import STATS_HEADER, Tally, everyone, player_stats, scored_rows, stats_csv

from .helpers import game_sheet, make_row

DEFAULT = TournamentSettings()


@pytest.mark.rule("T4")
def test_T4_stats_count_games_wins_and_points_by_role() -> None:
    first = game_sheet(winners=[1, 2], losers=[3])  # 1 and 2 civilians, 3 mafia
    second = [
        make_row(1, won=False, role=Role.MAFIA),
        make_row(2, role=Role.COMMISSIONER),
        make_row(3, role=Role.CIVILIAN),
    ]
    scored = list(scored_rows([first, second], DEFAULT))
    one = player_stats(1, scored)
    assert one.total == Tally(games=2, wins=1, tenths=10)
    assert one.of(Role.CIVILIAN) == Tally(1, 1, 10)
    assert one.of(Role.MAFIA) == Tally(1, 0, 0)
    assert one.of(Role.COMMISSIONER) == Tally()
    assert everyone(scored)[2].of(Role.COMMISSIONER) == Tally(1, 1, 10)
    assert everyone(scored)[3].total == Tally(2, 1, 10)


@pytest.mark.rule("T4")
def test_T4_a_removed_winner_wins_but_scores_nothing_and_the_bonus_counts() -> None:
    sheet = game_sheet(winners=range(1, 9), losers=range(9, 16), removed=[16])  # 16 players
    stats = everyone(scored_rows([sheet], DEFAULT))
    assert stats[1].total == Tally(1, 1, 12)  # x1.2 at a table of more than 14
    assert stats[16].total == Tally(1, 1, 0)
    assert stats[9].total == Tally(1, 0, 0)


def test_stats_csv_has_a_row_per_player_and_guards_formulas() -> None:
    stats = everyone(scored_rows([game_sheet(winners=[1], losers=[2])], DEFAULT))
    text = stats_csv(stats, {1: "=cmd()", 2: "Bea", 3: "Ann"})
    rows = list(csv.reader(io.StringIO(text)))
    assert tuple(rows[0]) == STATS_HEADER
    assert [r[1] for r in rows[1:]] == ["'=cmd()", "Ann", "Bea"]
    by_nick = {r[1]: dict(zip(STATS_HEADER, r, strict=True)) for r in rows[1:]}
    assert by_nick["'=cmd()"]["points"] == "1.0"
    assert by_nick["'=cmd()"]["civilian_wins"] == "1"
    assert by_nick["Bea"]["mafia_games"] == "1"
    assert by_nick["Ann"]["games"] == "0"  # registered, not yet played
