"""Builders for tournament-core tests: sheet rows by hand, or a game played to its end."""

from __future__ import annotations

from collections.abc import Iterable

from bot.rules import engine
from bot.rules.actions import Sanction
from bot.rules.events import Cause, Player
from bot.rules.roles import Role, Side, side_of
from bot.rules.sanctions import Penalty, VCode
from bot.rules.settings import GameSettings
from bot.rules.sheet import SheetRow
from bot.rules.state import GameState


def make_row(
    user_id: int,
    *,
    won: bool = True,
    earns_point: bool | None = None,
    seat: int | None = None,
    nick: str | None = None,
    role: Role = Role.CIVILIAN,
    left: Cause | None = None,
    penalties: Iterable[Penalty] = (),
) -> SheetRow:
    return SheetRow(
        seat=user_id % 100 if seat is None else seat,
        user_id=user_id,
        nick=f"nick{user_id}" if nick is None else nick,
        role=role,
        side=side_of(role),
        left=left,
        won=won,
        earns_point=won if earns_point is None else earns_point,
        penalties=tuple(penalties),
    )


def game_sheet(
    winners: Iterable[int], losers: Iterable[int] = (), removed: Iterable[int] = ()
) -> list[SheetRow]:
    """A sheet: `winners` earn the point, `removed` won with their side but earn nothing."""
    rows = [make_row(u) for u in winners]
    rows += [
        make_row(u, earns_point=False, left=Cause.REMOVAL, penalties=[Penalty.REMOVAL_FROM_GAME])
        for u in removed
    ]
    rows += [make_row(u, won=False, role=Role.MAFIA) for u in losers]
    return rows


def peaceful_win_by_removals(players: int, removed_civilians: int = 0) -> GameState:
    """A real game of `players`: some civilians removed (V5), then every mafioso
    disqualified (V1), so the peaceful side wins (W2)."""
    state, _ = engine.start_game(
        3, [Player(100 + i, f"p{i}") for i in range(players)], GameSettings(), "seed", 0.0
    )
    now = 1.0
    civilians = [s for s, r in sorted(state.roles.items()) if r is Role.CIVILIAN]
    mafia = [s for s, r in sorted(state.roles.items()) if r is Role.MAFIA]
    for seat in civilians[:removed_civilians]:
        state, _ = engine.apply(state, Sanction(seat, Penalty.REMOVAL_FROM_GAME, VCode.V5), now)
        now += 1.0
    for seat in mafia:
        state, _ = engine.apply(state, Sanction(seat, Penalty.DISQUALIFICATION, VCode.V1), now)
        now += 1.0
    assert state.winner is Side.PEACEFUL
    return state
