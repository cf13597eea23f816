"""A whole game in the offline sandbox, played by simulated people on a virtual clock.

`Table` is the harness the demo and the end-to-end tests share: the sandbox Bot API
on 127.0.0.1, the real bot polling it over HTTP (or, with `webhook=True`, listening on
127.0.0.1 for the sandbox's POSTs), SQLite in a temporary folder, and a
virtual clock that moves only when nothing else is happening. `Crowd` plays the
people: they speak in turn, nominate, vote and act at night by pressing the buttons
the bot sent them, with choices drawn from the demo seed.
"""

from __future__ import annotations

import asyncio
import base64
import bisect
import contextlib
import hashlib
import os
import random
import re
import socket
import tempfile
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TextIO, TypeVar

from aiogram.types import Update

from bot.app import App, build_app, make_bot, set_command_menus
from bot.config import Config
from bot.rules.events import Phase
from bot.rules.roles import Role
from bot.rules.settings import GameSettings
from bot.rules.state import GameState
from bot.services.clock import VirtualClock, VirtualTimers
from bot.services.workers import Workers
from bot.views.i18n import Texts
from bot.web.page import PageLinks
from handlers.webhook import RECEIVER, new_secret, serve_webhook
from sandbox import CallbackPress, Sandbox, SettleTimeout, SimGroup, SimMessage, SimUser
from sandbox.inprocess import InProcessSession
from storage.db import Database

T = TypeVar("T")

# The longest the driver waits (seconds of real time) for the bot's activities to move
# before it looks again: what comes from outside (a call's answer, an update confirmed by
# the next poll) moves nothing in `Workers` until an activity parks or ends.
LOOK_AGAIN = 0.0005

NAMES = {
    "ru": [
        "Анна",
        "Борис",
        "Вера",
        "Глеб",
        "Дина",
        "Егор",
        "Жанна",
        "Захар",
        "Ира",
        "Кирилл",
        "Лена",
        "Марк",
        "Нина",
        "Олег",
        "Поля",
        "Роман",
    ],
    "en": [
        "Anna",
        "Boris",
        "Vera",
        "Gleb",
        "Dina",
        "Egor",
        "Jeanne",
        "Zakhar",
        "Ira",
        "Kirill",
        "Lena",
        "Mark",
        "Nina",
        "Oleg",
        "Polly",
        "Roman",
    ],
}
HOST_NAME = {"ru": "Ведущий Саша", "en": "Host Sasha"}
JUDGE_NAME = {"ru": "Судья Мария", "en": "Judge Maria"}
SPEECHES = {
    "ru": [
        "Я мирный, слежу за пятым.",
        "Мне не нравится, как молчит соседний номер.",
        "Пас.",
        "Голосую по фактам, а не по ощущениям.",
        "Мафия, вы себя выдали вчера.",
    ],
    "en": [
        "I'm a civilian, watching seat five.",
        "I don't like how quiet my neighbour is.",
        "Pass.",
        "I vote on facts, not on feelings.",
        "Mafia, you gave yourselves away.",
    ],
}
RIGHTS = {
    "can_delete_messages": True,
    "can_restrict_members": True,
    "can_pin_messages": True,
    "can_invite_users": True,
}


def demo_seed(seed: int) -> str:
    """The game seed of demo number `seed`: fixed, so the same demo plays the same way."""
    return hashlib.sha256(f"demo:{seed}".encode()).hexdigest()[:32]


@dataclass
class Table:
    sandbox: Sandbox
    clock: VirtualClock
    group: SimGroup
    host: SimUser
    people: list[SimUser]
    database_path: Path
    settings: GameSettings
    texts: Texts
    seed: int
    warning_seconds: float
    game_id: int | None = None
    # Updates handled side by side, as in production (set before boot() or restart(), by
    # a test that races two commands; settle() cannot tell when such handlers are done).
    concurrent: bool = False
    # Webhook mode: where the bot listens (kept across restarts) and the secret it gave.
    webhook: bool = False
    # No wire at all: the bot's calls are answered by the sandbox in process and the
    # driver hands it each update in turn, as polling would (`InProcessSession`).
    in_process: bool = False
    webhook_port: int = 0
    webhook_secret: str = ""
    # Where each settle() ended, as the sandbox's newest message: the steps of the
    # transcript (`in_order`).
    marks: list[int] = field(default_factory=list)
    # Join and registration links from the seed, as the game's own seed is.
    tokens: random.Random = field(default_factory=random.Random)
    # The live page's addresses, for a test that serves it (set, then restart()).
    pages: PageLinks | None = None
    # The tournament's Judge, when the table was opened with one; the config's
    # `[access] judges` then names them alone, as a club's server would.
    judge: SimUser | None = None
    # The forum topic the table plays in (its message_thread_id), set by a test that
    # opens the game in a topic; None: the group's General, or a group without topics.
    topic: int | None = None

    # --- the bot, which can be stopped and started again on the same database -----

    async def boot(self) -> None:
        """Start the bot: fresh timers and caches, the database as it was left."""
        # The bot as `python -m bot run` makes it (its session, its JSON codec).
        session = InProcessSession(self.sandbox) if self.in_process else None
        self.bot = make_bot(self.sandbox.token, self.sandbox.base_url, session)
        self.database = await Database.open(self.database_path)
        self.database.new_token = self._token
        self.timers = VirtualTimers(self.clock)
        # The bot's activities; the updates it has begun to handle since it started
        # (what Telegram still holds beyond those is on its way to the bot).
        self.workers = Workers()
        self.entered: set[int] = set()
        self.workers.on_update = self.entered.add
        self.listening = False  # polling, or the webhook served: updates can come in
        self.feeding: asyncio.Task[object] | None = None  # in process: the update in hand
        self.feeding_id = 0
        self.app: App = await build_app(
            self.bot,
            self.database,
            self.clock,
            self.timers,
            self.texts,
            self.settings,
            self.warning_seconds,
            seeds=lambda: demo_seed(self.seed),
            judges=frozenset({self.judge.id}) if self.judge is not None else frozenset(),
            pages=self.pages,
            workers=self.workers,
        )
        await self.until(self.workers.spawn(set_command_menus(self.bot, self.texts)))
        await self.until(self.workers.spawn(self.app.service.resume_all()))
        if self.webhook:
            await self.until(self.workers.spawn(self._listen()))
            self.listening = True
            return
        if self.in_process:
            return  # settle() hands the bot each update
        self.polling = asyncio.create_task(
            self.app.dispatcher.start_polling(
                self.bot,
                handle_as_tasks=self.concurrent,
                polling_timeout=1,
                handle_signals=False,
            )
        )
        await self.sandbox.wait_polling()
        self.listening = True

    async def _listen(self) -> None:
        """Webhook mode, as `bot.app` runs it: our server first, then setWebhook."""
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind(("127.0.0.1", self.webhook_port))
        self.webhook_port = sock.getsockname()[1]
        self.webhook_secret = self.webhook_secret or new_secret()
        self.webhook_runner = await serve_webhook(
            self.app.dispatcher,
            self.bot,
            self.webhook_url,
            self.webhook_secret,
            sock=sock,
        )

    def _token(self) -> str:
        return base64.urlsafe_b64encode(self.tokens.randbytes(16)).rstrip(b"=").decode()

    def in_order(self, message: SimMessage) -> tuple[int, int, float, int, int]:
        """The transcript's order, the same for the same seed.

        Messages go step by step (a step ends where settle() ended); in a step, what the
        people did first, then what the bot sent, by time, then by chat. Messages the bot
        sends to several chats at once reach the sandbox in whatever order the network
        gives, so arrival cannot order them.
        """
        step = bisect.bisect_left(self.marks, message.seq)
        if not message.from_bot:
            return (step, 0, 0.0, 0, message.seq)
        return (step, 1, message.date, message.chat.id, message.seq)

    def transcript(self) -> str:
        return self.sandbox.transcript(order=self.in_order)

    @property
    def webhook_url(self) -> str:
        return f"http://127.0.0.1:{self.webhook_port}/telegram/updates"

    async def until(self, work: Awaitable[T], within: float = 30.0) -> T:
        """Await `work` (the bot's own as one of its activities, `workers.spawn`, or a
        request of Telegram's to the bot), moving the clock whenever the bot waits on it
        (a call waiting for its chat's window, or for a 429's end)."""
        task = asyncio.ensure_future(work)
        loop = asyncio.get_running_loop()
        give_up = loop.time() + within
        while not task.done():
            seen = self.workers.moves
            wake = self.clock.next_wake()
            if wake is not None and await self.still():
                self.clock.set(wake)
                continue
            if loop.time() > give_up:
                task.cancel()
                raise SettleTimeout(f"not done within {within} s: {self._why()}")
            await self.workers.changed(seen, LOOK_AGAIN)
        return await task

    def _quiet(self) -> bool:
        """Nothing on its way to or from the bot: no update on its way (below), no call
        unanswered, no statement under way.

        An update Telegram holds that the bot has not begun to handle is on its way once
        the bot listens, unless the bot, polling and handling one update after another, is
        still handling an earlier one of the same batch: the rest wait behind it, in its
        hands.
        """
        # In process, nothing carries an update but the driver itself (`_feed`).
        pending = self.sandbox.pending_updates if self.listening else []
        waiting = any(u["update_id"] not in self.entered for u in pending)
        one_by_one = not self.webhook and not self.concurrent
        if waiting and not (one_by_one and self.workers.handling):
            return False
        return self.app.service.sender.limiter.in_flight == 0 and not self.database.busy

    def _feed(self) -> bool:
        """In process: hand the bot the next update Telegram holds once it is done with
        the one before, as polling with updates handled one at a time does (confirmed
        when handled: a restart meanwhile gets it again). True if one was handed."""
        if not self.in_process or (self.feeding is not None and not self.feeding.done()):
            return False
        if self.feeding is not None:
            self.sandbox.world.updates.confirm(self.feeding_id)
            self.feeding = None
        pending = self.sandbox.pending_updates
        if not pending:
            return False
        raw = pending[0]
        self.feeding_id = raw["update_id"]
        update = Update.model_validate(raw, context={"bot": self.bot})
        handling = self.app.dispatcher.feed_update(self.bot, update)
        self.feeding = self.workers.spawn(handling, f"update {self.feeding_id}")
        return True

    def _why(self) -> str:
        """What keeps the bot from settling, for a driver that gives up."""
        pending = [u["update_id"] for u in self.sandbox.pending_updates]
        return (
            f"at work: {self.workers.at_work()}; updates unconfirmed: {pending} (begun: "
            f"{sorted(self.entered & set(pending))}); calls unanswered: "
            f"{self.app.service.sender.limiter.in_flight}; database busy: "
            f"{self.database.busy}; sender busy: {self.app.service.sender.busy()}; timers "
            f"busy: {self.timers.busy()}; next wake: {self.clock.next_wake()}"
        )

    async def still(self) -> bool:
        """The bot can go on only when the clock moves or somebody acts: no activity of
        its own at work (`Workers.still`) and nothing on its way (`_quiet`)."""
        return await self.workers.still(self._quiet)

    async def shut_down(self) -> None:
        self.listening = False
        if self.webhook:
            await self.webhook_runner.cleanup()
        elif not self.in_process:
            await self.app.dispatcher.stop_polling()
            with contextlib.suppress(asyncio.CancelledError):
                await self.polling
        await self.workers.stop()  # what it still had to send dies with the process
        await self.database.close()
        await self.bot.session.close()

    async def restart(self) -> None:
        """The process dies and comes back: everything in memory is lost."""
        await self.shut_down()
        await self.boot()
        await self.settle()

    # --- time --------------------------------------------------------------------

    async def settle(self, within: float = 30.0) -> None:
        """Until the bot has handled everything; a send paced on the clock moves the clock.

        The bot is done when it is still (`still`) and nothing the game needs waits: no
        update unconfirmed, no timer's job running, nothing the game needs queued for a
        chat (a cosmetic note or stale buttons waiting for room may wait). Still but not
        done, it waits on the clock: the clock goes to the next sleeper's time.
        """
        loop = asyncio.get_running_loop()
        give_up = loop.time() + within
        while True:
            seen = self.workers.moves
            if self._feed():
                continue
            if await self.still():
                busy = bool(self.sandbox.pending_updates) or self.timers.busy()
                busy = busy or self.app.service.sender.busy()
                if self.webhook:  # answered, and still telling what they did
                    busy = busy or self.webhook_runner.app[RECEIVER].finishing() > 0
                if not busy:
                    last = self.sandbox.world.last_seq
                    if not self.marks or self.marks[-1] != last:
                        self.marks.append(last)
                    return
                wake = self.clock.next_wake()
                if wake is not None:
                    self.clock.set(wake)  # the bot is waiting on the clock: let time pass
                    continue
            if loop.time() > give_up:
                raise SettleTimeout(f"the bot did not settle within {within} s: {self._why()}")
            await self.workers.changed(seen, LOOK_AGAIN)

    async def _wake_at(self, wake: float) -> None:
        """Move the clock to a sleeper's time, lazy ones included, and let what woke go."""
        self.clock.set(wake)
        for _ in range(5):  # what woke makes its call before the bot is asked if idle
            await asyncio.sleep(0)
        await self.settle()

    async def linger(self, seconds: float = 1.0) -> None:
        """Let up to `seconds` pass with nobody acting (to the next timer at most): what
        waits for a quiet moment, as stale buttons do, goes meanwhile."""
        until = self.clock.now() + seconds
        due = self.timers.next_due()
        until = until if due is None else min(due, until)
        while (wake := self.clock.next_wake(lazy=True)) is not None and wake < until:
            await self._wake_at(wake)
        self.clock.set(until)
        self.timers.fire_due()
        await self.settle()

    async def let_room_come(self, most: float = 600.0) -> None:
        """Let time pass with nobody acting, before any timer, until nothing waits for room
        in a window (`most` seconds at most). The table message's last edit goes after
        the stale buttons, a second apart and in its share of the group's minute: after a
        game that may take more than a minute."""
        until = self.clock.now() + most
        while (wake := self.clock.next_wake(lazy=True)) is not None and wake <= until:
            due = self.timers.next_due()
            if due is not None and due <= wake:
                return
            await self._wake_at(wake)

    async def advance(self) -> bool:
        """Move the clock to the next due timer and fire it; False if none is armed."""
        due = self.timers.next_due()
        if due is None:
            return False
        # On the way, what waits for room (a warning, stale buttons) goes when it would.
        while (wake := self.clock.next_wake(lazy=True)) is not None and wake < due:
            await self._wake_at(wake)
        self.clock.set(due)
        # What the clock woke (stale buttons, the table message: edits waiting for room)
        # goes before the timer's work: the two would race, in whichever order the
        # machine's speed gave them, for the same room in the group's window.
        await self.settle()
        self.timers.fire_due()
        await self.settle()
        return True

    # --- what people see ---------------------------------------------------------

    @property
    def state(self) -> GameState | None:
        return None if self.game_id is None else self.app.service.cached_state(self.game_id)

    def person(self, seat: int) -> SimUser:
        state = self.state
        assert state is not None
        return self.sandbox.user(state.seats[seat].user_id)

    def latest(self, chat_messages: list[SimMessage], prefix: str) -> SimMessage | None:
        for message in reversed(chat_messages):
            if message.from_bot and any(
                (b.callback_data or "").startswith(prefix) for row in message.buttons() for b in row
            ):
                return message
        return None

    def label(self, seat: int) -> str:
        """A player button's text (PRODUCT: `5 · Anna`)."""
        state = self.state
        assert state is not None
        return f"{seat} · {state.seats[seat].nick}"

    def named(self, seat: int) -> str:
        """How a sentence names a player, in the table's language (`#5 (Anna)`), as a
        reader sees it: the nick as it is, not escaped."""
        state = self.state
        assert state is not None
        nick = state.seats[seat].nick
        return self.texts(self.texts.default, "vote.seat", seat=seat, nick=nick)

    async def press(self, seat: int, message: SimMessage, button: str | int) -> CallbackPress:
        press = await self.person(seat).press(message, button)
        await self.settle()
        return press

    def turn_message(self) -> SimMessage:
        message = self.latest(self.group.messages(), "t:")
        assert message is not None, "no turn message"
        return message

    async def pass_turn(self) -> CallbackPress:
        state = self.state
        assert state is not None and state.speaker is not None
        return await self.press(state.speaker, self.turn_message(), 0)

    async def nominate(self, target: int) -> CallbackPress:
        state = self.state
        assert state is not None and state.speaker is not None
        return await self.press(state.speaker, self.turn_message(), str(target))

    async def vote(self, seat: int, choice: int | None) -> CallbackPress:
        ballot = self.latest(self.group.messages(), "v:")
        assert ballot is not None, "no vote message"
        button = (
            self.label(choice)
            if choice is not None
            else len([b for row in ballot.buttons() for b in row]) - 1
        )
        return await self.press(seat, ballot, button)

    async def night_pick(self, seat: int, target: int) -> CallbackPress:
        keyboard = self.latest(self.person(seat).inbox(), "n:")
        assert keyboard is not None, f"seat {seat} has no night keyboard"
        return await self.press(seat, keyboard, self.label(target))

    async def wait_for(self, done: Callable[[GameState], bool], limit: int = 500) -> GameState:
        """Let the clock run (every turn times out) until `done(state)` holds."""
        for _ in range(limit):
            await self.settle()
            state = self.state
            assert state is not None
            if done(state):
                return state
            if not await self.advance():
                raise AssertionError(f"stalled at {state.phase}")
        raise AssertionError("the condition never came")

    # --- the lobby ---------------------------------------------------------------

    async def gather(self, players: list[SimUser] | None = None) -> None:
        """The Host opens a lobby and everybody joins through the Join deep link."""
        await self.host.send(self.group, "/newgame", topic=self.topic)
        await self.settle()
        lobby = self.group.visible_messages()[-1]
        for person in players if players is not None else self.people:
            await person.follow(lobby, 0)
            await self.settle()
        game = await self.app.service.active_game(self.group.id)
        assert game is not None, "the lobby did not open"
        self.game_id = game.game_id

    async def begin(self) -> None:
        await self.host.send(self.group, "/begin", topic=self.topic)
        await self.settle()


@contextlib.asynccontextmanager
async def open_table(
    players: int,
    *,
    seed: int = 1,
    lang: str = "ru",
    settings: GameSettings | None = None,
    warning_seconds: float = 10.0,
    rate_limits: bool = False,
    flaky_429: float = 0.0,
    folder: Path | None = None,
    webhook: bool = False,
    judge: bool = False,
    basic_group: bool = False,
    in_process: bool = False,
) -> AsyncIterator[Table]:
    clock = VirtualClock()
    sandbox = Sandbox(
        clock=clock.now,
        rate_limits=rate_limits,
        flaky_429=flaky_429,
        seed=seed,
        local_mode=webhook,
    )
    await sandbox.start()
    host = sandbox.add_user(HOST_NAME[lang], username="host", language_code=lang)
    # A basic group (`basic_group`) is what a club starts with before Telegram upgrades it.
    if basic_group:
        group = sandbox.add_group("Mafia Club", owner=host)
    else:
        group = sandbox.add_supergroup("Mafia Club", owner=host)
    group.add_bot(added_by=host)
    group.promote_bot(by=host, **RIGHTS)
    people = []
    for i in range(players):
        name = NAMES[lang][i % len(NAMES[lang])] + ("" if i < len(NAMES[lang]) else f" {i}")
        person = sandbox.add_user(name, username=f"player{i + 1}", language_code=lang)
        group.add_member(person)
        people.append(person)
    # Not a member of the club's group: a Judge need not sit at any table.
    judging = (
        sandbox.add_user(JUDGE_NAME[lang], username="judge", language_code=lang) if judge else None
    )
    with tempfile.TemporaryDirectory(dir=_memory_folder()) as tmp:
        table = Table(
            sandbox,
            clock,
            group,
            host,
            people,
            database_path=Path(folder or tmp) / "mafia.sqlite3",
            settings=settings or GameSettings(min_players=min(players, 12)),
            texts=Texts(lang),
            seed=seed,
            warning_seconds=warning_seconds,
            webhook=webhook,
            in_process=in_process,
            tokens=random.Random(f"tokens:{seed}"),
            judge=judging,
        )
        await table.boot()
        try:
            yield table
        finally:
            await table.shut_down()
            await sandbox.stop()


@dataclass
class Crowd:
    """Simulated players: deterministic from the seed, acting only through Telegram."""

    table: Table
    rng: random.Random
    lang: str
    done: set[tuple[int, int, str]] = field(default_factory=set)

    def _once(self, user_id: int, step: int, what: str) -> bool:
        key = (user_id, step, what)
        if key in self.done:
            return False
        self.done.add(key)
        return True

    async def act(self) -> bool:
        """Everybody does what they would now; False when nobody had anything to do."""
        state = self.table.state
        if state is None or state.finished or state.paused:
            return False
        if state.in_speech and state.speaker is not None:
            return await self._speak(state, state.speaker)
        if state.phase is Phase.VOTE:
            return await self._vote(state)
        if state.phase in (Phase.NIGHT, Phase.ACQUAINTANCE):
            return await self._night(state)
        return False

    async def _speak(self, state: GameState, seat: int) -> bool:
        person = self.table.person(seat)
        # This turn's message: the one before may still show its buttons for a while.
        turn = self.table.latest(self.table.group.messages(), f"t:{state.game_id}:{state.step}:")
        if turn is None:
            return False
        acted = False
        if self._once(person.id, state.step, "speak"):
            await person.send(
                self.table.group, self.rng.choice(SPEECHES[self.lang]), topic=self.table.topic
            )
            await self.table.settle()
            acted = True
            if self.rng.random() < 0.03:  # somebody else talks out of turn: deleted (D10)
                other = self.table.person(self.rng.choice(state.living()))
                if other is not person:
                    await other.send(self.table.group, "!!!", topic=self.table.topic)
                    await self.table.settle()
        # As things are now: the speaker may have nominated meanwhile (a command, or a
        # button pressed in a test), and the button is gone then.
        nominations = (self.table.state or state).nominations
        nominating = state.phase is Phase.ROUND_2 and seat not in nominations
        # One roll a turn decides whether the speaker nominates.
        once = nominating and self._once(person.id, state.step, "nominate")
        suspect = self._suspect(state, seat) if once else None
        if suspect is not None:
            # The Commissioner puts up a player their check found to be mafia.
            await person.press(turn, str(suspect))
            await self.table.settle()
            acted = True
        elif once and self.rng.random() < 0.55:
            targets = [s for s in state.living() if s != seat]
            if state.roles[seat] is Role.MAFIA:
                targets = [s for s in targets if state.roles[s] is not Role.MAFIA] or targets
            target = self.rng.choice(targets)
            await person.press(turn, str(target))
            await self.table.settle()
            acted = True
        if self._once(person.id, state.step, "pass") and self.rng.random() < 0.6:
            await self.table.settle()
            fresh = self.table.latest(self.table.group.messages(), "t:")
            if (
                fresh is not None
                and self.table.state is not None
                and (self.table.state.step == state.step)
            ):
                await person.press(fresh, 0)
            acted = True
        return acted

    def _suspect(self, state: GameState, seat: int) -> int | None:
        """A living seat the Commissioner at `seat` has been told is mafia."""
        if state.roles[seat] is not Role.COMMISSIONER:
            return None
        for message in self.table.person(seat).inbox():
            text = message.content
            # "🔎 Игрок №6 (Вера) — мафия.": the first number after № or # is the seat.
            seat_no = re.search(r"[№#](\d+)", text)
            if text.startswith("🔎") and ("mafia" in text or "мафия" in text) and seat_no:
                found = int(seat_no.group(1))
                if state.is_alive(found):
                    return found
        return None

    async def _vote(self, state: GameState) -> bool:
        ballot = self.table.latest(self.table.group.messages(), "v:")
        if ballot is None:
            return False
        acted = False
        for seat in state.living():
            person = self.table.person(seat)
            if not self._once(person.id, state.step, "vote"):
                continue
            roll = self.rng.random()
            if roll < 0.08:
                continue  # not voting is abstaining (D6)
            buttons = [b for row in ballot.buttons() for b in row]
            choice = buttons[-1] if roll < 0.15 else self.rng.choice(buttons[:-1])
            # Peaceful players follow the Commissioner's nomination most of the time.
            accused = state.nominations.get(state.commissioner())
            trusting = state.roles[seat] is not Role.MAFIA and self.rng.random() < 0.8
            if accused in state.leaders and trusting:
                choice = ballot.button(f"{accused} · {state.seats[accused].nick}")
            await person.press(ballot, choice.text)
            await self.table.settle()  # one update at a time: the same order every run
            acted = True
        return acted

    async def _night(self, state: GameState) -> bool:
        acted = False
        # The mafia agree on a target most nights; sometimes one of them strays (a miss, N3).
        peaceful = [s for s in state.living() if state.roles[s] is not Role.MAFIA]
        target = peaceful[(state.day * 7) % len(peaceful)] if peaceful else None
        for seat in state.living():
            role = state.roles[seat]
            person = self.table.person(seat)
            if role is Role.MAFIA and self._once(person.id, state.step, "confer"):
                await person.send(person.private, self.rng.choice(SPEECHES[self.lang]))
                await self.table.settle()  # each relay delivered before the next is written
                acted = True
            if state.phase is not Phase.NIGHT or role is Role.CIVILIAN:
                continue
            keyboard = self.table.latest(person.inbox(), "n:")
            if keyboard is None or not self._once(person.id, state.step, "night"):
                continue
            if role is Role.COMMISSIONER:
                pick = self.rng.choice([s for s in state.living() if s != seat])
            else:
                pick = (
                    target
                    if target is not None and self.rng.random() < 0.9
                    else (self.rng.choice(state.living()))
                )
            choice = f"{pick} · {state.seats[pick].nick}"
            if not any(b.text == choice for row in keyboard.buttons() for b in row):
                continue  # removed since the keyboard was dealt
            await person.press(keyboard, choice)
            await self.table.settle()
            acted = True
        return acted


def _memory_folder() -> str | None:
    """Where a throwaway game's database goes: a folder in memory (/dev/shm) where the
    system has one, so each commit's sync to disk (synchronous=full, kept) costs nothing.
    A game's database is a throwaway here; a test that checks durability passes `folder`."""
    shm = Path("/dev/shm")
    return str(shm) if shm.is_dir() and os.access(shm, os.W_OK | os.X_OK) else None


async def play(table: Table, crowd: Crowd, max_steps: int = 20_000) -> GameState:
    """Play until the game is over: people act, and when nobody does, time passes."""
    for _ in range(max_steps):
        await table.settle()
        state = table.state
        if state is not None and state.finished:
            return state
        if not await crowd.act() and not await table.advance():
            raise RuntimeError("the game stalled: nobody can act and no timer is armed")
    raise RuntimeError("the game did not end")


async def play_demo(
    config: Config,
    players: int,
    seed: int,
    lang: str,
    out: TextIO,
    scenario: str = "game",
    *,
    web: bool = False,
) -> int:
    from bot.cli.scenarios import Scripted, play_tournament

    if scenario == "tournament":
        return await play_tournament(config, players, seed, lang, out, web=web)
    settings = config.casual_settings()
    async with open_table(
        players,
        seed=seed,
        lang=lang,
        settings=settings,
        warning_seconds=config.game.warning_seconds,
    ) as table:
        await table.gather()
        await table.begin()
        crowd = Scripted(table, random.Random(seed), lang, scenario=scenario)
        state = await play(table, crowd)
        # The table message's last edit waits for room in the group's window.
        await table.let_room_come()
        out.write(table.transcript() + "\n\n")
        pinned = table.group.pinned
        if pinned is not None:
            out.write(table.texts(lang, "demo.table") + "\n" + pinned.content + "\n\n")
        table.sandbox.assert_no_bot_errors()
        assert state.winner is not None  # play() returns only a finished game
        side = table.texts(lang, f"demo.{state.winner.value}")
        out.write(
            table.texts(lang, "demo.over", day=state.day, side=side, seed=seed, players=players)
            + "\n"
        )
    return 0
