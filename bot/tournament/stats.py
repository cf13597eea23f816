"""A player's statistics: games, wins and points, in all and by role (issue 12).

Pure arithmetic over sheet rows. A tournament game counts as its signed sheet reads,
the Judge's corrections applied, with the tournament's scoring (T4); a casual game
counts as it ended, scored by the default T4 scheme (a point a win, x1.2 at a table of
more than 14), so that "overall" adds like with like. A game's points are 0 for a
player removed from it (T4), though their side's win still counts as a win.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

from bot.rules.roles import Role
from bot.rules.sheet import SheetRow
from bot.tournament.scoring import Scoring, format_tenths, game_points
from bot.tournament.standings import spreadsheet_text


@dataclass(frozen=True)
class Tally:
    games: int = 0
    wins: int = 0
    tenths: int = 0

    def add(self, won: bool, tenths: int) -> Tally:
        return Tally(self.games + 1, self.wins + int(won), self.tenths + tenths)


@dataclass(frozen=True)
class PlayerStats:
    total: Tally = Tally()
    by_role: Mapping[Role, Tally] = field(default_factory=dict)

    def add(self, row: SheetRow, tenths: int) -> PlayerStats:
        roles = dict(self.by_role)
        roles[row.role] = roles.get(row.role, Tally()).add(row.won, tenths)
        return PlayerStats(self.total.add(row.won, tenths), roles)

    def of(self, role: Role) -> Tally:
        return self.by_role.get(role, Tally())


def scored_rows(
    sheets: Iterable[Sequence[SheetRow]], settings: Scoring
) -> Iterable[tuple[SheetRow, int]]:
    """Every row of every sheet with the points it earned under `settings`."""
    for rows in sheets:
        points = game_points(rows, settings)
        for row in rows:
            yield row, points[row.user_id]


def player_stats(user_id: int, scored: Iterable[tuple[SheetRow, int]]) -> PlayerStats:
    stats = PlayerStats()
    for row, tenths in scored:
        if row.user_id == user_id:
            stats = stats.add(row, tenths)
    return stats


def everyone(scored: Iterable[tuple[SheetRow, int]]) -> dict[int, PlayerStats]:
    found: dict[int, PlayerStats] = {}
    for row, tenths in scored:
        found[row.user_id] = found.get(row.user_id, PlayerStats()).add(row, tenths)
    return found


STATS_HEADER = (
    "user_id",
    "nick",
    "games",
    "wins",
    "points",
    *(f"{role.value}_{what}" for role in Role for what in ("games", "wins", "points")),
)


def stats_csv(stats: Mapping[int, PlayerStats], nicks: Mapping[int, str]) -> str:
    """The tournament's statistics, a row per registered player, by nick."""
    buffer = io.StringIO()
    writer = csv.writer(buffer)
    writer.writerow(STATS_HEADER)
    for uid in sorted(nicks, key=lambda u: (nicks[u].casefold(), u)):
        line = stats.get(uid, PlayerStats())
        cells: list[object] = [uid, spreadsheet_text(nicks[uid])]
        for tally in (line.total, *(line.of(role) for role in Role)):
            cells += [tally.games, tally.wins, format_tenths(tally.tenths)]
        writer.writerow(cells)
    return buffer.getvalue()
