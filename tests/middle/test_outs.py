"""Out means out (issue 20): a player a sanction or the Judge took out of the tournament is
never proposed, seated nor substituted in, is shown as out, and the Judge hears of it."""

from __future__ import annotations

import pytest

from bot.cli.demo import Table
from bot.web.page import PageLinks, TournamentPages
from sandbox import SimGroup, SimUser
from tests.middle.games import open_game
from tests.steps import INVITE, bound_chat, register_all, say, start_table, told, warn


def _tournaments(table: Table):  # type: ignore[no-untyped-def]
    service = table.app.dispatcher["tournaments"]
    assert service is not None
    return service


async def _sanction(table: Table, chat: SimGroup, who: SimUser, code: str) -> None:
    """The Host proposes `code` for the player's seat and confirms what the bot proposes."""
    game = await table.app.service.active_game(chat.id)
    assert game is not None
    state = await table.app.service.state(game.game_id)
    assert state is not None
    seat = state.seat_of(who.id)
    proposal = await warn(table, table.host, chat, f"/warn {seat} {code}")
    await table.host.press(proposal, "Confirm")
    await table.settle()


@pytest.mark.rule("V1")
@pytest.mark.rule("V6")
async def test_V1_V6_an_out_player_is_never_proposed_substituted_nor_placed() -> None:
    async with open_game(14, seed=11, lang="en") as table:
        await register_all(table, table.people)
        judge = table.host
        await say(table, judge, judge.private, "/groups confirm")
        chat = await start_table(table, "T1R1G1")
        cheat, drunk = table.people[2], table.people[7]
        told = len(judge.inbox())
        await _sanction(table, chat, cheat, "V1")
        await _sanction(table, chat, drunk, "V6")
        # V: the Judge hears at once, in private, of each removal from the tournament.
        news = [m.content for m in judge.inbox()[told:]]
        assert any(cheat.first_name in m and "disqualified" in m for m in news), news
        assert any(drunk.first_name in m and "removed from the tournament" in m for m in news)
        tournaments = _tournaments(table)
        tournament = await tournaments.judged_by(judge.id)
        # The status is stored where the Host confirmed the sanction.
        for person in (cheat, drunk):
            player = await table.app.service.repos.tournaments.player(1, person.id)
            assert player is not None and player.status.value == "disqualified"
        # Never proposed for the next tour, neither seated nor a reserve.
        _, proposal = await tournaments.propose(tournament)
        proposed = {u for g in proposal.groups for u in g} | set(proposal.reserves)
        assert cheat.id not in proposed and drunk.id not in proposed
        assert len(proposed) == 12
        # Never a substitute: /replace refuses them.
        [group] = await table.app.service.repos.tours.groups(1, 1)
        seated = next(p for p in table.people if p.id in group.players and p not in (cheat, drunk))
        refused = await say(
            table,
            judge,
            judge.private,
            f'/replace T1R1G1 "{seated.first_name}" "{cheat.first_name}"',
        )
        assert "out of the tournament" in refused, refused
        # Shown as such in /standings and on the live page.
        standings = await say(table, judge, judge.private, "/standings")
        assert f"disqualified. {cheat.first_name}" in standings, standings
        assert f"removed from the tournament. {drunk.first_name}" in standings, standings
        pages = TournamentPages(tournaments, PageLinks("https://x.example", "x"), "x", table.texts)
        live = await pages.live_view(tournament, "en")
        rows = {r["nick"]: r for r in live["standings"]}
        assert rows[cheat.first_name]["place"] is None
        assert rows[cheat.first_name]["out"] == "disqualified"
        assert rows[drunk.first_name]["out"] == "removed from the tournament"
        table.sandbox.assert_no_bot_errors()


@pytest.mark.rule("V4")
async def test_V4_a_confirmed_ban_keeps_the_player_out_and_a_declined_one_does_not() -> None:
    async with open_game(14, seed=12, lang="en") as table:
        await register_all(table, table.people)
        judge = table.host
        await say(table, judge, judge.private, "/groups confirm")
        chat = await start_table(table, "T1R1G1")
        banned, spared = table.people[3], table.people[9]
        await _sanction(table, chat, banned, "V4")
        await judge.press(judge.inbox()[-1], "Confirm the ban")
        await table.settle()
        await _sanction(table, chat, spared, "V4")
        await judge.press(judge.inbox()[-1], "Decline")
        await table.settle()
        tournaments = _tournaments(table)
        tournament = await tournaments.judged_by(judge.id)
        _, proposal = await tournaments.propose(tournament)
        proposed = {u for g in proposal.groups for u in g} | set(proposal.reserves)
        assert banned.id not in proposed
        assert spared.id in proposed  # declined: removed from that game only
        standings = await say(table, judge, judge.private, "/standings")
        assert f"banned. {banned.first_name}" in standings, standings
        rows = {r.user_id: r for r in await tournaments.standings(tournament)}
        assert rows[banned.id].place is None and rows[spared.id].place is not None


@pytest.mark.rule("T5")
async def test_T5_unregister_takes_the_player_out_of_an_unplayed_tour_and_off_the_podium() -> None:
    async with open_game(14, seed=13, lang="en") as table:
        await register_all(table, table.people)
        judge = table.host
        await say(table, judge, judge.private, "/groups confirm")
        [group] = await table.app.service.repos.tours.groups(1, 1)
        gone = next(p for p in table.people if p.id == group.players[4])
        done = await say(table, judge, judge.private, f'/unregister "{gone.first_name}"')
        assert "no longer registered" in done, done
        # The confirmed group of the unplayed tour no longer holds them.
        [after] = await table.app.service.repos.tours.groups(1, 1)
        assert gone.id not in after.players and len(after.players) == 13
        # A player already seated in a game that began is withdrawn: listed, marked, and
        # not placed (never among the top three), whatever their points.
        chat = await start_table(table, "T1R1G1")
        game = await table.app.service.active_game(chat.id)
        assert game is not None
        state = await table.app.service.state(game.game_id)
        assert state is not None and state.seat_of(gone.id) is None
        leaver = next(p for p in table.people if p.id == after.players[0])
        done = await say(table, judge, judge.private, f'/unregister "{leaver.first_name}"')
        assert "withdrawn" in done, done
        await table.app.service.repos.tours.adjust(1, leaver.id, 50, "test", now=0.0)
        standings = await say(table, judge, judge.private, "/standings")
        assert f"withdrew. {leaver.first_name}" in standings, standings
        tournaments = _tournaments(table)
        rows = await tournaments.standings(await tournaments.judged_by(judge.id))
        assert next(r for r in rows if r.user_id == leaver.id).place is None


@pytest.mark.rule("T1")
async def test_T1_replace_refuses_a_player_seated_at_another_table_and_tells_both() -> None:
    async with open_game(29, seed=14, lang="en") as table:
        await register_all(table, table.people)
        judge = table.host
        await say(table, judge, judge.private, "/groups confirm")
        first, second = await table.app.service.repos.tours.groups(1, 1)
        await bound_chat(table, first.code)
        out = next(p for p in table.people if p.id == first.players[0])
        elsewhere = next(p for p in table.people if p.id == second.players[0])
        refused = await say(
            table,
            judge,
            judge.private,
            f'/replace {first.code} "{out.first_name}" "{elsewhere.first_name}"',
        )
        assert f"already plays at table {second.code}" in refused, refused
        unchanged = await table.app.service.repos.tours.group(first.code)
        assert unchanged is not None and unchanged.players == first.players


@pytest.mark.rule("T1")
async def test_T1_replace_tells_the_replaced_player_and_sends_the_substitute_the_link() -> None:
    async with open_game(17, seed=9, lang="en") as table:
        await register_all(table, table.people)
        judge = table.host
        await say(table, judge, judge.private, "/groups confirm")
        [group] = await table.app.service.repos.tours.groups(1, 1)
        chat, _ = await bound_chat(table, group.code)
        reserve = next(p for p in table.people if p.id not in group.players)
        missing = next(p for p in table.people if p.id == group.players[0])
        command = f'/replace {group.code} "{missing.first_name}" "{reserve.first_name}"'
        done = await say(table, judge, judge.private, command)
        assert "plays instead of" in done, done
        assert told(group.code) in missing.inbox()[-1].content
        assert "no longer" in missing.inbox()[-1].content
        invite = reserve.inbox()[-1].content
        assert told(group.code) in invite and INVITE.search(invite), invite
        url = INVITE.search(invite)
        assert url is not None
        await reserve.join_by_link(url.group(0))
        await table.settle()
        assert chat.member(reserve).is_member
        table.sandbox.assert_no_bot_errors()
