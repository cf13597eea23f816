"""The Judge's desk (issue 12): the protocol sheet as people get it, and readable screens."""

from __future__ import annotations

import random

import pytest

from bot.demo import Crowd, open_table, play
from tests.e2e.test_tournament import play_tour, register_all, say


@pytest.mark.rule("T3")
async def test_T3_the_sheet_goes_to_its_host_players_and_judge_and_to_no_one_else() -> None:
    async with open_table(12, seed=5, lang="en", rate_limits=True) as table:
        judge = table.host
        await register_all(table, table.people)
        [game_id] = await play_tour(table, table.people, seed=5)
        # The Judge's copy of the signed sheet: the message and its printable page.
        copy = next(m for m in judge.inbox() if "Sheet of game" in m.content)
        assert "Tournament Autumn Cup, tour 1, table T1R1G1" in copy.content
        assert "Host: " in copy.content and "signed at" in copy.content
        page = next(m.file for m in judge.inbox() if m.file)
        assert page.filename == f"sheet-{game_id}.html"
        assert b"<!DOCTYPE html>" in page.data and b"Autumn Cup" in page.data

        player, stranger = table.people[3], table.sandbox.add_user("Stranger", language_code="en")
        await stranger.start_bot()
        for person in (judge, player):
            before = len(person.inbox())
            await person.send(person.private, f"/sheet {game_id}")
            await table.settle()
            got = person.inbox()[before:]
            assert any(f"Sheet of game #{game_id}" in m.content for m in got)
            assert any(m.file and m.file.filename == f"sheet-{game_id}.html" for m in got)
        # A stranger who names the number, or one that does not exist, reads the same.
        refusals = set()
        for number in (game_id, 999):
            before = len(stranger.inbox())
            await stranger.send(stranger.private, f"/sheet {number}")
            await table.settle()
            [answer] = stranger.inbox()[before:]
            assert answer.file is None and "Sheet of game" not in answer.content
            refusals.add(answer.content.replace(str(number), "N"))
        assert len(refusals) == 1 and "Judge" in refusals.pop()
        table.sandbox.assert_no_bot_errors()


@pytest.mark.rule("T3")
@pytest.mark.rule("V1")
async def test_T3_a_casual_games_sheet_for_its_host_says_it_is_casual() -> None:
    async with open_table(12, seed=6, lang="en", rate_limits=True) as table:
        await table.gather()
        await table.begin()
        await say(table, table.host, table.group, "/warn 3 V1")
        await table.host.press(table.group.messages()[-1], "Confirm")
        await table.settle()
        state = await play(table, Crowd(table, random.Random(6), "en"))
        # The group's result: a disqualified player does not read as a plain line (T3).
        result = next(m.content for m in table.group.messages() if "wins!" in m.content)
        nick = state.seats[3].nick
        role = table.texts("en", f"role.{state.roles[3].value}")
        assert f"3 · {nick}: {role} · disqualification" in result
        host = table.host
        await host.start_bot()
        await table.settle()
        await say(table, host, host.private, f"/sheet {table.game_id}")
        assert host.inbox()[-1].file is not None
        text = next(m.content for m in host.inbox() if "Sheet of game" in m.content)
        assert "A casual game: no tournament, tour or points" in text
        assert "Not signed by the Host yet." in text and "points " not in text
        table.sandbox.assert_no_bot_errors()
