"""Start-up: the running games back on their clocks, and what a crash kept from going out.

A bot that restarts mid-game must not lose a turn, repeat a card, or start a clock the
table never heard of (D10, T2).
"""

from __future__ import annotations

import asyncio
import json
import sqlite3
from dataclasses import dataclass, field, replace

from bot.delivery.limiter import COSMETIC
from bot.delivery.sender import Sender
from bot.rules.actions import RestartClock
from bot.rules.codec import from_json
from bot.rules.errors import RuleError
from bot.rules.state import GameState
from bot.services.clock import Clock
from bot.services.game.actions import Actions
from bot.services.game.clockwork import Clockwork
from bot.services.game.notices import Notices
from bot.services.game.people import People
from bot.services.game.shared import OUTBOX_BOARD, OUTBOX_TURN, log
from bot.services.game.states import GameStates
from bot.services.game.table import TableMessage
from bot.views.board import BOARD
from bot.views.i18n import Texts
from bot.views.render import Post, named
from storage.games import Game, GameStatus
from storage.repositories import Repositories


@dataclass
class Resumed:
    """What `rearm_all` found: the games back on their clocks, and what their Hosts
    must hear (a game closed, a clock that could not be armed: the text's key)."""

    games: list[Game] = field(default_factory=list)
    faults: list[tuple[Game, str]] = field(default_factory=list)
    # (game, step): turns started again whose clocks wait for their announcement.
    unseen: list[tuple[int, int]] = field(default_factory=list)


@dataclass(eq=False, repr=False)
class Resume:
    repos: Repositories
    clock: Clock
    t: Texts
    sender: Sender
    states: GameStates
    people: People
    clockwork: Clockwork
    actions: Actions
    table: TableMessage
    notices: Notices
    # Start-up sends the unsent outbox while updates are read already: a player's
    # Start meanwhile must not send the same message twice.
    _resending: asyncio.Lock = field(default_factory=asyncio.Lock, init=False)

    async def resend_unsent(self, user_id: int | None = None) -> int:
        """Send again what the game depends on and was never confirmed sent.

        At start-up that is whatever a crash caught between the commit and the send;
        when a player presses Start, it is their card the bot could not deliver before.
        A turn's announcement goes again only while that turn is on (`rearm_all` has
        restarted its clock): a later turn has said everything since.
        """
        async with self._resending:  # a Start pressed meanwhile waits, then finds less
            return await self._resend_unsent(user_id)

    async def _resend_unsent(self, user_id: int | None) -> int:
        sent = 0
        unseen_steps = self.clockwork.unseen
        for queued in await self.repos.outbox.unsent():
            if user_id is not None and queued.chat_id != user_id:
                continue
            if queued.kind.startswith(OUTBOX_TURN):
                state = self.states.running.get(queued.game_id)
                if state is None or queued.kind != f"{OUTBOX_TURN}{state.step}":
                    continue
            post: Post = from_json(Post, json.loads(queued.payload_json))
            # Waited for, so that it is ticked off as soon as it is out.
            delivery = await self.sender.deliver(queued.game_id, [replace(post, essential=True)])
            unseen = unseen_steps.get(queued.game_id)
            if unseen is not None and queued.kind == f"{OUTBOX_TURN}{unseen[0]}":
                game = await self.repos.games.get(queued.game_id)
                if game is not None:  # its clock starts now, as a commit's would
                    await self.actions.seen(game, unseen[0], queued.outbox_id, delivery.sent.get(0))
                    sent += 0 in delivery.sent
                    continue
            if 0 in delivery.sent:
                await self.actions.tick(queued.outbox_id, delivery.sent[0])
                sent += 1
        return sent

    async def rearm_all(self) -> Resumed:
        """Start-up, first: every running game's deadline re-armed, sending nothing.

        The running games with their states, the unsent outbox, and the languages of
        their groups and players are read once each, whatever the number of games (500
        games read one by one kept the last of them off its clock for tens of seconds).
        The timers are armed with no wait between them, so a deadline that passed while
        the bot was down (it fires at once) finds every game already in the cache. Only a
        game whose group never heard that its turn began costs a transaction of its own:
        that turn starts again with its full time.

        Each game resumes on its own: one whose stored state is damaged is closed, one
        that cannot go on is logged, and the others and the bot go on; their Hosts hear
        of it in `tell_resumed`.
        """
        games = await self.repos.games.running()
        unsent: dict[int, set[str]] = {}
        for queued in await self.repos.outbox.unsent():
            unsent.setdefault(queued.game_id, set()).add(queued.kind)
        resumed = Resumed()
        damaged: list[Game] = []
        restart: list[tuple[Game, GameState]] = []
        for game in games:
            try:
                state = self.states.stored_state(game)
            except (ValueError, TypeError, KeyError, AttributeError):
                # The stored state cannot be read again (settings no longer valid, a
                # damaged row): the game can never go on, and must not hold its group.
                log.exception(
                    "game %s: its stored state cannot be read; it is closed", game.game_id
                )
                damaged.append(game)
                continue
            if state is None:
                continue
            resumed.games.append(game)
            if f"{OUTBOX_TURN}{state.step}" in unsent.get(game.game_id, ()) and not state.paused:
                restart.append((game, state))  # armed when its clock restarts, below
            elif not self.clockwork.arm(game.game_id, state):
                resumed.faults.append((game, "host.clock_failed"))
        try:
            await self.people.recall_languages(resumed.games, self.states.running)
        except sqlite3.Error:
            log.exception("the languages of the running games could not be read ahead")
        for game in damaged:
            try:
                await self.repos.games.set_status(
                    game.game_id, GameStatus.ABORTED, now=self.clock.now()
                )
                resumed.faults.append((game, "host.resume_damaged"))
            except Exception:
                log.exception("game %s could not be resumed", game.game_id)
                resumed.faults.append((game, "host.resume_failed"))
        for game, state in restart:
            # The group never heard that this turn began (the bot died first): it starts
            # again with its full time, and its announcement goes out (resend_unsent).
            try:
                state, _ = await self.actions.act(game.game_id, RestartClock())
                # ...and its clock waits for the announcement once more (`resend_unsent`).
                self.clockwork.unseen[game.game_id] = (state.step, self.clock.now())
                resumed.unseen.append((game.game_id, state.step))
            except RuleError:
                log.exception("game %s: the turn's clock could not restart", game.game_id)
                if not self.clockwork.arm(game.game_id, state):
                    resumed.faults.append((game, "host.clock_failed"))
            except Exception:
                log.exception("game %s could not be resumed", game.game_id)
                resumed.faults.append((game, "host.resume_failed"))
        return resumed

    async def tell_resumed(self, resumed: Resumed) -> None:
        """Start-up, then: what the games depend on and was never confirmed sent goes
        again, each group is told where its game stands, and the Host's panel and the
        table message are brought up to date. The games are on their clocks already and
        may move on meanwhile: each notice tells its game as it is when it goes out."""
        faults: dict[int, list[str]] = {}
        for game, key in resumed.faults:
            faults.setdefault(game.game_id, []).append(key)
        going_on = {game.game_id for game in resumed.games}
        for game, key in resumed.faults:
            if game.game_id not in going_on:  # closed: no notice to wait for
                await self.notices.tell_host_of(game, key, game=game.game_id)
        try:
            await self.resend_unsent()
        except Exception:
            log.exception("the outbox could not be sent again")
        for game in resumed.games:
            try:
                await self._tell_group(game)
            except Exception:
                log.exception("game %s: its group could not be told of the restart", game.game_id)
            for key in faults.get(game.game_id, ()):  # after its notice, as it happened
                await self.notices.tell_host_of(game, key, game=game.game_id)
        await self._show_boards(resumed.games)
        # A turn started again whose announcement never went: its clock starts anyway.
        # (Games play on meanwhile: a later step's announcement is on its way as usual.)
        for game_id, step in resumed.unseen:
            if self.clockwork.unseen.get(game_id, (None,))[0] != step:
                continue
            del self.clockwork.unseen[game_id]
            state = self.states.cached_state(game_id)
            if state is not None:
                self.clockwork.arm(game_id, state)

    async def _show_boards(self, games: list[Game]) -> None:
        """Each running game's table message, found again in the outbox and brought up to
        date (after the outbox: a deal's table message is out by now)."""
        try:
            boards = await self.repos.outbox.latest_of_running(OUTBOX_BOARD)
        except sqlite3.Error:
            log.exception("the table messages could not be looked up")
            boards = {}
        for game in games:
            try:
                state = self.states.cached_state(game.game_id)
                if state is None or state.finished:
                    continue
                lang = await self.people.chat_lang(game.chat_id)
                posted = boards.get(game.game_id)
                if (game.game_id, BOARD) not in self.sender.remembered and posted is not None:
                    if posted.message_id is None:
                        continue  # still to go out with the deal (show_board)
                    if posted.chat_id == game.chat_id:  # not left in an upgraded group
                        self.table.recall_board(posted)
                await self.table.show_board(game, state, lang)
            except Exception:
                log.exception("game %s: the table could not be shown", game.game_id)

    async def _tell_group(self, game: Game) -> None:
        """The notice that the bot is back, and the Host's panel as of now."""
        state = self.states.cached_state(game.game_id)
        if state is None or state.finished:
            return
        lang = await self.people.chat_lang(game.chat_id)
        left = state.paused_remaining
        if left is None and state.deadline is not None:
            left = max(0.0, state.deadline - self.clock.now())
        speaker = named(state, state.speaker, self.t, lang) if state.speaker else "—"
        text = self.t(
            lang,
            "host.resumed_after_restart",
            game=game.game_id,
            phase=self.t(lang, f"phase.{state.phase.value}"),
            speaker=speaker,
            seconds=round(left or 0),
        )
        # A notice: each game's next turn or keyboard may overtake it.
        await self.sender.deliver(game.game_id, [Post(game.chat_id, text)], COSMETIC)
        await self.table.show_panel(game, state)  # its buttons as of now, edited in place
