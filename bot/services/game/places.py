"""Where a game lives: its group and forum topic, and what moves when they change."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field

from bot.delivery.moved_chats import MovedChats
from bot.delivery.sender import Sender
from bot.services.clock import Clock
from bot.services.game.people import People
from bot.services.game.shared import log
from bot.services.game.states import GameStates
from bot.services.game.table import TableMessage
from storage.games import Game, GameStatus
from storage.repositories import Repositories


@dataclass(eq=False, repr=False)
class Places:
    repos: Repositories
    clock: Clock
    sender: Sender
    states: GameStates
    people: People
    table: TableMessage
    # Groups that became supergroups (installed on the bot's session by the app).
    moves: MovedChats
    _moving: asyncio.Lock = field(default_factory=asyncio.Lock, init=False)

    def __post_init__(self) -> None:
        # Every post of a game goes to the game's topic; a topic deleted moves the game.
        self.sender.locate = self.locate
        self.sender.topic_gone = self.topic_gone

    async def locate(self, game_id: int) -> tuple[int, int | None] | None:
        """Where the game lives: its group and forum topic (the sender's first post of a
        game this process has not met yet asks)."""
        game = await self.repos.games.get_committed(game_id)
        return None if game is None else (game.chat_id, game.thread_id)

    async def topic_gone(self, game_id: int) -> None:
        """The game's topic was deleted: the game goes on in the group's General, which is
        then the game's place for the guard and the commands too."""
        try:
            await self.repos.games.set_thread(game_id, None, now=self.clock.now())
        except Exception:  # the posts go on in General all the same
            log.exception("game %s: could not note that its topic is gone", game_id)

    async def migrate_chat(self, chat_id: int, new_chat_id: int) -> list[Game]:
        """A group became a supergroup: everything keyed by the old id moves to the new,
        and what the group was shown of its game goes up there anew (the turn and the
        vote with their buttons, the table pinned; the lobby is the caller's, who gets
        the games that moved now). Told by either service message, or by a refusal of
        the old id (`bot.delivery.moved_chats`): the first moves it, the others find
        nothing to move.
        """
        async with self._moving:
            self.moves.moved[chat_id] = new_chat_id
            moved = 0
            if await self.repos.chats.get(chat_id) is not None:
                moved = await self.repos.chats.migrate_to_chat_id(chat_id, new_chat_id)
            self.people.forget_chat(chat_id)
            self.people.forget_chat(new_chat_id)
            boards = self.sender.moved(chat_id, new_chat_id)
            for game_id in boards:
                game = await self.repos.games.get(game_id)
                state = await self.states.state(game_id)
                if game is not None and game.status is GameStatus.RUNNING and state is not None:
                    lang = await self.people.chat_lang(game.chat_id)
                    await self.table.show_board(game, state, lang)
            active = await self.states.active_game(new_chat_id) if moved else None
            if moved:
                log.info("chat %s moved to the supergroup %s", chat_id, new_chat_id)
            return [active] if active is not None else []
