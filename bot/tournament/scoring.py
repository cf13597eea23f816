"""T4: points for a game, kept in tenths of a point as integers (never floats).

Every player of the winning side gets one point (10 tenths); when more than
`bonus_threshold` players started the game the point is multiplied by
`bonus_coefficient` (in tenths: 12 -> 1.2 points). A player removed from the game or
disqualified for a violation (V) gets nothing for that game: the sheet row's
`earns_point` is False. Players eliminated by vote, lot or night kill still win with
their side.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Protocol

from bot.rules.sheet import SheetRow
from bot.tournament.errors import BadPoints

POINT = 10  # one point, in tenths


class Scoring(Protocol):
    """What T4 scores by: `TournamentSettings`, or the `Scheme` a sheet was played under."""

    @property
    def bonus_threshold(self) -> int: ...

    @property
    def bonus_coefficient(self) -> int: ...


@dataclass(frozen=True)
class Scheme:
    """The scoring scheme of one game (T3, T4): a signed sheet keeps the one it was played
    under; a later change of the tournament's settings reaches it only by a Judge's
    explicit rescore, a correction kept with its reason."""

    bonus_threshold: int = 14
    bonus_coefficient: int = 12

    @classmethod
    def of(cls, scoring: Scoring) -> Scheme:
        return cls(scoring.bonus_threshold, scoring.bonus_coefficient)

    def to_json(self) -> dict[str, int]:
        return {
            "bonus_threshold": self.bonus_threshold,
            "bonus_coefficient": self.bonus_coefficient,
        }

    @classmethod
    def from_json(cls, value: Mapping[str, object]) -> Scheme:
        return cls(int(str(value["bonus_threshold"])), int(str(value["bonus_coefficient"])))


def win_tenths(players: int, settings: Scoring) -> int:
    """What each winner earns at a table where `players` started the game."""
    if players > settings.bonus_threshold:
        # 1 point x coefficient/10; exact, since a point is 10 tenths.
        return POINT * settings.bonus_coefficient // 10
    return POINT


def game_points(
    rows: Sequence[SheetRow], settings: Scoring, players: int | None = None
) -> dict[int, int]:
    """{user id: tenths} for every player on the sheet (0 for those who earn nothing).

    `players` is how many started the game; by default, the rows on the sheet.
    """
    started = len(rows) if players is None else players
    per_win = win_tenths(started, settings)
    return {row.user_id: per_win if row.earns_point else 0 for row in rows}


def format_tenths(tenths: int, *, signed: bool = False) -> str:
    """12 -> "1.2", -5 -> "-0.5", 0 -> "0.0"; with `signed`, 5 -> "+0.5"."""
    sign = "-" if tenths < 0 else ("+" if signed else "")
    whole, tenth = divmod(abs(tenths), 10)
    return f"{sign}{whole}.{tenth}"


_POINTS = re.compile(r"([+-]?)(\d*)(?:[.,](\d)0*)?")


def parse_tenths(text: str) -> int:
    """The inverse of `format_tenths` for what a Judge types: "1.2", "-0,5", "+1", ".5".

    More than one significant decimal, or anything else, raises `BadPoints`.
    """
    match = _POINTS.fullmatch(text.strip())
    if match is None or not (match[2] or match[3]):
        raise BadPoints(f"not a number of points with at most one decimal: {text!r}", text=text)
    sign, whole, tenth = match.groups()
    value = int(whole or "0") * 10 + int(tenth or "0")
    return -value if sign == "-" else value
