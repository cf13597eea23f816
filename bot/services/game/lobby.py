"""A game before its deal: the lobby, who sits in it, who hosts it, and the deal (S3).

Every change is made under the game's lock, so a /begin, a /stop and a Join sent
together leave the lobby in one of the states they could have made one after another.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from enum import StrEnum

from bot.delivery.sender import Sender
from bot.lru import LRU
from bot.rules import engine
from bot.rules.codec import from_json, to_json
from bot.rules.events import Player
from bot.rules.settings import GameSettings
from bot.services.clock import Clock, Timers
from bot.services.game.actions import Actions
from bot.services.game.people import KEEP_CHATS, People
from bot.services.game.shared import LOBBY, log_game
from bot.services.game.states import GameStates
from bot.tournament.settings import settings_from_json
from bot.views.i18n import Texts
from bot.views.render import Post
from storage.games import Game, GameStatus, LobbyPlayer
from storage.nicks import PROFILE_LONGEST, clean_nick
from storage.repositories import Repositories


@dataclass(frozen=True)
class BeginOutcome:
    started: bool
    # Players the bot cannot write to yet: they never pressed Start, or blocked the bot.
    unreachable: list[LobbyPlayer]
    too_few: int | None = None  # set when the lobby is outside the settings' bounds


class Seating(StrEnum):
    """What became of a request for a seat in a lobby (the value names its text)."""

    JOINED = "joined"
    ALREADY = "already"
    FULL = "full"
    CLOSED = "closed"
    NOT_ON_ROSTER = "not_on_roster"
    ELSEWHERE = "elsewhere"


@dataclass(frozen=True)
class JoinOutcome:
    seating: Seating
    elsewhere: Game | None = None  # the game the person already has a seat in

    @property
    def joined(self) -> bool:
        return self.seating is Seating.JOINED


@dataclass(eq=False, repr=False)
class Lobby:
    repos: Repositories
    clock: Clock
    timers: Timers
    t: Texts
    sender: Sender
    states: GameStates
    people: People
    actions: Actions
    casual_settings: GameSettings
    new_seed: Callable[[], str]
    idle_seconds: float
    # Lobbies whose /begin waits for someone to press Start.
    _begin_requested: set[int] = field(default_factory=set, init=False)
    # Lobby posts with an edit under way: True if they changed again since it began
    # (handlers.lobby.refresh_lobby).
    stale: dict[int, bool] = field(default_factory=dict, init=False)
    # What each lobby post shows now, as its last edit left it: two joins whose
    # refreshes run one after the other make one edit, not a second, refused
    # "not modified" one.
    shown: LRU[int, str] = field(default_factory=lambda: LRU(KEEP_CHATS), init=False)

    async def open(self, chat_id: int, host_id: int, thread_id: int | None = None) -> Game:
        """A casual lobby in the chat; in a forum, in the topic `thread_id` it was asked
        for in (None: General), where the whole game then lives."""
        settings = json.dumps(to_json(self.casual_settings))
        game = await self.repos.games.create(
            chat_id=chat_id,
            host_user_id=host_id,
            settings_json=settings,
            now=self.clock.now(),
            thread_id=thread_id,
        )
        self.sender.place(game.game_id, game.chat_id, game.thread_id)
        log_game(game, "lobby opened by user %s", host_id)
        await self.touch(game)
        return game

    # --- an idle lobby closes (issue 25) --------------------------------------------

    async def touch(self, game: Game) -> None:
        """Something happened in a casual lobby: it closes `idle_seconds` from now.

        The date is stored as the game's deadline (a restart re-arms it, `rearm`) and
        armed as the `lobby:<game>` timer, which replaces the one before it."""
        if game.tournament_id is not None:
            return  # a tournament table's lobby is its Host's, named by the Judge
        when = self.clock.now() + self.idle_seconds
        await self.repos.games.set_deadline(game.game_id, when, now=self.clock.now())
        self.timers.arm(LOBBY, game.game_id, 0, when)

    async def rearm(self) -> None:
        """Start-up: every casual lobby's closing time armed again."""
        for game in await self.repos.games.pending_deadlines():
            if game.status is GameStatus.LOBBY and game.deadline is not None:
                self.timers.arm(LOBBY, game.game_id, 0, game.deadline)

    async def expire(self, game_id: int) -> None:
        """The lobby's timer: closed if nothing happened in it since; the group is told."""
        async with self.states.lock(game_id):
            game = await self.repos.games.get(game_id)
            if game is None or game.status is not GameStatus.LOBBY or game.deadline is None:
                return
            if game.deadline > self.clock.now():
                self.timers.arm(LOBBY, game_id, 0, game.deadline)  # touched meanwhile
                return
            await self.repos.games.set_status(game_id, GameStatus.ABORTED, now=self.clock.now())
            self._begin_requested.discard(game_id)
            log_game(game, "the lobby closed, idle")
        lang = await self.people.chat_lang(game.chat_id)
        minutes = max(1, round(self.idle_seconds / 60))
        text = self.t(lang, "lobby.expired", game=game_id, minutes=minutes)
        await self.sender.deliver(game_id, [Post(game.chat_id, text)])

    async def take_over(self, game: Game, user_id: int) -> Game | None:
        """A chat's administrator becomes the Host of a casual lobby someone else opened;
        None if it is no such lobby any more (dealt, stopped, or already theirs)."""
        async with self.states.lock(game.game_id):
            current = await self.repos.games.get(game.game_id)
            if (
                current is None
                or current.status is not GameStatus.LOBBY
                or current.tournament_id is not None
                or current.host_user_id == user_id
            ):
                return None
            await self.repos.games.set_host(game.game_id, user_id, now=self.clock.now())
            log_game(game, "an administrator, user %s, took the lobby over", user_id)
            await self.touch(current)
            return await self.repos.games.get(game.game_id)

    async def kick(self, game: Game, number: int) -> LobbyPlayer | None:
        """The Host's /kick N: the lobby's N-th player is out; None if there is no N-th.
        A /begin that waited only for them goes ahead."""
        async with self.states.lock(game.game_id):
            current = await self.repos.games.get(game.game_id)
            if current is None or current.status is not GameStatus.LOBBY:
                return None
            players = await self.repos.lobby.players(game.game_id)
            if not 1 <= number <= len(players):
                return None
            out = players[number - 1]
            await self.repos.lobby.leave(game.game_id, out.user_id)
            log_game(game, "the Host took user %s out of the lobby", out.user_id)
            await self.touch(current)
        if game.game_id in self._begin_requested:
            rest = [p for p in players if p.user_id != out.user_id]
            if not await self.unreachable(rest):
                await self.begin(current)
        return out

    async def settings_of(self, game: Game) -> GameSettings:
        settings: GameSettings = from_json(GameSettings, json.loads(game.settings_json))
        return settings

    async def join(self, game: Game, user_id: int, nick: str) -> JoinOutcome:
        """Seat a player in the lobby, under the game's lock, if they may sit there.

        A tournament table seats its roster only, under their tournament nicks (T1;
        reserves come in through the Judge's /replace). Nobody holds two seats at once:
        the check and the seat are one transaction, so two lobbies joined at the same
        moment cannot both take the same person.
        """
        # The seat's nick is printed in every post of the game: one safe line (issue 25).
        nick = clean_nick(nick, PROFILE_LONGEST) or str(user_id)
        async with self.states.lock(game.game_id):
            current = await self.repos.games.get(game.game_id)
            if current is None or current.status is not GameStatus.LOBBY:
                return JoinOutcome(Seating.CLOSED)  # e.g. the deal happened meanwhile
            players = await self.repos.lobby.players(game.game_id)
            if any(p.user_id == user_id for p in players):
                return JoinOutcome(Seating.ALREADY)
            group = await self.repos.tours.group_of_game(game.game_id)
            if group is not None:
                if user_id not in group.players:
                    return JoinOutcome(Seating.NOT_ON_ROSTER)
                registered = await self.repos.tournaments.player(group.tournament_id, user_id)
                nick = registered.nick if registered is not None else nick
            if len(players) >= (await self.settings_of(current)).max_players:
                return JoinOutcome(Seating.FULL)
            async with self.repos.database.transaction():
                elsewhere = await self.repos.lobby.seated_elsewhere(user_id, game.game_id)
                if elsewhere is not None:
                    return JoinOutcome(Seating.ELSEWHERE, elsewhere)
                await self.repos.lobby.join(game.game_id, user_id, nick=nick, now=self.clock.now())
            await self.touch(current)
            return JoinOutcome(Seating.JOINED)

    async def leave(self, game: Game, user_id: int) -> bool:
        """Take a player out of the lobby, under the game's lock; False if they were not in it."""
        async with self.states.lock(game.game_id):
            current = await self.repos.games.get(game.game_id)
            if current is None or current.status is not GameStatus.LOBBY:
                return False
            if not await self.repos.lobby.leave(game.game_id, user_id):
                return False
            await self.touch(current)
            return True

    async def stop(self, game: Game) -> bool:
        """The Host's /stop before the deal; False if the game was dealt meanwhile.

        Under the game's lock, like /begin: a /stop and a /begin sent together leave the
        game either stopped in the lobby or dealt (and then the caller stops it as a
        running game), never dealt with its status saying it was stopped.
        """
        async with self.states.lock(game.game_id):
            current = await self.repos.games.get(game.game_id)
            if current is None or current.status is not GameStatus.LOBBY:
                return False
            await self.repos.games.set_status(
                game.game_id, GameStatus.ABORTED, now=self.clock.now()
            )
            self._begin_requested.discard(game.game_id)
            self.timers.cancel(LOBBY, game.game_id)
            log_game(game, "stopped in the lobby")
            return True

    async def posted(self, game: Game, message_id: int, text: str) -> None:
        """The lobby's post went up (or up anew, in a supergroup): the one edited from
        now on, showing `text`."""
        self.shown[game.game_id] = text
        await self.repos.games.set_lobby_message(game.game_id, message_id, now=self.clock.now())

    async def unreachable(self, players: Sequence[LobbyPlayer]) -> list[LobbyPlayer]:
        return [p for p in players if not await self.people.reachable(p.user_id)]

    async def begin(self, game: Game) -> BeginOutcome:
        """The Host's /begin: the deal, if every player can be written to (S3)."""
        async with self.states.lock(game.game_id):
            game = await self.repos.games.get(game.game_id) or game
            if game.status is not GameStatus.LOBBY:
                return BeginOutcome(started=False, unreachable=[])
            settings = await self.settings_of(game)
            players = await self.repos.lobby.players(game.game_id)
            if not settings.min_players <= len(players) <= settings.max_players:
                return BeginOutcome(False, [], too_few=settings.min_players)
            missing = await self.unreachable(players)
            if missing:
                # /begin waits: the deal happens as soon as the last of them presses Start.
                self._begin_requested.add(game.game_id)
                return BeginOutcome(False, missing)
            self._begin_requested.discard(game.game_id)
            now = self.clock.now()
            state, events = engine.start_game(
                game.game_id,
                [Player(p.user_id, p.nick) for p in players],
                settings,
                self.new_seed(),
                now,
                await self.seat_order(game, [p.user_id for p in players]),
            )
            await self.actions.commit(game, state, events, now, GameStatus.RUNNING)
            self.timers.cancel(LOBBY, game.game_id)
            log_game(game, "started, %d players", len(players))
            return BeginOutcome(True, [])

    async def seat_order(self, game: Game, present: Sequence[int]) -> list[int] | None:
        """A balanced tour's seat order for a tournament table (T1), among those present;
        None (the game draws its seats, S1) elsewhere, or when someone at the table is
        not in the group's order."""
        if game.tournament_id is None:
            return None
        tournament = await self.repos.tournaments.get(game.tournament_id)
        group = await self.repos.tours.group_of_game(game.game_id)
        if tournament is None or group is None or not set(present) <= set(group.players):
            return None
        if not settings_from_json(tournament.settings_json).balanced_tours:
            return None
        return [p for p in group.players if p in set(present)]

    async def retry_waiting_begins(self, user_id: int) -> None:
        """A player pressed Start: a /begin that waited for them may go ahead now."""
        for game_id in sorted(self._begin_requested):
            players = await self.repos.lobby.players(game_id)
            game = await self.repos.games.get(game_id)
            ours = game is not None and any(p.user_id == user_id for p in players)
            if game is not None and ours and not await self.unreachable(players):
                await self.begin(game)
