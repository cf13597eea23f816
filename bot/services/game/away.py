"""The bot removed from a game's group: the game pauses, so that nobody's turn runs out
while nobody can see it; the bot added back resumes it, if the pause was its own.

Which game the bot paused is kept with the chat (it survives a restart), written in the
same transaction as the pause or the resume that it stands for.
"""

from __future__ import annotations

from dataclasses import dataclass

from bot.rules.actions import Pause, Resume, Stop
from bot.rules.errors import RuleError
from bot.rules.state import GameState
from bot.services.game.actions import Actions
from bot.services.game.shared import Also
from storage.games import Game
from storage.repositories import Repositories


@dataclass(eq=False, repr=False)
class Away:
    repos: Repositories
    actions: Actions

    def _noting(self, game: Game, paused: int | None) -> Also:
        """The chat's note of the game the bot paused (None: none), as a write that joins
        the action's transaction."""

        async def note(_: GameState) -> None:
            await self.repos.chats.set_paused_away(game.chat_id, paused)

        return note

    async def removed(self, game: Game) -> bool:
        """The bot is out of the group: its game pauses. False if it ended meanwhile."""
        try:
            await self.actions.act(game.game_id, Pause(), self._noting(game, game.game_id))
        except (RuleError, LookupError):
            return False
        return True

    async def back(self, game: Game, state: GameState) -> bool:
        """The bot is back in the group: the game resumes if the bot paused it (a Host's
        own pause stays). Whether it resumed."""
        forget = self._noting(game, None)
        if state.paused and await self.repos.chats.paused_away(game.chat_id) == game.game_id:
            try:
                await self.actions.act(game.game_id, Resume(), forget)
                return True
            except (RuleError, LookupError):
                pass
        await forget(state)
        return False

    async def stop(self, game: Game) -> bool:
        """The Host stops the game the bot's removal paused. False if it ended meanwhile."""
        try:
            await self.actions.act(game.game_id, Stop(), self._noting(game, None))
        except (RuleError, LookupError):
            return False
        return True
