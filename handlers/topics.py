"""Forum supergroups: a game lives in the topic it was opened in.

A forum's other topics (and its General, for a game opened in a topic) are the club's
chat about anything else: what is said there is not the game's business. The silence
guard neither deletes nor reports it (D10 and N5 are about the game's table), and a game
command sent there changes nothing: it is answered with a link to the game's topic. A
second /newgame there is refused, naming where the game is (one game a group).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from aiogram import BaseMiddleware, Bot
from aiogram.types import Chat, Message, TelegramObject

from bot.delivery.throttle import REMEMBERED
from bot.lru import LRU
from bot.services.game import GameService
from bot.views.i18n import Texts
from handlers.commands import PRIVATE_ONLY
from handlers.guard import is_command, is_speech
from handlers.lobby import topic_of
from storage.games import Game

# Commands that are nobody's game: they work in any topic, as anywhere.
ANYWHERE = frozenset({"start", "help", "rules", "lang", *PRIVATE_ONLY})
# One person's commands in another topic are pointed to the game once in this many seconds.
POINTED_EVERY = 10.0


def topic_link(chat: Chat, thread_id: int | None) -> str:
    """A t.me link to the topic `thread_id` of the forum (None: the forum itself)."""
    if chat.username:
        base = f"https://t.me/{chat.username}"
    else:  # a private supergroup: t.me/c/ with its id without the -100
        digits = str(-chat.id)
        base = f"https://t.me/c/{digits[3:] if digits.startswith('100') else digits}"
    return base if thread_id is None else f"{base}/{thread_id}"


def command_name(message: Message, username: str | None) -> str | None:
    """The command a message sends to this bot (`/cmd` or `/cmd@thisbot`), lower-cased;
    None for one sent to another bot."""
    said = message.text if message.text is not None else message.caption
    assert said is not None
    word = said.split(maxsplit=1)[0][1:] if said.strip() else ""
    name, _, addressee = word.partition("@")
    if addressee and (username is None or addressee.lower() != username.lower()):
        return None
    return name.lower()


def elsewhere(game: Game, message: Message) -> bool:
    """The message was posted in a forum outside the topic the chat's game lives in."""
    return bool(message.chat.is_forum) and game.thread_id != topic_of(message)


class GameTopic(BaseMiddleware):
    """In a forum with a game, what is posted outside the game's topic is not the game's:
    speech goes on unseen by the guard, a game command is answered with a pointer to the
    game's topic (at most once in POINTED_EVERY seconds a person) and changes nothing.
    Telegram's own service messages (joins, a topic opened, a migration) pass as usual.

    `edited`: for edited messages, which are speech or nothing (never answered).
    """

    def __init__(self, *, edited: bool = False) -> None:
        self.edited = edited
        self._pointed: LRU[tuple[int, int], float] = LRU(REMEMBERED)

    async def __call__(
        self,
        handler: Callable[[TelegramObject, dict[str, Any]], Awaitable[Any]],
        event: TelegramObject,
        data: dict[str, Any],
    ) -> Any:
        if not isinstance(event, Message) or not event.chat.is_forum:
            return await handler(event, data)
        service: GameService = data["service"]
        game = await service.active_game(event.chat.id)
        if game is None or not elsewhere(game, event) or not await is_speech(event):
            return await handler(event, data)
        if self.edited or not is_command(event):
            return None  # the club's talk in another topic: not the game's business
        bot: Bot = data["bot"]
        name = command_name(event, (await bot.me()).username)
        if name is None:
            return None  # another bot's command
        if name in ANYWHERE:
            return await handler(event, data)
        if event.from_user is not None:
            key = (event.chat.id, event.from_user.id)
            now = service.clock.now()
            last = self._pointed.get(key)
            if last is not None and now - last < POINTED_EVERY:
                return None
            self._pointed[key] = now
        lang: str = data.get("lang") or await service.chat_lang(event.chat.id)
        where = "topic" if game.thread_id is not None else "general"
        kind = "newgame" if name == "newgame" else "elsewhere"
        link = topic_link(event.chat, game.thread_id)
        t: Texts = data["t"]
        await event.answer(t(lang, f"topics.{kind}_{where}", game=game.game_id, link=link))
        return None
