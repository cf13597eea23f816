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

Balanced tours (`balanced_tours`, on by default; beyond the regulation). Three more things
spread across the tours, each drawn from the same seed and the earlier tours only, by the
exact procedure docs/fairness.md publishes (so anyone can recompute it):
- tablemates: a pair that already met `m` times costs `4**m - 1` (not `m`), so the swaps
  first keep apart the pairs who met most;
- the bonus tables (T4: more than `bonus_threshold` players) when a tour mixes sizes: the
  placement starts with the players who sat at the most bonus tables so far at the smaller
  tables; only a player with at most one bonus table more than the fewest anyone has may
  move to a bonus table (so the counts stay within two of each other), and a bonus seat
  costs ROTATION_WEIGHT per bonus table above the fewest. A rotation kept within one after
  every tour would seat the same people together tour after tour (with 14 and 15, the
  14 of one tour are the bonus table of the next); this one gives way to keep apart the
  pairs who already met most, and keeps within one where that gains nothing;
- several placements (`attempts`: the first in the drawn order, each next in a shuffle of
  its own), each improved by the swaps; the one of the lowest total weight is kept;
- seats: each group's seat order starts from its own seeded shuffle, then two players
  swap seats while that lowers how often they already sat on those seats.
Off, the split is the one above and the games draw their seats themselves (S1).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from itertools import combinations

from bot.rules.draws import shuffled
from bot.tournament.settings import TournamentSettings

DRAW_LABEL = "groups"  # the `bot.rules.draws` label of the players' order
SEATS_LABEL = "groups:{group}:seats"  # a balanced group's first seat order (group from 1)
# Balanced, when a tour mixes bonus and plain tables: what a bonus seat costs a player,
# per bonus table they had above the fewest anyone had (between the weights of a pair that
# met twice, 15, and three times, 63: the rotation gives way to keep such pairs apart).
ROTATION_WEIGHT = 31
AGAIN_LABEL = "groups:again:{attempt}"  # the order of attempt k >= 1 (balanced only)
MOST_ATTEMPTS = 8


def attempts(count: int) -> int:
    """Balanced: how many placements are tried for `count` players (fewer, the more)."""
    return max(1, min(MOST_ATTEMPTS, 600 // max(count, 1)))


@dataclass(frozen=True)
class Rotation:
    """Balanced and mixed: who may sit at a bonus table, who must, and what it costs each."""

    cost: Mapping[int, int]  # the players who may, each with their cost
    must: frozenset[int]


@dataclass(frozen=True)
class Split:
    # Each group's player ids; sizes ascending. Balanced: in seat order (seat i + 1 at
    # position i), groups of a size by their smallest id; else ascending, likewise.
    groups: list[list[int]]
    reserves: list[int]  # players left out of every group, ascending
    repeated_pairs: int  # table-mates who already shared a table in `history`
    legal: bool  # every player seated in groups within the bounds; else the Judge decides
    seated: bool = False  # balanced: `groups` give the seat numbers too
    repeated_seats: int = 0  # balanced: players on a seat number they already had

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
    history: Sequence[Iterable[int]] = (),
    seed: str = "",
    seatings: Iterable[Mapping[int, int]] = (),
) -> Split:
    """T1: the groups for the next tour (see the module docstring for every choice).

    `history` holds the earlier tables' players, `seatings` the earlier games' seat
    number of each player (balanced tours only)."""
    ids = sorted(set(players))
    if len(ids) != len(players):
        raise ValueError("a player is listed twice")
    tables = [frozenset(table) for table in history]
    balanced = settings.balanced_tours
    sizes = group_sizes(len(ids), settings)
    order = shuffled(seed, DRAW_LABEL, ids)
    rank = {p: i for i, p in enumerate(order)}
    played = Counter(p for table in tables for p in table)
    reserve_count = len(ids) - sum(sizes)
    by_priority = sorted(ids, key=lambda p: (-played[p], rank[p]))
    reserves = set(by_priority[:reserve_count])
    seated = [p for p in order if p not in reserves]

    present = set(seated)
    met = meetings(table & present for table in tables)
    adjacent: dict[int, dict[int, int]] = {p: {} for p in seated}
    for (a, b), times in met.items():
        weight = 4**times - 1 if balanced else times
        adjacent[a][b] = weight
        adjacent[b][a] = weight

    # Balanced: which groups are bonus tables, and who has sat at how many of them.
    bonus = [balanced and size > settings.bonus_threshold for size in sizes]
    mixed = any(bonus) and not all(bonus)
    bonus_played = Counter(
        p for table in tables if len(table) > settings.bonus_threshold for p in table
    )
    # The kind of table (bonus or not) each player goes to.
    kind = {p: bool(bonus) and bonus[0] for p in seated}
    if mixed:
        plain = sum(size for size, b in zip(sizes, bonus, strict=True) if not b)
        by_bonus = sorted(seated, key=lambda p: (-bonus_played[p], rank[p]))
        kind = {p: i >= plain for i, p in enumerate(by_bonus)}

    rotation = _rotation(seated, sizes, bonus, bonus_played) if mixed else None
    best: tuple[int, list[list[int]]] | None = None
    for attempt in range(attempts(len(seated)) if balanced else 1):
        # Attempt 0 places the players in `order`, attempt k in a shuffle of its own.
        placing = seated
        if attempt:
            again = shuffled(seed, AGAIN_LABEL.format(attempt=attempt), ids)
            placing = [p for p in again if p in present]
        found = _improve(_greedy(placing, sizes, adjacent, kind, bonus), adjacent, rotation, bonus)
        cost = _cost(found, adjacent, rotation, bonus)
        if best is None or cost < best[0]:  # ties: the earlier attempt
            best = (cost, found)
    assert best is not None
    groups = best[1]
    result = sorted((sorted(g) for g in groups), key=lambda g: (len(g), g))
    repeated_seats = 0
    if balanced:
        sat: dict[int, Counter[int]] = {p: Counter() for p in seated}
        for seating in seatings:
            for p, seat in seating.items():
                if p in sat:
                    sat[p][seat] += 1
        result = [
            seat_order(shuffled(seed, SEATS_LABEL.format(group=i), g), sat)
            for i, g in enumerate(result, 1)
        ]
        repeated_seats = sum(
            1 for g in result for position, p in enumerate(g) if sat[p][position + 1] > 0
        )
    return Split(
        groups=result,
        reserves=sorted(reserves),
        repeated_pairs=sum(
            1 for g in result for pair in combinations(sorted(g), 2) if met[pair] > 0
        ),
        legal=bool(sizes) and reserve_count == 0,
        seated=balanced,
        repeated_seats=repeated_seats,
    )


def seat_order(first: Sequence[int], sat: Mapping[int, Counter[int]]) -> list[int]:
    """Balanced seats: from the order `first` (seat i + 1 at position i), swap the players
    at positions i < j, in that order, whenever each would sit on the other's seat fewer
    times before than on their own together; repeat until a whole pass swaps nothing."""
    order = list(first)
    improved = True
    while improved:  # every swap lowers a non-negative total, so this ends
        improved = False
        for i, j in combinations(range(len(order)), 2):
            a, b = order[i], order[j]
            if sat[a][j + 1] + sat[b][i + 1] < sat[a][i + 1] + sat[b][j + 1]:
                order[i], order[j] = b, a
                improved = True
    return order


def count_repeated_seats(
    groups: Iterable[Sequence[int]], seatings: Iterable[Mapping[int, int]]
) -> int:
    """The players of `groups` (each in seat order) on a seat number they had in `seatings`."""
    had = {(p, seat) for seating in seatings for p, seat in seating.items()}
    return sum(1 for g in groups for i, p in enumerate(g) if (p, i + 1) in had)


def _rotation(
    seated: Sequence[int], sizes: Sequence[int], bonus: Sequence[bool], had: Counter[int]
) -> Rotation:
    """Who may take a bonus seat: those with at most one bonus table more than the fewest
    anyone has, so that no two players' counts end more than two apart; when they are
    fewer than the bonus seats, they must, and anyone may. A seat costs ROTATION_WEIGHT per
    bonus table its player has above the fewest."""
    lowest = min(had[p] for p in seated)
    seats = sum(size for size, b in zip(sizes, bonus, strict=True) if b)
    near = frozenset(p for p in seated if had[p] <= lowest + 1)
    may = near if len(near) >= seats else frozenset(seated)
    must = frozenset() if len(near) >= seats else near
    return Rotation({p: ROTATION_WEIGHT * (had[p] - lowest) for p in may}, must)


def _cost(
    groups: Sequence[Sequence[int]],
    adjacent: dict[int, dict[int, int]],
    rotation: Rotation | None,
    bonus: Sequence[bool],
) -> int:
    """The weights of every pair of tablemates, plus each bonus seat's cost."""
    total = 0
    for i, group in enumerate(groups):
        members = set(group)
        for p in group:
            total += sum(w for q, w in adjacent[p].items() if q in members and q > p)
            if rotation is not None and bonus[i]:
                total += rotation.cost[p]
    return total


def _greedy(
    seated: Sequence[int],
    sizes: Sequence[int],
    adjacent: dict[int, dict[int, int]],
    kind: Mapping[int, bool],
    bonus: Sequence[bool],
) -> list[list[int]]:
    """Each player, in order, joins the group of their kind (bonus table or not) where they
    met the fewest people before (ties: the group with the most room left, then the first)."""
    groups: list[list[int]] = [[] for _ in sizes]
    for player in seated:
        met = adjacent[player]
        best = min(
            (i for i, g in enumerate(groups) if len(g) < sizes[i] and bonus[i] == kind[player]),
            key=lambda i: (sum(met.get(q, 0) for q in groups[i]), len(groups[i]) - sizes[i], i),
        )
        groups[best].append(player)
    return groups


def _improve(
    groups: list[list[int]],
    adjacent: dict[int, dict[int, int]],
    rotation: Rotation | None,
    bonus: Sequence[bool],
) -> list[list[int]]:
    """Swap players between groups while a swap lowers the weights among tablemates plus,
    when bonus and plain tables mix, the cost of each bonus seat (`rotation`): only a
    player who may sit at a bonus table moves to one, and one who must never leaves it."""
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
            if rotation is not None and bonus[ga] != bonus[gb]:
                up, down = (b, a) if bonus[ga] else (a, b)  # up: to the bonus table
                if up not in rotation.cost or down in rotation.must:
                    continue
                delta += rotation.cost[up] - rotation.cost[down]
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
