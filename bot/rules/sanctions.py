"""The V ladder: which sanction a violation brings, given the player's record.

Interpretation (RULES V): a "tour" is one game; a repeat counts over the whole
tournament, except V5 and V7's warnings, which count within the game. In a casual
game the record is that game's alone.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum


class VCode(StrEnum):
    V1 = "V1"  # revealing one's card
    V2 = "V2"  # rude language, insults
    V3 = "V3"  # opening eyes at night (writing in the group at night)
    V4 = "V4"  # deliberate disruption
    V5 = "V5"  # excessive gesturing (flooding, stickers, distracting media)
    V6 = "V6"  # taking part drunk
    V7 = "V7"  # arguing with the Host


class Penalty(StrEnum):
    WARNING = "warning"
    REMOVAL_FROM_GAME = "removal_from_game"
    REMOVAL_FROM_TOUR = "removal_from_tour"
    DISQUALIFICATION = "disqualification"
    REMOVAL_FROM_TOURNAMENT = "removal_from_tournament"
    BAN = "ban"  # removal from the tournament and a ban from later ones (V4)


@dataclass(frozen=True)
class Offence:
    """One entry of a player's record: what they did, in which game, what it cost."""

    code: VCode
    game_id: int
    penalty: Penalty


def penalty_for(code: VCode, record: Sequence[Offence], game_id: int) -> Penalty:
    """The sanction for a new violation `code` in game `game_id` (V1-V7)."""
    earlier = [o for o in record if o.code is code]
    in_this_game = [o for o in earlier if o.game_id == game_id]
    match code:
        case VCode.V1:
            return Penalty.DISQUALIFICATION
        case VCode.V2:
            return Penalty.WARNING if not earlier else Penalty.DISQUALIFICATION
        case VCode.V3:
            return Penalty.REMOVAL_FROM_TOUR if not earlier else Penalty.DISQUALIFICATION
        case VCode.V4:
            return Penalty.BAN
        case VCode.V5:
            return Penalty.WARNING if not in_this_game else Penalty.REMOVAL_FROM_GAME
        case VCode.V6:
            return Penalty.REMOVAL_FROM_TOURNAMENT
        case VCode.V7:
            if len(in_this_game) < 2:
                return Penalty.WARNING
            removed_before = any(
                o.penalty is Penalty.REMOVAL_FROM_TOUR and o.game_id != game_id for o in earlier
            )
            return Penalty.DISQUALIFICATION if removed_before else Penalty.REMOVAL_FROM_TOUR
    raise AssertionError(code)  # pragma: no cover - the match is exhaustive


def removes_from_game(penalty: Penalty) -> bool:
    """Everything but a warning takes the player out of the running game at once."""
    return penalty is not Penalty.WARNING


def disqualifies(penalty: Penalty) -> bool:
    """Penalties that end the player's tournament: not placed in the standings (T5)."""
    return penalty in {Penalty.DISQUALIFICATION, Penalty.REMOVAL_FROM_TOURNAMENT, Penalty.BAN}
