"""The table message pinned in the group, and the Host's panel: both follow the state.

Cosmetic, both: the action is stored and told whatever becomes of them.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Sequence
from dataclasses import dataclass, field

from bot.delivery.sender import Remembered, Sender
from bot.lru import LRU
from bot.rules.codec import from_json, to_json
from bot.rules.events import Event
from bot.rules.state import GameState
from bot.services.clock import Clock
from bot.services.game.shared import OUTBOX_BOARD, dumps, log
from bot.services.game.states import GameStates
from bot.views.board import BOARD, board_text
from bot.views.i18n import Texts
from bot.views.panel import HostPanels
from bot.views.render import Post
from storage.games import Game, GameStatus
from storage.outbox import OutboxMessage
from storage.repositories import Repositories

# Games whose table message's outbox row is known without a read (`TableMessage.rows`).
KEEP_ROWS = 5_000


@dataclass(eq=False, repr=False)
class TableMessage:
    repos: Repositories
    clock: Clock
    t: Texts
    sender: Sender
    states: GameStates
    panels: HostPanels
    # Each game's outbox row of its table message, where each edit stores what it shows:
    # by its key, so that storing it reads no other row (the outbox holds every message
    # of the day). One not known here (forgotten, or posted again from the outbox after a
    # restart) is not updated: the next restart then edits from the older text it holds.
    rows: LRU[int, int] = field(default_factory=lambda: LRU(KEEP_ROWS))

    def recorded(self, game_id: int, outbox_id: int) -> None:
        """The game's table message is the outbox's row `outbox_id`."""
        self.rows[game_id] = outbox_id

    async def show_board(self, game: Game, state: GameState, lang: str) -> None:
        """The pinned table message follows the state (cosmetic: the sender folds and paces it).

        After a restart the sender no longer knows the message: its id is read back from
        the outbox. A table message the deal has not delivered yet is left to the outbox
        (`resend_unsent`); one never recorded is posted and pinned anew.
        """
        if not state.seats:
            return
        key = (game.game_id, BOARD)
        if key not in self.sender.remembered:
            try:
                posted = await self.repos.outbox.latest(game.game_id, OUTBOX_BOARD)
            except sqlite3.Error:
                log.exception("game %s: the table message could not be looked up", game.game_id)
                return
            if posted is not None and posted.message_id is None:
                return  # still to go out with the deal: it shows the table as it is then
            # One left behind in a group that became a supergroup is posted anew.
            here = posted is not None and posted.chat_id == game.chat_id
            if posted is not None and posted.message_id is not None and here:
                self.recall_board(posted)
        text = board_text(state, lang, self.t)
        self.sender.board(game.game_id, game.chat_id, text, self._board_shown)

    def recall_board(self, posted: OutboxMessage) -> None:
        """The table message a restart found in the outbox, remembered for the next edit
        as showing what it was last shown (its row keeps the text of every edit that
        went out): an edit still waiting for room when the process ended is made again.
        """
        assert posted.message_id is not None
        self.recorded(posted.game_id, posted.outbox_id)
        text = from_json(Post, json.loads(posted.payload_json)).text
        self.sender.remembered[(posted.game_id, BOARD)] = Remembered(
            posted.chat_id, posted.message_id, text, None
        )

    async def _board_shown(
        self, game_id: int, chat_id: int, message_id: int, text: str, posted: bool
    ) -> None:
        """The table message shows `text`: stored, so that a restart edits this very
        message and knows what it shows. A new one goes in a row of its own."""
        payload = dumps(to_json(Post(chat_id, text, pin=True, remember=BOARD)))
        try:
            if not posted:
                row = self.rows.get(game_id)
                if row is not None:
                    await self.repos.outbox.showing(row, message_id, payload)
                return
            async with self.repos.database.transaction():
                queued = await self.repos.outbox.enqueue(
                    game_id=game_id,
                    chat_id=chat_id,
                    kind=OUTBOX_BOARD,
                    payload_json=payload,
                    now=self.clock.now(),
                )
                await self.repos.outbox.mark_sent(
                    queued.outbox_id, message_id=message_id, now=self.clock.now()
                )
            self.recorded(game_id, queued.outbox_id)
        except sqlite3.Error:
            log.exception("game %s: what the table message shows could not be stored", game_id)

    async def show_panel(self, game: Game, state: GameState, events: Sequence[Event] = ()) -> None:
        """The Host's panel follows the game; it never fails the action that moved it."""
        try:
            await self.panels.show(game, state, events)
        except Exception:
            log.exception("game %s: the Host's panel could not follow", game.game_id)

    async def show_panels_of(self, user_id: int) -> None:
        """The Host pressed Start: the panels of the games they host, which could not be
        posted before (every running game was shown once at the deal or at start-up)."""
        for game_id in self.panels.reachable(user_id):
            async with self.states.lock(game_id):  # no older view after a newer one
                game = await self.repos.games.get(game_id)
                state = await self.states.state(game_id)
                if game is not None and game.status is GameStatus.RUNNING and state is not None:
                    await self.show_panel(game, state)
