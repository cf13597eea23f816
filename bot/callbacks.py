"""Every callback button's data, in one place, with short prefixes.

Each carries the game and the step it was made for, so a press left over from an
earlier turn or phase is recognised and refused (PRODUCT: buttons).
"""

from __future__ import annotations

from aiogram.filters.callback_data import CallbackData


class TurnCb(CallbackData, prefix="t"):
    """The speaker's buttons: end the speech (target 0) or nominate seat `target` (D3)."""

    game: int
    step: int
    target: int = 0


class VoteCb(CallbackData, prefix="v"):
    """A final-vote button: a leader's seat, or 0 to abstain (D6)."""

    game: int
    step: int
    target: int


class NightCb(CallbackData, prefix="n"):
    """A night keyboard button: the Commissioner's check or a mafioso's pick (N2, N3)."""

    game: int
    step: int
    target: int


class SanctionCb(CallbackData, prefix="s"):
    """The Host confirms (or cancels, penalty "") the sanction the ladder proposes (V)."""

    game: int
    seat: int
    code: str
    penalty: str


class SignCb(CallbackData, prefix="g"):
    """The Host signs the result sheet (T3)."""

    game: int


class PresenceCb(CallbackData, prefix="p"):
    """A tournament player confirms presence at their table's lobby (T1)."""

    game: int
