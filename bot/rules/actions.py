"""Actions: what a person (or the clock) asks the game to do.

Player actions name the acting seat; Host actions carry none (the adapter checks
that the sender is the Host). A `Timeout` is an action like any other: the caller
delivers it when the deadline of step `step` is due.

A button's action carries the step it was made for (`step`): at any other step it is
stale and refused (`StaleAction`), even when the same seat is acting again. An action
with no step (a typed command) is for the step it arrives at.
"""

from __future__ import annotations

from dataclasses import dataclass

from bot.rules.sanctions import Penalty, VCode


@dataclass(frozen=True)
class Pass:
    """The speaker ends their turn early (D10)."""

    seat: int
    step: int | None = None


@dataclass(frozen=True)
class Nominate:
    seat: int
    target: int
    step: int | None = None


@dataclass(frozen=True)
class Vote:
    seat: int
    choice: int | None  # a leader's seat, or None to abstain
    step: int | None = None


@dataclass(frozen=True)
class Check:
    seat: int
    target: int
    step: int | None = None


@dataclass(frozen=True)
class Kill:
    seat: int
    target: int
    step: int | None = None


@dataclass(frozen=True)
class Timeout:
    step: int


@dataclass(frozen=True)
class Pause:
    step: int | None = None


@dataclass(frozen=True)
class Resume:
    step: int | None = None


@dataclass(frozen=True)
class Skip:
    """The Host ends the current turn or phase."""

    step: int | None = None


@dataclass(frozen=True)
class Extend:
    seconds: float
    step: int | None = None


@dataclass(frozen=True)
class Sanction:
    """The Host confirms a sanction (code None: a plain `/remove`)."""

    seat: int
    penalty: Penalty
    code: VCode | None = None


@dataclass(frozen=True)
class Stop:
    """The Host aborts the game: no result."""


@dataclass(frozen=True)
class Announced:
    """The group saw the announcement of the turn `step` (or it could not be sent).

    The turn's clock started when the turn began; seen late past the settings'
    `late_announcement_seconds`, the turn starts its clock again with its full time, so
    that nobody loses the seconds the message spent waiting for the group's window.
    """

    step: int


@dataclass(frozen=True)
class HandOver:
    """The Host gives the game to another member of the group (`/host`).

    The game goes on as it stands; the protocol records who ran it from then on, so that
    the sheet names every Host of the game, not only the last (T3).
    """

    previous: int  # the user id of the Host until now
    host: int  # the user id of the Host from now


@dataclass(frozen=True)
class RestartClock:
    """The current turn starts its clock again, with its full time (D10, T2).

    The service asks for it when the bot comes back and finds that the turn's
    announcement never reached the group: nobody knew the turn had begun.
    """


PlayerAction = Pass | Nominate | Vote | Check | Kill
HostAction = Pause | Resume | Skip | Extend | Sanction | Stop | HandOver
Action = PlayerAction | HostAction | Timeout | RestartClock | Announced
