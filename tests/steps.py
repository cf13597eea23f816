"""What the people at a table do in the tests, whatever carries their updates (HTTP in
tests/e2e, in process in tests/middle): say something and read the answer, register for a
tournament, play a tour, forge a button press, make the database fail a commit, sit with
nicks made of markup; and a fixture that fails a test on any record at ERROR.
"""

from __future__ import annotations

import contextlib
import csv
import io
import logging
import random
import re
import sqlite3
from collections import Counter, defaultdict
from collections.abc import AsyncIterator, Callable, Iterator, Sequence

import pytest

from bot.cli.demo import RIGHTS, Crowd, Table, open_table, play
from bot.rules.roles import Role
from bot.rules.sheet import sheet
from bot.services.game import actions as service
from bot.tournament.scoring import format_tenths
from sandbox import CallbackPress, Chat, SimGroup, SimMessage, SimUser
from storage import protocol
from storage.db import Work
from storage.protocol import NewEvent, StoredEvent

REGISTRATION = re.compile(r"https://t\.me/\S+\?start=reg_[\w-]+")


INVITE = re.compile(r"https://t\.me/\+[\w-]+")


def told(code: str) -> str:
    """How a player's own message names table `code`: its tour and its number, never the
    Judge's code (issue 22 §4)."""
    match = re.fullmatch(r"T\d+R(\d+)G(\d+)", code)
    assert match is not None, code
    return f"Tour {match[1]}, table {match[2]}:"


async def say(table: Table, who: SimUser, chat: Chat, text: str) -> str:
    """Send a command and return the bot's last answer in that chat."""
    await who.send(chat, text)
    await table.settle()
    messages = chat.messages()
    return str(messages[-1].content)


async def warn(table: Table, host: SimUser, chat: SimGroup, text: str) -> SimMessage:
    """The Host's /warn in `chat`: the proposal it made, with Confirm and Cancel. It goes to
    the Host's private chat when the bot can write there, else to `chat` (issue 22 §1)."""
    await host.send(chat, text)
    await table.settle()
    found = (table.latest(c.messages(), "s:") for c in (chat, host.private))
    proposal = max((m for m in found if m is not None), key=lambda m: m.seq, default=None)
    assert proposal is not None, "no sanction was proposed"
    return proposal


async def register_all(table: Table, players: list[SimUser], name: str = "Autumn Cup") -> str:
    """The Judge (the table's Host) creates a tournament; `players` register. The link."""
    judge = table.host
    await judge.start_bot()
    await table.settle()
    created = await say(table, judge, judge.private, f"/tournament {name}")
    link = REGISTRATION.search(created)
    assert link is not None, created
    for person in players:
        await person.open_link(link.group(0))
        await table.settle()
        assert "You are registered in" in person.inbox()[-1].content
    return link.group(0)


async def play_tour(table: Table, players: list[SimUser], seed: int) -> list[int]:
    """The Judge confirms the split, binds a chat per group; each table plays and signs."""
    judge = table.host
    await say(table, judge, judge.private, "/groups")
    confirmed = await say(table, judge, judge.private, "/groups confirm")
    codes = re.findall(r"T\d+R\d+G\d+", confirmed)
    assert codes, confirmed
    games: list[int] = []
    for code in codes:
        chat: SimGroup = table.sandbox.add_supergroup(f"Table {code}", owner=judge)
        chat.promote_bot(by=judge, **RIGHTS)
        done = await say(table, judge, chat, f"/bind {code}")
        assert f"table {code}" in done
        seated = [p for p in players if any(told(code) in m.content for m in p.inbox())]
        for person in seated:
            invite = next(m for m in reversed(person.inbox()) if told(code) in m.content)
            url = INVITE.search(invite.content)
            assert url is not None
            await person.join_by_link(url.group(0))
        await table.settle()
        await judge.send(chat, "/newgame")
        await table.settle()
        lobby = chat.visible_messages()[-1]
        for person in seated:
            await person.press(lobby, "I'm here")
            await table.settle()
        game = await table.app.service.active_game(chat.id)
        assert game is not None
        table.group, table.game_id = chat, game.game_id
        await judge.send(chat, "/begin")
        await table.settle()
        state = await play(table, Crowd(table, random.Random(seed + len(games)), "en"))
        assert state.winner is not None and len(state.seats) == len(seated)
        await judge.press(chat.visible_messages()[-1], "Sign the sheet")
        await table.settle()
        games.append(game.game_id)
    return games


async def expected_standings(table: Table, games: list[int]) -> Counter[int]:
    """T4 computed here from the games' own states, apart from the tournament code."""
    totals: Counter[int] = Counter()
    for game_id in games:
        state = await table.app.service.state(game_id)
        assert state is not None
        point = 12 if len(state.seats) > 14 else 10
        for row in sheet(state):
            totals[row.user_id] += point if row.earns_point else 0
    return totals


def stats_line(what: str, games: int, wins: int, tenths: int) -> str:
    return f"{what}: games {games}, wins {wins}, points {format_tenths(tenths)}"


async def check_stats(table: Table, players: list[SimUser], games: list[int]) -> None:
    """Issue 12: /stats, the Judge's /stats NICK and the export, against the games' states."""
    expected: defaultdict[tuple[int, str], list[int]] = defaultdict(lambda: [0, 0, 0])
    for game_id in games:
        state = await table.app.service.state(game_id)
        assert state is not None
        point = 12 if len(state.seats) > 14 else 10
        for row in sheet(state):
            for what in ("All roles", table.texts("en", f"role.{row.role}")):
                tally = expected[row.user_id, what]
                tally[0] += 1
                tally[1] += int(row.won)
                tally[2] += point if row.earns_point else 0
    labels = ["All roles", *(table.texts("en", f"role.{role}") for role in Role)]
    nicks = await table.app.dispatcher["tournaments"].nicks(1)
    for person in players[:3]:
        own = await say(table, person, person.private, "/stats")
        assert "Tournament “Autumn Cup”" in own and "Overall" in own
        for what in labels:
            # Once for the tournament, once overall: no casual game was played.
            assert own.count(stats_line(what, *expected[person.id, what])) == 2, own
    # The Judge looks up a player by nick; a player cannot look up another.
    someone, other = players[5], players[6]
    seen = await say(table, table.host, table.host.private, f'/stats "{nicks[someone.id]}"')
    assert all(stats_line(w, *expected[someone.id, w]) in seen for w in labels), seen
    refused = await say(table, other, other.private, f'/stats "{nicks[someone.id]}"')
    assert "games" not in refused
    await table.host.send(table.host.private, "/export")
    await table.settle()
    files = {m.file.filename: m.file.data for m in table.host.inbox() if m.file}
    rows = list(csv.DictReader(io.StringIO(files["stats.csv"].decode())))
    assert len(rows) == len(players)
    for line in rows:
        user = int(line["user_id"])
        assert [int(line["games"]), int(line["wins"])] == expected[user, "All roles"][:2]
        assert line["points"] == format_tenths(expected[user, "All roles"][2])
        mafia = expected[user, table.texts("en", "role.mafia")]
        assert [int(line["mafia_games"]), int(line["mafia_wins"])] == mafia[:2]


async def bound_chat(table: Table, code: str, title: str = "") -> tuple[SimGroup, list[SimUser]]:
    """A new chat bound to `code` by the Judge, its players in by their invitations."""
    judge = table.host
    chat = table.sandbox.add_supergroup(title or f"Table {code}", owner=judge)
    chat.promote_bot(by=judge, **RIGHTS)
    await say(table, judge, chat, f"/bind {code}")
    seated = [p for p in table.people if any(told(code) in m.content for m in p.inbox())]
    for person in seated:
        invite = next(m for m in reversed(person.inbox()) if told(code) in m.content)
        url = INVITE.search(invite.content)
        assert url is not None
        await person.join_by_link(url.group(0))
    return chat, seated


async def start_table(table: Table, code: str) -> SimGroup:
    """Bind a new chat to `code`, bring its players in, open the lobby, all present, begin."""
    judge = table.host
    chat, seated = await bound_chat(table, code)
    await judge.send(chat, "/newgame")
    await table.settle()
    lobby = chat.visible_messages()[-1]
    for person in seated:
        await person.press(lobby, "I'm here")
        await table.settle()
    await judge.send(chat, "/begin")
    await table.settle()
    return chat


def forge(table: Table, person: SimUser, message: SimMessage, data: str) -> CallbackPress:
    """A callback query with any data: Telegram would refuse it, the bot must not trust it."""
    world = table.sandbox.world
    press = CallbackPress(world.new_query_id(), person, message, data)
    world.queries[press.id] = press
    payload = {
        "id": press.id,
        "from": person.to_api(),
        "message": message.to_api(),
        "chat_instance": world.chat_instance(message.chat),
        "data": data,
    }
    world.updates.push("callback_query", payload)
    return press


async def tournament_table(table: Table) -> SimGroup:
    await register_all(table, table.people)
    await say(table, table.host, table.host.private, "/groups confirm")
    return await start_table(table, "T1R1G1")


async def warn_and_confirm(table: Table, chat: SimGroup, offender: SimUser) -> str:
    """The Host gives the offender a V4 and confirms it; returns the proposal's text."""
    game = await table.app.service.active_game(chat.id)
    assert game is not None
    state = await table.app.service.state(game.game_id)
    assert state is not None
    seat = state.seat_of(offender.id)
    assert seat is not None  # the offender plays at this table
    proposal = await warn(table, table.host, chat, f"/warn {seat} V4")
    await table.host.press(proposal, "Confirm")
    await table.settle()
    after = await table.app.service.state(game.game_id)
    assert after is not None and not after.is_alive(seat)  # out of the game at once
    return proposal.content


NOT_RECORDED = "⚠️ Not recorded: I could not save that just now. Please try again."


def failing_appends(monkeypatch: pytest.MonkeyPatch, times: int) -> Callable[[], int]:
    """The protocol's append, in an action's commit, raises SQLite's "database is
    locked" `times` times."""
    real = protocol.appending  # the one the game service imports
    failed = 0

    def appending(game_id: int, events: Sequence[NewEvent]) -> Work[list[StoredEvent]]:
        append = real(game_id, events)

        def failing(connection: sqlite3.Connection) -> list[StoredEvent]:
            nonlocal failed
            if failed < times:
                failed += 1
                raise sqlite3.OperationalError("database is locked")
            return append(connection)

        return failing

    monkeypatch.setattr(service, "appending", appending)
    return lambda: failed


HOSTILE_NICKS = ("<b>x</b>", "&amp;", "\u202eevil", "</a><i>")


@contextlib.asynccontextmanager
async def hostile_table(seed: int, *, in_process: bool = False) -> AsyncIterator[Table]:
    """Twelve players, four of them named in markup, an entity and a right-to-left mark."""
    async with open_table(8, seed=seed, lang="en", in_process=in_process) as table:
        for i, nick in enumerate(HOSTILE_NICKS):
            person = table.sandbox.add_user(nick, username=f"odd{i}", language_code="en")
            table.group.add_member(person)
            table.people.append(person)
        yield table


@pytest.fixture(autouse=True)
def no_handler_errors(caplog: pytest.LogCaptureFixture) -> Iterator[None]:
    """A handler that raised is logged by aiogram at ERROR: any such record fails the test."""
    caplog.set_level(logging.WARNING)
    yield
    errors = [r for r in caplog.records if r.levelno >= logging.ERROR]
    assert not errors, "\n".join(r.getMessage() for r in errors)


@contextlib.asynccontextmanager
async def begun_table(*, host_started: bool, in_process: bool) -> AsyncIterator[Table]:
    """Twelve players in the lobby and the game begun, in English; no bad request allowed.
    `host_started`: the Host has pressed Start, so the bot can write to them (the Host's
    panel, what happens out of turn at night)."""
    async with open_table(12, seed=5, lang="en", in_process=in_process) as table:
        if host_started:
            await table.host.start_bot()
        await table.gather()
        await table.begin()
        yield table
        table.sandbox.assert_no_bot_errors()
