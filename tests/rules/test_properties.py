"""Properties of random legal play (hypothesis).

A game is driven by a seeded random policy: mostly a legal player action drawn from
`legal_actions`, now and then the due timeout at `state.deadline`, a Host action
(Skip, Pause, Resume, Extend, Sanction, rarely Stop), or a random player action that
must be accepted exactly when `legal_actions` lists it. Every emitted event is checked
against the state just before it.
"""

from __future__ import annotations

import dataclasses
import json
import random
from collections import Counter
from dataclasses import dataclass, field

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bot.rules import engine
from bot.rules.actions import (
    Action,
    Check,
    Extend,
    Kill,
    Nominate,
    Pass,
    Pause,
    PlayerAction,
    Resume,
    Sanction,
    Skip,
    Stop,
    Vote,
)
from bot.rules.errors import RuleError
from bot.rules.events import (
    Cause,
    CheckMade,
    DayStarted,
    Event,
    Extended,
    GameAborted,
    GameOver,
    GameStarted,
    GameWon,
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
    SpeechStarted,
    VoteCast,
    VoteClosed,
    VoteOpened,
)
from bot.rules.moves import due_timeout, legal_actions
from bot.rules.protocol import (
    Entry,
    entry_from_json,
    entry_to_json,
    replay,
    stamp,
    state_from_json,
    state_to_json,
)
from bot.rules.roles import Role, Side
from bot.rules.sanctions import Penalty, VCode, removes_from_game
from bot.rules.settings import GameSettings, KillRule
from bot.rules.state import GameState, evolve, initial_state

from .helpers import CASUAL, make_players, snapshot

ROUND_PHASES = (Phase.INTRODUCTION, Phase.ROUND_1, Phase.ROUND_2)
MAX_STEPS = 6000
# After GameWon only the deciding last words, the Host's clock and sanctions may follow.
AFTER_THE_WIN = (
    *("LastWordsBegan", "SpeechStarted", "SpeechEnded", "PlayerLeft", "GameOver"),
    *("GameAborted", "Paused", "Resumed", "Extended", "ClockRestarted", "SanctionGiven"),
)

FAST = settings(
    max_examples=120,
    deadline=None,
    derandomize=True,
    database=None,
    suppress_health_check=[HealthCheck.too_slow],
)


@dataclass(frozen=True)
class Plan:
    players: int
    casual: bool
    kill_rule: KillRule
    seed: str
    choices: int  # seeds the policy's random choices
    timeout_rate: float
    host_rate: float
    probe_rate: float
    stop_rate: float

    def game_settings(self) -> GameSettings:
        base = CASUAL if self.casual else GameSettings()
        return dataclasses.replace(base, kill_rule=self.kill_rule)


@st.composite
def plans(draw: st.DrawFn) -> Plan:
    casual = draw(st.booleans())
    players = draw(st.integers(5, 16) if casual else st.integers(12, 16))
    return Plan(
        players=players,
        casual=casual,
        kill_rule=draw(st.sampled_from(KillRule)),
        seed=draw(st.text(min_size=1, max_size=10)),
        choices=draw(st.integers(0, 2**32 - 1)),
        timeout_rate=draw(st.sampled_from([0.02, 0.15, 0.4])),
        host_rate=draw(st.sampled_from([0.0, 0.01, 0.05])),
        probe_rate=draw(st.sampled_from([0.0, 0.05, 0.2])),
        stop_rate=draw(st.sampled_from([0.0, 0.0, 0.002])),
    )


@dataclass
class Run:
    state: GameState
    entries: list[Entry]
    actions: list[tuple[float, Action]] = field(default_factory=list)
    stopped: bool = False
    snapshots: list[tuple[int, GameState]] = field(default_factory=list)


class Watcher:
    """Checks every event against the state just before it."""

    def __init__(self) -> None:
        self.round: tuple[int, Phase] | None = None
        self.round_speakers: list[int] = []
        self.won: Side | None = None
        self.departed = False

    def see(self, before: GameState, events: list[Event], after: GameState, now: float) -> None:
        state = before.clone()
        for i, event in enumerate(events):
            phase, spoken = state.phase, list(self.round_speakers)
            self.check(state, event, now)
            if isinstance(event, VoteClosed):
                # D7: all who leave by the vote leave together, before any win check.
                together = [PlayerLeft(x, Cause.VOTE) for x in event.leaving]
                assert events[i + 1 : i + 1 + len(together)] == together, events
            evolve(state, event)
            if phase in ROUND_PHASES and state.phase is not phase and not state.finished:
                self.round_over(state, spoken)
            # W3: once a batch of departures is in, a settled game says so at once.
            nxt = events[i + 1] if i + 1 < len(events) else None
            if isinstance(event, PlayerLeft) and not isinstance(nxt, PlayerLeft):
                if self.won is None and (winner := _decided(state)) is not None:
                    assert nxt == GameWon(winner), events
                else:
                    assert not isinstance(nxt, GameWon), events
        assert state == after, "the events do not rebuild the new state"

    @staticmethod
    def round_over(state: GameState, spoken: list[int]) -> None:
        """A round ends only when every living seat has spoken in it, once."""
        assert len(spoken) == len(set(spoken)), spoken
        assert set(state.living()) <= set(spoken), (state.living(), spoken)

    def check(self, s: GameState, event: Event, now: float) -> None:
        if self.won is not None:
            assert type(event).__name__ in AFTER_THE_WIN, event
        match event:
            case SpeechStarted(phase=phase, seat=seat, deadline=deadline):
                assert deadline == now + SECONDS[phase](s.settings)
                if phase is Phase.LAST_WORDS:
                    left = s.seats[seat].left
                    assert left is not None, "the living get no last word"
                    assert left.gives_last_word, (seat, left)
                    removed = [r for r in s.sanctions if r.seat == seat]
                    assert not any(removes_from_game(r.penalty) for r in removed)
                else:
                    assert s.is_alive(seat), ("a dead seat speaks", event)
                if phase is Phase.DEFENCE:
                    assert seat in s.leaders
                if phase in ROUND_PHASES:
                    self.speech_order(s, phase, seat)
            case NominationMade(by=by, nominee=nominee):
                assert s.phase is Phase.ROUND_2
                assert s.is_alive(by) and s.is_alive(nominee) and by != nominee
                assert by == s.speaker and by not in s.nominations
            case VoteCast(voter=voter, choice=choice):
                assert s.phase is Phase.VOTE
                assert s.is_alive(voter) and voter not in s.votes
                assert choice is None or (choice in s.leaders and s.is_alive(choice))
            case VoteClosed(votes=votes, leaving=leaving):
                assert set(votes) == set(s.living())
                assert votes == {x: s.votes.get(x) for x in s.living()}  # D6: silence abstains
                leaders = [x for x in s.leaders if s.is_alive(x)]
                assert leaving == _d7(leaders, votes, len(s.living()))
            case CheckMade(by=by, target=target, is_mafia=is_mafia):
                assert s.phase is Phase.NIGHT and s.check is None
                assert s.is_alive(by) and s.roles[by] is Role.COMMISSIONER
                assert s.is_alive(target) and target != by
                assert is_mafia is (s.roles[target] is Role.MAFIA)  # N2: the exact answer
            case KillPicked(by=by, target=target):
                assert s.phase is Phase.NIGHT and by not in s.kill_picks
                assert s.is_alive(by) and s.roles[by] is Role.MAFIA
                assert s.is_alive(target)
            case NightEnded(victim=victim):
                assert s.phase is Phase.NIGHT and s.day >= 1
                picks = [t for m, t in s.kill_picks.items() if s.is_alive(m)]
                expected = _n3(picks, s.settings.kill_rule)
                assert victim == (
                    expected if expected is not None and s.is_alive(expected) else None
                )
            case PlayerLeft(seat=seat):
                assert s.is_alive(seat), ("left twice", event)
                self.departed = True
            case LotDrawn(seat=seat):
                assert s.phase is Phase.ROUND_2 and s.is_alive(seat)
                assert not s.nominations  # D8: a lot only when nobody was nominated
            case LeadersChosen(leaders=leaders):
                assert leaders and all(s.is_alive(x) for x in leaders)
                standing = [x for x in s.nominations.values() if s.is_alive(x)]
                assert leaders == _d4(standing)
            case Paused(remaining=remaining):
                assert s.deadline is not None and remaining == max(0.0, s.deadline - now)
            case Resumed(deadline=deadline):
                assert s.paused_remaining is not None and deadline == now + s.paused_remaining
            case Extended(seconds=seconds, deadline=deadline):
                assert deadline == (None if s.paused else s.deadline + seconds)  # type: ignore[operator]
            case DayStarted(first_speaker=first):
                assert s.is_alive(first)
            case NightStarted(phase=phase, night=night):
                assert (phase is Phase.ACQUAINTANCE) is (night == 0)
            case GameWon(side=side):
                assert self.won is None, "won twice"
                assert _decided(s) is side
                self.won = side
            case GameOver(winner=winner, seed=seed):
                assert winner is self.won and seed == s.seed
            case VoteOpened(leaders=leaders):
                assert leaders and all(s.is_alive(x) for x in leaders)
            case LastWordsBegan(seats=seats, then=then):
                assert (then is Phase.OVER) is (s.winner is not None)
                assert all(not s.is_alive(x) for x in seats)
            case _:
                pass

    def speech_order(self, s: GameState, phase: Phase, seat: int) -> None:
        """D2: each round starts at the day's first speaker (or the next living seat after
        them) and goes on clockwise over the living."""
        key = (s.day, phase)
        living = s.living()
        if key != self.round:
            assert s.first_speaker is not None
            assert seat == s.clockwise_from(s.first_speaker, living)[0], (key, seat)
            self.round, self.round_speakers = key, [seat]
            return
        previous = self.round_speakers[-1]
        after = [x for x in living if x != previous]
        assert seat == s.clockwise_from(previous + 1, after)[0], (previous, seat, living)
        self.round_speakers.append(seat)


SECONDS = {
    Phase.INTRODUCTION: lambda c: c.introduction_seconds,
    Phase.ROUND_1: lambda c: c.round1_seconds,
    Phase.ROUND_2: lambda c: c.round2_seconds,
    Phase.DEFENCE: lambda c: c.defence_seconds,
    Phase.LAST_WORDS: lambda c: c.last_word_seconds,
}


def _d4(nominees: list[int]) -> list[int]:
    """D4 as the regulation words it: the top count; else the first two, ties included."""
    counts = Counter(nominees)
    ranked = sorted(set(counts.values()), reverse=True)
    top = [x for x in counts if counts[x] == ranked[0]]
    if len(top) >= 2 or len(ranked) == 1:
        return sorted(top)
    return sorted(top + [x for x in counts if counts[x] == ranked[1]])


def _d7(leaders: list[int], votes: dict[int, int | None], living: int) -> list[int]:
    """D7: most votes leave, ties all leave, none leave without votes; a sole leader
    needs more than half of the living."""
    got = {x: sum(1 for v in votes.values() if v == x) for x in leaders}
    if not any(got.values()):
        return []
    if len(leaders) == 1:
        return leaders if 2 * got[leaders[0]] > living else []
    return [x for x in leaders if got[x] == max(got.values())]


def _n3(picks: list[int], rule: KillRule) -> int | None:
    """N3: every pick the same (unanimous) or more than half of the picks (majority)."""
    for target in set(picks):
        if rule is KillRule.UNANIMOUS and set(picks) == {target}:
            return target
        if rule is KillRule.MAJORITY and 2 * picks.count(target) > len(picks):
            return target
    return None


def _decided(s: GameState) -> Side | None:
    mafia, peaceful = len(s.living_mafia()), len(s.living_peaceful())
    if mafia == 0:
        return Side.PEACEFUL  # W2 first
    return Side.MAFIA if peaceful <= mafia else None  # W1


def _random_player_action(rng: random.Random, state: GameState) -> PlayerAction:
    n = len(state.seats)
    seat, target = rng.randint(0, n + 1), rng.randint(0, n + 1)
    kind = rng.choice([Pass, Nominate, Vote, Check, Kill])
    if kind is Pass:
        return Pass(seat)
    if kind is Vote:
        return Vote(seat, rng.choice([None, target]))
    return kind(seat, target)  # type: ignore[no-any-return]


def _host_action(rng: random.Random, state: GameState) -> Action:
    options: list[Action] = [Skip(), Extend(rng.choice([0.5, 5.0, 30.0]))]
    options.append(Resume() if state.paused else Pause())
    seat = rng.choice(sorted(state.seats))
    penalty = rng.choice([Penalty.WARNING] * 4 + list(Penalty))
    options.append(Sanction(seat, penalty, rng.choice([None, *VCode])))
    return rng.choice(options)


def play(plan: Plan, checked: bool = True, snapshot_every: int = 0) -> Run:
    rng = random.Random(plan.choices)
    now = 1000.0
    players = make_players(plan.players)
    rng.shuffle(players)
    state, events = engine.start_game(1, players, plan.game_settings(), plan.seed, now)
    run = Run(state, stamp(events, now))
    watcher = Watcher()
    if checked:
        first = events[0]
        assert isinstance(first, GameStarted)
        watcher.see(initial_state(first), events[1:], state, now)
    for step in range(MAX_STEPS):
        if state.finished:
            break
        if snapshot_every and step % snapshot_every == 0:
            run.snapshots.append((len(run.entries), state))
        legal = legal_actions(state)
        r = rng.random()
        action: Action
        if r < plan.stop_rate:
            action = Stop()
        elif r < plan.stop_rate + plan.host_rate:
            action = _host_action(rng, state)
        elif state.paused:
            action = Resume()
            now += rng.uniform(0.0, 100.0)
        elif not legal or r < plan.stop_rate + plan.host_rate + plan.timeout_rate:
            timeout = due_timeout(state)
            assert timeout is not None and state.deadline is not None
            action, now = timeout, max(now, state.deadline)
        else:
            assert state.deadline is not None
            now += rng.uniform(0.0, max(0.0, state.deadline - now) / 4)
            action = rng.choice(legal)
            if checked and rng.random() < plan.probe_rate:
                probe = _random_player_action(rng, state)
                if probe in legal:
                    action = probe
                else:
                    before = snapshot(state)
                    try:
                        engine.apply(state, probe, now)
                    except RuleError:
                        pass
                    else:
                        raise AssertionError(f"{probe} accepted but not in legal_actions")
                    assert snapshot(state) == before
        new_state, events = engine.apply(state, action, now)
        if checked:
            watcher.see(state, events, new_state, now)
            _host_rules(state, action, events, new_state, now)
        run.actions.append((now, action))
        run.entries += stamp(events, now)
        run.stopped |= isinstance(action, Stop)
        state = new_state
    run.state = state
    return run


def _host_rules(
    before: GameState, action: Action, events: list[Event], after: GameState, now: float
) -> None:
    """N4: only the deadline or the Host's skip ends a night. T2: while paused, a turn
    begun by a skip or a removal starts paused."""
    if any(isinstance(e, NightEnded) for e in events) and not isinstance(action, Skip):
        assert before.deadline is not None
        assert now >= before.deadline - engine.DEADLINE_TOLERANCE, (action, events)
    if before.paused and isinstance(action, Skip | Sanction) and not after.finished:
        assert after.paused, (action, events)


def _json_entries(entries: list[Entry]) -> list[Entry]:
    text = json.dumps([entry_to_json(e) for e in entries])
    return [entry_from_json(d) for d in json.loads(text)]


def _json_state(state: GameState) -> GameState:
    return state_from_json(json.loads(json.dumps(state_to_json(state))))


@FAST
@given(plans())
def test_random_legal_play_keeps_the_rules(plan: Plan) -> None:
    run = play(plan)
    state = run.state
    # Every game ends: exactly one winning side, or aborted by the Host's Stop.
    assert state.finished, f"no end after {MAX_STEPS} steps"
    events = [e.event for e in run.entries]
    won = [e for e in events if isinstance(e, GameWon)]
    over = [e for e in events if isinstance(e, GameOver)]
    if run.stopped:
        assert state.phase is Phase.ABORTED
        assert not over
        assert isinstance(events[-1], GameAborted)
    else:
        assert state.phase is Phase.OVER
        assert len(won) == len(over) == 1
        assert over[0].winner is won[0].side is state.winner
        assert over[0].seed == plan.seed
        assert isinstance(events[-1], GameOver)
    # The protocol replays to the live state, also through JSON.
    assert replay(run.entries) == state
    assert replay(_json_entries(run.entries)) == state
    assert _json_state(state) == state


@settings(FAST, max_examples=40)
@given(plans())
def test_replay_matches_the_live_state_at_every_point(plan: Plan) -> None:
    run = play(plan, checked=False, snapshot_every=20)
    assert run.snapshots
    for count, state in run.snapshots:
        prefix = run.entries[:count]
        assert replay(prefix) == state
        assert replay(_json_entries(prefix)) == state
        assert _json_state(state) == state


@settings(FAST, max_examples=40)
@given(plans())
def test_same_seed_and_same_choices_give_the_same_game(plan: Plan) -> None:
    first, second = play(plan, checked=False), play(plan, checked=False)
    assert first.entries == second.entries
    assert first.state == second.state
    # Replaying the recorded actions against a fresh start gives the same protocol.
    players = make_players(plan.players)
    random.Random(plan.choices).shuffle(players)
    state, events = engine.start_game(1, players, plan.game_settings(), plan.seed, 1000.0)
    entries = stamp(events, 1000.0)
    for now, action in first.actions:
        state, events = engine.apply(state, action, now)
        entries += stamp(events, now)
    assert entries == first.entries
    assert state == first.state
