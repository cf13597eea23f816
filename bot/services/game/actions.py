"""An action's way through the game: applied under the game's lock, stored with its
events, state and messages in one transaction, and only then armed and told.

Different games proceed in parallel; actions on one game are serialized.
"""

from __future__ import annotations

import contextlib
import sqlite3
from collections.abc import Sequence
from dataclasses import dataclass

from bot import timings
from bot.delivery.sender import Sender
from bot.rules import engine
from bot.rules.actions import Action, Announced, HandOver, HostAction, Timeout
from bot.rules.codec import to_json
from bot.rules.errors import GamePaused, RuleError, StaleAction, TooEarly
from bot.rules.events import Event, NightStarted, SpeechStarted, VoteOpened
from bot.rules.protocol import entry_to_json, stamp, state_to_json
from bot.rules.state import GameState
from bot.services.clock import Clock
from bot.services.game.clockwork import Clockwork
from bot.services.game.notices import Notices
from bot.services.game.people import People
from bot.services.game.shared import (
    CURRENT_UPDATE,
    OUTBOX_BOARD,
    OUTBOX_POST,
    OUTBOX_TURN,
    Also,
    NotRecorded,
    dumps,
    host_action,
    log,
    log_game,
)
from bot.services.game.states import GameStates
from bot.services.game.table import TableMessage
from bot.services.inbox import HandledUpdates
from bot.views.board import BOARD
from bot.views.i18n import Texts, escape
from bot.views.render import Outgoing, Post, render
from storage.db import Work
from storage.games import Game, GameStatus, saving_state, setting_host, setting_status
from storage.marks import marking_update
from storage.nicks import profile_name
from storage.outbox import enqueuing, marking_sent
from storage.protocol import NewEvent, appending
from storage.repositories import Repositories


def announcement(
    events: Sequence[Event], state: GameState, out: Sequence[Outgoing], group: int
) -> int | None:
    """The index of the group post that announces the step these events started, if any."""
    started = any(
        isinstance(e, SpeechStarted | VoteOpened | NightStarted) and e.step == state.step
        for e in events
    )
    if not started or state.finished or not out:
        return None
    last = out[-1]
    if isinstance(last, Post) and last.chat_id == group and not last.essential:
        return len(out) - 1
    return None


@dataclass(eq=False, repr=False)
class Actions:
    repos: Repositories
    clock: Clock
    t: Texts
    sender: Sender
    states: GameStates
    people: People
    clockwork: Clockwork
    table: TableMessage
    notices: Notices
    updates: HandledUpdates

    async def act(
        self, game_id: int, action: Action, also: Also | None = None
    ) -> tuple[GameState, list[Event]]:
        """Apply an action; RuleError propagates with nothing changed.

        `also` writes what must stand or fall with the action (a ban request with its
        sanction), in the action's own transaction, given the new state. An action that
        carries a step (a button made for it) meets the state inside the lock: at a later
        step the engine refuses it as stale.
        """
        async with self.states.lock(game_id):
            return await self.apply(game_id, action, also)

    async def apply(
        self,
        game_id: int,
        action: Action,
        also: Also | None = None,
        writes: Work[object] | None = None,
    ) -> tuple[GameState, list[Event]]:
        """`act`, for a caller that holds the game's lock; `writes`, like `also`, stand or
        fall with the action, in its own trip to the database."""
        with timings.phase("state"):
            game = await self.repos.games.get_committed(game_id)
            state = await self.states.state(game_id)
        if game is None or state is None:
            raise LookupError(f"no running game {game_id}")
        now = self.clock.now()
        with timings.phase("engine"):
            new_state, events = engine.apply(state, action, now)
        status = None
        if new_state.finished:
            status = GameStatus.OVER if new_state.winner else GameStatus.ABORTED
        await self.commit(game, new_state, events, now, status, also, writes)
        if isinstance(action, HostAction):
            log_game(game, "the Host's %s", host_action(action))
        return new_state, events

    async def commit(
        self,
        game: Game,
        state: GameState,
        events: Sequence[Event],
        now: float,
        status: GameStatus | None = None,
        also: Also | None = None,
        writes: Work[object] | None = None,
    ) -> None:
        """Store, then tell: nobody hears of an action that a crash could still undo.

        One transaction holds the events, the new state, the messages the game depends
        on (role cards, night keyboards and results: the outbox) and the mark that the
        Telegram update behind the action is handled. Only then are timers armed and
        messages sent; what was sent is ticked off in the outbox.
        """
        with timings.phase("render"):
            audience = await self.people.audience(game, state)
            out = render(events, state, audience, self.t)
            announced = announcement(events, state, out, game.chat_id)
        try:
            with timings.phase("commit"):
                outbox, update_id = await self._store(
                    game, state, events, now, status, out, announced, also, writes
                )
        except sqlite3.Error as error:
            log.warning("game %s: the commit failed: %s", game.game_id, error)
            raise NotRecorded(str(error)) from error
        if update_id is not None:
            self.updates.stored(update_id)
        for index, outbox_id in outbox.items():  # the deal's table message: its row
            item = out[index]
            if isinstance(item, Post) and item.remember == BOARD:
                self.table.recorded(game.game_id, outbox_id)
        self.states.cache(game.game_id, state)
        if state.finished:
            self.states.finished(game.game_id)
            if status is GameStatus.OVER and state.winner is not None:
                log_game(game, "finished, %s won", state.winner.value)
            elif status is GameStatus.ABORTED:
                log_game(game, "stopped, no result")
        unseen = self.clockwork.unseen
        if announced is not None and state.deadline is not None:
            # D10, T2: nobody can act on a step the table has not seen yet, so its clock
            # waits for its announcement (`seen`); the game waits for the window.
            unseen[game.game_id] = (state.step, now)
        if not self.clockwork.arm(game.game_id, state):
            await self.notices.tell_host_of(game, "host.clock_failed", game=game.game_id)

        async def sent(index: int, message_id: int | None) -> None:
            if index == announced and unseen.get(game.game_id, (None,))[0] == state.step:
                await self.seen(game, state.step, outbox[index], message_id)
            elif index in outbox and message_id is not None:
                await self.tick(outbox[index], message_id)

        with timings.phase("send"):
            delivery = await self.sender.deliver(game.game_id, out, sent=sent, track=outbox)
            await self.notices.report_undelivered(game, state, delivery.failed, events)
        with timings.phase("render"):  # the table and the panel: rendered, then queued
            try:  # cosmetic: the action is stored and told, whatever becomes of the table
                await self.table.show_board(game, state, audience.group_lang)
            except Exception:
                log.exception("game %s: the table could not be shown", game.game_id)
            await self.table.show_panel(game, state, events)

    async def _store(
        self,
        game: Game,
        state: GameState,
        events: Sequence[Event],
        now: float,
        status: GameStatus | None,
        out: Sequence[Outgoing],
        announced: int | None,
        also: Also | None,
        writes: Work[object] | None,
    ) -> tuple[dict[int, int], int | None]:
        """The transaction of `commit`: what it enqueued (item index -> outbox id).

        Its statements run in one trip to the database's thread (`Database.atomic`), so
        that the other games' statements wait for one trip, not one a statement.
        """
        game_id = game.game_id
        batch = [NewEvent(e.at, dumps(entry_to_json(e))) for e in stamp(events, now)]
        state_json = dumps(state_to_json(state))
        kept: list[tuple[int, int, str, str]] = []  # (item index, chat, kind, payload)
        for index, item in enumerate(out):
            kind = OUTBOX_POST if isinstance(item, Post) and item.essential else None
            if kind is not None and isinstance(item, Post) and item.remember == BOARD:
                kind = OUTBOX_BOARD
            if index == announced:
                kind = f"{OUTBOX_TURN}{state.step}"
            if kind is not None:
                kept.append((index, item.chat_id, kind, dumps(to_json(item))))
        update_id = CURRENT_UPDATE.get()

        def store(connection: sqlite3.Connection) -> dict[int, int]:
            if status is not None:
                setting_status(game_id, status, now=now)(connection)
            appending(game_id, batch)(connection)
            saving_state(game_id, state_json=state_json, deadline=state.deadline, now=now)(
                connection
            )
            outbox = {
                index: enqueuing(
                    game_id=game_id, chat_id=chat_id, kind=kind, payload_json=payload, now=now
                )(connection).outbox_id
                for index, chat_id, kind, payload in kept
            }
            if update_id is not None:
                marking_update(update_id, now=now)(connection)
            if writes is not None:
                writes(connection)
            return outbox

        database = self.repos.database
        if also is None:
            return await database.atomic(store), update_id
        async with database.transaction():
            outbox = await database.atomic(store)
            await also(state)
        return outbox, update_id

    async def tick(self, outbox_id: int, message_id: int) -> None:
        """Tick a message off in the outbox. The action is stored and told already: a
        failure here only means the message goes out again after a restart."""
        try:
            await self.repos.outbox.mark_sent(
                outbox_id, message_id=message_id, now=self.clock.now()
            )
        except sqlite3.Error:
            log.exception("outbox message %s was sent but could not be ticked off", outbox_id)

    async def seen(self, game: Game, step: int, outbox_id: int, message_id: int | None) -> None:
        """The announcement of `step` reached the group (or, with no `message_id`, could
        not): its clock starts. The engine says whether it was seen late (`Announced`):
        then the turn starts again with its full time (D10, T2), stored with the outbox's
        tick so that a restart finds one or the other.
        """
        game_id = game.game_id
        unseen_steps = self.clockwork.unseen

        async def tick() -> None:
            if message_id is not None:
                await self.repos.outbox.mark_sent(
                    outbox_id, message_id=message_id, now=self.clock.now()
                )

        try:
            async with self.states.lock(game_id):
                unseen = unseen_steps.get(game_id)
                if unseen is None or unseen[0] != step:
                    await tick()
                    return
                del unseen_steps[game_id]
                state = await self.states.state(game_id)
                if state is None:
                    return
                now = self.clock.now()
                try:
                    restarted, events = engine.apply(state, Announced(step), now)
                except RuleError:  # the game moved on or ended meanwhile: nothing to start
                    events = []
                if events:
                    ticked = None
                    if message_id is not None:  # with the clock's restart, in its trip
                        ticked = marking_sent(outbox_id, message_id=message_id, now=now)
                    current = await self.repos.games.get_committed(game_id) or game
                    try:
                        await self.commit(current, restarted, events, now, writes=ticked)
                        return
                    except NotRecorded:
                        log.exception("game %s: step %s could not start its clock", game_id, step)
                with contextlib.suppress(sqlite3.Error):
                    await tick()
                if not self.clockwork.arm(game_id, state):
                    await self.notices.tell_host_of(game, "host.clock_failed", game=game_id)
        except Exception:
            log.exception("game %s: the clock of step %s could not start", game_id, step)
            unseen_steps.pop(game_id, None)
            state = self.states.cached_state(game_id)
            if state is not None:
                self.clockwork.arm(game_id, state)

    async def time_out(self, game_id: int, step: int) -> None:
        """A turn's deadline: the turn ends (T2), unless it moved on meanwhile."""
        try:
            await self.act(game_id, Timeout(step))
            self.clockwork.deadline_stored(game_id)
        except (StaleAction, GamePaused):
            pass  # the turn moved on, or the Host paused it: nothing is due
        except TooEarly:
            state = await self.states.state(game_id)  # /extend moved the deadline: follow it
            if state is not None:
                self.clockwork.arm(game_id, state)
        except NotRecorded:
            await self.clockwork.retry_deadline(game_id, step)

    async def hand_over(self, game: Game, host_id: int) -> Game | None:
        """`/host`: the game passes to another member; the game as it now is, or None if
        there is no such game any more. A dealt game's hand-over is an event on its
        protocol, stored with the new Host in one transaction, so that the sheet names
        every Host who ran it (T3); a lobby has no protocol yet, only its Host."""
        async with self.states.lock(game.game_id):
            current = await self.repos.games.get(game.game_id)
            if current is None or current.status not in (GameStatus.LOBBY, GameStatus.RUNNING):
                return None
            if current.host_user_id != host_id:
                now = self.clock.now()
                if current.status is GameStatus.LOBBY:
                    await self.repos.games.set_host(game.game_id, host_id, now=now)
                    log_game(game, "the Host handed over to user %s", host_id)
                else:  # logged as the Host's action
                    writes = setting_host(game.game_id, host_id, now=now)
                    handed = HandOver(current.host_user_id, host_id)
                    await self.apply(game.game_id, handed, writes=writes)
            return await self.repos.games.get(game.game_id)

    async def sign(self, game: Game, host_id: int, host_name: str) -> bool:
        """T3: the Host signs the sheet of an ended game, once."""
        if not await self.repos.games.sign(game.game_id, host_id, now=self.clock.now()):
            return False
        lang = await self.people.chat_lang(game.chat_id)
        text = self.t(lang, "over.signed", host=escape(profile_name(host_name, fallback="?")))
        await self.sender.deliver(game.game_id, [Post(game.chat_id, text)])
        return True
