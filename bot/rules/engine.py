"""The decisions: an action against the state gives the events that follow from it.

`apply(state, action, now)` validates the action against RULES.md, raises a
`RuleError` when it is illegal (and then changes nothing), and otherwise returns the
new state with the events it produced. Every event is folded into the working state
with `evolve` as soon as it is emitted, so the decisions read as a story and replaying
the events reproduces the state exactly.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence
from typing import Any

from bot.rules import draws
from bot.rules.actions import (
    Action,
    Announced,
    Check,
    Extend,
    HandOver,
    Kill,
    Nominate,
    Pass,
    Pause,
    RestartClock,
    Resume,
    Sanction,
    Skip,
    Stop,
    Timeout,
    Vote,
)
from bot.rules.errors import (
    AlreadyActed,
    AlreadyNominated,
    AlreadyVoted,
    BadPlayerCount,
    GameFinished,
    GamePaused,
    InvalidTarget,
    NotPaused,
    NotYourRole,
    NotYourTurn,
    SeatNotAlive,
    StaleAction,
    TooEarly,
    UnknownSeat,
    WrongPhase,
)
from bot.rules.events import (
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
    Player,
    PlayerLeft,
    Resumed,
    SanctionGiven,
    SeatAssignment,
    SeatsDrawn,
    SpeechEnd,
    SpeechEnded,
    SpeechStarted,
    VoteCast,
    VoteClosed,
    VoteOpened,
)
from bot.rules.roles import Role, Side, role_deck
from bot.rules.sanctions import Penalty, disqualifies, removes_from_game
from bot.rules.settings import GameSettings, KillRule
from bot.rules.state import GameState, evolve, initial_state

# A timer may fire a hair before the stored deadline (float rounding on the way
# through the scheduler); anything closer than this counts as due.
DEADLINE_TOLERANCE = 1e-3


class _Turn:
    """A working copy of the state plus the events emitted so far."""

    def __init__(self, state: GameState, now: float) -> None:
        self.state = state
        self.now = now
        self.events: list[Event] = []

    def emit(self, event: Event) -> None:
        evolve(self.state, event)
        self.events.append(event)

    def next_step(self) -> int:
        return self.state.step + 1


# --- starting a game ------------------------------------------------------------------


def start_game(
    game_id: int,
    players: Sequence[Player],
    settings: GameSettings,
    seed: str,
    now: float,
    seat_order: Sequence[int] | None = None,
) -> tuple[GameState, list[Event]]:
    """The Host's `/begin`: seats drawn, cards dealt, Day 0 opens (S1-S3, D1).

    `seat_order`, a balanced tour's order for this table (T1), seats its players in that
    order instead of the draw; it must list exactly the players."""
    count = len(players)
    if not settings.min_players <= count <= settings.max_players:
        raise BadPlayerCount(
            f"{count} players; this game takes {settings.min_players}-{settings.max_players}",
            players=count,
            min=settings.min_players,
            max=settings.max_players,
        )
    if len({p.user_id for p in players}) != count:
        raise BadPlayerCount("a player is listed twice", players=count)
    if not seed:
        raise ValueError("the game seed must not be empty")
    if seat_order is not None and (
        len(seat_order) != count or set(seat_order) != {p.user_id for p in players}
    ):
        raise ValueError("the seat order must list each player once")

    started = GameStarted(
        game_id=game_id,
        settings=settings,
        players=list(players),
        seed=seed,
        commitment=draws.commitment(seed),
        seat_order=None if seat_order is None else list(seat_order),
    )
    turn = _Turn(initial_state(started), now)
    turn.events.append(started)

    # S1: the seating is a shuffle of the players in a canonical order (by Telegram id),
    # so that anyone holding the revealed seed can recompute it.
    # A balanced tour gave the order instead (T1), published with the game (GameStarted).
    canonical = sorted(players, key=lambda p: p.user_id)
    if seat_order is None:
        seated = draws.shuffled(seed, "seats", canonical)
    else:
        by_id = {p.user_id: p for p in players}
        seated = [by_id[user_id] for user_id in seat_order]
    turn.emit(SeatsDrawn([SeatAssignment(i + 1, p.user_id, p.nick) for i, p in enumerate(seated)]))
    # S2-S3: the deck for this table size, shuffled; card i goes to seat i + 1.
    deck = draws.shuffled(seed, "deal", role_deck(count, settings.mafiosi_for(count)))
    turn.emit(CardsDealt({i + 1: role for i, role in enumerate(deck)}))
    _begin_day(turn, 0)
    return turn.state, turn.events


# --- applying an action ---------------------------------------------------------------


def apply(state: GameState, action: Action, now: float) -> tuple[GameState, list[Event]]:
    """The new state and the events of `action` at time `now`; raises RuleError if illegal."""
    if state.finished:
        raise GameFinished("the game is over")
    # A button (or a timer) made for one step is refused at any other, before anything
    # else is checked: the same seat may be acting again at the later step.
    step = getattr(action, "step", None)
    if step is not None and step != state.step:
        raise StaleAction(f"step {step} is over; now at {state.step}", step=state.step)
    turn = _Turn(state.clone(), now)
    handler = _HANDLERS[type(action)]
    handler(turn, action)
    return turn.state, turn.events


def _seat(state: GameState, seat: int) -> None:
    if seat not in state.seats:
        raise UnknownSeat(f"there is no seat {seat}", seat=seat)


def _living_actor(state: GameState, seat: int) -> None:
    _seat(state, seat)
    if not state.seats[seat].alive:
        raise SeatNotAlive(f"seat {seat} has left the game", seat=seat)


def _not_paused(state: GameState) -> None:
    if state.paused:
        raise GamePaused("the game is paused")


def _phase(state: GameState, *phases: Phase) -> None:
    if state.phase not in phases:
        raise WrongPhase(f"not possible during {state.phase}", phase=state.phase)


def _pass(turn: _Turn, action: Pass) -> None:
    state = turn.state
    _not_paused(state)
    if not state.in_speech:
        raise WrongPhase(f"nobody speaks during {state.phase}", phase=state.phase)
    if action.seat != state.speaker:
        raise NotYourTurn(f"seat {action.seat} is not speaking", seat=action.seat)
    _end_speech(turn, SpeechEnd.PASSED)


def _nominate(turn: _Turn, action: Nominate) -> None:
    state = turn.state
    _not_paused(state)
    # D3: only during one's own round-2 turn, a living player other than oneself, once.
    _phase(state, Phase.ROUND_2)
    _living_actor(state, action.seat)
    if action.seat != state.speaker:
        raise NotYourTurn(f"seat {action.seat} is not speaking", seat=action.seat)
    if action.seat in state.nominations:
        raise AlreadyNominated("one nomination per speaker", nominee=state.nominations[action.seat])
    _seat(state, action.target)
    if action.target == action.seat or not state.is_alive(action.target):
        raise InvalidTarget(f"seat {action.target} cannot be nominated", seat=action.target)
    turn.emit(NominationMade(action.seat, action.target))


def _vote(turn: _Turn, action: Vote) -> None:
    state = turn.state
    _not_paused(state)
    _phase(state, Phase.VOTE)
    _living_actor(state, action.seat)
    if action.seat in state.votes:
        raise AlreadyVoted("a cast vote is final", choice=state.votes[action.seat])  # D6
    if action.choice is not None and action.choice not in _living_leaders(state):
        raise InvalidTarget(f"seat {action.choice} is not a leader", seat=action.choice)
    turn.emit(VoteCast(action.seat, action.choice))
    if all(s in state.votes for s in state.living()):
        _close_vote(turn)


def _check(turn: _Turn, action: Check) -> None:
    state = turn.state
    _not_paused(state)
    _night_actor(state, action.seat, Role.COMMISSIONER)
    if state.check is not None:
        raise AlreadyActed("one check a night", target=state.check)  # N2
    _seat(state, action.target)
    if action.target == action.seat or not state.is_alive(action.target):
        raise InvalidTarget(f"seat {action.target} cannot be checked", seat=action.target)
    is_mafia = state.roles[action.target] is Role.MAFIA
    turn.emit(CheckMade(action.seat, action.target, is_mafia))


def _kill(turn: _Turn, action: Kill) -> None:
    state = turn.state
    _not_paused(state)
    _night_actor(state, action.seat, Role.MAFIA)
    if action.seat in state.kill_picks:
        raise AlreadyActed("the pick is made", target=state.kill_picks[action.seat])
    _seat(state, action.target)
    if not state.is_alive(action.target):
        raise InvalidTarget(f"seat {action.target} has left the game", seat=action.target)
    turn.emit(KillPicked(action.seat, action.target))


def _night_actor(state: GameState, seat: int, role: Role) -> None:
    if state.phase is Phase.ACQUAINTANCE:
        # N1: Night 0 is for acquaintance only.
        raise WrongPhase("no check or kill on Night 0", phase=state.phase)
    _phase(state, Phase.NIGHT)
    _living_actor(state, seat)
    if state.roles[seat] is not role:
        raise NotYourRole(f"seat {seat} is not the {role}", role=role)


def _timeout(turn: _Turn, action: Timeout) -> None:
    state = turn.state  # its step is this one (`apply`)
    _not_paused(state)
    if state.deadline is None or turn.now < state.deadline - DEADLINE_TOLERANCE:
        raise TooEarly("the deadline has not come", deadline=state.deadline)
    _end_current(turn, SpeechEnd.TIMEOUT)


def _skip(turn: _Turn, _action: Skip) -> None:
    # The Host may skip a paused turn too: the next one starts paused (_keep_paused).
    was_paused = turn.state.paused
    _end_current(turn, SpeechEnd.SKIPPED)
    _keep_paused(turn, was_paused)


def _keep_paused(turn: _Turn, was_paused: bool) -> None:
    """A turn begun by the Host's skip or removal during a pause starts paused, its full
    time kept for /resume: only the Host's /resume restarts the clock (T2)."""
    state = turn.state
    if was_paused and not state.paused and state.deadline is not None:
        turn.emit(Paused(remaining=max(0.0, state.deadline - turn.now)))


def _end_current(turn: _Turn, how: SpeechEnd) -> None:
    phase = turn.state.phase
    if phase in SPEECH_PHASES:
        _end_speech(turn, how)
    elif phase is Phase.VOTE:
        _close_vote(turn)
    elif phase is Phase.NIGHT:
        _end_night(turn)
    elif phase is Phase.ACQUAINTANCE:
        _begin_day(turn, 1)
    else:  # pragma: no cover - SETUP never outlives start_game; final phases are refused
        raise WrongPhase(f"nothing to end during {phase}", phase=phase)


def _pause(turn: _Turn, _action: Pause) -> None:
    state = turn.state
    _not_paused(state)
    assert state.deadline is not None  # every running phase has a deadline
    turn.emit(Paused(remaining=max(0.0, state.deadline - turn.now)))


def _resume(turn: _Turn, _action: Resume) -> None:
    state = turn.state
    if state.paused_remaining is None:
        raise NotPaused("the game is not paused")
    turn.emit(Resumed(deadline=turn.now + state.paused_remaining, remaining=state.paused_remaining))


def _extend(turn: _Turn, action: Extend) -> None:
    state = turn.state
    if not action.seconds > 0:
        raise InvalidTarget("the extension must be positive", seconds=action.seconds)
    if state.paused:
        turn.emit(Extended(action.seconds, None))
    else:
        assert state.deadline is not None
        turn.emit(Extended(action.seconds, state.deadline + action.seconds))


def _sanction(turn: _Turn, action: Sanction) -> None:
    was_paused = turn.state.paused
    _give_sanction(turn, action)
    _keep_paused(turn, was_paused)


def _give_sanction(turn: _Turn, action: Sanction) -> None:
    state = turn.state
    _seat(state, action.seat)
    turn.emit(SanctionGiven(action.seat, action.code, action.penalty))
    if not removes_from_game(action.penalty):
        return
    if not state.is_alive(action.seat):
        # Already out (voted, killed): the sanction is recorded; a last word in progress ends.
        if state.phase is Phase.LAST_WORDS and state.speaker == action.seat:
            _end_speech(turn, SpeechEnd.REMOVED)
        return
    _remove(turn, action.seat, action.penalty)


def _remove(turn: _Turn, seat: int, penalty: Penalty) -> None:
    """V: the player leaves at once, without a last word; W3 runs; the phase goes on."""
    state = turn.state
    cause = Cause.DISQUALIFICATION if disqualifies(penalty) else Cause.REMOVAL
    turn.emit(PlayerLeft(seat, cause))
    if _check_win(turn) and state.phase is not Phase.LAST_WORDS:
        _game_over(turn)
        return
    phase = state.phase
    if phase in SPEECH_PHASES and state.speaker == seat:
        _end_speech(turn, SpeechEnd.REMOVED)
    elif phase is Phase.VOTE and (
        not _living_leaders(state) or all(s in state.votes for s in state.living())
    ):
        _close_vote(turn)


def _stop(turn: _Turn, _action: Stop) -> None:
    turn.emit(GameAborted())


def _announced(turn: _Turn, _action: Announced) -> None:
    # D10, T2: the clock of a turn the table saw late starts again from when it saw it:
    # the end it would have then is past the end it has by more than the settings allow.
    # Paused, it keeps what the Host left it; a turn seen in time changes nothing.
    state = turn.state
    if state.paused or state.deadline is None:
        return
    full = _full_seconds(state)
    if turn.now + full > state.deadline + state.settings.late_announcement_seconds:
        turn.emit(ClockRestarted(state.step, turn.now + full))


def _hand_over(turn: _Turn, action: HandOver) -> None:
    # The game goes on as it stands, paused or not, its clock untouched: only who runs
    # it changes, and the protocol says so (T3: the sheet names every Host).
    if action.host == action.previous:
        raise InvalidTarget("the game is theirs already")
    turn.emit(HostChanged(action.previous, action.host))


def _restart_clock(turn: _Turn, _action: RestartClock) -> None:
    # D10, T2: a turn nobody was told of gets its full time from now. The step stays,
    # so every button of the turn stays good. A paused turn keeps what the Host left it.
    state = turn.state
    _not_paused(state)
    if state.deadline is None:
        raise WrongPhase(f"no clock runs during {state.phase}", phase=state.phase)
    turn.emit(ClockRestarted(state.step, turn.now + _full_seconds(state)))


def _full_seconds(state: GameState) -> float:
    settings = state.settings
    if state.phase in SPEECH_PHASES:
        return _speech_seconds(settings, state.phase)
    return {
        Phase.VOTE: settings.vote_seconds,
        Phase.NIGHT: settings.night_seconds,
        Phase.ACQUAINTANCE: settings.acquaintance_seconds,
    }[state.phase]


_HANDLERS: dict[type[Any], Callable[[_Turn, Any], None]] = {
    Pass: _pass,
    Nominate: _nominate,
    Vote: _vote,
    Check: _check,
    Kill: _kill,
    Timeout: _timeout,
    Skip: _skip,
    Pause: _pause,
    Resume: _resume,
    Extend: _extend,
    Sanction: _sanction,
    Stop: _stop,
    RestartClock: _restart_clock,
    HandOver: _hand_over,
    Announced: _announced,
}


# --- the day --------------------------------------------------------------------------


def _begin_day(turn: _Turn, day: int) -> None:
    state = turn.state
    # D2: the first speaker is drawn among the living.
    first = draws.draw(state.seed, f"day:{day}:first", state.living())
    turn.emit(DayStarted(day, first))
    _begin_round(turn, Phase.INTRODUCTION if day == 0 else Phase.ROUND_1)


def _begin_round(turn: _Turn, phase: Phase) -> None:
    state = turn.state
    assert state.first_speaker is not None
    # D2: both rounds start with the day's first speaker (or, if they were removed,
    # the next living seat clockwise) and go clockwise over living seats.
    order = state.clockwise_from(state.first_speaker, state.living())
    _start_speech(turn, phase, order[0], order[1:])


def _speech_seconds(settings: GameSettings, phase: Phase) -> float:
    return {
        Phase.INTRODUCTION: settings.introduction_seconds,
        Phase.ROUND_1: settings.round1_seconds,
        Phase.ROUND_2: settings.round2_seconds,
        Phase.DEFENCE: settings.defence_seconds,
        Phase.LAST_WORDS: settings.last_word_seconds,
    }[phase]


def _start_speech(turn: _Turn, phase: Phase, seat: int, queue: list[int]) -> None:
    deadline = turn.now + _speech_seconds(turn.state.settings, phase)
    turn.emit(SpeechStarted(turn.next_step(), phase, seat, queue, deadline))


def _end_speech(turn: _Turn, how: SpeechEnd) -> None:
    state = turn.state
    assert state.speaker is not None
    turn.emit(SpeechEnded(state.speaker, how))
    phase = state.phase
    if phase is Phase.LAST_WORDS:
        # The departed speak, except one removed for a violation meanwhile (D9).
        removed = {r.seat for r in state.sanctions if removes_from_game(r.penalty)}
        queue = [s for s in state.queue if s not in removed]
    elif phase is Phase.DEFENCE:
        queue = [s for s in state.queue if s in _living_leaders(state)]
    else:
        queue = [s for s in state.queue if state.is_alive(s)]
    if queue:
        _start_speech(turn, phase, queue[0], queue[1:])
        return
    match phase:
        case Phase.INTRODUCTION:
            _begin_night(turn)
        case Phase.ROUND_1:
            _begin_round(turn, Phase.ROUND_2)
        case Phase.ROUND_2:
            _resolve_nominations(turn)
        case Phase.DEFENCE:
            _open_vote(turn)
        case Phase.LAST_WORDS:
            assert state.last_words_then is not None
            _continue(turn, state.last_words_then)
        case _:  # pragma: no cover - only speech phases have speakers
            raise AssertionError(phase)


def leaders_from(nominations: dict[int, int]) -> tuple[list[int], dict[int, int]]:
    """D4: who goes to the final vote, and the nomination tally behind it."""
    tally = Counter(nominations.values())
    if not tally:
        return [], {}
    counts = sorted(set(tally.values()), reverse=True)
    top = [s for s, c in tally.items() if c == counts[0]]
    if len(top) >= 2 or len(counts) == 1:
        leaders = top  # a tie at the top (or a sole count) sends all of them
    else:
        # The first two go; several sharing the second count all go.
        leaders = top + [s for s, c in tally.items() if c == counts[1]]
    return sorted(leaders), dict(sorted(tally.items()))


def _living_leaders(state: GameState) -> list[int]:
    return [s for s in state.leaders if state.is_alive(s)]


def _resolve_nominations(turn: _Turn) -> None:
    state = turn.state
    if not state.nominations:
        # D8: nobody was nominated; the lot picks one living player.
        seat = draws.draw(state.seed, f"day:{state.day}:lot", state.living())
        turn.emit(LotDrawn(seat))
        _depart(turn, [seat], Cause.LOT, then=Phase.NIGHT)
        return
    standing = {by: who for by, who in state.nominations.items() if state.is_alive(who)}
    if not standing:
        # D8: every nominee was removed for a violation: no vote and no lot today, the
        # same as when the last leader is removed during the defence.
        _begin_night(turn)
        return
    leaders, tally = leaders_from(standing)
    turn.emit(LeadersChosen(leaders, tally))
    assert state.first_speaker is not None
    # D5: defence in seat order starting from the day's first speaker.
    order = state.clockwise_from(state.first_speaker, leaders)
    _start_speech(turn, Phase.DEFENCE, order[0], order[1:])


def _open_vote(turn: _Turn) -> None:
    state = turn.state
    leaders = _living_leaders(state)
    if not leaders:
        _begin_night(turn)
        return
    deadline = turn.now + state.settings.vote_seconds
    turn.emit(VoteOpened(turn.next_step(), leaders, deadline))


def vote_result(leaders: list[int], votes: dict[int, int | None], living: int) -> list[int]:
    """D7: who leaves after the final vote."""
    tally = Counter(v for v in votes.values() if v is not None and v in leaders)
    if not tally:
        return []  # nobody got a vote: nobody leaves
    if len(leaders) == 1:
        # Interpretation of "simple majority": a sole leader leaves only with the votes
        # of more than half of the living players.
        return leaders if tally[leaders[0]] * 2 > living else []
    most = max(tally.values())
    return sorted(s for s, c in tally.items() if c == most)  # a tie: all tied leave


def _close_vote(turn: _Turn) -> None:
    state = turn.state
    living = state.living()
    # D6: not voting before the vote closes is abstaining.
    votes = {s: state.votes.get(s) for s in living}
    leaving = vote_result(_living_leaders(state), votes, len(living))
    turn.emit(VoteClosed(votes, leaving))
    if leaving:
        _depart(turn, leaving, Cause.VOTE, then=Phase.NIGHT)
    else:
        _begin_night(turn)


def _depart(turn: _Turn, seats: list[int], cause: Cause, then: Phase) -> None:
    """Seats leave together; W3 runs once they have; D9 gives them their last words."""
    state = turn.state
    for seat in seats:
        turn.emit(PlayerLeft(seat, cause))
    _check_win(turn)
    # Several last words (a tie that persisted) go in seat order from the day's first speaker.
    start = state.first_speaker if state.first_speaker is not None else seats[0]
    order = state.clockwise_from(start, seats)
    turn.emit(LastWordsBegan(order, Phase.OVER if state.winner else then))
    _start_speech(turn, Phase.LAST_WORDS, order[0], order[1:])


def _check_win(turn: _Turn) -> bool:
    """W3: after every departure; W2 is checked before W1."""
    state = turn.state
    if state.winner is not None:
        return True
    mafia, peaceful = len(state.living_mafia()), len(state.living_peaceful())
    if mafia == 0:
        turn.emit(GameWon(Side.PEACEFUL))  # W2
    elif peaceful <= mafia:
        turn.emit(GameWon(Side.MAFIA))  # W1
    else:
        return False
    return True


def _continue(turn: _Turn, then: Phase) -> None:
    if turn.state.winner is not None:
        _game_over(turn)
    elif then is Phase.NIGHT:
        _begin_night(turn)
    else:
        _begin_day(turn, turn.state.day + 1)


def _game_over(turn: _Turn) -> None:
    state = turn.state
    assert state.winner is not None
    turn.emit(GameOver(state.winner, state.seed))


# --- the night ------------------------------------------------------------------------


def _begin_night(turn: _Turn) -> None:
    state = turn.state
    if state.day == 0:
        phase, seconds = Phase.ACQUAINTANCE, state.settings.acquaintance_seconds  # N1
    else:
        # N4: the night runs its full length whatever is done in it: ending once the
        # actions are in would tell the table whether the Commissioner is still alive.
        phase, seconds = Phase.NIGHT, state.settings.night_seconds
    turn.emit(NightStarted(turn.next_step(), state.day, phase, turn.now + seconds))


def night_victim(picks: dict[int, int], rule: KillRule) -> int | None:
    """N3: the kill, or None for a miss."""
    if not picks:
        return None
    tally = Counter(picks.values())
    target, count = tally.most_common(1)[0]
    if rule is KillRule.UNANIMOUS:
        return target if len(tally) == 1 else None
    return target if count * 2 > len(picks) else None


def _end_night(turn: _Turn) -> None:
    state = turn.state
    picks = {m: t for m, t in state.kill_picks.items() if state.is_alive(m)}
    victim = night_victim(picks, state.settings.kill_rule)
    if victim is not None and not state.is_alive(victim):
        victim = None  # the target was removed during the night
    turn.emit(NightEnded(state.day, victim))
    # N6: the victim, their last word, the win check, then the day.
    if victim is None:
        _begin_day(turn, state.day + 1)
    else:
        _depart(turn, [victim], Cause.KILL, then=Phase.ROUND_1)  # then the next day
