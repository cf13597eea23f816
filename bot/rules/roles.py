"""Roles and sides (S2)."""

from __future__ import annotations

from enum import StrEnum


class Role(StrEnum):
    CIVILIAN = "civilian"  # Мирный житель
    COMMISSIONER = "commissioner"  # Комиссар
    MAFIA = "mafia"  # Мафия


class Side(StrEnum):
    PEACEFUL = "peaceful"  # Civilians plus the Commissioner (S2)
    MAFIA = "mafia"


def side_of(role: Role) -> Side:
    return Side.MAFIA if role is Role.MAFIA else Side.PEACEFUL


def role_deck(players: int, mafiosi: int) -> list[Role]:
    """The cards for one game before the shuffle: 1 Commissioner, the mafiosi, civilians (S2)."""
    civilians = players - mafiosi - 1
    return [Role.COMMISSIONER] + [Role.MAFIA] * mafiosi + [Role.CIVILIAN] * civilians
