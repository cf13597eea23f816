"""Builders for rules-core tests: start a game, find seats by role, drive it forward.

`Game` wraps the pure engine: it keeps the state, a clock, the protocol (timestamped
events) and every event emitted so far, so a test reads as a short story of actions.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Iterable, Sequence
from typing import TypeVar

import pytest

from bot.rules import engine
from bot.rules.actions import Action, Check, Kill, Nominate, Pass, Sanction, Timeout, Vote
from bot.rules.errors import RuleError
from bot.rules.events import Event, GameStarted, Phase, Player
from bot.rules.protocol import Entry, replay, stamp, state_to_json
from bot.rules.roles import Role, Side, side_of
from bot.rules.sanctions import Penalty, VCode
from bot.rules.settings import GameSettings, KillRule
from bot.rules.state import GameState, evolve, initial_state

E = TypeVar("E", bound=Event)

SEED = "rules-test-seed"
GAME_ID = 7

# Casual tables (S2 allows them outside tournaments): handy to reach an endgame quickly.
CASUAL = GameSettings(min_players=5, max_players=16)


def make_players(n: int, base: int = 1000) -> list[Player]:
    return [Player(base + i, f"nick{i}") for i in range(1, n + 1)]


def of_type(events: Iterable[Event], cls: type[E]) -> list[E]:
    return [e for e in events if isinstance(e, cls)]


def snapshot(state: GameState) -> str:
    """A comparable picture of the whole state (to show an illegal action changed nothing)."""
    return json.dumps(state_to_json(state), sort_keys=True)


class Game:
    """A running game with a clock and its protocol."""

    def __init__(
        self,
        n: int = 12,
        seed: str = SEED,
        settings: GameSettings | None = None,
        now: float = 0.0,
        game_id: int = GAME_ID,
        kill_rule: KillRule | None = None,
    ) -> None:
        if settings is None:
            settings = GameSettings() if n >= 12 else CASUAL
        if kill_rule is not None:
            settings = dataclasses.replace(settings, kill_rule=kill_rule)
        self.settings = settings
        self.players = make_players(n)
        self.now = now
        self.state, events = engine.start_game(game_id, self.players, settings, seed, now)
        self.entries: list[Entry] = stamp(events, now)
        self.events: list[Event] = list(events)
        self.last: list[Event] = list(events)

    # --- acting -----------------------------------------------------------------------

    def act(self, action: Action, dt: float = 0.5) -> list[Event]:
        self.now += dt
        self.state, events = engine.apply(self.state, action, self.now)
        self.entries += stamp(events, self.now)
        self.events += events
        self.last = events
        return events

    def timeout(self) -> list[Event]:
        deadline = self.state.deadline
        assert deadline is not None, "no clock is running"
        self.now = max(self.now, deadline)
        return self.act(Timeout(self.state.step), dt=0.0)

    def refused(self, action: Action, error: type[RuleError]) -> RuleError:
        """`action` raises `error` and leaves the game exactly as it was."""
        before = snapshot(self.state)
        with pytest.raises(error) as caught:
            engine.apply(self.state, action, self.now + 0.1)
        assert snapshot(self.state) == before
        return caught.value

    def remove(
        self,
        *seats: int,
        penalty: Penalty = Penalty.REMOVAL_FROM_GAME,
        code: VCode | None = None,
    ) -> list[Event]:
        """The Host sanctions `seats` (by default a plain removal from the game)."""
        events: list[Event] = []
        for seat in seats:
            events += self.act(Sanction(seat, penalty, code))
        return events

    # --- looking ----------------------------------------------------------------------

    @property
    def phase(self) -> Phase:
        return self.state.phase

    def seats_of(self, role: Role, living: bool = True) -> list[int]:
        return [
            s
            for s, r in sorted(self.state.roles.items())
            if r is role and (self.state.is_alive(s) or not living)
        ]

    def mafia(self) -> list[int]:
        return self.seats_of(Role.MAFIA)

    def civilians(self) -> list[int]:
        return self.seats_of(Role.CIVILIAN)

    def commissioner(self) -> int:
        return self.state.commissioner()

    def peaceful(self) -> list[int]:
        return [s for s in self.state.living() if side_of(self.state.roles[s]) is Side.PEACEFUL]

    def since(self, mark: int) -> list[Event]:
        return self.events[mark:]

    def replayed(self) -> GameState:
        return replay(self.entries)

    # --- moving on --------------------------------------------------------------------

    def step(self) -> list[Event]:
        """The quietest way forward: the speaker passes, any other phase times out."""
        if self.state.in_speech:
            assert self.state.speaker is not None
            return self.act(Pass(self.state.speaker))
        return self.timeout()

    def advance_to(self, phase: Phase, day: int | None = None, limit: int = 400) -> Game:
        for _ in range(limit):
            if self.state.phase is phase and (day is None or self.state.day == day):
                return self
            assert not self.state.finished, f"the game ended before {phase} (day {day})"
            self.step()
        raise AssertionError(f"{phase} (day {day}) not reached in {limit} steps")

    def speak_round(self, nominations: dict[int, int] | None = None) -> list[int]:
        """Every speaker of the current round passes, nominating first where told to.

        Returns the speakers in order.
        """
        nominations = nominations or {}
        phase = self.state.phase
        assert phase in {Phase.INTRODUCTION, Phase.ROUND_1, Phase.ROUND_2}, phase
        speakers: list[int] = []
        while self.state.phase is phase:
            speaker = self.state.speaker
            assert speaker is not None
            speakers.append(speaker)
            if speaker in nominations:
                self.act(Nominate(speaker, nominations[speaker]))
            self.act(Pass(speaker))
        return speakers

    def nominate(self, nominations: dict[int, int]) -> list[int]:
        """Round 2 with these nominations (the rest of the day's speeches pass)."""
        self.advance_to(Phase.ROUND_2)
        return self.speak_round(nominations)

    def pass_all(self, phase: Phase) -> None:
        """Pass every speech of `phase` in a row."""
        while self.state.phase is phase and self.state.in_speech:
            assert self.state.speaker is not None
            self.act(Pass(self.state.speaker))

    def cast(self, votes: dict[int, int | None], close: bool = True) -> None:
        """The final vote: these votes, then the clock runs out (if still open)."""
        self.pass_all(Phase.DEFENCE)
        assert self.state.phase is Phase.VOTE, self.state.phase
        for voter, choice in votes.items():
            self.act(Vote(voter, choice))
        if close and self.state.phase is Phase.VOTE:
            self.timeout()

    def night(
        self, check: tuple[int, int] | None = None, kills: dict[int, int] | None = None
    ) -> None:
        """Night actions, then the night runs out its time (N4)."""
        assert self.state.phase is Phase.NIGHT, self.state.phase
        if check is not None:
            self.act(Check(*check))
        for mafioso, target in (kills or {}).items():
            self.act(Kill(mafioso, target))
        if self.state.phase is Phase.NIGHT:
            self.timeout()

    def shrink(self, mafia: int, peaceful: int, keep: Sequence[int] = ()) -> None:
        """Remove players (V) until `mafia` mafiosi and `peaceful` others are alive.

        Mafiosi go first so no removal on the way settles the game; the Commissioner
        and the seats in `keep` stay.
        """
        keep_set = {*keep, self.commissioner()}
        for seat in self.mafia():
            if len(self.mafia()) <= mafia:
                break
            if seat not in keep_set:
                self.remove(seat)
        for seat in self.civilians():
            if len(self.peaceful()) <= peaceful:
                break
            if seat not in keep_set:
                self.remove(seat)
        assert (len(self.mafia()), len(self.peaceful())) == (mafia, peaceful)


def first_of(events: Sequence[Event], cls: type[E]) -> E:
    found = of_type(events, cls)
    assert found, f"no {cls.__name__} in {events}"
    return found[0]


def walk(entries: Sequence[Entry]) -> Iterable[tuple[GameState, Event]]:
    """Each event of a protocol with the state just before it (valid until the next step)."""
    first = entries[0].event
    assert isinstance(first, GameStarted)
    state = initial_state(first)
    for entry in entries[1:]:
        yield state, entry.event
        evolve(state, entry.event)


def to_night(game: Game) -> Game:
    """Play on to the next night with nobody leaving: one nomination, no votes (D7)."""
    living = game.state.living()
    game.nominate({living[0]: living[1]})
    game.cast({})
    assert game.state.phase is Phase.NIGHT, game.state.phase
    return game
