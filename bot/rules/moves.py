"""Every legal player action in a state: for simulated players and property tests."""

from __future__ import annotations

from bot.rules.actions import Check, Kill, Nominate, Pass, PlayerAction, Timeout, Vote
from bot.rules.events import Phase
from bot.rules.roles import Role
from bot.rules.state import GameState


def legal_actions(state: GameState) -> list[PlayerAction]:
    """What the players may do now (the Host's actions are always at hand, so not listed)."""
    if state.finished or state.paused:
        return []
    actions: list[PlayerAction] = []
    living = state.living()
    if state.in_speech and state.speaker is not None:
        actions.append(Pass(state.speaker))
        if state.phase is Phase.ROUND_2 and state.speaker not in state.nominations:
            actions += [Nominate(state.speaker, t) for t in living if t != state.speaker]
    elif state.phase is Phase.VOTE:
        leaders = [s for s in state.leaders if state.is_alive(s)]
        for voter in living:
            if voter not in state.votes:
                actions += [Vote(voter, None)] + [Vote(voter, leader) for leader in leaders]
    elif state.phase is Phase.NIGHT:
        for seat in living:
            role = state.roles[seat]
            if role is Role.COMMISSIONER and state.check is None:
                actions += [Check(seat, t) for t in living if t != seat]
            elif role is Role.MAFIA and seat not in state.kill_picks:
                actions += [Kill(seat, t) for t in living]
    return actions


def due_timeout(state: GameState) -> Timeout | None:
    """The timeout to deliver at `state.deadline`, if the clock is running."""
    if state.finished or state.deadline is None:
        return None
    return Timeout(state.step)
