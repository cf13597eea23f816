"""T1: splitting the tournament's players into game groups for a tour.

Sizes. `count` players go into groups of `group_min..group_max` that differ by at most
one. When several group counts fit (48 players: 3 x 16 or 4 x 12) the fewest groups
are used, so fewer Hosts and chats are needed and more tables earn the T4 bonus.

Impossible counts (RULES T1 interpretation; with 12..16: fewer than 12, 17-23, 33-35).
The nearest legal split is proposed and marked `legal=False`, so the Judge decides:
seat as many players as possible, then as evenly as possible. With `n // group_min`
groups no larger count fits, and all of them are full (`group_max`); the rest are
reserves: 19 -> one group of 16 and 3 reserves, 33 -> 16 + 16 and 1 reserve, 11 -> no
group and 11 reserves.

Who is a reserve. Those who have played the most tables so far (per `history`), so
a player who sat out a tour is seated first next time; ties go by the seeded draw.

Who sits with whom. From the second tour on, `history` holds the earlier tables as
sets of player ids. The split minimises the number of earlier meetings among
table-mates (a pair that shared two tables counts twice): a greedy placement in the
seeded order, then pairwise swaps between groups while any swap lowers the count.
The result depends only on the set of players, the settings, the history and the seed.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from itertools import combinations

from bot.rules.draws import shuffled
from bot.tournament.settings import TournamentSettings

DRAW_LABEL = "groups"  # the `bot.rules.draws` label of the players' order


@dataclass(frozen=True)
class Split:
    groups: list[list[int]]  # each group's player ids, ascending; sizes ascending
    reserves: list[int]  # players left out of every group, ascending
    repeated_pairs: int  # table-mates who already shared a table in `history`
    legal: bool  # every player seated in groups within the bounds; else the Judge decides

    @property
    def sizes(self) -> list[int]:
        return [len(g) for g in self.groups]


def group_sizes(count: int, settings: TournamentSettings) -> list[int]:
    """The group sizes for `count` players, ascending (the nearest legal split if none fits)."""
    low, high = settings.group_min, settings.group_max
    if count < low:
        return []
    groups = -(-count // high)  # the fewest groups that can hold everyone
    if groups * low <= count:
        base, extra = divmod(count, groups)
        return [base] * (groups - extra) + [base + 1] * extra
    return [high] * (count // low)


def meetings(history: Iterable[Iterable[int]]) -> Counter[tuple[int, int]]:
    """How many earlier tables each pair (smaller id first) shared."""
    met: Counter[tuple[int, int]] = Counter()
    for table in history:
        met.update(combinations(sorted(set(table)), 2))
    return met


def count_repeated_pairs(groups: Iterable[Iterable[int]], history: Iterable[Iterable[int]]) -> int:
    """The pairs of table-mates in `groups` who already shared a table in `history`."""
    met = meetings(history)
    return sum(
        1 for group in groups for pair in combinations(sorted(set(group)), 2) if met[pair] > 0
    )


def split(
    players: Sequence[int],
    settings: TournamentSettings,
    history: Sequence[frozenset[int]] = (),
    seed: str = "",
) -> Split:
    """T1: the groups for the next tour (see the module docstring for every choice)."""
    ids = sorted(set(players))
    if len(ids) != len(players):
        raise ValueError("a player is listed twice")
    sizes = group_sizes(len(ids), settings)
    order = shuffled(seed, DRAW_LABEL, ids)
    rank = {p: i for i, p in enumerate(order)}
    played = Counter(p for table in history for p in set(table))
    reserve_count = len(ids) - sum(sizes)
    by_priority = sorted(ids, key=lambda p: (-played[p], rank[p]))
    reserves = set(by_priority[:reserve_count])
    seated = [p for p in order if p not in reserves]

    present = set(seated)
    met = meetings(frozenset(table) & present for table in history)
    adjacent: dict[int, dict[int, int]] = {p: {} for p in seated}
    for (a, b), times in met.items():
        adjacent[a][b] = times
        adjacent[b][a] = times

    groups = _improve(_greedy(seated, sizes, adjacent), adjacent)
    result = sorted((sorted(g) for g in groups), key=lambda g: (len(g), g))
    return Split(
        groups=result,
        reserves=sorted(reserves),
        repeated_pairs=sum(1 for g in result for pair in combinations(g, 2) if met[pair] > 0),
        legal=bool(sizes) and reserve_count == 0,
    )


def _greedy(
    seated: Sequence[int], sizes: Sequence[int], adjacent: dict[int, dict[int, int]]
) -> list[list[int]]:
    """Each player, in order, joins the group where they met the fewest people before
    (ties: the group with the most room left, then the first)."""
    groups: list[list[int]] = [[] for _ in sizes]
    for player in seated:
        met = adjacent[player]
        best = min(
            (i for i, g in enumerate(groups) if len(g) < sizes[i]),
            key=lambda i: (sum(met.get(q, 0) for q in groups[i]), len(groups[i]) - sizes[i], i),
        )
        groups[best].append(player)
    return groups


def _improve(groups: list[list[int]], adjacent: dict[int, dict[int, int]]) -> list[list[int]]:
    """Swap players between groups while a swap lowers the earlier meetings among mates."""
    where = {p: i for i, g in enumerate(groups) for p in g}
    players = [p for g in groups for p in g]
    # cost[p][i]: how many earlier meetings p has with the members of group i.
    cost = {p: [0] * len(groups) for p in players}
    for p in players:
        for q, times in adjacent[p].items():
            cost[p][where[q]] += times
    improved = True
    while improved:  # every swap lowers a non-negative total, so this ends
        improved = False
        for a, b in combinations(players, 2):
            ga, gb = where[a], where[b]
            if ga == gb:
                continue
            ab = adjacent[a].get(b, 0)
            delta = (cost[a][gb] - ab) + (cost[b][ga] - ab) - cost[a][ga] - cost[b][gb]
            if delta >= 0:
                continue
            where[a], where[b] = gb, ga
            for q, times in adjacent[a].items():
                cost[q][ga] -= times
                cost[q][gb] += times
            for q, times in adjacent[b].items():
                cost[q][gb] -= times
                cost[q][ga] += times
            improved = True
    result: list[list[int]] = [[] for _ in groups]
    for p in players:
        result[where[p]].append(p)
    return result
