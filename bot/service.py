"""The game service: the one door between Telegram handlers and the rules core.

A handler turns an update into a call here; the service applies it to the game
under that game's lock, stores the new events and state in one transaction, arms
the game's timers, and only then delivers what the events say. Different games
proceed in parallel; actions on one game are serialized.
"""

from __future__ import annotations

import asyncio
import json
import logging
from collections import OrderedDict
from collections.abc import Callable, Sequence
from contextvars import ContextVar
from dataclasses import dataclass

import orjson

from bot.clock import Clock, Timers
from bot.i18n import Texts, escape
from bot.render import Audience, Post, label, render
from bot.rules import engine
from bot.rules.actions import Action, Timeout
from bot.rules.codec import from_json, to_json
from bot.rules.errors import GamePaused, StaleAction, TooEarly
from bot.rules.events import CardsDealt, Event, Player
from bot.rules.protocol import entry_to_json, stamp, state_from_json, state_to_json
from bot.rules.settings import GameSettings
from bot.rules.state import GameState
from bot.sender import COSMETIC, Sender, Undelivered
from bot.updates import HandledUpdates
from storage.chats import ChatType
from storage.games import Game, GameStatus, LobbyPlayer
from storage.protocol import NewEvent
from storage.repositories import Repositories

log = logging.getLogger(__name__)

# The Telegram update being handled, so that marking it handled joins the action's
# transaction (set by the dispatcher's middleware; None for timers).
CURRENT_UPDATE: ContextVar[int | None] = ContextVar("current_update", default=None)


def _dumps(value: object) -> str:
    """JSON for what every action stores (its events, the state): orjson's, for speed."""
    return orjson.dumps(value, option=orjson.OPT_NON_STR_KEYS).decode()


# Finished games whose state stays cached (for a late /status or a Sign press).
KEEP_FINISHED = 100

TURN, WARN = "turn", "warn"  # the two timers a game can have (job ids `turn:<game>`)


@dataclass(frozen=True)
class BeginOutcome:
    started: bool
    # Players the bot cannot write to yet: they never pressed Start, or blocked the bot.
    unreachable: list[LobbyPlayer]
    too_few: int | None = None  # set when the lobby is outside the settings' bounds


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
        self._locks: dict[int, asyncio.Lock] = {}
        self._states: dict[int, GameState] = {}
        self._begin_requested: set[int] = set()
        self._recently_finished: OrderedDict[int, None] = OrderedDict()
        # What this process knows it has stored, so that an update from someone already
        # known costs no write, and a message's language no read. Only the methods below
        # change what these mirror.
        self._chat_langs: dict[int, str | None] = {}
        self._user_langs: dict[int, str | None] = {}
        self._known_users: dict[int, tuple[str, str | None]] = {}
        self._known_chats: dict[int, tuple[ChatType, str | None]] = {}
        self._username_owners: dict[str, int] = {}  # lower-cased @username -> user id
        self.updates = HandledUpdates(repos.processed)
        # Lobby posts with an edit under way: True if they changed again since it began
        # (handlers.lobby.refresh_lobby).
        self.stale_lobbies: dict[int, bool] = {}
        timers.set_handler(self.on_timer)

    def _finished(self, game_id: int) -> None:
        """A game is over: what this process keeps of it goes, for all but the latest few.

        A bot runs for months; the games it finished must not pile up in its memory.
        """
        self._recently_finished[game_id] = None
        while len(self._recently_finished) > KEEP_FINISHED:
            gone, _ = self._recently_finished.popitem(last=False)
            self._states.pop(gone, None)
            self._locks.pop(gone, None)
            self.sender.forget(gone)

    def lock(self, game_id: int) -> asyncio.Lock:
        return self._locks.setdefault(game_id, asyncio.Lock())

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
        """Store the user's name as an update shows it, unless it is already stored so."""
        if self._known_users.get(user_id) != (first_name, username):
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

    async def migrate_chat(self, chat_id: int, new_chat_id: int) -> None:
        """A group became a supergroup: everything keyed by the old id moves to the new."""
        await self.repos.chats.migrate_to_chat_id(chat_id, new_chat_id)
        for known in (self._chat_langs, self._known_chats):
            known.pop(chat_id, None)
            known.pop(new_chat_id, None)

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
        return self._states.get(game_id)

    async def state(self, game_id: int) -> GameState | None:
        cached = self._states.get(game_id)
        if cached is not None:
            return cached
        game = await self.repos.games.get(game_id)
        if game is None or game.state_json is None:
            return None
        state = state_from_json(json.loads(game.state_json))
        self._states[game_id] = state
        return state

    async def running_in_chat(self, chat_id: int) -> tuple[Game, GameState] | None:
        game = await self.active_game(chat_id)
        if game is None or game.status is not GameStatus.RUNNING:
            return None
        state = await self.state(game.game_id)
        return (game, state) if state is not None else None

    async def games_of_user(self, user_id: int) -> list[tuple[Game, GameState]]:
        """Running games where the user has a seat (for private-chat actions)."""
        found = []
        for game in await self.repos.games.running():
            state = await self.state(game.game_id)
            if state is not None and state.seat_of(user_id) is not None:
                found.append((game, state))
        return found

    # --- the lobby ------------------------------------------------------------------

    async def open_lobby(self, chat_id: int, host_id: int) -> Game:
        settings = json.dumps(to_json(self.casual_settings))
        return await self.repos.games.create(
            chat_id=chat_id, host_user_id=host_id, settings_json=settings, now=self.clock.now()
        )

    async def settings_of(self, game: Game) -> GameSettings:
        settings: GameSettings = from_json(GameSettings, json.loads(game.settings_json))
        return settings

    async def join(self, game: Game, user_id: int, nick: str) -> bool:
        """Seat a player in the lobby if there is room; the caller holds the game's lock."""
        current = await self.repos.games.get(game.game_id)
        if current is None or current.status is not GameStatus.LOBBY:
            return False  # the deal happened while this join waited for the lock
        settings = await self.settings_of(game)
        players = await self.repos.lobby.players(game.game_id)
        if len(players) >= settings.max_players:
            return False
        return await self.repos.lobby.join(game.game_id, user_id, nick=nick, now=self.clock.now())

    async def unreachable(self, players: Sequence[LobbyPlayer]) -> list[LobbyPlayer]:
        missing = []
        for p in players:
            user = await self.repos.users.get(p.user_id)
            if user is None or not user.started or user.blocked:
                missing.append(p)
        return missing

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
            )
            await self._commit(game, state, events, now, GameStatus.RUNNING)
            return BeginOutcome(True, [])

    async def retry_waiting_begins(self, user_id: int) -> None:
        """A player pressed Start: a /begin that waited for them may go ahead now."""
        for game_id in sorted(self._begin_requested):
            players = await self.repos.lobby.players(game_id)
            game = await self.repos.games.get(game_id)
            ours = game is not None and any(p.user_id == user_id for p in players)
            if game is not None and ours and not await self.unreachable(players):
                await self.begin(game)

    # --- actions --------------------------------------------------------------------

    async def act(self, game_id: int, action: Action) -> tuple[GameState, list[Event]]:
        """Apply an action; RuleError propagates with nothing changed."""
        async with self.lock(game_id):
            game = await self.repos.games.get(game_id)
            state = await self.state(game_id)
            if game is None or state is None:
                raise LookupError(f"no running game {game_id}")
            now = self.clock.now()
            new_state, events = engine.apply(state, action, now)
            status = None
            if new_state.finished:
                status = GameStatus.OVER if new_state.winner else GameStatus.ABORTED
            await self._commit(game, new_state, events, now, status)
            return new_state, events

    async def _commit(
        self,
        game: Game,
        state: GameState,
        events: Sequence[Event],
        now: float,
        status: GameStatus | None = None,
    ) -> None:
        """Store, then tell: nobody hears of an action that a crash could still undo.

        One transaction holds the events, the new state, the messages the game depends
        on (role cards, night keyboards and results: the outbox) and the mark that the
        Telegram update behind the action is handled. Only then are timers armed and
        messages sent; what was sent is ticked off in the outbox.
        """
        out = render(events, state, await self.audience(game, state), self.t)
        outbox: dict[int, int] = {}
        async with self.repos.database.transaction():
            if status is not None:
                await self.repos.games.set_status(game.game_id, status, now=now)
            batch = [NewEvent(e.at, _dumps(entry_to_json(e))) for e in stamp(events, now)]
            await self.repos.protocol.append(game.game_id, batch)
            await self.repos.games.save_state(
                game.game_id,
                state_json=_dumps(state_to_json(state)),
                deadline=state.deadline,
                now=now,
            )
            for index, item in enumerate(out):
                if isinstance(item, Post) and item.essential:
                    queued = await self.repos.outbox.enqueue(
                        game_id=game.game_id,
                        chat_id=item.chat_id,
                        kind="post",
                        payload_json=_dumps(to_json(item)),
                        now=now,
                    )
                    outbox[index] = queued.outbox_id
            update_id = CURRENT_UPDATE.get()
            if update_id is not None:
                await self.repos.processed.mark_update(update_id, now=now)
        if update_id is not None:
            self.updates.stored(update_id)
        self._states[game.game_id] = state
        if state.finished:
            self._finished(game.game_id)
        self.arm(game.game_id, state)
        delivery = await self.sender.deliver(game.game_id, out)
        for index, message_id in delivery.sent.items():
            if index in outbox:
                await self.repos.outbox.mark_sent(
                    outbox[index], message_id=message_id, now=self.clock.now()
                )
        await self._report_undelivered(game, state, delivery.failed, events)

    def arm(self, game_id: int, state: GameState) -> None:
        """The game's timers follow its state: one for the deadline, one for the warning."""
        if state.deadline is None:
            self.timers.cancel(TURN, game_id)
            self.timers.cancel(WARN, game_id)
            return
        self.timers.arm(TURN, game_id, state.step, state.deadline)
        warn_at = state.deadline - self.warning_seconds
        if state.in_speech and warn_at > self.clock.now():
            self.timers.arm(WARN, game_id, state.step, warn_at)
        else:
            self.timers.cancel(WARN, game_id)

    async def on_timer(self, kind: str, game_id: int, step: int) -> None:
        try:
            if kind == TURN:
                await self.act(game_id, Timeout(step))
            elif kind == WARN:
                await self._warn(game_id, step)
        except (StaleAction, GamePaused):
            pass  # the turn moved on, or the Host paused it: nothing is due
        except TooEarly:
            state = await self.state(game_id)  # /extend moved the deadline: follow it
            if state is not None:
                self.arm(game_id, state)
        except Exception:
            log.exception("timer %s for game %s failed", kind, game_id)

    async def _warn(self, game_id: int, step: int) -> None:
        async with self.lock(game_id):
            state = await self.state(game_id)
            game = await self.repos.games.get(game_id)
            if state is None or game is None or state.step != step or state.paused:
                return
            lang = await self.chat_lang(game.chat_id)
            line = self.t(lang, "turn.warning", seconds=round(self.warning_seconds))
            # Cosmetic: it yields to what the game needs, and is dropped if the turn ends first.
            self.sender.note(game_id, game.chat_id, "turn", line)

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
            names.append(label(state, seat) if seat else str(f.chat_id))
        text = self.t(lang, "host.undelivered", players=", ".join(sorted(set(names))))
        await self.sender.deliver(game.game_id, [Post(to, text)])

    async def resend_unsent(self, user_id: int | None = None) -> int:
        """Send again what the game depends on and was never confirmed sent.

        At start-up that is whatever a crash caught between the commit and the send;
        when a player presses Start, it is their card the bot could not deliver before.
        """
        sent = 0
        for queued in await self.repos.outbox.unsent():
            if user_id is not None and queued.chat_id != user_id:
                continue
            post: Post = from_json(Post, json.loads(queued.payload_json))
            delivery = await self.sender.deliver(queued.game_id, [post])
            if 0 in delivery.sent:
                await self.repos.outbox.mark_sent(
                    queued.outbox_id, message_id=delivery.sent[0], now=self.clock.now()
                )
                sent += 1
        return sent

    # --- the end --------------------------------------------------------------------

    async def sign(self, game: Game, host_id: int, host_name: str) -> bool:
        """T3: the Host signs the sheet of an ended game, once."""
        if not await self.repos.games.sign(game.game_id, host_id, now=self.clock.now()):
            return False
        lang = await self.chat_lang(game.chat_id)
        text = self.t(lang, "over.signed", host=escape(host_name))
        await self.sender.deliver(game.game_id, [Post(game.chat_id, text)])
        return True

    # --- start-up -------------------------------------------------------------------

    async def resume_all(self) -> int:
        """Start-up: every running game's deadline re-armed, its group told where it stands.

        A deadline that passed while the bot was down fires at once (the timers see to
        that); messages the games depend on that were never confirmed sent go out again.
        """
        games = await self.repos.games.running()
        for game in games:
            state = await self.state(game.game_id)
            if state is None:
                continue
            lang = await self.chat_lang(game.chat_id)
            left = state.paused_remaining
            if left is None and state.deadline is not None:
                left = max(0.0, state.deadline - self.clock.now())
            speaker = label(state, state.speaker) if state.speaker else "—"
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
            self.arm(game.game_id, state)
        await self.resend_unsent()
        return len(games)
