"""The games' timers: a turn's deadline, the warning before it, and their retries.

The deadline itself is the state's (time as data); this part only arms what the state
says, and holds back the clock of a step whose announcement is still on its way.
"""

from __future__ import annotations

import contextlib
import sqlite3
from dataclasses import dataclass, field

from bot.delivery.limiter import COSMETIC
from bot.delivery.sender import Sender
from bot.rules.events import Phase
from bot.rules.state import GameState
from bot.services.clock import Clock, Timers
from bot.services.game.notices import Notices
from bot.services.game.people import People
from bot.services.game.shared import TURN, WARN, log
from bot.services.game.states import GameStates
from bot.views.i18n import Texts
from bot.views.keys import TURN as TURN_MESSAGE
from bot.views.render import Post
from storage.games import Game
from storage.repositories import Repositories

# A vote longer than this reminds those who have not voted, `warning_seconds` before it
# closes; in a shorter one the reminder would come almost with the ballot.
REMIND_VOTES_LONGER_THAN = 15.0

# A deadline whose commit failed (disk full, the database locked past its busy timeout)
# is tried again this many seconds later, once per entry; then the Host is told.
COMMIT_RETRIES = (2.0, 4.0, 8.0, 16.0, 30.0)


@dataclass(eq=False, repr=False)
class Clockwork:
    repos: Repositories
    clock: Clock
    timers: Timers
    t: Texts
    sender: Sender
    states: GameStates
    people: People
    notices: Notices
    warning_seconds: float
    # Games whose current step's announcement is on its way: (step, when it began).
    unseen: dict[int, tuple[int, float]] = field(default_factory=dict, init=False)
    # Game -> deadlines whose commit failed in a row.
    _commit_failures: dict[int, int] = field(default_factory=dict, init=False)

    def arm(self, game_id: int, state: GameState) -> bool:
        """The game's timers follow its state: one for the deadline, one for the warning
        (a speaker's last seconds, or a private reminder to those who have not voted).

        A step whose announcement is still on its way has no timer yet (it is armed when
        the announcement is seen). False if the deadline could not be armed (a scheduler
        refuses a date past the year 9999): logged, never raised, for the game is
        already committed.
        """
        unseen = self.unseen.get(game_id)
        if unseen is not None and unseen[0] != state.step:
            del self.unseen[game_id]  # that step is over
            unseen = None
        try:
            if state.deadline is None or unseen is not None:
                self.timers.cancel(TURN, game_id)
                self.timers.cancel(WARN, game_id)
                return True
            self.timers.arm(TURN, game_id, state.step, state.deadline)
            warn_at = state.deadline - self.warning_seconds
            if self._warns(state) and warn_at > self.clock.now():
                self.timers.arm(WARN, game_id, state.step, warn_at)
            else:
                self.timers.cancel(WARN, game_id)
        except (ValueError, OverflowError, OSError):
            log.exception("game %s: the deadline %s cannot be armed", game_id, state.deadline)
            return False
        return True

    def _warns(self, state: GameState) -> bool:
        """A speaker is warned before their time runs out; a vote long enough for it
        reminds those who have not voted yet (a short vote would only be interrupted)."""
        if state.phase is Phase.VOTE:
            return state.settings.vote_seconds > REMIND_VOTES_LONGER_THAN
        return state.in_speech

    def deadline_stored(self, game_id: int) -> None:
        """A turn's end was stored: its retries, if any, are over."""
        self._commit_failures.pop(game_id, None)

    async def retry_deadline(self, game_id: int, step: int) -> None:
        """The end of a turn could not be stored: try again a little later, a few times.

        Without this the game would be left with no timer at all (T2: the bot keeps the
        clock). When the retries are spent, the Host is told and the clock stays
        stopped until the Host ends the turn (/skip) or the bot restarts.
        """
        failures = self._commit_failures.get(game_id, 0)
        if failures < len(COMMIT_RETRIES):
            self._commit_failures[game_id] = failures + 1
            when = self.clock.now() + COMMIT_RETRIES[failures]
            self.timers.arm(TURN, game_id, step, when)
            return
        self._commit_failures.pop(game_id, None)
        log.error(
            "game %s: the end of step %s could not be stored; the Host is told", game_id, step
        )
        with contextlib.suppress(sqlite3.Error):
            game = await self.repos.games.get(game_id)
            if game is not None:
                await self.notices.tell_host_of(game, "host.clock_stuck", game=game_id)

    async def warn(self, game_id: int, step: int) -> None:
        async with self.states.lock(game_id):
            state = await self.states.state(game_id)
            game = await self.repos.games.get(game_id)
            if state is None or game is None or state.step != step or state.paused:
                return
            if state.phase is Phase.VOTE:
                await self._remind_voters(game, state)
                return
            lang = await self.people.chat_lang(game.chat_id)
            line = self.t(lang, "turn.warning", seconds=round(self.warning_seconds))
            # Cosmetic: it yields to what the game needs, and is dropped if the turn ends first.
            self.sender.note(game_id, game.chat_id, TURN_MESSAGE, line)

    async def _remind_voters(self, game: Game, state: GameState) -> None:
        """D6: each player who can still vote and has not is told in private, by seat."""
        seconds = round(self.warning_seconds)
        posts = []
        for seat in state.living():
            if seat in state.votes:
                continue
            user = state.seats[seat].user_id
            lang = await self.people.user_lang(user)
            text = self.t(lang, "vote.reminder", game=game.game_id, seat=seat, seconds=seconds)
            posts.append(Post(user, text))
        # Queued, not waited for: the lock is the game's, and the vote goes on meanwhile.
        await self.sender.deliver(game.game_id, posts, COSMETIC)
