"""T5: the standings from the signed sheets, the Judge's adjustments and the sanctions.

Interpretation (RULES T5). Equal totals share a place, "competition ranking": totals
5, 3, 3, 1 take places 1, 2, 2, 4 (the place after a tie is skipped), so the top
three (`top_three`, places 1-3) may be more than three people. Disqualified
players (and those removed from the tournament, V4/V6) are listed after the placed
ones with their totals but no place. Within equal totals rows go by nick as people
read it ("Анна 16" before "Анна 112", bot.tournament.natural), then id.

`wins` counts the games a player's side won (the sheet's `won`), removed
winners included; their points for that game are still 0 (T4). The points of every
game follow the scheme it was played under (`schemes`, by game id: a signed sheet keeps
its scheme, T3), else the tournament's current scoring settings.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass

from bot.rules.sheet import SheetRow
from bot.tournament.natural import natural_key
from bot.tournament.scoring import Scoring, format_tenths, game_points
from bot.tournament.settings import TournamentSettings


@dataclass(frozen=True)
class Adjustment:
    """A Judge's decision on points (T5, 7.1): kept with its reason and shown in the history."""

    user_id: int
    tenths: int  # may be negative
    reason: str
    at: float  # when the Judge recorded it (the caller's clock)


@dataclass(frozen=True)
class StandingsRow:
    place: int | None  # None: disqualified, listed but not placed (T5)
    user_id: int
    nick: str
    total_tenths: int  # game points plus adjustments
    games: int  # signed sheets the player is on
    wins: int  # of those, games their side won
    adjustments: tuple[Adjustment, ...]  # oldest first
    # T5: the tie-break criterion that decided this place (bot.tournament.tiebreak); None
    # where the total alone did, or the place is still shared.
    decided_by: str | None = None

    @property
    def disqualified(self) -> bool:
        return self.place is None


def standings(
    sheets: Mapping[int, Sequence[SheetRow]],
    settings: TournamentSettings,
    adjustments: Iterable[Adjustment] = (),
    disqualified: Collection[int] = frozenset(),
    nicks: Mapping[int, str] | None = None,
    schemes: Mapping[int, Scoring] | None = None,
) -> list[StandingsRow]:
    """The table: placed players by total descending, then the disqualified.

    `sheets`: game id -> that game's signed sheet. Everyone on a sheet, adjusted,
    disqualified or in `nicks` is listed. A nick comes from `nicks` (the registered
    nick), else from the player's latest sheet, else it is empty.
    """
    names = dict(nicks or {})
    totals: dict[int, int] = dict.fromkeys(names, 0)
    games: dict[int, int] = dict.fromkeys(names, 0)
    wins: dict[int, int] = dict.fromkeys(names, 0)
    notes: dict[int, list[Adjustment]] = {}
    sheet_nick: dict[int, str] = {}
    played = schemes or {}
    for game_id, rows in sorted(sheets.items()):
        points = game_points(rows, played.get(game_id, settings))
        for row in rows:
            uid = row.user_id
            totals[uid] = totals.get(uid, 0) + points[uid]
            games[uid] = games.get(uid, 0) + 1
            wins[uid] = wins.get(uid, 0) + int(row.won)
            sheet_nick[uid] = row.nick
    for adj in adjustments:
        totals[adj.user_id] = totals.get(adj.user_id, 0) + adj.tenths
        notes.setdefault(adj.user_id, []).append(adj)
    for uid in disqualified:
        totals.setdefault(uid, 0)

    def row_for(uid: int, place: int | None) -> StandingsRow:
        return StandingsRow(
            place=place,
            user_id=uid,
            nick=names.get(uid, sheet_nick.get(uid, "")),
            total_tenths=totals[uid],
            games=games.get(uid, 0),
            wins=wins.get(uid, 0),
            adjustments=tuple(sorted(notes.get(uid, ()), key=lambda a: a.at)),
        )

    def order(uid: int) -> tuple[int, tuple[tuple[int, str | int], ...], int]:
        nick = names.get(uid, sheet_nick.get(uid, ""))
        return (-totals[uid], natural_key(nick), uid)

    out = set(disqualified)
    placed = sorted((uid for uid in totals if uid not in out), key=order)
    table: list[StandingsRow] = []
    for index, uid in enumerate(placed):
        tied = index > 0 and totals[uid] == totals[placed[index - 1]]
        table.append(row_for(uid, table[-1].place if tied else index + 1))
    table.extend(row_for(uid, None) for uid in sorted(out, key=order))
    return table


def top_three(rows: Iterable[StandingsRow]) -> list[StandingsRow]:
    """Everyone placed 1st, 2nd or 3rd (with shared places, possibly more than three)."""
    return [r for r in rows if r.place is not None and r.place <= 3]


# CSV exports. Points are decimals ("1.2"); booleans are 1/0. A text cell that a
# spreadsheet would read as a formula (=, +, -, @ first) is prefixed with an apostrophe.

_FORMULA_START = ("=", "+", "-", "@", "\t", "\r")


def _text(value: str) -> str:
    return "'" + value if value.startswith(_FORMULA_START) else value


spreadsheet_text = _text  # for the other exports (bot.tournament.stats)


def _csv(header: Sequence[str], rows: Iterable[Sequence[object]]) -> str:
    buffer = io.StringIO()
    writer = csv.writer(buffer)
    writer.writerow(header)
    writer.writerows(rows)
    return buffer.getvalue()


STANDINGS_HEADER = (
    "place",
    "user_id",
    "nick",
    "total",
    "games",
    "wins",
    "disqualified",
    "adjustments",
    "adjustment_reasons",
)


def standings_csv(rows: Iterable[StandingsRow]) -> str:
    """The standings as CSV; an empty place is a disqualified player."""
    return _csv(
        STANDINGS_HEADER,
        (
            (
                "" if r.place is None else r.place,
                r.user_id,
                _text(r.nick),
                format_tenths(r.total_tenths),
                r.games,
                r.wins,
                int(r.disqualified),
                format_tenths(sum(a.tenths for a in r.adjustments)),
                _text(
                    "; ".join(
                        f"{a.reason} ({format_tenths(a.tenths, signed=True)})"
                        for a in r.adjustments
                    )
                ),
            )
            for r in rows
        ),
    )


SHEETS_HEADER = (
    "game_id",
    "seat",
    "user_id",
    "nick",
    "role",
    "side",
    "left",
    "won",
    "earns_point",
    "points",
    "penalties",
)


def sheets_csv(
    sheets: Mapping[int, Sequence[SheetRow]],
    settings: TournamentSettings,
    schemes: Mapping[int, Scoring] | None = None,
) -> str:
    """Every sheet as CSV, one row per player, by game id then seat (T3, T4)."""
    lines: list[Sequence[object]] = []
    played = schemes or {}
    for game_id, rows in sorted(sheets.items()):
        points = game_points(rows, played.get(game_id, settings))
        lines.extend(
            (
                game_id,
                row.seat,
                row.user_id,
                _text(row.nick),
                row.role.value,
                row.side.value,
                "" if row.left is None else row.left.value,
                int(row.won),
                int(row.earns_point),
                format_tenths(points[row.user_id]),
                ";".join(p.value for p in row.penalties),
            )
            for row in sorted(rows, key=lambda r: r.seat)
        )
    return _csv(SHEETS_HEADER, lines)
