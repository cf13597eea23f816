"""Typed rule errors: an illegal action raises one of these and changes nothing.

Each carries a stable `code` that the adapters turn into a message in the person's
language, and the values the message needs.
"""

from __future__ import annotations

from typing import ClassVar


class RuleError(Exception):
    code: ClassVar[str] = "rule"

    def __init__(self, detail: str = "", **values: object) -> None:
        super().__init__(detail or self.code)
        self.values = values


class BadSettings(RuleError, ValueError):
    code = "bad_settings"


class BadPlayerCount(RuleError):
    code = "bad_player_count"


class GameFinished(RuleError):
    code = "game_finished"


class WrongPhase(RuleError):
    code = "wrong_phase"


class NotYourTurn(RuleError):
    code = "not_your_turn"


class UnknownSeat(RuleError):
    code = "unknown_seat"


class SeatNotAlive(RuleError):
    """The acting seat has left the game (D6, N2, N3: only living players act)."""

    code = "seat_not_alive"


class InvalidTarget(RuleError):
    code = "invalid_target"


class AlreadyNominated(RuleError):
    code = "already_nominated"


class AlreadyVoted(RuleError):
    code = "already_voted"


class AlreadyActed(RuleError):
    code = "already_acted"


class NotYourRole(RuleError):
    code = "not_your_role"


class StaleAction(RuleError):
    """An action meant for an earlier turn or phase (an old button, a late timer)."""

    code = "stale"


class TooEarly(RuleError):
    code = "too_early"


class GamePaused(RuleError):
    code = "paused"


class NotPaused(RuleError):
    code = "not_paused"
