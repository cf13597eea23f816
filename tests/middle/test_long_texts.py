"""Long and odd input (issue 10, part 6): nothing the bot sends is refused as too long.

Telegram refuses a message over 4096 UTF-16 units as shown; the sandbox counts the same
way and refuses the same. Standings and tour splits of 200 players with 32-character
nicks, a sheet with a long history, and relays of emoji must all arrive, whole.
"""

from __future__ import annotations

import re

import pytest

from bot.cli.demo import Table
from bot.rules.events import Phase
from sandbox import SimUser
from tests.middle.games import open_game
from tests.steps import play_tour, register_all

LIMIT = 4096


def units(text: str) -> int:
    return len(text.encode("utf-16-le")) // 2


def nick(i: int) -> str:
    """32 characters, as long as a nick may be: markup to escape, and emoji (two units)."""
    return f"<b>{i:03d}</b>&" + "🎭" * 21


def answers(person: SimUser, since: int) -> str:
    """What the bot sent the person after their `since`-th message, checked for length."""
    sent = [m for m in person.inbox()[since:] if m.from_bot]
    assert sent, "no answer"
    for message in sent:
        assert units(message.content) <= LIMIT
    return "\n".join(m.content for m in sent)


async def command(table: Table, person: SimUser, text: str) -> str:
    since = len(person.inbox())
    await person.send(person.private, text)
    await table.settle(within=120)
    return answers(person, since)


@pytest.mark.heavy(25)
@pytest.mark.rule("T1")
@pytest.mark.rule("T4")
async def test_200_players_with_long_nicks_get_every_list_whole() -> None:
    async with open_game(12, seed=2, lang="en") as table:
        judge = table.host
        players = [table.sandbox.add_user(nick(i), language_code="en") for i in range(200)]
        await register_all(table, players)
        nicks = [nick(i) for i in range(200)]

        standings = await command(table, judge, "/standings")
        assert all(n in standings for n in nicks)
        assert units(standings) > 2 * LIMIT  # it did need several messages

        proposal = await command(table, judge, "/groups")
        assert all(n in proposal for n in nicks)

        confirmed = await command(table, judge, "/groups confirm")
        codes = re.findall(r"T\d+R\d+G\d+", confirmed)
        assert len(codes) >= 13 and all(n in confirmed for n in nicks)

        # A player's own standings, their line marked, arrive whole too.
        mine = await command(table, players[150], "/standings")
        assert all(n in mine for n in nicks) and "👉" in mine

        # Nobody plays here: the tour is called off, or /finish would wait for its tables.
        assert "cancelled" in await command(table, judge, "/groups cancel")
        # No tie-break: the 200 equal totals stay shared for the Judge to settle (T5).
        assert "Changed" in await command(table, judge, "/settings tie_break none")
        since = {p.id: len(p.inbox()) for p in players}
        tied = await command(table, judge, "/finish")
        assert "are shared" in tied and all(n in tied for n in nicks)  # 200 share 1st place
        final = await command(table, judge, "/finish confirm")
        assert "Top three" in final and all(n in final for n in nicks)
        for person in (players[0], players[-1]):
            got = answers(person, since[person.id])
            assert "Top three" in got and all(n in got for n in nicks)
        table.sandbox.assert_no_bot_errors()


@pytest.mark.rule("T3")
async def test_a_sheet_with_a_long_history_arrives_whole() -> None:
    async with open_game(12, seed=5, lang="en") as table:
        judge = table.host
        players = [table.sandbox.add_user(nick(i), language_code="en") for i in range(12)]
        await register_all(table, players)
        [game_id] = await play_tour(table, players, seed=5)
        # A reason is at most 200 characters (handlers.args.REASON): 24 of them, ~290 UTF-16
        # units each, make a history of ~7,000 units.
        reasons = [f"{i:02}: " + "🧾 " * 97 for i in range(24)]
        for index, reason in enumerate(reasons):
            seat, point = index % 12 + 1, 0 if index < 12 else 1
            fixed = await command(table, judge, f"/fix {game_id} seat {seat} {point} {reason}")
            assert " ".join(reason.split()) in " ".join(fixed.split())
        sheet = await command(table, judge, f"/sheet {game_id}")
        flat = " ".join(sheet.split())
        for reason in reasons:
            assert " ".join(reason.split()) in flat
        assert all(nick(i) in sheet for i in range(12))
        table.sandbox.assert_no_bot_errors()


@pytest.mark.rule("N1")
async def test_emoji_relays_folded_together_all_arrive(table: Table) -> None:
    """Three relays of 1,700 emoji, written faster than the partner's chat takes them."""
    state = await table.wait_for(lambda s: s.phase is Phase.ACQUAINTANCE)
    first, second, *_ = state.living_mafia()
    writer, partner = table.person(first), table.person(second)
    since = len(partner.inbox())
    marks = ("🍎", "🍐", "🍋")
    for mark in marks:
        await writer.send(writer.private, mark * 1700)
    await table.settle()
    got = answers(partner, since)
    for mark in marks:
        assert got.count(mark) == 1700
    table.sandbox.assert_no_bot_errors()
