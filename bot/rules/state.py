"""The game state and `evolve`, the one place where an event changes it.

`evolve` never validates and never draws: it records what an event says. The
decisions live in `bot.rules.engine`; replaying a protocol is folding `evolve`.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, field, replace

from bot.rules.events import (
    FINAL_PHASES,
    SPEECH_PHASES,
    CardsDealt,
    Cause,
    CheckMade,
    ClockRestarted,
    DayStarted,
    Event,
    Extended,
    GameAborted,
    GameOver,
    GameStarted,
    GameWon,
    HostChanged,
    KillPicked,
    LastWordsBegan,
    LeadersChosen,
    LotDrawn,
    NightEnded,
    NightStarted,
    NominationMade,
    Paused,
    Phase,
    PlayerLeft,
    Resumed,
    SanctionGiven,
    SeatsDrawn,
    SpeechEnded,
    SpeechStarted,
    VoteCast,
    VoteClosed,
    VoteOpened,
)
from bot.rules.roles import Role, Side, side_of
from bot.rules.sanctions import Offence, Penalty, VCode, penalty_for
from bot.rules.settings import GameSettings


@dataclass(frozen=True)
class SeatState:
    seat: int
    user_id: int
    nick: str
    alive: bool = True
    left: Cause | None = None
    # When it left, as the table tells it: the day (or night) number, and which of them.
    left_day: int | None = None
    left_at_night: bool = False


@dataclass(frozen=True)
class SanctionRecord:
    seat: int
    code: VCode | None
    penalty: Penalty


@dataclass
class GameState:
    game_id: int
    settings: GameSettings
    seed: str
    commitment: str
    seats: dict[int, SeatState] = field(default_factory=dict)
    roles: dict[int, Role] = field(default_factory=dict)
    phase: Phase = Phase.SETUP
    day: int = 0
    # Every new turn or phase gets the next step number; a timeout or a button carries
    # the step it was made for, so a late one is recognised as stale.
    step: int = 0
    deadline: float | None = None
    paused_remaining: float | None = None  # set while paused: the time left when paused
    first_speaker: int | None = None
    speaker: int | None = None
    queue: list[int] = field(default_factory=list)
    nominations: dict[int, int] = field(default_factory=dict)  # nominator -> nominee
    leaders: list[int] = field(default_factory=list)
    votes: dict[int, int | None] = field(default_factory=dict)
    check: int | None = None  # tonight's checked seat
    kill_picks: dict[int, int] = field(default_factory=dict)  # mafioso -> target
    last_words_then: Phase | None = None
    sanctions: list[SanctionRecord] = field(default_factory=list)
    winner: Side | None = None

    # --- queries -------------------------------------------------------------------

    @property
    def paused(self) -> bool:
        return self.paused_remaining is not None

    @property
    def finished(self) -> bool:
        return self.phase in FINAL_PHASES

    @property
    def in_speech(self) -> bool:
        return self.phase in SPEECH_PHASES

    def sanctions_of(self, seat: int) -> int:
        """How many sanctions the seat has had in this game (a proposal is made for that
        record: one the record has moved past is stale)."""
        return sum(1 for s in self.sanctions if s.seat == seat)

    def casual_penalty(self, seat: int, code: VCode) -> Penalty:
        """RULES V at a game outside a tournament: the record is this game's own (our
        interpretation), and V4's ban, which bars from later tournaments, has none to bar
        from, so it only takes the player out of this game."""
        record = [
            Offence(s.code, self.game_id, s.penalty)
            for s in self.sanctions
            if s.seat == seat and s.code is not None
        ]
        penalty = penalty_for(code, record, self.game_id)
        return Penalty.REMOVAL_FROM_GAME if penalty is Penalty.BAN else penalty

    def living(self) -> list[int]:
        return [s for s, st in sorted(self.seats.items()) if st.alive]

    def is_alive(self, seat: int) -> bool:
        st = self.seats.get(seat)
        return st is not None and st.alive

    def living_of(self, role: Role) -> list[int]:
        return [s for s in self.living() if self.roles[s] is role]

    def living_mafia(self) -> list[int]:
        return self.living_of(Role.MAFIA)

    def living_peaceful(self) -> list[int]:
        return [s for s in self.living() if side_of(self.roles[s]) is Side.PEACEFUL]

    def commissioner(self) -> int:
        return next(s for s, r in self.roles.items() if r is Role.COMMISSIONER)

    def seat_of(self, user_id: int) -> int | None:
        return next((s for s, st in self.seats.items() if st.user_id == user_id), None)

    def clockwise_from(self, start: int, seats: list[int]) -> list[int]:
        """`seats` in clockwise order (S1: increasing number, wrapping N -> 1) from `start`."""
        ordered = sorted(seats)
        after = [s for s in ordered if s >= start]
        before = [s for s in ordered if s < start]
        return after + before

    def clone(self) -> GameState:
        # Seats, records and settings are immutable values; only the containers are copied.
        new = copy.copy(self)
        new.seats = dict(self.seats)
        new.roles = dict(self.roles)
        new.queue = list(self.queue)
        new.nominations = dict(self.nominations)
        new.leaders = list(self.leaders)
        new.votes = dict(self.votes)
        new.kill_picks = dict(self.kill_picks)
        new.sanctions = list(self.sanctions)
        return new


def initial_state(event: GameStarted) -> GameState:
    return GameState(
        game_id=event.game_id,
        settings=event.settings,
        seed=event.seed,
        commitment=event.commitment,
    )


def evolve(state: GameState, event: Event) -> None:
    """Apply `event` to `state` in place (callers work on a clone)."""
    match event:
        case SeatsDrawn(seating=seating):
            state.seats = {a.seat: SeatState(a.seat, a.user_id, a.nick) for a in seating}
        case CardsDealt(roles=roles):
            state.roles = dict(roles)
        case DayStarted(day=day, first_speaker=first):
            state.day = day
            state.first_speaker = first
            state.nominations = {}
            state.leaders = []
            state.votes = {}
        case SpeechStarted(step=step, phase=phase, seat=seat, queue=queue, deadline=deadline):
            _new_step(state, step, phase, deadline)
            state.speaker = seat
            state.queue = list(queue)
        case SpeechEnded():
            state.speaker = None
        case NominationMade(by=by, nominee=nominee):
            state.nominations[by] = nominee
        case LeadersChosen(leaders=leaders):
            state.leaders = list(leaders)
        case LotDrawn():
            pass  # the departure that follows records everything
        case VoteOpened(step=step, leaders=leaders, deadline=deadline):
            _new_step(state, step, Phase.VOTE, deadline)
            state.leaders = list(leaders)
            state.votes = {}
        case VoteCast(voter=voter, choice=choice):
            state.votes[voter] = choice
        case VoteClosed(votes=votes):
            state.votes = dict(votes)
            state.deadline = None
        case PlayerLeft(seat=seat, cause=cause):
            # A night's departures (its kill, a removal during it) carry that night's
            # number; one during the morning's last word is of the day it opens.
            morning = state.phase is Phase.LAST_WORDS and state.last_words_then is Phase.ROUND_1
            at_night = cause is Cause.KILL or state.phase in (Phase.NIGHT, Phase.ACQUAINTANCE)
            state.seats[seat] = replace(
                state.seats[seat],
                alive=False,
                left=cause,
                left_day=state.day + 1 if morning and not at_night else state.day,
                left_at_night=at_night,
            )
        case LastWordsBegan(then=then):
            state.last_words_then = then
        case NightStarted(step=step, night=night, phase=phase, deadline=deadline):
            _new_step(state, step, phase, deadline)
            state.day = night
            state.check = None
            state.kill_picks = {}
            state.speaker = None
            state.queue = []
        case CheckMade(target=target):
            state.check = target
        case KillPicked(by=by, target=target):
            state.kill_picks[by] = target
        case NightEnded():
            state.deadline = None
        case Paused(remaining=remaining):
            state.paused_remaining = remaining
            state.deadline = None
        case Resumed(deadline=deadline):
            state.paused_remaining = None
            state.deadline = deadline
        case Extended(seconds=seconds, deadline=deadline):
            if state.paused_remaining is not None:
                state.paused_remaining += seconds
            else:
                state.deadline = deadline
        case ClockRestarted(deadline=deadline):
            state.deadline = deadline
        case HostChanged():
            pass  # who runs the game is its record's, not the table's: nothing at it changes
        case SanctionGiven(seat=seat, code=code, penalty=penalty):
            state.sanctions.append(SanctionRecord(seat, code, penalty))
        case GameWon(side=side):
            state.winner = side
        case GameOver(winner=winner):
            state.winner = winner
            _final(state, Phase.OVER)
        case GameAborted():
            _final(state, Phase.ABORTED)
        case _:  # pragma: no cover - every event type is listed above
            raise TypeError(f"unknown event {event!r}")


def _new_step(state: GameState, step: int, phase: Phase, deadline: float) -> None:
    state.step = step
    state.phase = phase
    state.deadline = deadline
    state.paused_remaining = None


def _final(state: GameState, phase: Phase) -> None:
    state.phase = phase
    state.step += 1  # every button of the game is stale from now on
    state.deadline = None
    state.paused_remaining = None
    state.speaker = None
    state.queue = []
