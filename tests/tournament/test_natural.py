"""Group codes and nicks sort as people read them (issue 20)."""

from __future__ import annotations

from bot.tournament.natural import natural_key
from bot.tournament.settings import TournamentSettings
from bot.tournament.standings import standings


def test_group_codes_sort_by_their_numbers() -> None:
    codes = ["T1R1G10", "T1R1G2", "T1R1G1", "T2R10G1", "T2R9G3"]
    assert sorted(codes, key=natural_key) == ["T1R1G1", "T1R1G2", "T1R1G10", "T2R9G3", "T2R10G1"]


def test_nicks_sort_by_their_numbers_and_without_case() -> None:
    nicks = ["Анна 112", "анна 16", "Анна 2", "Борис", "Анна"]
    assert sorted(nicks, key=natural_key) == ["Анна", "Анна 2", "анна 16", "Анна 112", "Борис"]


def test_equal_totals_in_the_standings_go_in_natural_order() -> None:
    rows = standings({}, TournamentSettings(), nicks={1: "Анна 112", 2: "Анна 16"})
    assert [r.nick for r in rows] == ["Анна 16", "Анна 112"]
