"""The tour lifecycle through the sandbox: one confirm per tour, cancel and redraw, the
Judge's /tour, a table with a no-show, and a /finish that closes the tournament."""

from __future__ import annotations

import random

import pytest

from bot.cli.demo import RIGHTS, Crowd, Table, play
from sandbox import SimGroup
from storage.games import GameStatus
from storage.tournaments import TournamentStatus
from tests.middle.games import open_game
from tests.steps import INVITE, bound_chat, register_all, say


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
async def test_T1_a_second_confirm_is_refused_with_the_tours_state() -> None:
    async with open_game(12, seed=21, lang="en") as table:
        await register_all(table, table.people)
        first = await judge_says(table, "/groups confirm")
        assert "Tour 1 is set" in first
        again = await judge_says(table, "/groups confirm")
        assert "Tour 1" in again and "T1R1G1" in again and "not bound" in again, again
        groups = await table.app.service.repos.tours.groups(1)
        assert [g.code for g in groups] == ["T1R1G1"]
        table.sandbox.assert_no_bot_errors()


@pytest.mark.rule("T1")
async def test_T1_the_next_tour_waits_for_every_table_unless_the_judge_says_so() -> None:
    async with open_game(12, seed=22, lang="en") as table:
        await register_all(table, table.people)
        await judge_says(table, "/groups confirm")
        chat = await open_lobby(table, "T1R1G1")
        await table.host.send(chat, "/begin")
        await table.settle()
        refused = await judge_says(table, "/groups confirm")
        assert "T1R1G1" in refused and "playing" in refused, refused
        assert await table.app.service.repos.tours.last_tour(1) == 1
        forced = await judge_says(table, "/groups confirm override")
        assert "Tour 2 is set" in forced, forced
        assert [g.code for g in await table.app.service.repos.tours.groups(1, 2)] == ["T1R2G1"]
        table.sandbox.assert_no_bot_errors()


@pytest.mark.rule("T1")
async def test_T1_a_tour_not_begun_is_redrawn_or_cancelled_by_the_judge() -> None:
    async with open_game(24, seed=23, lang="en") as table:
        repos = table.app.service.repos
        await register_all(table, table.people)
        await judge_says(table, "/groups confirm")
        before = {g.code: set(g.players) for g in await repos.tours.groups(1, 1)}
        chat = await open_lobby(table, "T1R1G1", present=2)
        seated = [p for p in table.people if p.id in before["T1R1G1"]]
        redrawn = await judge_says(table, "/groups redraw")
        assert "Tour 1" in redrawn and "T1R1G1" in redrawn, redrawn
        after = {g.code: set(g.players) for g in await repos.tours.groups(1, 1)}
        assert sorted(after) == ["T1R1G1", "T1R1G2"] and after != before
        # The open lobby is closed and the bound table's players hear the old seating is void.
        games = await repos.games.of_tournament(1)
        assert [g.status for g in games] == [GameStatus.ABORTED]
        assert all("invitation no longer holds" in p.inbox()[-1].content for p in seated)
        assert "Tour 1" in chat.messages()[-1].content
        cancelled = await judge_says(table, "/groups cancel")
        assert "Tour 1" in cancelled and "cancelled" in cancelled, cancelled
        assert await repos.tours.groups(1) == []
        again = await judge_says(table, "/groups confirm")
        assert "Tour 1 is set" in again
        # Once a game has begun, the tour stays.
        chat = table.sandbox.add_supergroup("Second chat", owner=table.host)
        chat.promote_bot(by=table.host, **RIGHTS)
        await say(table, table.host, chat, "/bind T1R1G1")
        [group] = [g for g in await repos.tours.groups(1, 1) if g.code == "T1R1G1"]
        for person in (p for p in table.people if p.id in group.players):
            invite = person.inbox()[-1].content
            assert "Second chat" in invite
            url = INVITE.search(invite)
            assert url is not None
            await person.join_by_link(url.group(0))
        await table.host.send(chat, "/newgame")
        await table.settle()
        lobby = chat.visible_messages()[-1]
        for person in (p for p in table.people if p.id in group.players):
            await person.press(lobby, "I'm here")
            await table.settle()
        await table.host.send(chat, "/begin")
        await table.settle()
        for word in ("cancel", "redraw"):
            refused = await judge_says(table, f"/groups {word}")
            assert "T1R1G1" in refused and "playing" in refused, refused
        assert len(await repos.tours.groups(1, 1)) == 2
        table.sandbox.assert_no_bot_errors()


async def test_the_judge_sees_the_current_tour_at_a_glance() -> None:
    async with open_game(24, seed=24, lang="en") as table:
        await register_all(table, table.people)
        await judge_says(table, "/groups confirm")
        [first, second] = await table.app.service.repos.tours.groups(1, 1)
        await open_lobby(table, first.code, present=10)
        nicks = await table.app.dispatcher["tournaments"].nicks(1)
        lobby = await table.app.service.repos.lobby.players(
            (await table.app.service.repos.games.of_tournament(1))[0].game_id
        )
        absent = [nicks[u] for u in first.players if u not in {p.user_id for p in lobby}]
        shown = await judge_says(table, "/tour")
        assert "Tour 1" in shown, shown
        assert f"Table {first.code}" in shown  # the chat's title
        assert table.host.first_name in shown  # the Host
        assert "lobby: 10 of 12" in shown
        assert all(nick in shown for nick in absent) and len(absent) == 2
        assert second.code in shown and "not bound" in shown
        from handlers.commands import help_text, menus

        assert all("tour" in m.commands for m in menus() if m.scope == "all_private_chats")
        assert "/tour" in help_text(table.texts, "en", private=True)
        assert "/tour" in help_text(table.texts, "ru", private=True)
        refused = await say(table, table.people[0], table.people[0].private, "/tour")
        assert "Tour 1" not in refused
        table.sandbox.assert_no_bot_errors()


@pytest.mark.heavy(10)
@pytest.mark.rule("T1")
async def test_T1_a_thirteen_player_table_begins_with_twelve_present() -> None:
    async with open_game(13, seed=25, lang="en") as table:
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


@pytest.mark.heavy(8)
@pytest.mark.rule("T5")
async def test_T5_finish_waits_for_every_table_then_closes_the_tournament() -> None:
    async with open_game(12, seed=26, lang="en") as table:
        service = table.app.dispatcher["tournaments"]
        repos = table.app.service.repos
        await register_all(table, table.people)
        await judge_says(table, "/groups confirm")
        refused = await judge_says(table, "/finish confirm")
        assert "T1R1G1" in refused and "not bound" in refused, refused
        chat = await open_lobby(table, "T1R1G1")
        game_id = await play_table(table, chat, seed=26, sign=False)
        refused = await judge_says(table, "/finish")
        assert "T1R1G1" in refused and "awaiting signature" in refused, refused
        assert (await service.judged_by(table.host.id)).status is TournamentStatus.RUNNING
        await table.host.press(chat.visible_messages()[-1], "Sign the sheet")
        await table.settle()
        final = await judge_says(table, "/finish confirm")
        assert "Top three" in final
        again = await judge_says(table, "/finish confirm")
        assert "already finished" in again, again
        for person in table.people:
            assert sum("Top three" in m.content for m in person.inbox()) == 1
        before = {
            r.user_id: r.total_tenths
            for r in await service.standings(await service.judged_by(table.host.id))
        }
        nick = (await service.nicks(1))[table.people[0].id]
        for command in (
            f'/adjust "{nick}" 1 late',
            f"/fix {game_id} winner mafia recount",
            f"/fix {game_id} seat 1 0 recount",
            "/groups confirm",
            "/groups",
            "/groups cancel",
            "/settings bonus_threshold 12 override",
        ):
            answer = await judge_says(table, command)
            assert "finished" in answer, (command, answer)
        tournament = await service.judged_by(table.host.id)
        after = {r.user_id: r.total_tenths for r in await service.standings(tournament)}
        assert after == before and await repos.tours.sheet_changes(game_id) == []
        # The Judge reopens it, and everyone hears so; then it changes again.
        reopened = await judge_says(table, "/finish reopen")
        assert "reopened" in reopened, reopened
        assert all("reopened" in p.inbox()[-1].content for p in table.people)
        assert "+1" in await judge_says(table, f'/adjust "{nick}" 1 late')
        log = await repos.tours.journal(1)
        assert [e.kind for e in log] == ["finished", "reopened"]
        table.sandbox.assert_no_bot_errors()


@pytest.mark.heavy(8)
@pytest.mark.rule("T3")
async def test_T3_a_finished_tournaments_sheet_is_not_signed_afterwards() -> None:
    async with open_game(12, seed=27, lang="en") as table:
        repos = table.app.service.repos
        await register_all(table, table.people)
        await judge_says(table, "/groups confirm")
        chat = await open_lobby(table, "T1R1G1")
        game_id = await play_table(table, chat, seed=27, sign=False)
        # A press that comes after the tournament closed (e.g. sent at the same moment).
        await repos.tournaments.set_status(1, TournamentStatus.FINISHED)
        await table.host.press(chat.visible_messages()[-1], "Sign the sheet")
        await table.settle()
        game = await repos.games.get(game_id)
        assert game is not None and game.signed_by is None


@pytest.mark.rule("T1")
async def test_T1_a_stopped_table_opens_again_as_the_same_table() -> None:
    async with open_game(12, seed=28, lang="en") as table:
        repos = table.app.service.repos
        await register_all(table, table.people)
        await judge_says(table, "/groups confirm")
        chat = await open_lobby(table, "T1R1G1", present=3)
        await table.host.send(chat, "/stop")
        await table.settle()
        assert "stopped" in await judge_says(table, "/tour")
        await table.host.send(chat, "/newgame")
        await table.settle()
        game = await table.app.service.active_game(chat.id)
        assert game is not None and game.tournament_id == 1
        [group] = await repos.tours.groups(1, 1)
        assert group.game_id == game.game_id
        assert "lobby: 0 of 12" in await judge_says(table, "/tour")
        table.sandbox.assert_no_bot_errors()


async def test_tour_names_who_has_not_come_into_a_bound_tables_chat() -> None:
    async with open_game(12, seed=29, lang="en") as table:
        await register_all(table, table.people)
        await judge_says(table, "/groups confirm")
        chat = table.sandbox.add_supergroup("Late table", owner=table.host)
        chat.promote_bot(by=table.host, **RIGHTS)
        await say(table, table.host, chat, "/bind T1R1G1")
        came, late = table.people[:5], table.people[5:]
        for person in came:
            url = INVITE.search(person.inbox()[-1].content)
            assert url is not None
            await person.join_by_link(url.group(0))
        await table.settle()
        nicks = await table.app.dispatcher["tournaments"].nicks(1)
        shown = await judge_says(table, "/tour")
        assert "bound, no game opened" in shown, shown
        missing = shown.split("not in the chat yet:")[1]
        assert all(nicks[p.id] in missing for p in late)
        assert not any(nicks[p.id] in missing for p in came)
        table.sandbox.assert_no_bot_errors()
