"""The Judge's desk (issue 12): the protocol sheet as people get it, and readable screens."""

from __future__ import annotations

import random
import re

import pytest

from bot.cli.demo import Crowd, play
from bot.rules.settings import GameSettings
from tests.middle.games import open_game
from tests.steps import play_tour, register_all, say


@pytest.mark.rule("T3")
async def test_T3_the_sheet_goes_to_its_host_players_and_judge_and_to_no_one_else() -> None:
    async with open_game(12, seed=5, lang="en", rate_limits=True) as table:
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
    async with open_game(12, seed=6, lang="en", rate_limits=True) as table:
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


def line_with(text: str, part: str) -> str:
    return next(line for line in text.splitlines() if part in line)


@pytest.mark.rule("T5")
@pytest.mark.rule("T6")
async def test_T5_T6_settings_rules_and_standings_read_in_words() -> None:
    async with open_game(12, seed=5, lang="en", rate_limits=True) as table:
        judge, player = table.host, table.people[2]
        stranger = table.sandbox.add_user("Stranger", language_code="en")
        await stranger.start_bot()
        await register_all(table, table.people)
        await say(table, judge, judge.private, "/lang ru")

        # T6: names in words, values in units, each with the key that changes it.
        shown = await say(table, judge, judge.private, "/settings")
        assert "Круг 1: 60 с на игрока — game.round1_seconds" in shown
        assert "Коэффициент при >14 игроках: 1,2 — bonus_coefficient" in shown
        assert "Таблица видна игрокам до конца турнира: да — standings_visible" in shown
        assert "= " not in shown and "60.0" not in shown
        before = len(player.inbox())
        changed = await say(table, judge, judge.private, "/settings game.round1_seconds 45")
        assert "Круг 1: 60 с на игрока → 45 с на игрока" in changed
        [told] = player.inbox()[before:]
        assert "Round 1: 60 s per player → 45 s per player" in told.content
        assert "game." not in told.content and "round1_seconds" not in told.content
        await say(table, judge, judge.private, "/settings game.kill_rule majority")
        # T5: no tie-break order, so that shared places stay shared and 7.1 applies below.
        await say(table, judge, judge.private, "/settings tie_break none")

        # /rules: the player's tournament's scheme; someone with none, the defaults.
        rules = await say(table, player, player.private, "/rules")
        assert "The scheme of the tournament Autumn Cup." in rules
        assert "(45 s, then 30 s each)" in rules
        assert "the mafia kill when more than half of the mafiosi named" in rules
        rules = await say(table, stranger, stranger.private, "/rules")
        assert "The default settings" in rules and "(60 s, then 30 s each)" in rules
        assert "when every mafioso named the same player" in rules

        # T5: a player's own standings during the tournament, their line marked; a shared
        # place is one line.
        await play_tour(table, table.people, seed=5)
        mine = await say(table, player, player.private, "/standings")
        marked = line_with(mine, "👉")
        assert player.first_name in marked
        shared = re.search(r"^1–(\d+)\. ([^—]+) — 1\.0$", mine, re.M | re.S)
        assert shared is not None  # "1–9. Anna, Boris, … — 1.0": all who share 1st place
        assert shared.group(2).count(",") == int(shared.group(1)) - 1
        judges = await say(table, judge, judge.private, "/standings")
        assert re.search(r"^1–\d+\. [^—]+ — 1,0$", judges, re.M)  # Russian: a decimal comma

        # The Judge hides the standings until the end (locked since the tour: override).
        await say(table, judge, judge.private, "/settings standings_visible 0 override")
        hidden = await say(table, player, player.private, "/standings")
        assert "shows the standings at the end of the tournament" in hidden and "1–" not in hidden

        # 7.1: the top three share a place, so /finish waits for the Judge.
        before = len(player.inbox())
        tied = await say(table, judge, judge.private, "/finish")
        assert "Эти места в первой тройке поделены" in tied and "/adjust" in tied
        assert len(player.inbox()) == before  # nobody was told anything
        final = await say(table, judge, judge.private, "/finish confirm")
        assert "Первые три места: 1–" in final
        assert "Top three: 1–" in player.inbox()[-1].content
        after = await say(table, player, player.private, "/standings")
        assert "👉" in after  # at the end everyone sees the table
        table.sandbox.assert_no_bot_errors()


@pytest.mark.rule("D3")
async def test_rules_in_a_group_give_its_games_own_timers() -> None:
    settings = GameSettings(round1_seconds=50, night_seconds=90)
    async with open_game(12, seed=7, lang="en", settings=settings, rate_limits=True) as table:
        await table.gather()
        rules = await say(table, table.host, table.group, "/rules")
        assert f"The settings of this game (#{table.game_id})." in rules
        assert "(50 s, then 30 s each)" in rules and "Each night (90 s)" in rules
        # Asked out of turn during the game: deleted there, answered in private, the same.
        await table.begin()
        state = table.state
        assert state is not None
        asker = table.person(next(s for s in state.living() if s != state.speaker))
        before = len(asker.inbox())
        await asker.send(table.group, "/rules")
        await table.settle()
        answer = next(m.content for m in asker.inbox()[before:] if "in short" in m.content)
        assert f"The settings of this game (#{table.game_id})." in answer
        assert "(50 s, then 30 s each)" in answer
        table.sandbox.assert_no_bot_errors()
