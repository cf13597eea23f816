"""A tournament in process: its scoring, splits, corrections, sanctions, reserves and exports.
The whole tournament of forty plays over HTTP (tests/e2e/test_tournament.py)."""

from __future__ import annotations

import pytest

from bot.rules.sheet import sheet
from tests.middle.games import open_game
from tests.steps import (
    REGISTRATION,
    bound_chat,
    play_tour,
    register_all,
    say,
    start_table,
    warn,
)


@pytest.mark.rule("T4")
async def test_T4_a_fifteen_player_game_scores_one_point_two() -> None:
    async with open_game(15, seed=4, lang="en") as table:
        await register_all(table, table.people)
        [game_id] = await play_tour(table, table.people, seed=4)
        state = await table.app.service.state(game_id)
        assert state is not None and len(state.seats) == 15
        tournament = await table.app.dispatcher["tournaments"].judged_by(table.host.id)
        rows = await table.app.dispatcher["tournaments"].standings(tournament)
        winners = {r.user_id for r in sheet(state) if r.earns_point}
        assert winners
        assert {r.user_id: r.total_tenths for r in rows if r.user_id in winners} == dict.fromkeys(
            winners, 12
        )
        standings = await say(table, table.host, table.host.private, "/standings")
        assert "1.2" in standings


@pytest.mark.rule("T1")
@pytest.mark.parametrize(("count", "reserves"), [(11, 11), (17, 1), (23, 7)])
async def test_T1_impossible_counts_get_the_nearest_split(count: int, reserves: int) -> None:
    async with open_game(count, seed=1, lang="en") as table:
        await register_all(table, table.people)
        proposal = await say(table, table.host, table.host.private, "/groups")
        assert "cannot all be seated" in proposal
        listed = proposal.split("Reserves:")[1].split("\n")[0]
        assert len([n for n in listed.split(",") if n.strip() and n.strip() != "—"]) == reserves


@pytest.mark.rule("T3")
async def test_T3_a_judges_correction_shows_in_the_standings() -> None:
    async with open_game(12, seed=5, lang="en") as table:
        await register_all(table, table.people)
        [game_id] = await play_tour(table, table.people, seed=5)
        service = table.app.dispatcher["tournaments"]
        tournament = await service.judged_by(table.host.id)
        before = {r.user_id: r.total_tenths for r in await service.standings(tournament)}
        state = await table.app.service.state(game_id)
        assert state is not None and state.winner is not None
        loser = "mafia" if state.winner.value == "peaceful" else "peaceful"
        fixed = await say(
            table, table.host, table.host.private, f"/fix {game_id} winner {loser} wrong count"
        )
        assert "wrong count" in fixed
        after = {r.user_id: r.total_tenths for r in await service.standings(tournament)}
        assert after != before
        assert {u for u, t in after.items() if t} == {u for u, t in before.items() if not t}
        refused = await say(
            table, table.people[0], table.people[0].private, f"/fix {game_id} winner mafia x"
        )
        assert "Judge" in refused


@pytest.mark.rule("V3")
async def test_V3_a_repeat_in_a_later_tour_disqualifies() -> None:
    async with open_game(12, seed=6, lang="en") as table:
        await register_all(table, table.people)
        await play_tour(table, table.people, seed=6)
        service = table.app.dispatcher["tournaments"]
        offender = table.people[0]
        # Tour 2: the Host sanctions the same player for V3 in the new game.
        judge = table.host
        await say(table, judge, judge.private, "/groups confirm")
        code = next(g.code for g in await table.app.service.repos.tours.groups(1, 2))
        chat, _ = await bound_chat(table, code, "Second table")
        await judge.send(chat, "/newgame")
        await table.settle()
        lobby = chat.visible_messages()[-1]
        for person in table.people:
            await person.press(lobby, "I'm here")
            await table.settle()
        await judge.send(chat, "/begin")
        await table.settle()
        game = await table.app.service.active_game(chat.id)
        assert game is not None
        state = await table.app.service.state(game.game_id)
        assert state is not None
        seat = state.seat_of(offender.id)
        first = await warn(table, judge, chat, f"/warn {seat} V3")
        assert "removal from the tour" in first.content
        # The record of tour 1 is clean; sanction it now, then a second V3 in the same
        # tournament is disqualification (RULES V: repeats count over the tournament).
        await judge.press(first, "Confirm")
        await table.settle()
        assert service is not None
        offences = await service.offences(1)
        assert [o.penalty.value for o in offences if o.user_id == offender.id] == [
            "removal_from_tour"
        ]
        from bot.rules.sanctions import VCode
        from bot.tournament.record import tournament_penalty

        assert tournament_penalty(offender.id, VCode.V3, 99, offences).value == "disqualification"


@pytest.mark.rule("V4")
async def test_V4_a_ban_removes_the_player_and_refuses_later_tournaments() -> None:
    async with open_game(12, seed=8, lang="en") as table:
        await register_all(table, table.people)
        await say(table, table.host, table.host.private, "/groups confirm")
        chat = await start_table(table, "T1R1G1")
        game = await table.app.service.active_game(chat.id)
        assert game is not None
        state = await table.app.service.state(game.game_id)
        assert state is not None
        offender = table.people[5]
        seat = state.seat_of(offender.id)
        assert seat is not None  # the offender plays at this table
        proposal = await warn(table, table.host, chat, f"/warn {seat} V4")
        assert "ban" in proposal.content
        await table.host.press(proposal, "Confirm")
        await table.settle()
        after = await table.app.service.state(game.game_id)
        assert after is not None and not after.is_alive(seat)
        # The ban itself is the Judge's to confirm (here the Judge hosts the table).
        await table.host.press(table.host.inbox()[-1], "Confirm the ban")
        await table.settle()
        created = await say(table, table.host, table.host.private, "/tournament Winter Cup")
        link = REGISTRATION.search(created)
        assert link is not None
        await offender.open_link(link.group(0))
        await table.settle()
        assert "banned" in offender.inbox()[-1].content


@pytest.mark.rule("T1")
async def test_T1_the_judge_seats_a_reserve_in_place_of_a_missing_player() -> None:
    async with open_game(17, seed=9, lang="en") as table:
        await register_all(table, table.people)
        await say(table, table.host, table.host.private, "/groups confirm")
        [group] = await table.app.service.repos.tours.groups(1, 1)
        reserve = next(p for p in table.people if p.id not in group.players)
        missing = next(p for p in table.people if p.id == group.players[0])
        await say(table, reserve, reserve.private, "/nick Reserve")  # a nick without spaces
        command = f"/replace {group.code} {missing.first_name} Reserve"
        done = await say(table, table.host, table.host.private, command)
        assert "Reserve plays instead of" in done
        updated = await table.app.service.repos.tours.group(group.code)
        assert updated is not None
        assert reserve.id in updated.players and missing.id not in updated.players


async def test_the_judge_downloads_sheets_standings_and_a_protocol() -> None:
    async with open_game(12, seed=5, lang="en") as table:
        await register_all(table, table.people)
        [game_id] = await play_tour(table, table.people, seed=5)
        await table.host.send(table.host.private, "/export")
        await table.settle()
        files = {m.file.filename: m.file.data for m in table.host.inbox() if m.file}
        # T3: the signed sheet came with its printable page; /export added the CSVs.
        assert set(files) == {f"sheet-{game_id}.html", "standings.csv", "sheets.csv", "stats.csv"}
        assert b"Sheet of game #" in files[f"sheet-{game_id}.html"]
        assert files["standings.csv"].decode().splitlines()[0].startswith("place")
        await table.host.send(table.host.private, f"/protocol {game_id}")
        await table.settle()
        protocol = table.host.inbox()[-1]
        assert protocol.file is not None and b'"GameOver"' in protocol.file.data
        table.sandbox.assert_no_bot_errors()
