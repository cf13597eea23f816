"""A database with many running games, made in-process through the game service.

For the restart benchmark: every table's lobby is filled and the game begun through
`GameService` itself (so the rows are exactly what the bot writes), on a clock that
follows the wall clock, with the messages going nowhere. Then each game is moved on by
a few speakers passing, so the games stand at different seats and phases (Day 0 or
Night 0) when the bot comes back.
"""

from __future__ import annotations

import asyncio
import random
import secrets
from collections.abc import Collection, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, cast

from bench.players import Seating, Tables
from bot.delivery.limiter import GAME
from bot.delivery.sender import Delivery, Remembered, Sender, Ticker, markup
from bot.rules.actions import Pass
from bot.rules.roles import Role
from bot.rules.settings import GameSettings
from bot.rules.state import GameState
from bot.services.clock import VirtualClock, VirtualTimers, WallClock
from bot.services.game import GameService
from bot.services.workers import Workers
from bot.views.i18n import Texts
from bot.views.render import Outgoing, Post
from sandbox import Sandbox
from storage.chats import ChatType
from storage.db import Database
from storage.repositories import Repositories


class _Nowhere:
    """A Sender that reports everything sent, having put it straight into the sandbox's
    chats: past its windows and its HTTP, as if the bot had sent it long ago. The bot
    that restarts on the games finds its turn posts and table messages there to edit,
    as it would in Telegram."""

    def __init__(self, sandbox: Sandbox) -> None:
        self.remembered: dict[tuple[int, str], Remembered] = {}
        self._api = sandbox.api
        self.workers = Workers()  # the game's locks park there, as with the real Sender
        self._told: list[asyncio.Future[None]] = []

    def _post(self, post: Post) -> int:
        params: dict[str, Any] = {"chat_id": post.chat_id, "text": post.text, "parse_mode": "HTML"}
        keyboard = markup(post.keyboard)
        if keyboard is not None:
            params["reply_markup"] = keyboard.model_dump(exclude_none=True)
        message = self._api.call("sendMessage", params)
        if post.pin:
            pin = {"chat_id": post.chat_id, "message_id": message["message_id"]}
            self._api.call("pinChatMessage", {**pin, "disable_notification": True})
        return int(message["message_id"])

    async def deliver(
        self,
        game_id: int,
        items: Sequence[Outgoing],
        priority: int = GAME,
        sent: Ticker | None = None,
        track: Collection[int] = (),
    ) -> Delivery:
        """As `Sender.deliver`: every post "goes out" at once, and its outbox row is ticked.

        Told as the real one tells it, by a task of its own: the service holds the game's
        lock while it delivers, and a turn's clock starts (under that lock) when told."""
        delivery = Delivery()
        for index, item in enumerate(items):
            if isinstance(item, Post):
                message_id = delivery.sent[index] = self._post(item)
                if sent is not None:
                    self._told.append(asyncio.ensure_future(sent(index, message_id)))
        return delivery

    async def told(self) -> None:
        """Until every post delivered so far has been told of."""
        while self._told:
            await self._told.pop(0)

    def board(self, *_: object) -> None:
        """The pinned table: nothing to show it to."""

    def place(self, *_: object) -> None:
        """Where a game lives: every post here names its chat already, and no game is in a
        forum topic."""


@dataclass
class Filled:
    """One game as the fill left it, for the players to pick up after the restart."""

    table: int
    game_id: int
    seating: Seating
    speaker: int | None  # user id of the speaker, if the game is in a speech


async def fill(path: Path, tables: Tables, settings: GameSettings, seed: int = 1) -> list[Filled]:
    rng = random.Random(seed)
    database = await Database.open(path)
    repos = Repositories.of(database)
    clock = WallClock()
    nowhere = _Nowhere(tables.sandbox)
    service = GameService(
        repos,
        clock,
        VirtualTimers(VirtualClock()),  # never fired: the restarted bot arms its own
        Texts("en"),
        cast(Sender, nowhere),
        settings,
        lambda: secrets.token_hex(16),
    )
    filled = []
    try:
        for index, group in enumerate(tables.groups):
            host, players = tables.hosts[index], tables.players[index]
            await repos.chats.upsert(group.id, type=ChatType.SUPERGROUP, title=group.title)
            for person in (host, *players):
                await repos.users.upsert(
                    person.id, first_name=person.first_name, username=person.username
                )
            for person in players:
                await repos.users.set_started(person.id, True)
            game = await service.open_lobby(group.id, host.id)
            for person in players:
                await repos.lobby.join(
                    game.game_id, person.id, nick=person.first_name, now=clock.now()
                )
            outcome = await service.begin(game)
            assert outcome.started, f"game {game.game_id} did not begin: {outcome}"
            await nowhere.told()
            # Up to a whole Day 0 of passes: some games reach Night 0.
            for _ in range(rng.randint(0, len(players))):
                state = service.cached_state(game.game_id)
                if state is None or state.speaker is None:
                    break
                await service.act(game.game_id, Pass(state.speaker))
                await nowhere.told()
            state = service.cached_state(game.game_id)
            assert state is not None
            filled.append(Filled(index, game.game_id, _seating(state), _speaker(state)))
    finally:
        await database.close()
    return filled


def _seating(state: GameState) -> Seating:
    seating = Seating()
    for seat, player in state.seats.items():
        seating.seat_of[player.user_id] = seat
        if state.is_alive(seat):
            seating.living.add(player.user_id)
        role = state.roles[seat]
        if role is Role.MAFIA:
            seating.mafia.add(player.user_id)
        elif role is Role.COMMISSIONER:
            seating.commissioner = player.user_id
    return seating


def _speaker(state: GameState) -> int | None:
    if not state.in_speech or state.speaker is None:
        return None
    return state.seats[state.speaker].user_id
