"""The tour lifecycle through the sandbox: one confirm per tour, cancel and redraw, the
Judge's /tour, a table with a no-show, and a /finish that closes the tournament."""

from __future__ import annotations

import random

import pytest

from bot.demo import Crowd, Table, open_table, play
from bot.sandbox import SimGroup
from tests.e2e.test_tournament import bound_chat, register_all, say


async def judge_says(table: Table, text: str) -> str:
    return await say(table, table.host, table.host.private, text)


async def open_lobby(table: Table, code: str, present: int | None = None) -> SimGroup:
    """Bind a chat to `code`, its players in; /newgame and `present` of them mark in."""
    chat, seated = await bound_chat(table, code)
    await table.host.send(chat, "/newgame")
    await table.settle()
    lobby = chat.visible_messages()[-1]
    for person in seated[: len(seated) if present is None else present]:
        await person.press(lobby, "I'm here")
        await table.settle()
    return chat


async def play_table(table: Table, chat: SimGroup, seed: int, sign: bool = True) -> int:
    """/begin in the chat's lobby and play the game to its end; the Host signs it."""
    game = await table.app.service.active_game(chat.id)
    assert game is not None
    table.group, table.game_id = chat, game.game_id
    await table.host.send(chat, "/begin")
    await table.settle()
    state = await play(table, Crowd(table, random.Random(seed), "en"))
    assert state.winner is not None
    if sign:
        await table.host.press(chat.visible_messages()[-1], "Sign the sheet")
        await table.settle()
    return game.game_id


@pytest.mark.rule("T1")
async def test_T1_a_thirteen_player_table_begins_with_twelve_present() -> None:
    async with open_table(13, seed=25, lang="en") as table:
        await register_all(table, table.people)
        await judge_says(table, "/groups confirm")
        chat = await open_lobby(table, "T1R1G1", present=12)
        [group] = await table.app.service.repos.tours.groups(1, 1)
        game_id = await play_table(table, chat, seed=25)
        state = await table.app.service.state(game_id)
        assert state is not None and len(state.seats) == 12
        seated = {s.user_id for s in state.seats.values()}
        [missing] = [u for u in group.players if u not in seated]
        nick = (await table.app.dispatcher["tournaments"].nicks(1))[missing]
        await table.host.send(table.host.private, f"/sheet {game_id}")
        await table.settle()
        [text, page] = table.host.private.messages()[-2:]
        assert f"Absent: {nick}" in text.content, text.content
        assert page.file is not None and f"Absent: {nick}".encode() in page.file.data
        table.sandbox.assert_no_bot_errors()
