"""The games' states as of their last action, the games' locks, and who sits where.

The database has every state too: a state this process forgot is read again. Only the
actions (`bot.services.game.actions`) put a new state here.
"""

from __future__ import annotations

import asyncio
import json
from collections import OrderedDict
from collections.abc import Sequence

from bot import timings
from bot.delivery.sender import Sender
from bot.lru import LRU
from bot.rules.protocol import state_from_json
from bot.rules.state import GameState
from storage.games import Game, GameStatus
from storage.repositories import Repositories

# Finished games whose state stays cached (for a late /status or a Sign press).
KEEP_FINISHED = 100
# Other games' states kept besides the running ones: those a /sheet or a stale button
# loaded. A running game's state stays cached for as long as it runs.
KEEP_SETTLED = 200
# Game locks kept beyond those held: an unheld lock is dropped and made afresh if needed.
KEEP_LOCKS = 1_000


class GameStates:
    def __init__(self, repos: Repositories, sender: Sender) -> None:
        self.repos = repos
        self.sender = sender
        self.locks: dict[int, timings.GameLock] = {}
        self._locks_bound = KEEP_LOCKS
        self.running: dict[int, GameState] = {}  # running games
        self.settled: LRU[int, GameState] = LRU(KEEP_SETTLED)  # finished (or odd) games
        # Running games by the user id of each player with a seat (a seat stays when its
        # player leaves): who a private message may be for. Kept at every deal and end;
        # the games already running are read in once, at the first private message.
        self._seated: dict[int, set[int]] = {}
        self._seated_read = asyncio.Lock()
        self._seated_complete = False
        self._recently_finished: OrderedDict[int, None] = OrderedDict()

    def lock(self, game_id: int) -> timings.GameLock:
        lock = self.locks.get(game_id)
        if lock is None:
            if len(self.locks) >= self._locks_bound:
                # Any button can name a game: keep only the locks someone holds. Dropping
                # an unheld one is safe, since every caller takes its lock at once
                # (`async with service.lock(...)`), with no await in between.
                self.locks = {g: held for g, held in self.locks.items() if held.locked()}
                self._locks_bound = max(KEEP_LOCKS, 2 * len(self.locks))
            # Its wait is timed (make bench), and parks the waiting activity.
            lock = self.locks[game_id] = timings.GameLock(self.sender.workers)
        return lock

    def finished(self, game_id: int) -> None:
        """A game is over: what this process keeps of it goes, for all but the latest few.

        A bot runs for months; the games it finished must not pile up in its memory.
        """
        self._recently_finished[game_id] = None
        while len(self._recently_finished) > KEEP_FINISHED:
            gone, _ = self._recently_finished.popitem(last=False)
            self.settled.pop(gone, None)
            self.locks.pop(gone, None)
            self.sender.forget(gone)

    async def active_game(self, chat_id: int) -> Game | None:
        return await self.repos.games.active_in_chat(chat_id)

    def cached_state(self, game_id: int) -> GameState | None:
        """The state as of the last action, if this process has seen the game."""
        return self.running.get(game_id) or self.settled.get(game_id)

    async def state(self, game_id: int) -> GameState | None:
        cached = self.cached_state(game_id)
        if cached is not None:
            return cached
        game = await self.repos.games.get(game_id)
        if game is None or game.state_json is None:
            return None
        state = state_from_json(json.loads(game.state_json))
        if game.status is GameStatus.RUNNING:
            # An action may have been stored and cached while this read waited: its
            # state is the newer one (the last, if it ended the game).
            if game_id in self.settled:
                return self.settled[game_id]
            state = self.running.setdefault(game_id, state)
        elif game_id not in self.running:
            self.settled[game_id] = state
        return self.cached_state(game_id) or state

    def stored_state(self, game: Game) -> GameState | None:
        """A running game's state as read with the game (as `state` would have it)."""
        cached = self.cached_state(game.game_id)
        if cached is not None:
            return cached
        if game.state_json is None:
            return None
        state = state_from_json(json.loads(game.state_json))
        return self.running.setdefault(game.game_id, state)

    def cache(self, game_id: int, state: GameState) -> None:
        """The state an action stored; a game over moves from the running to the settled."""
        if state.finished:
            self.running.pop(game_id, None)
            self.settled[game_id] = state
            self._unseat(game_id, [seat.user_id for seat in state.seats.values()])
        else:
            self.running[game_id] = state
            for seat in state.seats.values():
                self._seated.setdefault(seat.user_id, set()).add(game_id)

    def _unseat(self, game_id: int, user_ids: Sequence[int]) -> None:
        for user_id in user_ids:
            games = self._seated.get(user_id)
            if games is not None:
                games.discard(game_id)
                if not games:
                    del self._seated[user_id]

    async def running_in_chat(self, chat_id: int) -> tuple[Game, GameState] | None:
        game = await self.active_game(chat_id)
        if game is None or game.status is not GameStatus.RUNNING:
            return None
        state = await self.state(game.game_id)
        return (game, state) if state is not None else None

    async def games_of_user(self, user_id: int) -> list[tuple[Game, GameState]]:
        """Running games where the user has a seat (for private-chat actions).

        Every private text asks this, so it is answered from an index of the running
        games by player, built from the database once (at the first such text after a
        start) and kept as games are dealt and end; the database confirms each game.
        """
        if not self._seated_complete:
            async with self._seated_read:  # the others wait for the index to be whole
                if not self._seated_complete:
                    # Deals and ends meanwhile keep the index themselves; a game that
                    # ended after this read is dropped below, when it is asked about.
                    for running in await self.repos.games.running():
                        state = await self.state(running.game_id)
                        for seat in state.seats.values() if state is not None else ():
                            self._seated.setdefault(seat.user_id, set()).add(running.game_id)
                    self._seated_complete = True
        found = []
        for game_id in sorted(self._seated.get(user_id, ())):
            game = await self.repos.games.get(game_id)
            state = await self.state(game_id)
            if game is None or game.status is not GameStatus.RUNNING or state is None:
                self._unseat(game_id, [user_id])
            elif state.seat_of(user_id) is not None:
                found.append((game, state))
        return found
