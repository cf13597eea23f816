"""The result sheet of a finished game (T3), derived from the state."""

from __future__ import annotations

from dataclasses import dataclass

from bot.rules.events import Cause
from bot.rules.roles import Role, Side, side_of
from bot.rules.sanctions import Penalty, removes_from_game
from bot.rules.state import GameState


@dataclass(frozen=True)
class SheetRow:
    seat: int
    user_id: int
    nick: str
    role: Role
    side: Side
    left: Cause | None  # None: alive at the end
    won: bool  # their side won (T4: eliminated players still win with their side)
    earns_point: bool  # won, and not removed or disqualified for a violation (T4)
    penalties: tuple[Penalty, ...]


def sheet(state: GameState) -> list[SheetRow]:
    rows = []
    for seat, st in sorted(state.seats.items()):
        role = state.roles[seat]
        side = side_of(role)
        penalties = tuple(s.penalty for s in state.sanctions if s.seat == seat)
        won = state.winner is side
        removed = any(removes_from_game(p) for p in penalties)
        rows.append(
            SheetRow(
                seat, st.user_id, st.nick, role, side, st.left, won, won and not removed, penalties
            )
        )
    return rows
