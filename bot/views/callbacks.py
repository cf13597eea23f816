"""Every callback button's data, in one place, with short prefixes.

Each carries the game and the step it was made for, so a press left over from an
earlier turn or phase is recognised and refused (PRODUCT: buttons).
"""

from __future__ import annotations

from typing import Annotated

from aiogram.filters.callback_data import CallbackData
from pydantic import Field

# A game id as SQLite stores it: forged data with a larger number is not a button of ours.
GameId = Annotated[int, Field(ge=0, lt=2**63)]


class TurnCb(CallbackData, prefix="t"):
    """The speaker's buttons: end the speech (target 0) or nominate seat `target` (D3)."""

    game: GameId
    step: int
    target: int = 0


class VoteCb(CallbackData, prefix="v"):
    """A final-vote button: a leader's seat, or 0 to abstain (D6)."""

    game: GameId
    step: int
    target: int


class NightCb(CallbackData, prefix="n"):
    """A night keyboard button: the Commissioner's check or a mafioso's pick (N2, N3)."""

    game: GameId
    step: int
    target: int


class SanctionCb(CallbackData, prefix="s"):
    """The Host confirms (or cancels, penalty "") the sanction the ladder proposes (V)."""

    game: GameId
    seat: int
    code: str
    penalty: str
    given: int = 0  # the seat's sanctions in this game when it was proposed


class WarnCb(CallbackData, prefix="w"):
    """The Host's `/warn N` with no violation: the violation `code`, chosen in words, for
    the ladder's proposal (V); `given` is the seat's record it was offered for."""

    game: GameId
    seat: int
    code: str
    given: int = 0


class SignCb(CallbackData, prefix="g"):
    """The Host signs the result sheet (T3)."""

    game: GameId


class PresenceCb(CallbackData, prefix="p"):
    """A tournament player confirms presence at their table's lobby (T1)."""

    game: GameId


class BanCb(CallbackData, prefix="b"):
    """The tournament's Judge confirms (or declines) the ban a Host's V4 sanction asked for."""

    request: GameId  # a ban request's id, bounded as a game's
    confirm: bool


class PanelCb(CallbackData, prefix="h"):
    """A button of the Host's private panel.

    `do` is pause, resume, extend or skip (made for `step`: a press after the turn moved
    on is stale), or a step of the sanction picker: warn (choose a seat), seat (choose
    the violation for `seat`), code (the violation `code` chosen: the ladder's sanction
    is proposed), back (the picker closes).
    """

    game: GameId
    step: int
    do: str
    seat: int = 0
    code: str = ""


class AwayCb(CallbackData, prefix="a"):
    """The Host stops, from private, a game whose group the bot was removed from."""

    game: GameId
