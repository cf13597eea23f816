"""The load: simulated clubs that play whole games, and a plain stream of updates.

`GameLoad` runs many tables at once in the sandbox's process. Each table is a group
with a Host and sixteen players who behave like `bot.cli.demo.Crowd` (the same odds for
speaking, talking out of turn, nominating, passing, voting and the night), but learn
everything from what the bot sends them, as real people do: the turn message names the
speaker, the round-2 keyboard lists who is alive, the role card and the night keyboards
tell the mafia who they are. They move within a second or so of game time (scaled; a
night pick takes one to three, as the bot paces private messages at one a second),
join a lobby over half a minute, and when a game ends the Host opens the next one, so
the number of games stays put.

`UpdateStream` is the load for the bare bot, which plays no game: messages in groups,
private messages and button presses, at a set rate and in a set mix.
"""

from __future__ import annotations

import asyncio
import contextlib
import random
import re
import time
from collections.abc import Awaitable, Callable, Coroutine
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from bench.probe import Probe
from sandbox import CallRecord, Sandbox, SimGroup, SimMessage, SimulationError, SimUser

if TYPE_CHECKING:
    from bench.fill import Filled

RIGHTS = {
    "can_delete_messages": True,
    "can_restrict_members": True,
    "can_pin_messages": True,
    "can_invite_users": True,
}
PLAYERS = 16
SPEECHES = (
    "I'm a civilian, watching seat five.",
    "I don't like how quiet my neighbour is.",
    "Pass.",
    "I vote on facts, not on feelings.",
    "Mafia, you gave yourselves away.",
)
_GAME_NUMBER = re.compile(r"[#№](\d+)")
_CALLBACK = re.compile(r"([tvng]):(\d+):?(\d+)?")
_CARD = re.compile(r"seat: (\d+)\.\s*Your card: (\w+)", re.IGNORECASE)


@dataclass
class Seating:
    """Who sits where, as far as the players have learned it."""

    seat_of: dict[int, int] = field(default_factory=dict)  # user id -> seat
    mafia: set[int] = field(default_factory=set)  # user ids
    commissioner: int | None = None
    living: set[int] = field(default_factory=set)  # user ids
    suspects: list[int] = field(default_factory=list)  # seats the Commissioner found mafia
    nominee_of_commissioner: int | None = None


class Tables:
    """The groups, Hosts and players of a benchmark, made in the sandbox's world."""

    def __init__(self, sandbox: Sandbox, count: int, *, started: bool = False) -> None:
        self.sandbox = sandbox
        self.groups: list[SimGroup] = []
        self.hosts: list[SimUser] = []
        self.players: list[list[SimUser]] = []
        for index in range(count):
            host = sandbox.add_user(f"Host {index}", username=f"host{index}", language_code="en")
            group = sandbox.add_supergroup(f"Club {index}", owner=host)
            group.promote_bot(by=host, **RIGHTS)
            seated = []
            for seat in range(PLAYERS):
                # Unique first names: the bot labels seats with them.
                person = sandbox.add_user(f"P{seat + 1}x{index}", language_code="en")
                group.add_member(person)
                if started:
                    person.started = True
                seated.append(person)
            self.groups.append(group)
            self.hosts.append(host)
            self.players.append(seated)
        # Joining the groups made service updates no game needs: the bot starts clean.
        sandbox.world.updates.drop_pending()


class Table:
    """One group's players, reacting to what the bot posts there and in private."""

    def __init__(self, load: GameLoad, index: int) -> None:
        tables = load.tables
        self.load = load
        self.group = tables.groups[index]
        self.host = tables.hosts[index]
        self.players = tables.players[index]
        self.by_id = {p.id: p for p in self.players}
        self.by_name = {p.first_name: p for p in self.players}
        self.rng = random.Random(load.seed * 100_003 + index)
        self.active = False
        self.game: int | None = None
        self.begun = False
        self.joined: set[int] = set()
        self.seating = Seating()
        self.turn_step = -1
        self.done: set[tuple[int, int, str]] = set()

    # -- starting a game -------------------------------------------------------------------

    def open(self, delay: float = 0.0) -> None:
        """The Host opens a lobby after `delay` wall seconds."""
        self.active = True
        self.load.after_wall(delay, self._newgame)

    async def _newgame(self) -> None:
        self.game, self.joined, self.seating = None, set(), Seating()
        self.turn_step = -1
        self.done.clear()
        await self.load.act(self.host.send(self.group, "/newgame"))

    def lobby_opened(self, message: SimMessage, game: int) -> None:
        self.game, self.begun = game, False
        for person in self.players:  # people press Join over half a minute or so
            self.load.after(self.rng.uniform(2.0, 40.0), self._join, person, message)
        # Should a reply to a join go missing, the Host begins all the same.
        self.load.after(90.0, self._begin, game)

    async def _join(self, person: SimUser, lobby: SimMessage) -> None:
        await self.load.act(person.follow(lobby, 0))

    def private_reply(self, person: SimUser) -> None:
        if self.game is None or self.seating.seat_of or person.id in self.joined:
            return
        self.joined.add(person.id)
        if len(self.joined) == PLAYERS:
            self.load.after(self.rng.uniform(1.0, 3.0), self._begin, self.game)

    async def _begin(self, game: int) -> None:
        if self.begun or game != self.game:
            return
        self.begun = True
        self.seating.living = set(self.by_id)
        await self.load.act(self.host.send(self.group, "/begin"))

    # -- the day ----------------------------------------------------------------------------

    def turn(self, message: SimMessage, step: int) -> None:
        mentioned = message.mentioned_user_ids()
        speaker = self.by_id.get(mentioned[-1]) if mentioned else None
        if speaker is None or step <= self.turn_step:
            return
        self.turn_step = step
        buttons = [b for row in message.buttons() for b in row]
        if len(buttons) > 1:  # round 2: the seats one may nominate are the living others
            living = {self._user_of_label(b.text) for b in buttons[1:]}
            self.seating.living = {u for u in living if u is not None} | {speaker.id}
        self.load.after(self.rng.uniform(0.3, 1.0), self._speak, speaker, message, step)

    async def _speak(self, speaker: SimUser, turn: SimMessage, step: int) -> None:
        if step != self.turn_step:
            return
        load, rng = self.load, self.rng
        with load.probe.expecting(silent=True):  # the speaker may speak: no answer due
            await load.act(speaker.send(self.group, rng.choice(SPEECHES)))
        if rng.random() < 0.03:  # somebody else talks out of turn: deleted (D10)
            other = self.by_id.get(rng.choice(sorted(self.seating.living or self.by_id)))
            if other is not None and other is not speaker:
                await load.act(other.send(self.group, "!!!"))
        buttons = [b for row in turn.buttons() for b in row]
        nominate = None
        if len(buttons) > 1:
            commissioner = speaker.id == self.seating.commissioner
            suspect = next(
                (s for s in self.seating.suspects if self._label_of_seat(buttons, s)), None
            )
            if commissioner and suspect is not None:
                nominate = self._label_of_seat(buttons, suspect)
            elif rng.random() < 0.55:
                choices = [b.text for b in buttons[1:]]
                if speaker.id in self.seating.mafia:
                    choices = [
                        c for c in choices if self._user_of_label(c) not in self.seating.mafia
                    ] or choices
                nominate = rng.choice(choices)
            if commissioner:
                self.seating.nominee_of_commissioner = (
                    _seat_of_label(nominate) if nominate is not None else None
                )
        if nominate is not None:
            await load.act(speaker.press(turn, nominate))
        if rng.random() < 0.6:
            load.after(rng.uniform(0.3, 1.0), self._pass, speaker, turn, step)

    async def speak_after_restart(self, speaker: SimUser) -> None:
        """The speaker of a game the bot resumed goes on: no turn message, so /pass."""
        with self.load.probe.expecting(silent=True):
            await self.load.act(speaker.send(self.group, self.rng.choice(SPEECHES)))
        if self.rng.random() < 0.6:
            self.load.after(self.rng.uniform(0.5, 2.0), self._pass_command, speaker)

    async def _pass_command(self, speaker: SimUser) -> None:
        if self.turn_step < 0:  # no turn message came since the restart
            await self.load.act(speaker.send_command(self.group, "pass"))

    async def _pass(self, speaker: SimUser, turn: SimMessage, step: int) -> None:
        if step == self.turn_step and not turn.deleted:
            await self.load.act(speaker.press(turn, 0))

    def ballot(self, message: SimMessage, step: int) -> None:
        for user_id in sorted(self.seating.living):
            self.load.after(self.rng.uniform(0.3, 3.0), self._vote, user_id, message, step)

    async def _vote(self, user_id: int, ballot: SimMessage, step: int) -> None:
        if (user_id, step, "vote") in self.done:
            return
        self.done.add((user_id, step, "vote"))
        rng = self.rng
        roll = rng.random()
        if roll < 0.08:
            return  # not voting is abstaining (D6)
        buttons = [b for row in ballot.buttons() for b in row]
        choice = buttons[-1].text if roll < 0.15 else rng.choice(buttons[:-1]).text
        accused = self.seating.nominee_of_commissioner
        trusting = user_id not in self.seating.mafia and rng.random() < 0.8
        if accused is not None and trusting:
            choice = self._label_of_seat(buttons, accused) or choice
        await self.load.act(self.by_id[user_id].press(ballot, choice))

    # -- the night ---------------------------------------------------------------------------

    def card(self, person: SimUser, text: str) -> None:
        found = _CARD.search(text)
        if found is None:
            return
        self.seating.seat_of[person.id] = int(found.group(1))
        role = found.group(2).lower()
        if role == "mafia":
            self.seating.mafia.add(person.id)
        elif role == "commissioner":
            self.seating.commissioner = person.id

    def acquaintance(self, person: SimUser) -> None:
        if person.id in self.seating.mafia:
            self.load.after(self.rng.uniform(0.5, 3.0), self._confer, person, 0)

    def night_keyboard(self, person: SimUser, message: SimMessage, step: int) -> None:
        buttons = [b for row in message.buttons() for b in row]
        living = {self._user_of_label(b.text) for b in buttons}
        if person.id in living:  # the kill keyboard lists every living seat
            self.seating.mafia.add(person.id)
            self.seating.living = {u for u in living if u is not None}
            self.load.after(self.rng.uniform(0.5, 2.0), self._confer, person, step)
        self.load.after(self.rng.uniform(1.0, 3.0), self._night_pick, person, message, step)

    async def _confer(self, person: SimUser, step: int) -> None:
        if (person.id, step, "confer") in self.done:
            return
        self.done.add((person.id, step, "confer"))
        partners = [m for m in self.seating.mafia if m != person.id]
        with self.load.probe.expecting(*partners):
            await self.load.act(person.send(person.private, self.rng.choice(SPEECHES)))

    async def _night_pick(self, person: SimUser, keyboard: SimMessage, step: int) -> None:
        if (person.id, step, "night") in self.done:
            return
        self.done.add((person.id, step, "night"))
        buttons = [b.text for row in keyboard.buttons() for b in row]
        if person.id in self.seating.mafia:
            peaceful = [b for b in buttons if self._user_of_label(b) not in self.seating.mafia]
            target = peaceful[(step * 7) % len(peaceful)] if peaceful else None
            pick = target if target and self.rng.random() < 0.9 else self.rng.choice(buttons)
        else:
            pick = self.rng.choice(buttons)
        await self.load.act(person.press(keyboard, pick))

    def check_result(self, text: str) -> None:
        # "🔎 Player #6 (Vera) is mafia.": the first number after # or № is the seat.
        seat = re.search(r"[№#](\d+)", text)
        if text.startswith("🔎") and "mafia" in text.lower() and seat:
            self.seating.suspects.append(int(seat.group(1)))

    # -- the end ------------------------------------------------------------------------------

    def over(self) -> None:
        self.game = None
        self.load.finished += 1
        if self.active:
            self.load.after(self.rng.uniform(10.0, 30.0), self._newgame)

    # -- labels ------------------------------------------------------------------------------

    def _user_of_label(self, text: str) -> int | None:
        _, _, name = text.partition(" · ")
        person = self.by_name.get(name.strip())
        return person.id if person else None

    @staticmethod
    def _label_of_seat(buttons: list[Any], seat: int) -> str | None:
        return next((b.text for b in buttons if _seat_of_label(b.text) == seat), None)


def _seat_of_label(text: str) -> int | None:
    head = text.split("·")[0].strip()
    return int(head) if head.isdigit() else None


class GameLoad:
    """Tables that play games against the bot, reacting to its calls in the sandbox."""

    def __init__(
        self, sandbox: Sandbox, probe: Probe, tables: Tables, scale: float, seed: int = 1
    ) -> None:
        self.sandbox = sandbox
        self.probe = probe
        self.tables = tables
        self.scale = scale
        self.seed = seed
        self.loop = asyncio.get_running_loop()
        self.table_list = [Table(self, i) for i in range(len(tables.groups))]
        self._by_group = {t.group.id: t for t in self.table_list}
        self._by_user = {p.id: t for t in self.table_list for p in t.players}
        self._tasks: set[asyncio.Task[None]] = set()
        self.finished = 0
        self.refused: dict[str, int] = {}
        sandbox.observers.append(self._observe)

    @property
    def active(self) -> int:
        return sum(1 for t in self.table_list if t.active)

    def grow(self, games: int, spread: float) -> None:
        """Open lobbies until `games` tables play, spread over `spread` wall seconds."""
        idle = [t for t in self.table_list if not t.active]
        new = idle[: max(0, games - self.active)]
        for i, table in enumerate(new):
            table.open(spread * i / max(1, len(new)))

    def stop(self) -> None:
        for table in self.table_list:
            table.active = False

    def resume(self, filled: list[Filled]) -> None:
        """Pick up games the bot resumed after a restart, as their players knew them."""
        for game in filled:
            table = self.table_list[game.table]
            table.active, table.game, table.seating = True, game.game_id, game.seating
            speaker = table.by_id.get(game.speaker) if game.speaker is not None else None
            if speaker is not None:
                self.after(table.rng.uniform(0.5, 3.0), table.speak_after_restart, speaker)

    # -- scheduling ------------------------------------------------------------------------

    def after(
        self, game_seconds: float, action: Callable[..., Awaitable[None]], *args: Any
    ) -> None:
        """Do `action(*args)` after that many seconds of game time (scaled)."""
        self.after_wall(game_seconds * self.scale, action, *args)

    def after_wall(
        self, seconds: float, action: Callable[..., Awaitable[None]], *args: Any
    ) -> None:
        def start() -> None:
            coroutine = action(*args)
            assert asyncio.iscoroutine(coroutine)
            task = self.loop.create_task(coroutine)
            self._tasks.add(task)
            task.add_done_callback(self._tasks.discard)

        self.loop.call_later(seconds, start)

    async def act(self, action: Coroutine[Any, Any, Any]) -> None:
        """A person's action; one a person could not do (a deleted message) is counted."""
        try:
            await action
        except SimulationError as error:
            reason = str(error).split(" ")[0]
            self.refused[reason] = self.refused.get(reason, 0) + 1

    # -- what the bot did ------------------------------------------------------------------

    def _observe(self, record: CallRecord) -> None:
        if record.method != "sendMessage" or not record.ok or not isinstance(record.result, dict):
            return
        chat_id = record.result["chat"]["id"]
        chat = self.sandbox.world.find_chat(chat_id)
        message = chat.message(record.result["message_id"]) if chat is not None else None
        if message is None:
            return
        if chat_id < 0:
            table = self._by_group.get(chat_id)
            if table is not None:
                self._group_post(table, message)
            return
        table = self._by_user.get(chat_id)
        if table is not None:
            self._private_post(table, table.by_id[chat_id], message)

    def _group_post(self, table: Table, message: SimMessage) -> None:
        for row in message.buttons():
            for button in row:
                if button.url and "start=join_" in button.url:
                    # The link carries a token; the post names the game by its number.
                    number = _GAME_NUMBER.search(message.content)
                    table.lobby_opened(message, int(number.group(1)) if number else 0)
                    return
                found = _CALLBACK.match(button.callback_data or "")
                if found is None:
                    continue
                kind, step = found.group(1), int(found.group(3) or 0)
                if kind == "t":
                    table.turn(message, step)
                elif kind == "v":
                    table.ballot(message, step)
                elif kind == "g":
                    table.over()
                return

    def _private_post(self, table: Table, person: SimUser, message: SimMessage) -> None:
        text = message.content
        for row in message.buttons():
            for button in row:
                found = _CALLBACK.match(button.callback_data or "")
                if found is not None and found.group(1) == "n":
                    table.night_keyboard(person, message, int(found.group(3) or 0))
                    return
        if text.startswith("🔎"):
            table.check_result(text)
        elif text.startswith("🌙") and person.first_name in text:
            table.acquaintance(person)
        elif _CARD.search(text):
            table.card(person, text)
        else:
            table.private_reply(person)


class UpdateStream:
    """Messages and button presses at `rate` a second, in a mix of kinds (bare bot load)."""

    KINDS = ("message:supergroup", "message:private", "callback_query")

    def __init__(self, sandbox: Sandbox, groups: int = 50, seed: int = 1) -> None:
        self.sandbox = sandbox
        self.rng = random.Random(seed)
        self.tables = Tables(sandbox, groups, started=True)
        self.menus: list[SimMessage] = []
        bot = sandbox.world.bot
        keyboard = {"inline_keyboard": [[{"text": "Press", "callback_data": "press"}]]}
        for group in self.tables.groups:
            menu = sandbox.world.post(group, bot, text="Menu", reply_markup=keyboard)
            self.menus.append(menu)
        self.rate = 0.0
        self.mix = dict.fromkeys(self.KINDS, 1.0)
        self._task: asyncio.Task[None] | None = None

    def set_load(self, rate: float, mix: dict[str, float] | None = None) -> None:
        self.rate = rate
        if mix:
            total = sum(mix.get(k, 0.0) for k in self.KINDS) or 1.0
            self.mix = {k: mix.get(k, 0.0) / total for k in self.KINDS}

    def start(self) -> None:
        self._task = asyncio.get_running_loop().create_task(self._run())

    async def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task

    async def _run(self) -> None:
        owed = 0.0
        last = time.perf_counter()
        while True:
            await asyncio.sleep(0.005)
            now = time.perf_counter()
            owed += self.rate * (now - last)
            last = now
            kinds, weights = list(self.mix), list(self.mix.values())
            while owed >= 1:
                owed -= 1
                await self._one(self.rng.choices(kinds, weights)[0])

    async def _one(self, kind: str) -> None:
        index = self.rng.randrange(len(self.tables.groups))
        person = self.rng.choice(self.tables.players[index])
        if kind == "callback_query":
            await person.press(self.menus[index], 0)
        elif kind == "message:private":
            await person.send(person.private, self.rng.choice(SPEECHES))
        else:
            await person.send(self.tables.groups[index], self.rng.choice(SPEECHES))
