"""The people and chats the bot meets: their stored names and languages.

What this process knows it has stored, so that an update from someone already known
costs no write, and a message's language no read. Only the methods here change what
these caches mirror.
"""

from __future__ import annotations

from collections.abc import Iterable

from bot.lru import LRU
from bot.rules.state import GameState
from bot.views.i18n import Texts
from bot.views.render import Audience
from storage.chats import ChatType
from storage.games import Game
from storage.nicks import profile_name
from storage.repositories import Repositories

# People and chats whose stored name and language this process remembers: far more than
# play at once (400 games seat 6,400), so that only a newcomer costs a database read.
KEEP_PEOPLE = 20_000
KEEP_CHATS = 5_000


class People:
    def __init__(self, repos: Repositories, texts: Texts, timezone: str) -> None:
        self.repos = repos
        self.t = texts
        self.timezone = timezone  # of the clock times players read
        self.chat_langs: LRU[int, str | None] = LRU(KEEP_CHATS)
        self.user_langs: LRU[int, str | None] = LRU(KEEP_PEOPLE)
        self.known_users: LRU[int, tuple[str, str | None]] = LRU(KEEP_PEOPLE)
        self.known_chats: LRU[int, tuple[ChatType, str | None]] = LRU(KEEP_CHATS)
        # Lower-cased @username -> user id; touched with `known_users`, so that the
        # username of every user still known there is still here.
        self.username_owners: LRU[str, int] = LRU(KEEP_PEOPLE)

    async def chat_lang(self, chat_id: int) -> str:
        if chat_id not in self.chat_langs:
            chat = await self.repos.chats.get(chat_id)
            self.chat_langs[chat_id] = chat.lang if chat else None
        return self.t.lang(self.chat_langs[chat_id])

    async def user_lang(self, user_id: int, telegram_lang: str | None = None) -> str:
        if user_id not in self.user_langs:
            user = await self.repos.users.get(user_id)
            self.user_langs[user_id] = user.lang if user else None
        return self.t.lang(self.user_langs[user_id] or telegram_lang)

    async def set_chat_lang(self, chat_id: int, lang: str) -> None:
        await self.repos.chats.set_lang(chat_id, lang)
        self.chat_langs[chat_id] = lang

    async def set_user_lang(self, user_id: int, lang: str) -> None:
        await self.repos.users.set_lang(user_id, lang)
        self.user_langs[user_id] = lang

    async def saw_user(self, user_id: int, first_name: str, username: str | None) -> None:
        """Store the user's name as an update shows it, unless it is already stored so.

        The name is stored made safe (one printable line, storage.nicks): whatever shows
        it later (the lobby, a hand-over, an expulsion) cannot draw a line with it."""
        first_name = profile_name(first_name, None, username, fallback=str(user_id))
        if self.known_users.get(user_id) == (first_name, username):
            if username is not None:
                self.username_owners.touch(username.lower())
        else:
            await self.repos.users.upsert(user_id, first_name=first_name, username=username)
            if username is not None:
                # The upsert took the username from whoever had it: they are no longer
                # stored as this process knew them.
                before = self.username_owners.get(username.lower())
                if before is not None and before != user_id:
                    self.known_users.pop(before, None)
                self.username_owners[username.lower()] = user_id
            self.known_users[user_id] = (first_name, username)

    async def saw_chat(self, chat_id: int, type: ChatType, title: str | None) -> None:
        """Store the chat as an update shows it, unless it is already stored so."""
        if self.known_chats.get(chat_id) != (type, title):
            await self.repos.chats.upsert(chat_id, type=type, title=title)
            self.known_chats[chat_id] = (type, title)

    def forget_chat(self, chat_id: int) -> None:
        """The chat's id changed (a group became a supergroup): read it afresh."""
        self.chat_langs.pop(chat_id, None)
        self.known_chats.pop(chat_id, None)

    async def started(self, user_id: int) -> None:
        """They pressed Start in the bot's private chat: the bot may write to them (again,
        if they had blocked it)."""
        await self.repos.users.set_started(user_id, True)
        await self.repos.users.set_blocked(user_id, False)

    async def reachable(self, user_id: int) -> bool:
        """Whether the bot may write to the person in private, as far as it knows: they
        pressed Start and have not blocked it since (Telegram refuses it otherwise)."""
        user = await self.repos.users.get(user_id)
        return user is not None and user.started and not user.blocked

    async def audience(self, game: Game, state: GameState | None = None) -> Audience:
        langs: dict[int, str] = {}
        if state is not None:
            for seat in state.seats.values():
                langs[seat.user_id] = await self.user_lang(seat.user_id)
        lang = await self.chat_lang(game.chat_id)
        return Audience(game.game_id, game.chat_id, lang, langs, self.timezone)

    async def recall_languages(self, games: Iterable[Game], states: dict[int, GameState]) -> None:
        """The languages of the running games' groups, players and Hosts, in two reads,
        so that neither the notices nor each game's next turn read them one by one."""
        games = list(games)
        chat_ids = {game.chat_id for game in games}
        people = {game.host_user_id for game in games}
        for game in games:
            state = states.get(game.game_id)
            if state is not None:
                people.update(seat.user_id for seat in state.seats.values())
        chat_ids = {c for c in chat_ids if c not in self.chat_langs}
        people = {p for p in people if p not in self.user_langs}
        chats = await self.repos.chats.many(chat_ids)
        users = await self.repos.users.many(people)
        # As `chat_lang` and `user_lang` would have them, an unknown one as None; one
        # that a /lang changed meanwhile stays as it now is.
        for chat_id in chat_ids:
            if chat_id not in self.chat_langs:
                chat = chats.get(chat_id)
                self.chat_langs[chat_id] = chat.lang if chat else None
        for user_id in people:
            if user_id not in self.user_langs:
                user = users.get(user_id)
                self.user_langs[user_id] = user.lang if user else None
