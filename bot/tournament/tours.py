"""A tour's lifecycle (T1, T3, T5): what each table of a confirmed tour has come to.

A tour is confirmed once (`/groups confirm`); while none of its games has begun the
Judge may cancel or redraw it. It is complete when every table's game is over and its
sheet signed (T3); the next tour and `/finish` wait for that, unless the Judge says
otherwise for the next tour. Everything here follows from what is stored: the groups,
their games' statuses and signatures.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable
from dataclasses import dataclass
from enum import StrEnum


class TableState(StrEnum):
    UNBOUND = "unbound"  # no game chat yet (/bind)
    BOUND = "bound"  # a chat, no game opened (/newgame)
    LOBBY = "lobby"  # players are marking in
    PLAYING = "playing"
    STOPPED = "stopped"  # the game was stopped (/stop): a new one is needed
    UNSIGNED = "unsigned"  # over, its sheet awaits the Host's signature
    SIGNED = "signed"


# Once a table's game is dealt, the tour has begun: it is no longer cancelled or redrawn.
BEGUN = frozenset({TableState.PLAYING, TableState.UNSIGNED, TableState.SIGNED})


def table_state(bound: bool, game_status: str | None, signed: bool) -> TableState:
    """A table's state from its chat, its game's status (None: no game) and signature."""
    if game_status is None:
        return TableState.BOUND if bound else TableState.UNBOUND
    if game_status == "lobby":
        return TableState.LOBBY
    if game_status == "running":
        return TableState.PLAYING
    if game_status == "over":
        return TableState.SIGNED if signed else TableState.UNSIGNED
    return TableState.STOPPED


@dataclass(frozen=True)
class Table:
    """One table of a tour as the Judge sees it."""

    code: str
    tour: int
    players: tuple[int, ...]
    state: TableState
    chat_id: int | None = None
    host_user_id: int | None = None
    game_id: int | None = None
    present: frozenset[int] = frozenset()  # who marked in at the lobby
    in_chat: frozenset[int] | None = None  # a bound table's roster in its chat (None: unasked)

    @property
    def not_joined(self) -> tuple[int, ...]:
        """The roster's players not (yet) in the lobby; at a dealt table, who did not come;
        at a bound table with no game yet, who has not come into its chat (if asked)."""
        if self.state is TableState.BOUND and self.in_chat is not None:
            return tuple(p for p in self.players if p not in self.in_chat)
        if self.state in (TableState.UNBOUND, TableState.BOUND, TableState.STOPPED):
            return ()
        return tuple(p for p in self.players if p not in self.present)


def unfinished(tables: Iterable[Table]) -> list[Table]:
    """The tables whose game is not over or whose sheet is not signed (T3)."""
    return [t for t in tables if t.state is not TableState.SIGNED]


def begun(tables: Iterable[Table]) -> list[Table]:
    """The tables whose game has been dealt."""
    return [t for t in tables if t.state in BEGUN]


def redraw_seed(tournament_id: int, tour: int, draws_before: int) -> str:
    """The seed of a tour's split: the first draw's is "T:R", a redraw's "T:R:n"."""
    base = f"{tournament_id}:{tour}"
    return base if draws_before == 0 else f"{base}:{draws_before}"


def absent(roster: Collection[int], seated: Collection[int]) -> list[int]:
    """Who was on the table's roster but not dealt in: recorded absent on the sheet."""
    return [p for p in roster if p not in seated]
