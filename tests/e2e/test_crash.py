"""The bot is killed (SIGKILL) again and again during a game, and started again.

The bot runs as its own process (`python -m bot run`) against the sandbox, on the
wall clock with timers scaled down. The test plays the people and kills the bot at
points spread over every phase: during the deal, mid-speech, mid-vote with half the
votes in, mid-night with one action in. Every game must still finish; every action
the bot acknowledged must be in the protocol exactly once; nothing may be in the
protocol that nobody did; SQLite's integrity check must pass.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import random
import signal
import sqlite3
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from bot.rules.settings import GameSettings
from sandbox import CallbackPress, Sandbox, SimMessage, SimUser

SCALE = 0.02  # one second of game time is 20 ms
PLAYERS = 8
KILLS = 20
ROOT = Path(__file__).resolve().parents[2]
# Imports the bot once, then on each "go" forks a fresh process that runs it (`python
# -m bot ... run`, its output to the log) and answers with its pid; "reap PID" waits for
# that process to be gone. Importing aiogram takes seconds of CPU: twenty restarts then
# cost twenty start-ups, not twenty imports (and a kill never waits for one). Each bot
# is a process of its own, killed with SIGKILL as before, its memory lost with it.
FORK_SERVER = """
import os, sys
import bot.app, bot.__main__
args, log = sys.argv[1:-1], sys.argv[-1]
for line in sys.stdin:
    command, _, pid = line.strip().partition(" ")
    if command == "go":
        child = os.fork()
        if child == 0:
            quiet = os.open(os.devnull, os.O_RDONLY)
            out = os.open(log, os.O_WRONLY | os.O_APPEND | os.O_CREAT)
            os.dup2(quiet, 0)
            os.dup2(out, 1)
            os.dup2(out, 2)
            code = 1
            try:
                code = bot.__main__.main(args)
            finally:
                sys.stdout.flush()
                sys.stderr.flush()
                os._exit(code)
        print(child, flush=True)
    elif command == "reap":
        os.waitpid(int(pid), 0)
        print("gone", flush=True)
"""


TIMERS = {
    "introduction_seconds": 30,
    "round1_seconds": 60,
    "round2_seconds": 30,
    "defence_seconds": 60,
    "vote_seconds": 60,
    "last_word_seconds": 40,
    "acquaintance_seconds": 60,
    "night_seconds": 90,
    "warning_seconds": 10,
}


def config_text(sandbox: Sandbox, database: Path, timers: dict[str, float] | None = None) -> str:
    """The bot's config; `timers` in the game's seconds as the bot reads them (by default
    the club's, scaled down by SCALE)."""
    if timers is None:
        timers = {k: v * SCALE for k, v in TIMERS.items()}
    game = "\n".join(f"{k} = {v}" for k, v in timers.items())
    return (
        f'[bot]\ntoken = "{sandbox.token}"\napi_server = "{sandbox.base_url}"\n'
        f'database = "{database}"\nlanguage = "en"\nflood_window_scale = {SCALE}\n'
        f"[casual]\nmin_players = 6\n[game]\n{game}\n"
    )


@dataclass
class Press:
    kind: str  # the protocol event it should produce
    game: int
    seat: int
    step: int
    acknowledged: bool = False


@dataclass
class Run:
    sandbox: Sandbox
    config: Path
    database: Path
    log: Path
    server: subprocess.Popen[str] | None = None
    pid: int | None = None  # the bot's process, while it runs
    kills: int = 0
    presses: list[Press] = field(default_factory=list)

    async def start(self, *, polling: bool = True) -> None:
        """A fresh bot process on the same database; by default, wait until it polls."""
        if self.server is None:
            self.server = self._fork_server()
        self.pid = int(await self._ask("go"))
        if polling:
            await self.sandbox.wait_polling(within=30)

    def _fork_server(self) -> subprocess.Popen[str]:
        command = [sys.executable, "-c", FORK_SERVER, "--config", str(self.config), "run"]
        return subprocess.Popen(
            [*command, str(self.log)],
            cwd=ROOT,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
            env={**os.environ, "PYTHONUNBUFFERED": "1"},
        )

    def sigkill(self) -> None:
        """SIGKILL the bot now (safe to call from a sandbox observer); `gone()` follows."""
        if self.pid is not None:
            os.kill(self.pid, signal.SIGKILL)

    async def gone(self) -> None:
        """Wait until the killed bot's process has ended."""
        assert self.pid is not None
        await self._ask(f"reap {self.pid}")
        self.pid = None

    async def kill(self) -> None:
        self.sigkill()
        await self.gone()
        self.kills += 1
        await self.start()

    async def _ask(self, command: str) -> str:
        assert self.server is not None and self.server.stdin and self.server.stdout
        self.server.stdin.write(command + "\n")
        self.server.stdin.flush()
        return await asyncio.to_thread(self.server.stdout.readline)

    def end(self) -> None:
        """The test is over: the bot and the forking process killed, in whatever state."""
        if self.pid is not None:
            with contextlib.suppress(ProcessLookupError):
                os.kill(self.pid, signal.SIGKILL)
        if self.server is not None:
            self.server.kill()
            self.server.wait()
            for pipe in (self.server.stdin, self.server.stdout):
                if pipe is not None:
                    pipe.close()

    def state(self) -> dict[str, Any] | None:
        with contextlib.closing(sqlite3.connect(f"file:{self.database}?mode=ro", uri=True)) as db:
            # The latest game: still None while it is in the lobby.
            row = db.execute(
                "SELECT state_json FROM games ORDER BY game_id DESC LIMIT 1"
            ).fetchone()
        return json.loads(row[0]) if row and row[0] else None

    async def press(
        self,
        kind: str,
        game: int,
        seat: int,
        step: int,
        person: SimUser,
        message: SimMessage,
        button: str | int,
    ) -> None:
        press = Press(kind, game, seat, step)
        self.presses.append(press)
        sent: CallbackPress = await person.press(message, button)
        with contextlib.suppress(TimeoutError):
            answer = await sent.wait_answer(within=1.0)
            press.acknowledged = not answer.show_alert


def latest(messages: list[SimMessage], prefix: str) -> SimMessage | None:
    for message in reversed(messages):
        if any((b.callback_data or "").startswith(prefix) for r in message.buttons() for b in r):
            return message
    return None


async def act(
    run: Run,
    state: dict[str, Any],
    people: dict[int, SimUser],
    group: Any,
    rng: random.Random,
    done: set[tuple[int, int, str]],
) -> None:
    """One move of the people, as a club would make it."""
    seats = {int(k): v for k, v in state["seats"].items()}
    roles = {int(k): v for k, v in state["roles"].items()}
    living = sorted(s for s, v in seats.items() if v["alive"])
    step, phase, speaker = state["step"], state["phase"], state["speaker"]

    def who(seat: int) -> SimUser:
        return people[seats[seat]["user_id"]]

    def label(seat: int) -> str:
        return f"{seat} · {seats[seat]['nick']}"

    game = state["game_id"]
    if speaker is not None and phase in ("round_2",) and (speaker, step, "nom") not in done:
        turn = latest(group.messages(), f"t:{game}:{step}:")  # the message of this very turn
        target = rng.choice([s for s in living if s != speaker])
        if turn is not None:
            done.add((speaker, step, "nom"))
            await run.press("NominationMade", game, speaker, step, who(speaker), turn, str(target))
    elif phase == "vote":
        ballot = latest(group.messages(), f"v:{game}:{step}:")
        voters = [s for s in living if str(s) not in state["votes"] and (s, step, "v") not in done]
        if ballot is not None and voters:
            voter = voters[0]
            done.add((voter, step, "v"))
            choice = rng.choice(state["leaders"])
            await run.press("VoteCast", game, voter, step, who(voter), ballot, label(choice))
    elif phase == "night":
        victim = next((s for s in living if roles[s] != "mafia"), living[0])
        for seat in living:
            if roles[seat] == "civilian" or (seat, step, "n") in done:
                continue
            keyboard = latest(who(seat).inbox(), f"n:{game}:{step}:")
            if keyboard is None:
                continue
            done.add((seat, step, "n"))
            kind = "KillPicked" if roles[seat] == "mafia" else "CheckMade"
            target = victim if kind == "KillPicked" else next(s for s in living if s != seat)
            await run.press(kind, game, seat, step, who(seat), keyboard, label(target))
            return  # one night action at a time, so that a kill can fall between them


# Where the 19 kills after the one during the deal fall: each when its moment comes,
# at least a second of play apart, the specific moments taken first.
KILL_POINTS = ["vote"] * 2 + ["night"] * 2 + ["speech"] * 7 + ["anywhere"] * 8


def due(point: str, state: dict[str, Any] | None) -> bool:
    if state is None:
        return point == "deal"
    phase = state["phase"]
    living = sum(1 for v in state["seats"].values() if v["alive"])
    if point == "speech":
        return phase in ("introduction", "round_1", "round_2", "defence", "last_words")
    if point == "vote":
        return phase == "vote" and len(state["votes"]) * 2 >= living
    if point == "night":
        return phase == "night" and (len(state["kill_picks"]) + (state["check"] is not None)) >= 1
    return True


async def club(
    tmp_path: Path, timers: dict[str, float] | None = None
) -> tuple[Sandbox, SimUser, Any, dict[int, SimUser], Run]:
    """A sandbox with a club's group (the bot an administrator), its Host and players,
    and the bot's process ready to start on a database of its own."""
    sandbox = Sandbox(clock=time.time)
    await sandbox.start()
    host = sandbox.add_user("Host", language_code="en")
    group = sandbox.add_supergroup("Club", owner=host)
    group.promote_bot(
        by=host,
        can_delete_messages=True,
        can_restrict_members=True,
        can_pin_messages=True,
        can_invite_users=True,
    )
    people = {}
    for i in range(PLAYERS):
        person = sandbox.add_user(f"P{i + 1}", language_code="en")
        group.add_member(person)
        people[person.id] = person
    database = tmp_path / "mafia.sqlite3"
    config = tmp_path / "config.toml"
    config.write_text(config_text(sandbox, database, timers))
    return sandbox, host, group, people, Run(sandbox, config, database, tmp_path / "bot.log")


@pytest.mark.heavy(60)
async def test_killed_twenty_times_the_game_still_finishes_and_keeps_its_word(
    tmp_path: Path,
) -> None:
    sandbox, host, group, people, run = await club(tmp_path)
    rng = random.Random(7)
    try:
        await run.start()
        games = 0
        points = list(KILL_POINTS)
        async with asyncio.timeout(300):
            # A short game may end before every kill point came; the club plays another.
            while points or games == 0:
                state = await play_one_game(run, host, group, people, rng, points)
                games += 1
                assert state["winner"] in ("peaceful", "mafia")
        assert run.kills >= KILLS
        await check_protocol(run)
        sandbox.assert_no_bot_errors(allow=("message to edit not found",))
    finally:
        run.end()
        await sandbox.stop()


def _joins(message: SimMessage) -> bool:
    """The lobby post: its first button is the link that joins (not the request that a
    Host who never pressed Start press it, which also carries a link)."""
    rows = message.buttons()
    return bool(rows) and "start=join_" in (rows[0][0].url or "")


async def open_lobby(host: SimUser, group: Any, people: dict[int, SimUser]) -> None:
    """/newgame, and everybody joins. Each step waits for the bot's answer, not for a
    quiet moment: on a loaded machine the bot may be slower than any quiet period, and a
    kill right after /begin would lose the joins it had not handled yet."""
    asked = await host.send(group, "/newgame")

    def posted() -> SimMessage | None:
        # The lobby: its Join button is a link. The last game's sheet, with its button
        # to sign, may still be on its way into the group's window meanwhile.
        later = [m for m in group.visible_messages() if m.message_id > asked.message_id]
        return next((m for m in later if m.from_bot and _joins(m)), None)

    lobby = await until(posted)
    joined = {p.id: sum("You joined" in m.content for m in p.inbox()) for p in people.values()}
    for person in people.values():
        await person.follow(lobby, 0)

    def all_in() -> bool:
        return all(
            sum("You joined" in m.content for m in p.inbox()) > joined[p.id]
            for p in people.values()
        )

    await until(all_in)


async def play_one_game(
    run: Run,
    host: SimUser,
    group: Any,
    people: dict[int, SimUser],
    rng: random.Random,
    points: list[str],
) -> dict[str, Any]:
    await open_lobby(host, group, people)
    await host.send(group, "/begin")
    await asyncio.sleep(0.01)
    await run.kill()  # during the deal
    begun = time.monotonic()
    done: set[tuple[int, int, str]] = set()
    last_kill = time.monotonic()
    while True:
        state = run.state()
        if state is None and time.monotonic() - begun > 2.0:
            # The bot took /begin from Telegram and died before dealing: Telegram does not
            # send an update twice once it was fetched, so the Host says it again.
            await host.send(group, "/begin")
            begun = time.monotonic()
        if state is not None and state["phase"] in ("over", "aborted"):
            return state
        point = next((p for p in points if due(p, state)), None)
        if point is not None and time.monotonic() - last_kill > 0.3:
            await asyncio.sleep(rng.uniform(0, 0.05))
            await run.kill()
            points.remove(point)
            last_kill = time.monotonic()
            continue
        if state is not None:
            await act(run, state, people, group, rng, done)
        await asyncio.sleep(0.01)


async def check_protocol(run: Run) -> None:
    with contextlib.closing(sqlite3.connect(run.database)) as db:
        assert db.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        rows = db.execute("SELECT game_id, seq, payload_json FROM events ORDER BY game_id, seq")
        protocol = rows.fetchall()
    actions: list[tuple[str, int, int, int]] = []
    step, game, seq = 0, 0, 0
    for game_id, number, payload in protocol:
        if game_id != game:
            game, seq = game_id, 0
        seq += 1
        assert number == seq, f"game {game}: the protocol has a gap at {seq}"
        event = json.loads(payload)
        step = event.get("step", step)
        match event["type"]:
            case "NominationMade" | "CheckMade" | "KillPicked":
                actions.append((event["type"], game, event["by"], step))
            case "VoteCast":
                actions.append(("VoteCast", game, event["voter"], step))
    pressed = {(p.kind, p.game, p.seat, p.step) for p in run.presses}
    for action in actions:
        assert action in pressed, f"{action} is in the protocol, but nobody did it"
        assert actions.count(action) == 1, f"{action} was applied twice"
    for press in run.presses:
        if press.acknowledged:
            assert (press.kind, press.game, press.seat, press.step) in actions, f"{press} lost"


async def until(done: Any, within: float = 30.0) -> Any:
    """Wait for the bot (another process) to bring `done()` about; return what it gave."""
    for _ in range(int(within / 0.02)):
        if result := done():
            return result
        await asyncio.sleep(0.02)
    raise TimeoutError("the bot never got there")


async def test_killed_between_cards_the_deal_is_delivered_once_and_the_turn_called(
    tmp_path: Path,
) -> None:
    """Issue 10 (S3, D10, T2): SIGKILLed while dealing, twice. Each card goes out once,
    but for the one in flight at each kill; the seating with its commitment is posted;
    the first turn, which nobody heard of, is announced with its full time."""
    sandbox, host, group, people, run = await club(tmp_path)
    kill_at = [3, 2]  # the 3rd card; after the restart, the 2nd card sent again
    cards = 0
    killed = asyncio.Event()

    def watch(record: Any) -> None:
        nonlocal cards
        card = "Your seat" in str(record.params.get("text", ""))
        if record.method != "sendMessage" or record.status != 200 or not card or not kill_at:
            return
        cards += 1
        if cards == kill_at[0] and run.pid is not None:
            # Telegram has the card; the bot dies before it hears back.
            run.sigkill()
            kill_at.pop(0)
            cards = 0
            killed.set()

    sandbox.observers.append(watch)
    try:
        await run.start()
        await open_lobby(host, group, people)
        await host.send(group, "/begin")
        for restart in range(2):
            for _ in range(10):
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(killed.wait(), 3)
                    break
                if run.state() is None:  # no deal yet: the Host says /begin again
                    await host.send(group, "/begin")
            assert killed.is_set()
            killed.clear()
            await run.gone()
            # The second kill falls while the bot sends the cards again at start-up,
            # before it polls for updates: start it without waiting for that.
            await run.start(polling=restart > 0)
        state = await until(lambda: (s := run.state()) is not None and s["step"] >= 1 and s)
        game = state["game_id"]
        await until(lambda: latest(group.messages(), f"t:{game}:1:") is not None)
        await sandbox.settle(within=10)
        received = sorted(
            sum("Your seat" in m.content for m in person.inbox()) for person in people.values()
        )
        assert received[0] == 1 and sum(received) <= PLAYERS + 2, received  # no batch re-sent
        assert received.count(2) <= 2 and max(received) <= 2, received
        seatings = [m for m in group.messages() if "seating" in m.content]
        assert len(seatings) == 1
        with contextlib.closing(sqlite3.connect(run.database)) as db:
            (commitment,) = db.execute(
                "SELECT json_extract(state_json, '$.commitment') FROM games WHERE game_id = ?",
                (game,),
            ).fetchone()
            rows = db.execute(
                "SELECT at, payload_json FROM events WHERE game_id = ? ORDER BY seq", (game,)
            ).fetchall()
        assert commitment in seatings[0].content
        restarts = [json.loads(p) for _, p in rows if '"ClockRestarted"' in p]
        # Once after each kill: the turn was never called before. Once more if the turn's
        # post went out later than the settings allow after the second (D10: its clock waits for the
        # table to see it), which a busy machine's start-up on the wall clock can make.
        assert len(restarts) in (2, 3), restarts
        if len(restarts) == 3:
            assert restarts[2]["at"] - restarts[1]["at"] > GameSettings().late_announcement_seconds
        # Posted with the turn's buttons (which may be off again by now: on the wall
        # clock at 2 % a turn is over in a fraction of a second).
        first_turn = [
            str(call.params["text"])
            for call in sandbox.calls("sendMessage", chat=group.id, ok=True)
            if f"t:{game}:1:" in str(call.params.get("reply_markup", ""))
        ]
        assert len(first_turn) == 1  # called once, with its full time
        last = next(at for at, p in reversed(rows) if '"ClockRestarted"' in p)
        assert restarts[-1]["deadline"] - last == pytest.approx(30 * SCALE)
        assert f"{30 * SCALE:.1f} s" in first_turn[0]
    finally:
        run.end()
        await sandbox.stop()


# Speeches and votes long enough that none ends while the bot is down (a restart takes
# a second or two), so that every message a speaker writes then is in their turn; the
# nights short, since nobody acts in them here.
PATIENT = {
    "introduction_seconds": 25.0,
    "round1_seconds": 25.0,
    "round2_seconds": 25.0,
    "defence_seconds": 25.0,
    "vote_seconds": 25.0,
    "last_word_seconds": 25.0,
    "acquaintance_seconds": 1.0,
    "night_seconds": 1.0,
    "warning_seconds": 5.0,
}
DOWN_TIMES = 8


def button(message: SimMessage, data: str) -> Any:
    return next(b for row in message.buttons() for b in row if b.callback_data == data)


@pytest.mark.heavy(45)
async def test_what_the_table_does_while_the_bot_is_down_is_handled_in_its_order(
    tmp_path: Path,
) -> None:
    """Issue 26 (D10, D3, D6): the bot is SIGKILLed during turns and votes, and the
    people go on: the speaker writes, then nominates, then presses Finish; somebody else
    says something out of turn; voters vote. The restarted bot gets all of it in one
    batch and handles it in the order it was sent: every message a speaker wrote in
    their turn stays, and only what was said out of turn is deleted."""
    sandbox, host, group, people, run = await club(tmp_path, PATIENT)
    rng = random.Random(26)
    in_turn: list[SimMessage] = []
    out_of_turn: list[SimMessage] = []
    downs = {"speech": 0, "nomination": 0, "vote": 0}
    handled: set[int] = set()  # steps the people have acted on
    try:
        await run.start()
        await open_lobby(host, group, people)
        await host.send(group, "/begin")
        async with asyncio.timeout(240):
            while sum(downs.values()) < DOWN_TIMES:
                state = await until(lambda: run.state())
                if state["phase"] in ("over", "aborted"):
                    break
                step, phase, game = state["step"], state["phase"], state["game_id"]
                seats = {int(k): v for k, v in state["seats"].items()}
                living = sorted(s for s, v in seats.items() if v["alive"])

                def who(seat: int, seats: dict[int, Any] = seats) -> SimUser:
                    return people[seats[seat]["user_id"]]

                speaker = state["speaker"]
                turn = latest(group.messages(), f"t:{game}:{step}:")
                ballot = latest(group.messages(), f"v:{game}:{step}:")
                if step in handled or (turn is None and ballot is None):
                    await asyncio.sleep(0.02)
                    continue
                handled.add(step)
                nominating = phase == "round_2" and str(speaker) not in state["nominations"]
                kind = "vote" if ballot is not None else "nomination" if nominating else "speech"
                down = downs[kind] < {"speech": 4, "nomination": 2, "vote": 2}[kind] and (
                    rng.random() < 0.7
                )
                if down:
                    downs[kind] += 1
                    run.sigkill()
                    await run.gone()
                if ballot is not None:
                    for voter in living:
                        choice = rng.choice(state["leaders"])
                        data = f"v:{game}:{step}:{choice}"
                        await who(voter).press_seen(ballot, button(ballot, data))
                elif turn is not None and speaker is not None:
                    in_turn.append(await who(speaker).send(group, f"My speech at step {step}."))
                    others = [s for s in living if s != speaker]
                    if down and others:
                        talker = who(rng.choice(others))
                        out_of_turn.append(await talker.send(group, "Out of turn!"))
                    if nominating:
                        target = rng.choice(others)
                        nominate = button(turn, f"t:{game}:{step}:{target}")
                        await who(speaker).press_seen(turn, nominate)
                        in_turn.append(await who(speaker).send(group, f"I put up {target}."))
                    await who(speaker).press_seen(turn, button(turn, f"t:{game}:{step}:0"))
                if down:
                    await run.start()
                # The step is over once the bot took what was done in it.
                await until(lambda step=step: (s := run.state()) is not None and s["step"] != step)
        assert sum(downs.values()) >= 6, downs  # the turns and votes the bot was down for
        await sandbox.settle(within=10)
        lost = [m.content for m in in_turn if m.deleted]
        assert not lost, lost  # not one message written in its turn was deleted
        assert out_of_turn and all(m.deleted for m in out_of_turn)
    finally:
        run.end()
        await sandbox.stop()
