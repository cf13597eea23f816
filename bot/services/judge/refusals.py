"""What the tournament service answers with when it will not do a Judge's request, and
the signed sheet it hands the results.

Named `refusals`, not `errors`: the rules core has its own `errors` (BadSettings and the
game's refusals), and one name should mean one thing (issue 24).
"""

from __future__ import annotations

from dataclasses import dataclass

from bot.rules.sheet import SheetRow
from bot.tournament.scoring import Scheme
from bot.tournament.tours import Table
from storage.games import Game


class TournamentError(Exception):
    """A Judge's request that cannot be done; `key` names the text that says why."""

    def __init__(self, key: str, **values: object) -> None:
        super().__init__(key)
        self.key = key
        self.values = values


class TablesUnfinished(TournamentError):
    """A tour (or the tournament) cannot go on: `tables` are what keeps it, by state."""

    def __init__(self, key: str, tables: list[Table], **values: object) -> None:
        super().__init__(key, **values)
        self.tables = tables


@dataclass(frozen=True)
class SignedSheet:
    game: Game
    rows: list[SheetRow]
    changes: list[str]
    scheme: Scheme  # T3, T4: what it is scored by (as played, or as the Judge rescored it)
