"""The middle layer's harness: the real app, fed updates in process, on a virtual clock.

The whole games (tests/e2e) run the bot against the sandbox over HTTP. Here nothing
crosses a socket:

- `InProcessSession` (`sandbox/inprocess.py`) is the bot's session (aiogram's
  `BaseSession`, as aiogram's own tests mock it): each request is encoded as aiogram's
  HTTP session encodes it, answered by the sandbox's own request handling (`Sandbox.call`,
  the path its HTTP server takes), so every answer, refusal and right is the sandbox's,
  and recorded as `Sent`.
- `Desk` builds the app exactly as `bot.app.build_app` wires it (session middlewares,
  outer middlewares, routers, services) on a throwaway database, takes the updates the
  sandbox's people make (messages, button presses, Start) and feeds each through
  `Dispatcher.feed_update`, as polling does with updates handled one at a time, then lets
  the bot's activities (`Workers`: the update's handling, the delivery workers, the fired
  timers) finish, moving the virtual clock only when none is at work and some wait on it.
"""

from __future__ import annotations

import asyncio
import contextlib
import tempfile
from collections.abc import AsyncIterator, Awaitable, Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

from aiogram import Bot
from aiogram.client.default import DefaultBotProperties
from aiogram.enums import ParseMode
from aiogram.types import Update

from bot.app import App, build_app
from bot.cli.demo import HOST_NAME, LOOK_AGAIN, NAMES, RIGHTS, _memory_folder, demo_seed
from bot.rules.settings import GameSettings
from bot.rules.state import GameState
from bot.services.clock import VirtualClock, VirtualTimers
from bot.views.i18n import Texts
from sandbox import CallbackPress, Sandbox, SimGroup, SimMessage, SimUser
from sandbox.inprocess import InProcessSession, Sent
from storage.db import Database

T = TypeVar("T")

# The desk's game may begin with ten players: the fewest the roles table deals for.
TABLE = 10
# Seconds of real time one settle() may take before the bot is taken as stuck.
SETTLE_WITHIN = 30.0


@dataclass
class Desk:
    """The bot as `python -m bot run` wires it, in one group with a Host and players."""

    sandbox: Sandbox
    clock: VirtualClock
    timers: VirtualTimers
    session: InProcessSession
    app: App
    texts: Texts
    group: SimGroup
    host: SimUser
    people: list[SimUser]
    lang: str
    game_id: int | None = None  # the game the desk plays, once its lobby is open
    fed: list[Update] = field(default_factory=list)  # every update the bot was fed, in order

    @property
    def bot(self) -> Bot:
        return self.app.bot

    @property
    def state(self) -> GameState | None:
        return None if self.game_id is None else self.app.service.cached_state(self.game_id)

    def t(self, key: str, **values: Any) -> str:
        """A text in the desk's language, as the bot would write it."""
        return self.texts(self.lang, key, **values)

    # --- what the bot did --------------------------------------------------------

    def sent(
        self,
        method: str | Iterable[str] | None = None,
        *,
        chat: int | None = None,
        since: int = 0,
    ) -> list[Sent]:
        """The bot's requests from `since` on (an index in the record), by method and chat."""
        names = {method} if isinstance(method, str) else set(method or ())
        return [
            request
            for request in self.session.sent[since:]
            if (not names or request.method in names) and (chat is None or request.chat_id == chat)
        ]

    def mark(self) -> int:
        """Where the record ends now: what comes after is the next step's."""
        return len(self.session.sent)

    def refused(self) -> list[Sent]:
        """The bot's requests the sandbox refused for the request's own fault (not a 403:
        a person who never pressed Start is a fact of life)."""
        return [sent for sent in self.session.sent if not sent.ok and sent.status != 403]

    # --- people act, the bot reacts ----------------------------------------------

    async def feed(self) -> int:
        """Feed the bot every update the people made, one at a time, each handled to its
        end and its deliveries done before the next (as polling does them, not as tasks);
        return how many."""
        count = 0
        while self.sandbox.pending_updates:
            raw = self.sandbox.pending_updates[0]
            # Taken as getUpdates would confirm it: the queue forgets it once delivered.
            self.sandbox.world.updates.confirm(raw["update_id"])
            update = Update.model_validate(raw, context={"bot": self.bot})
            self.fed.append(update)
            # Handled as a task: a handler waits for its essential posts, and they may
            # wait on the virtual clock (a chat's window), which settle() moves.
            handling = asyncio.ensure_future(self.app.dispatcher.feed_update(self.bot, update))
            await self.settle(handling)
            await handling  # its exception, if it raised one, is the test's
            count += 1
        return count

    async def call(self, request: Awaitable[T]) -> T:
        """A call of the test's own through the bot (its session and middlewares): it
        waits for room in its chat's window as the bot's calls do, on the virtual clock."""
        calling = asyncio.ensure_future(request)
        await self.settle(calling)
        return await calling

    async def send(self, person: SimUser, text: str, chat: SimGroup | None = None) -> SimMessage:
        """`person` writes `text` in the group (or in `chat`), and the bot handles it."""
        message = await person.send(chat or self.group, text)
        await self.feed()
        return message

    async def send_private(self, person: SimUser, text: str) -> SimMessage:
        """`person` writes `text` to the bot in private, and the bot handles it."""
        message = await person.send(person.private, text)
        await self.feed()
        return message

    async def press(self, person: SimUser, message: SimMessage, button: str | int) -> CallbackPress:
        press = await person.press(message, button)
        await self.feed()
        return press

    async def join(self, person: SimUser) -> None:
        """`person` follows the lobby's Join link (a Start with the game's payload)."""
        lobby = self.lobby_post()
        await person.follow(lobby, 0)
        await self.feed()

    async def open_lobby(self, players: Iterable[SimUser] | None = None) -> int:
        """The Host's /newgame, then everybody (or `players`) joins; the game's id."""
        await self.send(self.host, "/newgame")
        for person in self.people if players is None else players:
            await self.join(person)
        game = await self.app.service.active_game(self.group.id)
        assert game is not None, "the lobby did not open"
        self.game_id = game.game_id
        return game.game_id

    async def begin(self) -> GameState:
        await self.send(self.host, "/begin")
        state = self.state
        assert state is not None, "the game did not begin"
        return state

    def lobby_post(self) -> SimMessage:
        """The bot's newest post in the group with a link button (the lobby's Join)."""
        for message in reversed(self.group.visible_messages()):
            if message.from_bot and any(b.url for row in message.buttons() for b in row):
                return message
        raise AssertionError("no lobby post in the group")

    def latest(self, messages: list[SimMessage], prefix: str) -> SimMessage | None:
        """The newest of the bot's `messages` with a button whose data starts so."""
        for message in reversed(messages):
            if message.from_bot and any(
                (b.callback_data or "").startswith(prefix) for row in message.buttons() for b in row
            ):
                return message
        return None

    def person(self, seat: int) -> SimUser:
        state = self.state
        assert state is not None
        return self.sandbox.user(state.seats[seat].user_id)

    # --- time --------------------------------------------------------------------

    def _busy(self) -> bool:
        """Something the game needs is still to be done: queued for a chat, or a timer's
        job at work (a cosmetic note or stale buttons waiting for room may wait)."""
        return self.app.service.sender.busy() or self.timers.busy()

    def _quiet(self) -> bool:
        """Nothing on its way: no call unanswered, no statement under way."""
        limiter = self.app.service.sender.limiter
        return limiter.in_flight == 0 and not self.app.database.busy

    async def settle(self, handling: asyncio.Future[Any] | None = None) -> None:
        """Until the update being `handling` is handled and what the bot started has
        been delivered and stored. When the bot is still (`Workers.still`: none of its
        activities at work, nothing on its way) but not done, it waits on the clock, and
        the clock goes to the next sleeper's time (never for what may wait: stale
        buttons)."""
        workers = self.app.workers
        loop = asyncio.get_running_loop()
        give_up = loop.time() + SETTLE_WITHIN
        while True:
            seen = workers.moves
            if await workers.still(self._quiet):
                handled = handling is None or handling.done()
                if handled and not self._busy():
                    return
                wake = self.clock.next_wake()
                if wake is None:
                    raise AssertionError("the bot waits, and not on the clock")
                self.clock.set(wake)
                continue
            if loop.time() > give_up:
                raise AssertionError(f"the bot did not settle within {SETTLE_WITHIN} s")
            await workers.changed(seen, LOOK_AGAIN)

    async def run_until(self, done: Callable[[GameState], bool], most: int = 200) -> GameState:
        """Let every turn time out, nobody acting, until `done(state)` holds."""
        for _ in range(most):
            state = self.state
            assert state is not None, "no game is running"
            if done(state):
                return state
            if not await self.advance():
                raise AssertionError(f"stalled at {state.phase}: no timer is armed")
        raise AssertionError(f"not done after {most} timeouts")

    async def advance(self) -> bool:
        """Move the clock to the next armed timer and fire it; False if none is armed."""
        due = self.timers.next_due()
        if due is None:
            return False
        self.clock.set(due)
        await self.settle()
        self.timers.fire_due()
        await self.settle()
        return True


@contextlib.asynccontextmanager
async def open_desk(
    players: int = 10,
    *,
    lang: str = "en",
    seed: int = 7,
    settings: GameSettings | None = None,
) -> AsyncIterator[Desk]:
    """A group with the bot as an administrator, its owner the Host, `players` members
    (TABLE or more for a game to begin); the app built on a throwaway database and a
    virtual clock."""
    clock = VirtualClock()
    sandbox = Sandbox(clock=clock.now, seed=seed)
    host = sandbox.add_user(HOST_NAME[lang], username="host", language_code=lang)
    group = sandbox.add_supergroup("Mafia Club", owner=host)
    group.add_bot(added_by=host)
    group.promote_bot(by=host, **RIGHTS)
    people = []
    for i in range(players):
        person = sandbox.add_user(NAMES[lang][i], username=f"player{i + 1}", language_code=lang)
        group.add_member(person)
        people.append(person)
    session = InProcessSession(sandbox)
    default = DefaultBotProperties(parse_mode=ParseMode.HTML, allow_sending_without_reply=True)
    bot = Bot(sandbox.token, session=session, default=default)
    texts = Texts(lang)
    timers = VirtualTimers(clock)
    with tempfile.TemporaryDirectory(dir=_memory_folder()) as folder:
        database = await Database.open(Path(folder) / "mafia.sqlite3")
        try:
            app = await build_app(
                bot,
                database,
                clock,
                timers,
                texts,
                settings or GameSettings(min_players=TABLE),
                seeds=lambda: demo_seed(seed),
            )
            desk = Desk(sandbox, clock, timers, session, app, texts, group, host, people, lang)
            await app.service.resume_all()
            await desk.settle()
            try:
                yield desk
            finally:
                await app.workers.stop()
        finally:
            await database.close()
