"""T1: groups of 12-16, as even as possible; impossible counts; fewer repeated pairs."""

from __future__ import annotations

from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bot.rules.settings import GameSettings
from bot.tournament.groups import Split, count_repeated_pairs, group_sizes, split
from bot.tournament.settings import TournamentSettings

DEFAULT = TournamentSettings()


def ids(n: int, base: int = 5000) -> list[int]:
    return list(range(base, base + n))


def case(n: int, sizes: list[int], reserves: int, legal: bool, why: str) -> object:
    return pytest.param(n, sizes, reserves, legal, id=f"{n} players: {why}")


SPLITS = [
    case(0, [], 0, False, "nobody"),
    case(11, [], 11, False, "fewer than the minimum, all reserves"),
    case(12, [12], 0, True, "one group at the minimum"),
    case(13, [13], 0, True, "one group"),
    case(14, [14], 0, True, "one group"),
    case(15, [15], 0, True, "one group"),
    case(16, [16], 0, True, "one group at the maximum"),
    case(17, [16], 1, False, "too many for one, too few for two"),
    case(19, [16], 3, False, "the RULES example"),
    case(23, [16], 7, False, "one short of two groups"),
    case(24, [12, 12], 0, True, "two minimal groups"),
    case(29, [14, 15], 0, True, "sizes differ by one"),
    case(32, [16, 16], 0, True, "two full groups"),
    case(33, [16, 16], 1, False, "between two and three groups"),
    case(35, [16, 16], 3, False, "one short of three groups"),
    case(40, [13, 13, 14], 0, True, "three groups"),
    case(48, [16, 16, 16], 0, True, "fewest groups when several counts fit"),
    case(49, [12, 12, 12, 13], 0, True, "four groups"),
]


@pytest.mark.rule("T1")
@pytest.mark.parametrize(("n", "sizes", "reserves", "legal"), SPLITS)
def test_T1_split_sizes(n: int, sizes: list[int], reserves: int, legal: bool) -> None:
    result = split(ids(n), DEFAULT, seed="tour-1")
    assert result.sizes == sizes
    assert len(result.reserves) == reserves
    assert result.legal is legal
    assert group_sizes(n, DEFAULT) == sizes
    assert sorted([*result.reserves, *(p for g in result.groups for p in g)]) == ids(n)


@pytest.mark.rule("T1")
def test_T1_other_bounds_follow_the_settings() -> None:
    small = TournamentSettings(
        group_min=6, group_max=8, game=GameSettings(min_players=6, max_players=8)
    )
    assert group_sizes(20, small) == [6, 7, 7]
    assert group_sizes(9, small) == [8]  # 9 cannot be split in 6..8: one full group, 1 reserve
    assert split(ids(9), small).reserves != []


@pytest.mark.rule("T1")
def test_T1_the_split_is_a_seeded_draw_independent_of_input_order() -> None:
    players = ids(40)
    first = split(players, DEFAULT, seed="s")
    assert split(list(reversed(players)), DEFAULT, seed="s") == first
    assert split(players, DEFAULT, seed="other") != first


@pytest.mark.rule("T1")
def test_T1_a_player_listed_twice_is_refused() -> None:
    with pytest.raises(ValueError, match="twice"):
        split([1, 2, 2], DEFAULT)


@pytest.mark.rule("T1")
def test_T1_reserves_are_those_who_played_most_so_far() -> None:
    players = ids(19)
    sat_out = players[:3]  # they were reserves last tour
    history = [frozenset(players[3:])]
    result = split(players, DEFAULT, history, seed="tour-2")
    assert not set(sat_out) & set(result.reserves)
    assert len(result.reserves) == 3


def play_tours(players: list[int], tours: int, use_history: bool) -> tuple[list[Split], int]:
    """Split `tours` times; return the splits and the repeated pairs over all tours."""
    history: list[frozenset[int]] = []
    splits = []
    repeated = 0
    for tour in range(1, tours + 1):
        result = split(players, DEFAULT, history if use_history else (), seed=f"tour-{tour}")
        repeated += count_repeated_pairs(result.groups, history)
        if use_history:
            assert result.repeated_pairs == count_repeated_pairs(result.groups, history)
        history += [frozenset(g) for g in result.groups]
        splits.append(result)
    return splits, repeated


@pytest.mark.rule("T1")
def test_T1_three_tours_of_40_repeat_fewer_pairs_than_a_naive_split() -> None:
    players = ids(40)
    smart, smart_repeats = play_tours(players, 3, use_history=True)
    _naive, naive_repeats = play_tours(players, 3, use_history=False)
    assert all(s.sizes == [13, 13, 14] and s.legal for s in smart)
    assert smart[0].repeated_pairs == 0
    # Tour 2: each new group of 13-14 takes players from 3 old groups, so at best 40
    # players fall into 9 cells of 4 or 5: 4 x C(5,2) + 5 x C(4,2) = 70 repeated pairs.
    assert smart[1].repeated_pairs == 70
    assert smart_repeats < naive_repeats


@pytest.mark.rule("T1")
def test_T1_history_of_players_no_longer_registered_is_ignored() -> None:
    players = ids(12)
    history = [frozenset({*players[:6], 1, 2, 3})]
    result = split(players, DEFAULT, history)
    assert result.repeated_pairs == 15  # C(6, 2): one table of 12, no way to keep them apart


@pytest.mark.rule("T1")
@settings(max_examples=150, deadline=None)
@given(
    count=st.integers(min_value=0, max_value=90),
    low=st.integers(min_value=5, max_value=16),
    spread=st.integers(min_value=0, max_value=6),
    seed=st.text(max_size=8),
    tours=st.integers(min_value=0, max_value=2),
)
def test_T1_property_every_player_once_and_sizes_within_bounds(
    count: int, low: int, spread: int, seed: str, tours: int
) -> None:
    high = min(16, low + spread)
    conf = TournamentSettings(
        group_min=low, group_max=high, game=GameSettings(min_players=low, max_players=high)
    )
    players = ids(count)
    history: list[frozenset[int]] = []
    for tour in range(tours):  # earlier tours, so the swap search has something to do
        history += [frozenset(g) for g in split(players, conf, history, f"{seed}{tour}").groups]
    result = split(players, conf, history, seed)

    seen = Counter([*result.reserves, *(p for g in result.groups for p in g)])
    assert sorted(seen) == players and set(seen.values()) <= {1}
    sizes = result.sizes
    assert all(low <= s <= high for s in sizes)
    assert not sizes or max(sizes) - min(sizes) <= 1
    # As many seated as any number of groups within the bounds could seat.
    best = max(min(count, k * high) for k in range(count // low + 1))
    assert sum(sizes) == best
    assert result.legal == (bool(sizes) and not result.reserves)
    assert result.repeated_pairs == count_repeated_pairs(result.groups, history)
