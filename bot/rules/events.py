"""Events: what happened in a game, in the game's own words.

The protocol of a game is its list of timestamped events; folding them with
`bot.rules.state.evolve` rebuilds the state exactly. Events marked SECRET (the deal,
night actions, the seed) are withheld from anyone but the bot until the game is over.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import ClassVar

from bot.rules.roles import Role, Side
from bot.rules.sanctions import Penalty, VCode
from bot.rules.settings import GameSettings


class Phase(StrEnum):
    SETUP = "setup"
    INTRODUCTION = "introduction"  # Day 0 (D1)
    ACQUAINTANCE = "acquaintance"  # Night 0 (N1)
    ROUND_1 = "round_1"  # D3
    ROUND_2 = "round_2"  # D3, nominations
    DEFENCE = "defence"  # D5
    VOTE = "vote"  # D6
    LAST_WORDS = "last_words"  # D9
    NIGHT = "night"  # N2-N4
    OVER = "over"
    ABORTED = "aborted"


SPEECH_PHASES = frozenset(
    {Phase.INTRODUCTION, Phase.ROUND_1, Phase.ROUND_2, Phase.DEFENCE, Phase.LAST_WORDS}
)
FINAL_PHASES = frozenset({Phase.OVER, Phase.ABORTED})


class Cause(StrEnum):
    """Why a seat left the game (the protocol's departure causes)."""

    VOTE = "vote"  # D7
    LOT = "lot"  # D8
    KILL = "kill"  # N3
    REMOVAL = "removal"  # V: removed from the game or the tour
    DISQUALIFICATION = "disqualification"  # V: removed from the tournament as well

    @property
    def gives_last_word(self) -> bool:
        # D9: vote, lot and night kill give a last word; a removal for a violation does not.
        return self in {Cause.VOTE, Cause.LOT, Cause.KILL}


class SpeechEnd(StrEnum):
    PASSED = "passed"  # the speaker finished early
    TIMEOUT = "timeout"
    SKIPPED = "skipped"  # the Host ended it
    REMOVED = "removed"  # the speaker was removed mid-speech


@dataclass(frozen=True)
class Player:
    user_id: int
    nick: str


@dataclass(frozen=True)
class SeatAssignment:
    seat: int
    user_id: int
    nick: str


@dataclass(frozen=True)
class Event:
    SECRET: ClassVar[bool] = False


@dataclass(frozen=True)
class GameStarted(Event):
    """S3: the game exists; the seed stays secret, its commitment is public."""

    SECRET: ClassVar[bool] = True  # carries the seed
    game_id: int
    settings: GameSettings
    players: list[Player]
    seed: str
    commitment: str
    # A balanced tour's seat order for this table (T1; docs/fairness.md): the player at
    # position i takes seat i + 1. None: the seats are drawn from the seed (S1).
    seat_order: list[int] | None = None


@dataclass(frozen=True)
class SeatsDrawn(Event):
    """S1: seats 1..N."""

    seating: list[SeatAssignment]


@dataclass(frozen=True)
class CardsDealt(Event):
    """S3: one card per seat."""

    SECRET: ClassVar[bool] = True
    roles: dict[int, Role]


@dataclass(frozen=True)
class DayStarted(Event):
    """D2: a new day and its first speaker."""

    day: int
    first_speaker: int


@dataclass(frozen=True)
class SpeechStarted(Event):
    step: int
    phase: Phase
    seat: int
    queue: list[int]  # who speaks after this seat in the same round
    deadline: float


@dataclass(frozen=True)
class SpeechEnded(Event):
    seat: int
    how: SpeechEnd


@dataclass(frozen=True)
class NominationMade(Event):
    """D3."""

    by: int
    nominee: int


@dataclass(frozen=True)
class LeadersChosen(Event):
    """D4: who goes to the final vote, with the nomination counts behind it."""

    leaders: list[int]
    tally: dict[int, int]


@dataclass(frozen=True)
class LotDrawn(Event):
    """D8: nobody was nominated."""

    seat: int


@dataclass(frozen=True)
class VoteOpened(Event):
    step: int
    leaders: list[int]
    deadline: float


@dataclass(frozen=True)
class VoteCast(Event):
    voter: int
    choice: int | None  # None: abstained


@dataclass(frozen=True)
class VoteClosed(Event):
    """D6-D7: every living player's vote (None = abstained) and who leaves."""

    votes: dict[int, int | None]
    leaving: list[int]


@dataclass(frozen=True)
class PlayerLeft(Event):
    seat: int
    cause: Cause


@dataclass(frozen=True)
class LastWordsBegan(Event):
    """D9: these seats speak their last word, then the game goes on to `then`."""

    seats: list[int]
    then: Phase


@dataclass(frozen=True)
class NightStarted(Event):
    step: int
    night: int
    phase: Phase  # ACQUAINTANCE on Night 0, NIGHT afterwards
    deadline: float


@dataclass(frozen=True)
class CheckMade(Event):
    """N2: the Commissioner's check and its exact answer."""

    SECRET: ClassVar[bool] = True
    by: int
    target: int
    is_mafia: bool


@dataclass(frozen=True)
class KillPicked(Event):
    """N3: one mafioso's private pick."""

    SECRET: ClassVar[bool] = True
    by: int
    target: int


@dataclass(frozen=True)
class NightEnded(Event):
    """N6: the morning; `victim` is None on a miss."""

    night: int
    victim: int | None


@dataclass(frozen=True)
class Paused(Event):
    remaining: float


@dataclass(frozen=True)
class Resumed(Event):
    deadline: float
    remaining: float = 0.0  # what the turn has left from now (0 in records made before it)


@dataclass(frozen=True)
class Extended(Event):
    seconds: float
    deadline: float | None  # None while paused: the remaining time grew instead


@dataclass(frozen=True)
class ClockRestarted(Event):
    """D10, T2: the turn of `step` starts its clock again with its full time."""

    step: int
    deadline: float


@dataclass(frozen=True)
class HostChanged(Event):
    """The game passed from one Host to another (user ids); the game itself is unchanged."""

    previous: int
    host: int


@dataclass(frozen=True)
class SanctionGiven(Event):
    """V: a sanction the Host confirmed (code None: a plain removal by the Host)."""

    seat: int
    code: VCode | None
    penalty: Penalty


@dataclass(frozen=True)
class GameWon(Event):
    """W1-W3: decided at the departure that settled it."""

    side: Side


@dataclass(frozen=True)
class GameOver(Event):
    """The end: the winner, and the seed revealed so anyone can recompute every draw."""

    winner: Side
    seed: str


@dataclass(frozen=True)
class GameAborted(Event):
    """The Host stopped the game: no result."""


EVENT_TYPES: dict[str, type[Event]] = {
    cls.__name__: cls
    for cls in (
        GameStarted,
        SeatsDrawn,
        CardsDealt,
        DayStarted,
        SpeechStarted,
        SpeechEnded,
        NominationMade,
        LeadersChosen,
        LotDrawn,
        VoteOpened,
        VoteCast,
        VoteClosed,
        PlayerLeft,
        LastWordsBegan,
        NightStarted,
        CheckMade,
        KillPicked,
        NightEnded,
        Paused,
        Resumed,
        Extended,
        ClockRestarted,
        HostChanged,
        SanctionGiven,
        GameWon,
        GameOver,
        GameAborted,
    )
}
