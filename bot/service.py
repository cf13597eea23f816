"""The game service: the one door between Telegram handlers and the rules core.

A handler turns an update into a call here; the service applies it to the game
under that game's lock, stores the new events and state in one transaction, arms
the game's timers, and only then delivers what the events say. Different games
proceed in parallel; actions on one game are serialized.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import sqlite3
from collections import OrderedDict
from collections.abc import Awaitable, Callable, Sequence
from contextvars import ContextVar
from dataclasses import dataclass, field, replace
from enum import StrEnum

import orjson

from bot import timings
from bot.delivery.moves import MovedChats
from bot.delivery.sender import COSMETIC, LATE, Remembered, Sender, Undelivered
from bot.logs import about_game
from bot.lru import LRU
from bot.rules import engine
from bot.rules.actions import (
    Action,
    Extend,
    HostAction,
    Pause,
    RestartClock,
    Resume,
    Sanction,
    Skip,
    Stop,
    Timeout,
)
from bot.rules.codec import from_json, to_json
from bot.rules.errors import GamePaused, RuleError, StaleAction, TooEarly
from bot.rules.events import (
    CardsDealt,
    Event,
    NightStarted,
    Phase,
    Player,
    SpeechStarted,
    VoteOpened,
)
from bot.rules.protocol import entry_to_json, stamp, state_from_json, state_to_json
from bot.rules.settings import GameSettings
from bot.rules.state import GameState
from bot.services.clock import Clock, Timers
from bot.services.inbox import HandledUpdates
from bot.tournament.settings import settings_from_json
from bot.views.board import BOARD, board_text
from bot.views.i18n import Texts, escape
from bot.views.panel import HostPanels
from bot.views.render import Audience, Keyboard, Outgoing, Post, named, render
from storage.chats import ChatType
from storage.db import Work
from storage.games import Game, GameStatus, LobbyPlayer, saving_state, setting_status
from storage.marks import marking_update
from storage.nicks import PROFILE_LONGEST, clean_nick, profile_name
from storage.outbox import enqueuing, marking_sent
from storage.protocol import NewEvent, appending
from storage.repositories import Repositories

log = logging.getLogger(__name__)

# The Telegram update being handled, so that marking it handled joins the action's
# transaction (set by the dispatcher's middleware; None for timers).
CURRENT_UPDATE: ContextVar[int | None] = ContextVar("current_update", default=None)


def log_game(game: Game, what: str, *args: object, level: int = logging.INFO) -> None:
    """One log line per event of a game that matters: lobby, start, a Host action, end.

    Never a role, a seat's card or the seed: the log is read by people who may play.
    """
    log.log(
        level,
        "game %s in chat %s: " + what,
        game.game_id,
        game.chat_id,
        *args,
        extra=about_game(game.game_id, game.chat_id),
    )


def host_action(action: HostAction) -> str:
    """The Host's action as the log names it; everything in it was said in the group."""
    match action:
        case Pause():
            return "pause"
        case Resume():
            return "resume"
        case Skip():
            return "skip"
        case Extend(seconds=seconds):
            return f"extend by {seconds:g} s"
        case Sanction(seat=seat, penalty=penalty, code=code):
            return f"{penalty.value} of seat {seat}" + (f" ({code.value})" if code else "")
        case Stop():
            return "stop"


def _dumps(value: object) -> str:
    """JSON for what every action stores (its events, the state): orjson's, for speed."""
    return orjson.dumps(value, option=orjson.OPT_NON_STR_KEYS).decode()


# Finished games whose state stays cached (for a late /status or a Sign press).
KEEP_FINISHED = 100
# Other games' states kept besides the running ones: those a /sheet or a stale button
# loaded. A running game's state stays cached for as long as it runs.
KEEP_SETTLED = 200
# People and chats whose stored name and language this process remembers: far more than
# play at once (400 games seat 6,400), so that only a newcomer costs a database read.
KEEP_PEOPLE = 20_000
KEEP_CHATS = 5_000
# Game locks kept beyond those held: an unheld lock is dropped and made afresh if needed.
KEEP_LOCKS = 1_000

# Writes that join an action's transaction (`GameService.act`), given the new state.
Also = Callable[[GameState], Awaitable[None]]

TURN, WARN = "turn", "warn"  # the two timers a game can have (job ids `turn:<game>`)
# A casual lobby's timer (`lobby:<game>`): with no activity for a while it closes, so
# that a lobby nobody begins does not hold its chat (issue 25).
LOBBY = "lobby"
LOBBY_IDLE_SECONDS = 30 * 60.0

# A vote longer than this reminds those who have not voted, `warning_seconds` before it
# closes; in a shorter one the reminder would come almost with the ballot.
REMIND_VOTES_LONGER_THAN = 15.0

# A deadline whose commit failed (disk full, the database locked past its busy timeout)
# is tried again this many seconds later, once per entry; then the Host is told.
COMMIT_RETRIES = (2.0, 4.0, 8.0, 16.0, 30.0)


# Kinds of outbox messages: a post the game depends on, and the group post announcing
# step N ("turn:N"), kept so that a restart can tell whether the group ever heard of the
# turn it finds running.
OUTBOX_POST, OUTBOX_TURN = "post", "turn:"
# The pinned table message (`bot.views.board`): its id is what a restart needs to go on editing it.
OUTBOX_BOARD = "board"


def _announcement(
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


class NotRecorded(Exception):
    """The action's transaction failed: nothing of it was stored, nobody was told of it.

    The person is answered "not recorded, try again", never as if it had been accepted.
    """


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


@dataclass
class Resumed:
    """What `rearm_all` found: the games back on their clocks, and what their Hosts
    must hear (a game closed, a clock that could not be armed: the text's key)."""

    games: list[Game] = field(default_factory=list)
    faults: list[tuple[Game, str]] = field(default_factory=list)
    # (game, step): turns started again whose clocks wait for their announcement.
    unseen: list[tuple[int, int]] = field(default_factory=list)


class GameService:
    def __init__(
        self,
        repos: Repositories,
        clock: Clock,
        timers: Timers,
        texts: Texts,
        sender: Sender,
        casual_settings: GameSettings,
        new_seed: Callable[[], str],
        warning_seconds: float = 10.0,
        timezone: str = "Europe/Moscow",
        lobby_idle_seconds: float = LOBBY_IDLE_SECONDS,
        moves: MovedChats | None = None,
    ) -> None:
        self.repos = repos
        self.timezone = timezone  # of the clock times players read
        self.clock = clock
        self.timers = timers
        self.t = texts
        self.sender = sender
        self.casual_settings = casual_settings
        self.new_seed = new_seed
        self.warning_seconds = warning_seconds
        self.lobby_idle_seconds = lobby_idle_seconds
        self._locks: dict[int, timings.GameLock] = {}
        self._locks_bound = KEEP_LOCKS
        # States as of the last action: every running game's, and a few others'. The
        # database has each of them too, so a state this process forgot is read again.
        self._states: dict[int, GameState] = {}  # running games
        self._settled: LRU[int, GameState] = LRU(KEEP_SETTLED)  # finished (or odd) games
        # Running games by the user id of each player with a seat (a seat stays when its
        # player leaves): who a private message may be for. Kept at every deal and end;
        # the games already running are read in once, at the first private message.
        self._seated: dict[int, set[int]] = {}
        self._seated_read = asyncio.Lock()
        self._seated_complete = False
        self._begin_requested: set[int] = set()
        # Start-up sends the unsent outbox while updates are read already: a player's
        # Start meanwhile must not send the same message twice.
        self._resending = asyncio.Lock()
        self._commit_failures: dict[int, int] = {}  # game -> deadlines failed in a row
        # Games whose current step's announcement is on its way: (step, when it began).
        self._unseen: dict[int, tuple[int, float]] = {}
        self._recently_finished: OrderedDict[int, None] = OrderedDict()
        # What this process knows it has stored, so that an update from someone already
        # known costs no write, and a message's language no read. Only the methods below
        # change what these mirror.
        self._chat_langs: LRU[int, str | None] = LRU(KEEP_CHATS)
        self._user_langs: LRU[int, str | None] = LRU(KEEP_PEOPLE)
        self._known_users: LRU[int, tuple[str, str | None]] = LRU(KEEP_PEOPLE)
        self._known_chats: LRU[int, tuple[ChatType, str | None]] = LRU(KEEP_CHATS)
        # (chat, message) of the Host's decided sanction proposals, whose buttons were
        # taken off: a second press that was on its way does not ask for it again.
        self.settled: LRU[tuple[int, int], bool] = LRU(KEEP_CHATS)
        # Lower-cased @username -> user id; touched with `_known_users`, so that the
        # username of every user still known there is still here.
        self._username_owners: LRU[str, int] = LRU(KEEP_PEOPLE)
        self.updates = HandledUpdates(repos.processed, also_prune=[repos.outbox.prune])
        # Lobby posts with an edit under way: True if they changed again since it began
        # (handlers.lobby.refresh_lobby).
        self.stale_lobbies: dict[int, bool] = {}
        self.panels = HostPanels(repos, sender, texts, self.user_lang)
        # Groups that became supergroups (installed on the bot's session by the app).
        self.moves = moves or MovedChats()
        self._moving = asyncio.Lock()
        timers.set_handler(self.on_timer)
        sender.locate = self._locate  # every post of a game goes to the game's topic
        sender.topic_gone = self._topic_gone

    async def _locate(self, game_id: int) -> tuple[int, int | None] | None:
        """Where the game lives: its group and forum topic (the sender's first post of a
        game this process has not met yet asks)."""
        game = await self.repos.games.get_committed(game_id)
        return None if game is None else (game.chat_id, game.thread_id)

    async def _topic_gone(self, game_id: int) -> None:
        """The game's topic was deleted: the game goes on in the group's General, which is
        then the game's place for the guard and the commands too."""
        try:
            await self.repos.games.set_thread(game_id, None, now=self.clock.now())
        except Exception:  # the posts go on in General all the same
            log.exception("game %s: could not note that its topic is gone", game_id)

    def _finished(self, game_id: int) -> None:
        """A game is over: what this process keeps of it goes, for all but the latest few.

        A bot runs for months; the games it finished must not pile up in its memory.
        """
        self._recently_finished[game_id] = None
        while len(self._recently_finished) > KEEP_FINISHED:
            gone, _ = self._recently_finished.popitem(last=False)
            self._settled.pop(gone, None)
            self._locks.pop(gone, None)
            self.sender.forget(gone)

    def lock(self, game_id: int) -> timings.GameLock:
        lock = self._locks.get(game_id)
        if lock is None:
            if len(self._locks) >= self._locks_bound:
                # Any button can name a game: keep only the locks someone holds. Dropping
                # an unheld one is safe, since every caller takes its lock at once
                # (`async with service.lock(...)`), with no await in between.
                self._locks = {g: held for g, held in self._locks.items() if held.locked()}
                self._locks_bound = max(KEEP_LOCKS, 2 * len(self._locks))
            lock = self._locks[game_id] = timings.GameLock()  # its wait is timed (make bench)
        return lock

    # --- languages ----------------------------------------------------------------

    async def chat_lang(self, chat_id: int) -> str:
        if chat_id not in self._chat_langs:
            chat = await self.repos.chats.get(chat_id)
            self._chat_langs[chat_id] = chat.lang if chat else None
        return self.t.lang(self._chat_langs[chat_id])

    async def user_lang(self, user_id: int, telegram_lang: str | None = None) -> str:
        if user_id not in self._user_langs:
            user = await self.repos.users.get(user_id)
            self._user_langs[user_id] = user.lang if user else None
        return self.t.lang(self._user_langs[user_id] or telegram_lang)

    async def set_chat_lang(self, chat_id: int, lang: str) -> None:
        await self.repos.chats.set_lang(chat_id, lang)
        self._chat_langs[chat_id] = lang

    async def set_user_lang(self, user_id: int, lang: str) -> None:
        await self.repos.users.set_lang(user_id, lang)
        self._user_langs[user_id] = lang

    async def saw_user(self, user_id: int, first_name: str, username: str | None) -> None:
        """Store the user's name as an update shows it, unless it is already stored so.

        The name is stored made safe (one printable line, storage.nicks): whatever shows
        it later (the lobby, a hand-over, an expulsion) cannot draw a line with it."""
        first_name = profile_name(first_name, None, username, fallback=str(user_id))
        if self._known_users.get(user_id) == (first_name, username):
            if username is not None:
                self._username_owners.touch(username.lower())
        else:
            await self.repos.users.upsert(user_id, first_name=first_name, username=username)
            if username is not None:
                # The upsert took the username from whoever had it: they are no longer
                # stored as this process knew them.
                before = self._username_owners.get(username.lower())
                if before is not None and before != user_id:
                    self._known_users.pop(before, None)
                self._username_owners[username.lower()] = user_id
            self._known_users[user_id] = (first_name, username)

    async def saw_chat(self, chat_id: int, type: ChatType, title: str | None) -> None:
        """Store the chat as an update shows it, unless it is already stored so."""
        if self._known_chats.get(chat_id) != (type, title):
            await self.repos.chats.upsert(chat_id, type=type, title=title)
            self._known_chats[chat_id] = (type, title)

    async def migrate_chat(self, chat_id: int, new_chat_id: int) -> list[Game]:
        """A group became a supergroup: everything keyed by the old id moves to the new,
        and what the group was shown of its game goes up there anew (the turn and the
        vote with their buttons, the table pinned; the lobby is the caller's, who gets
        the games that moved now). Told by either service message, or by a refusal of
        the old id (`bot.delivery.moves`): the first moves it, the others find nothing to move.
        """
        async with self._moving:
            self.moves.moved[chat_id] = new_chat_id
            moved = 0
            if await self.repos.chats.get(chat_id) is not None:
                moved = await self.repos.chats.migrate_to_chat_id(chat_id, new_chat_id)
            for known in (self._chat_langs, self._known_chats):
                known.pop(chat_id, None)
                known.pop(new_chat_id, None)
            boards = self.sender.moved(chat_id, new_chat_id)
            for game_id in boards:
                game = await self.repos.games.get(game_id)
                state = await self.state(game_id)
                if game is not None and game.status is GameStatus.RUNNING and state is not None:
                    await self.show_board(game, state, await self.chat_lang(game.chat_id))
            active = await self.active_game(new_chat_id) if moved else None
            if moved:
                log.info("chat %s moved to the supergroup %s", chat_id, new_chat_id)
            return [active] if active is not None else []

    async def audience(self, game: Game, state: GameState | None = None) -> Audience:
        langs: dict[int, str] = {}
        if state is not None:
            for seat in state.seats.values():
                langs[seat.user_id] = await self.user_lang(seat.user_id)
        lang = await self.chat_lang(game.chat_id)
        return Audience(game.game_id, game.chat_id, lang, langs, self.timezone)

    # --- games and state ------------------------------------------------------------

    async def active_game(self, chat_id: int) -> Game | None:
        return await self.repos.games.active_in_chat(chat_id)

    def cached_state(self, game_id: int) -> GameState | None:
        """The state as of the last action, if this process has seen the game."""
        return self._states.get(game_id) or self._settled.get(game_id)

    async def state(self, game_id: int) -> GameState | None:
        cached = self.cached_state(game_id)
        if cached is not None:
            return cached
        game = await self.repos.games.get(game_id)
        if game is None or game.state_json is None:
            return None
        state = state_from_json(json.loads(game.state_json))
        if game.status is GameStatus.RUNNING:
            # An action may have been stored and cached while this read waited: its
            # state is the newer one (the last, if it ended the game).
            if game_id in self._settled:
                return self._settled[game_id]
            state = self._states.setdefault(game_id, state)
        elif game_id not in self._states:
            self._settled[game_id] = state
        return self.cached_state(game_id) or state

    def _cache(self, game_id: int, state: GameState) -> None:
        """The state an action stored; a game over moves from the running to the settled."""
        if state.finished:
            self._states.pop(game_id, None)
            self._settled[game_id] = state
            self._unseat(game_id, [seat.user_id for seat in state.seats.values()])
        else:
            self._states[game_id] = state
            for seat in state.seats.values():
                self._seated.setdefault(seat.user_id, set()).add(game_id)

    def _unseat(self, game_id: int, user_ids: Sequence[int]) -> None:
        for user_id in user_ids:
            games = self._seated.get(user_id)
            if games is not None:
                games.discard(game_id)
                if not games:
                    del self._seated[user_id]

    async def running_in_chat(self, chat_id: int) -> tuple[Game, GameState] | None:
        game = await self.active_game(chat_id)
        if game is None or game.status is not GameStatus.RUNNING:
            return None
        state = await self.state(game.game_id)
        return (game, state) if state is not None else None

    async def games_of_user(self, user_id: int) -> list[tuple[Game, GameState]]:
        """Running games where the user has a seat (for private-chat actions).

        Every private text asks this, so it is answered from an index of the running
        games by player, built from the database once (at the first such text after a
        start) and kept as games are dealt and end; the database confirms each game.
        """
        if not self._seated_complete:
            async with self._seated_read:  # the others wait for the index to be whole
                if not self._seated_complete:
                    # Deals and ends meanwhile keep the index themselves; a game that
                    # ended after this read is dropped below, when it is asked about.
                    for running in await self.repos.games.running():
                        state = await self.state(running.game_id)
                        for seat in state.seats.values() if state is not None else ():
                            self._seated.setdefault(seat.user_id, set()).add(running.game_id)
                    self._seated_complete = True
        found = []
        for game_id in sorted(self._seated.get(user_id, ())):
            game = await self.repos.games.get(game_id)
            state = await self.state(game_id)
            if game is None or game.status is not GameStatus.RUNNING or state is None:
                self._unseat(game_id, [user_id])
            elif state.seat_of(user_id) is not None:
                found.append((game, state))
        return found

    # --- the lobby ------------------------------------------------------------------

    async def open_lobby(self, chat_id: int, host_id: int, thread_id: int | None = None) -> Game:
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
        await self.touch_lobby(game)
        return game

    # --- an idle lobby closes (issue 25) --------------------------------------------

    async def touch_lobby(self, game: Game) -> None:
        """Something happened in a casual lobby: it closes `lobby_idle_seconds` from now.

        The date is stored as the game's deadline (a restart re-arms it, `rearm_lobbies`)
        and armed as the `lobby:<game>` timer, which replaces the one before it."""
        if game.tournament_id is not None:
            return  # a tournament table's lobby is its Host's, named by the Judge
        when = self.clock.now() + self.lobby_idle_seconds
        await self.repos.games.set_deadline(game.game_id, when, now=self.clock.now())
        self.timers.arm(LOBBY, game.game_id, 0, when)

    async def rearm_lobbies(self) -> None:
        """Start-up: every casual lobby's closing time armed again."""
        for game in await self.repos.games.pending_deadlines():
            if game.status is GameStatus.LOBBY and game.deadline is not None:
                self.timers.arm(LOBBY, game.game_id, 0, game.deadline)

    async def expire_lobby(self, game_id: int) -> None:
        """The lobby's timer: closed if nothing happened in it since; the group is told."""
        async with self.lock(game_id):
            game = await self.repos.games.get(game_id)
            if game is None or game.status is not GameStatus.LOBBY or game.deadline is None:
                return
            if game.deadline > self.clock.now():
                self.timers.arm(LOBBY, game_id, 0, game.deadline)  # touched meanwhile
                return
            await self.repos.games.set_status(game_id, GameStatus.ABORTED, now=self.clock.now())
            self._begin_requested.discard(game_id)
            log_game(game, "the lobby closed, idle")
        lang = await self.chat_lang(game.chat_id)
        minutes = max(1, round(self.lobby_idle_seconds / 60))
        text = self.t(lang, "lobby.expired", game=game_id, minutes=minutes)
        await self.sender.deliver(game_id, [Post(game.chat_id, text)])

    async def take_over(self, game: Game, user_id: int) -> Game | None:
        """A chat's administrator becomes the Host of a casual lobby someone else opened;
        None if it is no such lobby any more (dealt, stopped, or already theirs)."""
        async with self.lock(game.game_id):
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
            await self.touch_lobby(current)
            return await self.repos.games.get(game.game_id)

    async def kick(self, game: Game, number: int) -> LobbyPlayer | None:
        """The Host's /kick N: the lobby's N-th player is out; None if there is no N-th.
        A /begin that waited only for them goes ahead."""
        async with self.lock(game.game_id):
            current = await self.repos.games.get(game.game_id)
            if current is None or current.status is not GameStatus.LOBBY:
                return None
            players = await self.repos.lobby.players(game.game_id)
            if not 1 <= number <= len(players):
                return None
            out = players[number - 1]
            await self.repos.lobby.leave(game.game_id, out.user_id)
            log_game(game, "the Host took user %s out of the lobby", out.user_id)
            await self.touch_lobby(current)
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
        async with self.lock(game.game_id):
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
            await self.touch_lobby(current)
            return JoinOutcome(Seating.JOINED)

    async def leave(self, game: Game, user_id: int) -> bool:
        """Take a player out of the lobby, under the game's lock; False if they were not in it."""
        async with self.lock(game.game_id):
            current = await self.repos.games.get(game.game_id)
            if current is None or current.status is not GameStatus.LOBBY:
                return False
            if not await self.repos.lobby.leave(game.game_id, user_id):
                return False
            await self.touch_lobby(current)
            return True

    async def stop_lobby(self, game: Game) -> bool:
        """The Host's /stop before the deal; False if the game was dealt meanwhile.

        Under the game's lock, like /begin: a /stop and a /begin sent together leave the
        game either stopped in the lobby or dealt (and then the caller stops it as a
        running game), never dealt with its status saying it was stopped.
        """
        async with self.lock(game.game_id):
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

    async def unreachable(self, players: Sequence[LobbyPlayer]) -> list[LobbyPlayer]:
        return [p for p in players if not await self.reachable(p.user_id)]

    async def reachable(self, user_id: int) -> bool:
        """Whether the bot may write to the person in private, as far as it knows: they
        pressed Start and have not blocked it since (Telegram refuses it otherwise)."""
        user = await self.repos.users.get(user_id)
        return user is not None and user.started and not user.blocked

    async def begin(self, game: Game) -> BeginOutcome:
        """The Host's /begin: the deal, if every player can be written to (S3)."""
        async with self.lock(game.game_id):
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
            await self._commit(game, state, events, now, GameStatus.RUNNING)
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

    # --- actions --------------------------------------------------------------------

    async def act(
        self, game_id: int, action: Action, also: Also | None = None
    ) -> tuple[GameState, list[Event]]:
        """Apply an action; RuleError propagates with nothing changed.

        `also` writes what must stand or fall with the action (a ban request with its
        sanction), in the action's own transaction, given the new state. An action that
        carries a step (a button made for it) meets the state inside the lock: at a later
        step the engine refuses it as stale.
        """
        async with self.lock(game_id):
            return await self._apply(game_id, action, also)

    async def _apply(
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
            state = await self.state(game_id)
        if game is None or state is None:
            raise LookupError(f"no running game {game_id}")
        now = self.clock.now()
        with timings.phase("engine"):
            new_state, events = engine.apply(state, action, now)
        status = None
        if new_state.finished:
            status = GameStatus.OVER if new_state.winner else GameStatus.ABORTED
        await self._commit(game, new_state, events, now, status, also, writes)
        if isinstance(action, HostAction):
            log_game(game, "the Host's %s", host_action(action))
        return new_state, events

    async def _commit(
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
            audience = await self.audience(game, state)
            out = render(events, state, audience, self.t)
            announced = _announcement(events, state, out, game.chat_id)
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
        self._cache(game.game_id, state)
        if state.finished:
            self._finished(game.game_id)
            if status is GameStatus.OVER and state.winner is not None:
                log_game(game, "finished, %s won", state.winner.value)
            elif status is GameStatus.ABORTED:
                log_game(game, "stopped, no result")
        if announced is not None and state.deadline is not None:
            # D10, T2: nobody can act on a step the table has not seen yet, so its clock
            # waits for its announcement (`_seen`); the game waits for the window.
            self._unseen[game.game_id] = (state.step, now)
        if not self.arm(game.game_id, state):
            await self._tell_host(game, "host.clock_failed", game=game.game_id)

        async def sent(index: int, message_id: int | None) -> None:
            if index == announced and self._unseen.get(game.game_id, (None,))[0] == state.step:
                await self._seen(game, state.step, outbox[index], message_id)
            elif index in outbox and message_id is not None:
                await self._tick(outbox[index], message_id)

        with timings.phase("send"):
            delivery = await self.sender.deliver(game.game_id, out, sent=sent, track=outbox)
            await self._report_undelivered(game, state, delivery.failed, events)
        with timings.phase("render"):  # the table and the panel: rendered, then queued
            try:  # cosmetic: the action is stored and told, whatever becomes of the table
                await self.show_board(game, state, audience.group_lang)
            except Exception:
                log.exception("game %s: the table could not be shown", game.game_id)
            await self.show_panel(game, state, events)

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
                self._recall_board(posted.chat_id, posted.message_id, game, state, lang)
        text = board_text(state, lang, self.t)
        self.sender.board(game.game_id, game.chat_id, text, self._board_reposted)

    def _recall_board(
        self, chat_id: int, message_id: int, game: Game, state: GameState, lang: str
    ) -> None:
        """The table message a restart found in the outbox, remembered for the next edit.

        What it shows is not stored: taken to be the table as it is now (edits are made
        at once, a crash rarely catches one), so that the first edit after a restart is
        for a change, never a refused "not modified" one.
        """
        self.sender.remembered[(game.game_id, BOARD)] = Remembered(
            chat_id, message_id, board_text(state, lang, self.t), None
        )

    async def _board_reposted(self, game_id: int, chat_id: int, message_id: int, text: str) -> None:
        """A new table message went up: remembered, so that a restart edits this one."""
        try:
            async with self.repos.database.transaction():
                queued = await self.repos.outbox.enqueue(
                    game_id=game_id,
                    chat_id=chat_id,
                    kind=OUTBOX_BOARD,
                    payload_json=_dumps(to_json(Post(chat_id, text, pin=True, remember=BOARD))),
                    now=self.clock.now(),
                )
                await self.repos.outbox.mark_sent(
                    queued.outbox_id, message_id=message_id, now=self.clock.now()
                )
        except sqlite3.Error:
            log.exception("game %s: the new table message could not be recorded", game_id)

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
            async with self.lock(game_id):  # no older view after a newer one
                game = await self.repos.games.get(game_id)
                state = await self.state(game_id)
                if game is not None and game.status is GameStatus.RUNNING and state is not None:
                    await self.show_panel(game, state)

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
        """The transaction of `_commit`: what it enqueued (item index -> outbox id).

        Its statements run in one trip to the database's thread (`Database.atomic`), so
        that the other games' statements wait for one trip, not one a statement.
        """
        game_id = game.game_id
        batch = [NewEvent(e.at, _dumps(entry_to_json(e))) for e in stamp(events, now)]
        state_json = _dumps(state_to_json(state))
        kept: list[tuple[int, int, str, str]] = []  # (item index, chat, kind, payload)
        for index, item in enumerate(out):
            kind = OUTBOX_POST if isinstance(item, Post) and item.essential else None
            if kind is not None and isinstance(item, Post) and item.remember == BOARD:
                kind = OUTBOX_BOARD
            if index == announced:
                kind = f"{OUTBOX_TURN}{state.step}"
            if kind is not None:
                kept.append((index, item.chat_id, kind, _dumps(to_json(item))))
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

    async def _tick(self, outbox_id: int, message_id: int) -> None:
        """Tick a message off in the outbox. The action is stored and told already: a
        failure here only means the message goes out again after a restart."""
        try:
            await self.repos.outbox.mark_sent(
                outbox_id, message_id=message_id, now=self.clock.now()
            )
        except sqlite3.Error:
            log.exception("outbox message %s was sent but could not be ticked off", outbox_id)

    async def _tell_host(self, about: Game, key: str, **values: object) -> None:
        """A fault the Host must act on (`tell_host`), in the words of `key`."""
        await self.tell_host(about, lambda lang: self.t(lang, key, **values))

    async def tell_host(
        self,
        about: Game,
        text: Callable[[str], str],
        private_keyboard: Keyboard | None = None,
    ) -> None:
        """What the Host must hear, in their language (`text(lang)`): to them in private
        (with `private_keyboard`, buttons only the Host may press), or in the group if
        they never opened a chat with the bot (or blocked it)."""
        try:
            failed = True
            if await self.reachable(about.host_user_id):
                lang = await self.user_lang(about.host_user_id)
                post = Post(about.host_user_id, text(lang), private_keyboard, essential=True)
                delivery = await self.sender.deliver(about.game_id, [post])
                failed = bool(delivery.failed)
            if failed:
                lang = await self.chat_lang(about.chat_id)
                await self.sender.deliver(about.game_id, [Post(about.chat_id, text(lang))])
        except Exception:  # telling is all that is left to do: it must not fail its caller
            log.exception("game %s: could not tell the Host", about.game_id)

    def arm(self, game_id: int, state: GameState) -> bool:
        """The game's timers follow its state: one for the deadline, one for the warning
        (a speaker's last seconds, or a private reminder to those who have not voted).

        A step whose announcement is still on its way has no timer yet (`_seen` arms it).
        False if the deadline could not be armed (a scheduler refuses a date past the
        year 9999): logged, never raised, for the game is already committed.
        """
        unseen = self._unseen.get(game_id)
        if unseen is not None and unseen[0] != state.step:
            del self._unseen[game_id]  # that step is over
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

    async def _seen(self, game: Game, step: int, outbox_id: int, message_id: int | None) -> None:
        """The announcement of `step` reached the group (or, with no `message_id`, could
        not): its clock starts. Late past `LATE`, it starts again with its full time
        (D10, T2), stored with the outbox's tick so that a restart finds one or the other.
        """
        game_id = game.game_id

        async def tick() -> None:
            if message_id is not None:
                await self.repos.outbox.mark_sent(
                    outbox_id, message_id=message_id, now=self.clock.now()
                )

        try:
            async with self.lock(game_id):
                unseen = self._unseen.get(game_id)
                if unseen is None or unseen[0] != step:
                    await tick()
                    return
                del self._unseen[game_id]
                state = await self.state(game_id)
                if state is None:
                    return
                late = self.clock.now() - unseen[1]
                if state.step == step and not state.paused and state.deadline and late > LATE:
                    ticked = None
                    if message_id is not None:  # with the clock's restart, in its trip
                        ticked = marking_sent(
                            outbox_id, message_id=message_id, now=self.clock.now()
                        )
                    try:
                        await self._apply(game_id, RestartClock(), writes=ticked)
                        return
                    except (RuleError, NotRecorded):
                        log.exception("game %s: step %s could not start its clock", game_id, step)
                with contextlib.suppress(sqlite3.Error):
                    await tick()
                if not self.arm(game_id, state):
                    await self._tell_host(game, "host.clock_failed", game=game_id)
        except Exception:
            log.exception("game %s: the clock of step %s could not start", game_id, step)
            self._unseen.pop(game_id, None)
            state = self.cached_state(game_id)
            if state is not None:
                self.arm(game_id, state)

    async def on_timer(self, kind: str, game_id: int, step: int) -> None:
        try:
            if kind == TURN:
                await self.act(game_id, Timeout(step))
                self._commit_failures.pop(game_id, None)
            elif kind == WARN:
                await self._warn(game_id, step)
            elif kind == LOBBY:
                await self.expire_lobby(game_id)
        except (StaleAction, GamePaused):
            pass  # the turn moved on, or the Host paused it: nothing is due
        except TooEarly:
            state = await self.state(game_id)  # /extend moved the deadline: follow it
            if state is not None:
                self.arm(game_id, state)
        except NotRecorded:
            if kind == TURN:
                await self._retry_deadline(game_id, step)
        except Exception:
            log.exception("timer %s for game %s failed", kind, game_id)

    async def _retry_deadline(self, game_id: int, step: int) -> None:
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
                await self._tell_host(game, "host.clock_stuck", game=game_id)

    async def _warn(self, game_id: int, step: int) -> None:
        async with self.lock(game_id):
            state = await self.state(game_id)
            game = await self.repos.games.get(game_id)
            if state is None or game is None or state.step != step or state.paused:
                return
            if state.phase is Phase.VOTE:
                await self._remind_voters(game, state)
                return
            lang = await self.chat_lang(game.chat_id)
            line = self.t(lang, "turn.warning", seconds=round(self.warning_seconds))
            # Cosmetic: it yields to what the game needs, and is dropped if the turn ends first.
            self.sender.note(game_id, game.chat_id, "turn", line)

    async def _remind_voters(self, game: Game, state: GameState) -> None:
        """D6: each player who can still vote and has not is told in private, by seat."""
        seconds = round(self.warning_seconds)
        posts = []
        for seat in state.living():
            if seat in state.votes:
                continue
            user = state.seats[seat].user_id
            lang = await self.user_lang(user)
            text = self.t(lang, "vote.reminder", game=game.game_id, seat=seat, seconds=seconds)
            posts.append(Post(user, text))
        # Queued, not waited for: the lock is the game's, and the vote goes on meanwhile.
        await self.sender.deliver(game.game_id, posts, COSMETIC)

    async def _report_undelivered(
        self, game: Game, state: GameState, failed: Sequence[Undelivered], events: Sequence[Event]
    ) -> None:
        if not failed:
            return
        # Only the deal writes to every player. Every later private message (a night
        # keyboard, a check, a partner's pick) goes to the Commissioner or the mafia, so
        # naming who missed one would show their roles: the group never hears of those,
        # only the Host does, and not even the Host if they hold a seat.
        public = any(isinstance(e, CardsDealt) for e in events)
        if not public and state.seat_of(game.host_user_id) is not None:
            return
        to = game.chat_id if public else game.host_user_id
        lang = await (self.chat_lang(to) if public else self.user_lang(to))
        names = []
        for f in failed:
            seat = state.seat_of(f.chat_id)
            names.append(named(state, seat, self.t, lang) if seat else str(f.chat_id))
        text = self.t(lang, "host.undelivered", players=self.t.listing(lang, sorted(set(names))))
        await self.sender.deliver(game.game_id, [Post(to, text)])

    async def resend_unsent(self, user_id: int | None = None) -> int:
        """Send again what the game depends on and was never confirmed sent.

        At start-up that is whatever a crash caught between the commit and the send;
        when a player presses Start, it is their card the bot could not deliver before.
        A turn's announcement goes again only while that turn is on (`resume_all` has
        restarted its clock): a later turn has said everything since.
        """
        async with self._resending:  # a Start pressed meanwhile waits, then finds less
            return await self._resend_unsent(user_id)

    async def _resend_unsent(self, user_id: int | None) -> int:
        sent = 0
        for queued in await self.repos.outbox.unsent():
            if user_id is not None and queued.chat_id != user_id:
                continue
            if queued.kind.startswith(OUTBOX_TURN):
                state = self._states.get(queued.game_id)
                if state is None or queued.kind != f"{OUTBOX_TURN}{state.step}":
                    continue
            post: Post = from_json(Post, json.loads(queued.payload_json))
            # Waited for, so that it is ticked off as soon as it is out.
            delivery = await self.sender.deliver(queued.game_id, [replace(post, essential=True)])
            unseen = self._unseen.get(queued.game_id)
            if unseen is not None and queued.kind == f"{OUTBOX_TURN}{unseen[0]}":
                game = await self.repos.games.get(queued.game_id)
                if game is not None:  # its clock starts now, as `_commit`'s would
                    await self._seen(game, unseen[0], queued.outbox_id, delivery.sent.get(0))
                    sent += 0 in delivery.sent
                    continue
            if 0 in delivery.sent:
                await self._tick(queued.outbox_id, delivery.sent[0])
                sent += 1
        return sent

    # --- the end --------------------------------------------------------------------

    async def sign(self, game: Game, host_id: int, host_name: str) -> bool:
        """T3: the Host signs the sheet of an ended game, once."""
        if not await self.repos.games.sign(game.game_id, host_id, now=self.clock.now()):
            return False
        lang = await self.chat_lang(game.chat_id)
        text = self.t(lang, "over.signed", host=escape(profile_name(host_name, fallback="?")))
        await self.sender.deliver(game.game_id, [Post(game.chat_id, text)])
        return True

    # --- start-up -------------------------------------------------------------------

    async def resume_all(self) -> int:
        """Start-up: every running game back on its clock (`rearm_all`), then its group
        told where it stands and what it never got sent again (`tell_resumed`)."""
        resumed = await self.rearm_all()
        await self.rearm_lobbies()
        await self.tell_resumed(resumed)
        return len(resumed.games)

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
                state = self._stored_state(game)
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
            elif not self.arm(game.game_id, state):
                resumed.faults.append((game, "host.clock_failed"))
        try:
            await self._recall_languages(resumed.games)
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
                state, _ = await self.act(game.game_id, RestartClock())
                # ...and its clock waits for the announcement once more (`resend_unsent`).
                self._unseen[game.game_id] = (state.step, self.clock.now())
                resumed.unseen.append((game.game_id, state.step))
            except RuleError:
                log.exception("game %s: the turn's clock could not restart", game.game_id)
                if not self.arm(game.game_id, state):
                    resumed.faults.append((game, "host.clock_failed"))
            except Exception:
                log.exception("game %s could not be resumed", game.game_id)
                resumed.faults.append((game, "host.resume_failed"))
        return resumed

    def _stored_state(self, game: Game) -> GameState | None:
        """A running game's state as `rearm_all` read it with the game (as `state` would)."""
        cached = self.cached_state(game.game_id)
        if cached is not None:
            return cached
        if game.state_json is None:
            return None
        state = state_from_json(json.loads(game.state_json))
        return self._states.setdefault(game.game_id, state)

    async def _recall_languages(self, games: Sequence[Game]) -> None:
        """The languages of the running games' groups, players and Hosts, in two reads,
        so that neither the notices nor each game's next turn read them one by one."""
        chat_ids = {game.chat_id for game in games}
        people = {game.host_user_id for game in games}
        for game in games:
            state = self._states.get(game.game_id)
            if state is not None:
                people.update(seat.user_id for seat in state.seats.values())
        chat_ids = {c for c in chat_ids if c not in self._chat_langs}
        people = {p for p in people if p not in self._user_langs}
        chats = await self.repos.chats.many(chat_ids)
        users = await self.repos.users.many(people)
        # As `chat_lang` and `user_lang` would have them, an unknown one as None; one
        # that a /lang changed meanwhile stays as it now is.
        for chat_id in chat_ids:
            if chat_id not in self._chat_langs:
                chat = chats.get(chat_id)
                self._chat_langs[chat_id] = chat.lang if chat else None
        for user_id in people:
            if user_id not in self._user_langs:
                user = users.get(user_id)
                self._user_langs[user_id] = user.lang if user else None

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
                await self._tell_host(game, key, game=game.game_id)
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
                await self._tell_host(game, key, game=game.game_id)
        try:  # after the outbox: a deal's table message is out by now
            boards = await self.repos.outbox.latest_of_running(OUTBOX_BOARD)
        except sqlite3.Error:
            log.exception("the table messages could not be looked up")
            boards = {}
        for game in resumed.games:
            try:
                state = self.cached_state(game.game_id)
                if state is None or state.finished:
                    continue
                lang = await self.chat_lang(game.chat_id)
                posted = boards.get(game.game_id)
                if (game.game_id, BOARD) not in self.sender.remembered and posted is not None:
                    if posted.message_id is None:
                        continue  # still to go out with the deal (show_board)
                    if posted.chat_id == game.chat_id:  # not left in an upgraded group
                        self._recall_board(posted.chat_id, posted.message_id, game, state, lang)
                await self.show_board(game, state, lang)
            except Exception:
                log.exception("game %s: the table could not be shown", game.game_id)
        # A turn started again whose announcement never went: its clock starts anyway.
        # (Games play on meanwhile: a later step's announcement is on its way as usual.)
        for game_id, step in resumed.unseen:
            if self._unseen.get(game_id, (None,))[0] != step:
                continue
            del self._unseen[game_id]
            state = self.cached_state(game_id)
            if state is not None:
                self.arm(game_id, state)

    async def _tell_group(self, game: Game) -> None:
        """The notice that the bot is back, and the Host's panel as of now."""
        state = self.cached_state(game.game_id)
        if state is None or state.finished:
            return
        lang = await self.chat_lang(game.chat_id)
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
        await self.show_panel(game, state)  # its buttons as of now, edited in place
