"""Demo scenarios: what a Host does, and the day's rarer endings, played in the sandbox.

`python -m bot demo --scenario NAME` plays a whole game like the plain demo, with the
Host or the table doing one thing on purpose:

- `host`: the Host pauses and resumes the clock, gives a speaker 20 s more, warns a
  player for excessive gesturing (V5) and, on Day 2, removes a player (no last word).
- `lot`: nobody is nominated on Day 1, so a lot decides who leaves (D8).
- `tie`: two players are nominated on Day 1 and the vote splits evenly between them:
  both leave (D7).
- `sanction`: one player is warned twice for V5 (a warning, then removal from the game),
  another once for V2 (a warning): the ladder of rules V.

Each is deterministic for a seed, like the plain demo.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from bot.demo import SPEECHES, Crowd
from bot.rules.events import Phase
from bot.rules.roles import Role
from bot.rules.sanctions import VCode
from bot.rules.state import GameState

SCENARIOS = ("game", "host", "lot", "tie", "sanction")


@dataclass
class Scripted(Crowd):
    """The crowd of the plain demo, and the Host (or the table) following a script."""

    scenario: str = "game"
    steps: set[str] = field(default_factory=set)

    def first(self, name: str) -> bool:
        """True once per name: each scripted step happens once."""
        if name in self.steps:
            return False
        self.steps.add(name)
        return True

    async def act(self) -> bool:
        state = self.table.state
        if state is None or state.finished:
            return False
        if await self._host(state):
            return True
        day_one_round_two = state.day == 1 and state.phase is Phase.ROUND_2
        if self.scenario == "lot" and day_one_round_two and state.speaker is not None:
            return await self._speech(state, state.speaker, None)  # nobody nominates
        if self.scenario == "tie" and state.day == 1 and not state.paused:
            if state.phase is Phase.ROUND_2 and state.speaker is not None:
                first, second, one, other = self._tie_pair(state)
                nominee = {first: one, second: other}.get(state.speaker)
                return await self._speech(state, state.speaker, nominee)
            if state.phase is Phase.VOTE:
                return await self._tie_vote(state)
        return await super().act()

    async def _command(self, text: str) -> None:
        await self.table.host.send(self.table.group, text)
        await self.table.settle()

    async def _confirm(self) -> None:
        """The Host confirms the sanction the bot proposed (its first button)."""
        proposal = self.table.latest(self.table.group.messages(), "s:")
        assert proposal is not None, "no sanction was proposed"
        await self.table.host.press(proposal, 0)
        await self.table.settle()

    def _civilians(self, state: GameState) -> list[int]:
        return [s for s in state.living() if state.roles[s] is Role.CIVILIAN]

    async def _host(self, state: GameState) -> bool:
        if self.scenario == "host":
            if state.day == 1 and state.phase is Phase.ROUND_1 and self.first("pause"):
                await self._command("/pause")
                await self._command("/status")
                await self._command("/resume")
                await self._command("/extend 20")
                return True
            if state.day == 1 and state.phase is Phase.ROUND_2 and self.first("warn"):
                await self._command(f"/warn {state.living()[-1]} V5")
                await self._confirm()
                return True
            if state.day == 2 and state.phase is Phase.ROUND_1 and self.first("remove"):
                civilians = self._civilians(state)
                if civilians:
                    await self._command(f"/remove {civilians[0]}")
                    return True
        if self.scenario == "sanction":
            civilians = self._civilians(state)
            if state.day == 1 and state.phase is Phase.ROUND_1 and self.first("V5 once"):
                await self._command(f"/warn {civilians[-1]} V5")
                await self._confirm()
                await self._command(f"/warn {civilians[0]} V2")
                await self._confirm()
                return True
            if state.day == 1 and state.phase is Phase.ROUND_2 and self.first("V5 twice"):
                target = next((s.seat for s in state.sanctions if s.code is VCode.V5), None)
                if target is not None and state.is_alive(target):
                    await self._command(f"/warn {target} V5")
                    await self._confirm()
                    return True
        return False

    def _tie_pair(self, state: GameState) -> tuple[int, int, int, int]:
        """The two nominators (the first two speakers of round 2) and their two nominees."""
        order = state.living()
        start = order.index(state.first_speaker) if state.first_speaker in order else 0
        order = order[start:] + order[:start]
        nominators = order[0], order[1]
        nominees = [s for s in reversed(order) if s not in nominators]
        return nominators[0], nominators[1], nominees[0], nominees[1]

    async def _speech(self, state: GameState, seat: int, nominee: int | None) -> bool:
        """A round-2 speech that nominates `nominee` (or nobody), then ends."""
        if state.paused:
            return False
        person = self.table.person(seat)
        turn = self.table.latest(self.table.group.messages(), f"t:{state.game_id}:{state.step}:")
        if turn is None or not self._once(person.id, state.step, "speak"):
            return False
        await person.send(self.table.group, self.rng.choice(SPEECHES[self.lang]))
        await self.table.settle()
        if nominee is not None:
            await person.press(turn, str(nominee))
            await self.table.settle()
        fresh = self.table.latest(self.table.group.messages(), "t:")
        now = self.table.state
        if fresh is not None and now is not None and now.step == state.step:
            await person.press(fresh, 0)
            await self.table.settle()
        return True

    async def _tie_vote(self, state: GameState) -> bool:
        ballot = self.table.latest(self.table.group.messages(), "v:")
        if ballot is None or len(state.leaders) != 2:
            return await super().act()
        voters = state.living()
        if len(voters) % 2:
            voters = voters[:-1]  # the last one does not vote: an abstention (D6)
        acted = False
        for index, seat in enumerate(voters):
            person = self.table.person(seat)
            if not self._once(person.id, state.step, "vote"):
                continue
            leader = state.leaders[index % 2]
            await person.press(ballot, f"{leader} · {state.seats[leader].nick}")
            await self.table.settle()
            acted = True
        return acted
