"""A tour's guards (issue 20): no substitute once a table is dealt, no way into a table of
a voided draw, and an out player refused at the table with the reason."""

from __future__ import annotations

import pytest

from bot.cli.demo import RIGHTS, Table
from sandbox import SimGroup, SimulationError, SimUser
from tests.middle.games import open_game
from tests.steps import INVITE, bound_chat, register_all, say, start_table, told, warn


@pytest.mark.rule("T1")
@pytest.mark.rule("T3")
async def test_T1_T3_replace_is_refused_once_the_table_is_dealt_and_says_why() -> None:
    async with open_game(17, seed=21, lang="en") as table:
        await register_all(table, table.people)
        judge = table.host
        await say(table, judge, judge.private, "/groups confirm")
        [group] = await table.app.service.repos.tours.groups(1, 1)
        chat = await start_table(table, group.code)
        game = await table.app.service.active_game(chat.id)
        assert game is not None and game.status.value == "running"
        reserve = next(p for p in table.people if p.id not in group.players)
        seated = next(p for p in table.people if p.id == group.players[0])
        told = len(reserve.inbox())
        refused = await say(
            table,
            judge,
            judge.private,
            f'/replace {group.code} "{seated.first_name}" "{reserve.first_name}"',
        )
        assert f"game #{game.game_id} has already been dealt" in refused, refused
        assert "/remove" in refused, refused  # what the Host does instead
        # Nothing changed: the roster, the seats, and nobody was told anything.
        after = await table.app.service.repos.tours.group(group.code)
        assert after is not None and after.players == group.players
        state = await table.app.service.state(game.game_id)
        assert state is not None and state.seat_of(seated.id) is not None
        assert state.seat_of(reserve.id) is None
        assert len(reserve.inbox()) == told
        # In the Judge's language.
        await say(table, judge, judge.private, "/lang ru")
        refused = await say(
            table,
            judge,
            judge.private,
            f'/replace {group.code} "{seated.first_name}" "{reserve.first_name}"',
        )
        assert f"в игре №{game.game_id} роли уже розданы" in refused, refused
        table.sandbox.assert_no_bot_errors()


async def _sanction(table: Table, chat: SimGroup, who: SimUser, code: str) -> None:
    """The Host proposes `code` for the player's seat and confirms what the bot proposes."""
    game = await table.app.service.active_game(chat.id)
    assert game is not None
    state = await table.app.service.state(game.game_id)
    assert state is not None
    proposal = await warn(table, table.host, chat, f"/warn {state.seat_of(who.id)} {code}")
    await table.host.press(proposal, "Confirm")
    await table.settle()


@pytest.mark.rule("V1")
@pytest.mark.rule("V4")
@pytest.mark.rule("T5")
async def test_V1_V4_T5_an_out_player_pressing_im_here_is_refused_with_the_reason() -> None:
    async with open_game(14, seed=23, lang="en") as table:
        await register_all(table, table.people)
        judge = table.host
        await say(table, judge, judge.private, "/groups confirm")
        chat = await start_table(table, "T1R1G1")
        # The next tour is set while the first is on: everyone is on its roster.
        await say(table, judge, judge.private, "/groups confirm override")
        [later] = await table.app.service.repos.tours.groups(1, 2)
        assert len(later.players) == 14
        cheat, banned, gone = table.people[2], table.people[5], table.people[9]
        await _sanction(table, chat, cheat, "V1")
        await _sanction(table, chat, banned, "V4")
        await judge.press(judge.inbox()[-1], "Confirm the ban")
        await table.settle()
        done = await say(table, judge, judge.private, f'/unregister "{gone.first_name}"')
        assert "withdrawn" in done, done
        # The tour-2 table opens; the three are in its chat all the same.
        second, _ = await bound_chat(table, later.code)
        for person in (cheat, banned, gone):
            second.add_member(person)
        await table.settle()
        await judge.send(second, "/newgame")
        await table.settle()
        lobby = second.visible_messages()[-1]
        why = {
            cheat: "You are disqualified from this tournament",
            banned: "A Judge has confirmed your ban from tournaments",
            gone: "The Judge has taken you off this tournament's list",
        }
        for person, reason in why.items():
            press = await person.press(lobby, "I'm here")
            await table.settle()
            assert press.answer is not None and press.answer.show_alert, person.first_name
            assert (press.answer.text or "").startswith(reason), press.answer.text
            # /join says the same in the chat.
            answer = await say(table, person, second, "/join")
            assert answer.startswith(reason), answer
        game = await table.app.service.active_game(second.id)
        assert game is not None
        seated = {p.user_id for p in await table.app.service.repos.lobby.players(game.game_id)}
        assert not seated & {cheat.id, banned.id, gone.id}
        table.sandbox.assert_no_bot_errors()


def _links_of(person: SimUser, code: str) -> list[str]:
    """Every invite link to table `code` the bot sent the person, oldest first."""
    return [
        url.group(0)
        for m in person.inbox()
        if told(code) in m.content
        for url in [INVITE.search(m.content)]
        if url is not None
    ]


@pytest.mark.rule("T1")
async def test_T1_a_cancelled_tour_revokes_the_invitations_to_its_tables() -> None:
    async with open_game(17, seed=24, lang="en") as table:
        await register_all(table, table.people)
        judge = table.host
        await say(table, judge, judge.private, "/groups confirm")
        [group] = await table.app.service.repos.tours.groups(1, 1)
        chat = table.sandbox.add_supergroup("Table one", owner=judge)
        chat.promote_bot(by=judge, **RIGHTS)
        await say(table, judge, chat, f"/bind {group.code}")
        roster = [p for p in table.people if p.id in group.players]
        reserve = next(p for p in table.people if p.id not in group.players)
        await say(
            table,
            judge,
            judge.private,
            f'/replace {group.code} "{roster[0].first_name}" "{reserve.first_name}"',
        )
        [sub_link] = _links_of(reserve, group.code)
        [link] = _links_of(roster[1], group.code)
        assert sub_link != link
        done = await say(table, judge, judge.private, "/groups cancel")
        assert "Tour 1 is cancelled" in done, done
        # Neither the table's link nor the substitute's lets anyone in any more.
        for person, url in ((roster[1], link), (reserve, sub_link), (roster[2], link)):
            with pytest.raises(SimulationError, match="expired"):
                await person.join_by_link(url)
            assert not chat.member(person).is_member
        revoked = table.sandbox.calls("revokeChatInviteLink", ok=True)
        assert {r.params["invite_link"] for r in revoked} == {link, sub_link}
        table.sandbox.assert_no_bot_errors()


@pytest.mark.rule("T1")
async def test_T1_a_redrawn_tour_revokes_the_old_invitations_and_the_new_ones_hold() -> None:
    async with open_game(29, seed=25, lang="en") as table:
        await register_all(table, table.people)
        judge = table.host
        await say(table, judge, judge.private, "/groups confirm")
        old = await table.app.service.repos.tours.groups(1, 1)
        chats = {}
        for group in old:
            chats[group.code] = chat = table.sandbox.add_supergroup(group.code, owner=judge)
            chat.promote_bot(by=judge, **RIGHTS)
            await say(table, judge, chat, f"/bind {group.code}")
        early = next(p for p in table.people if p.id == old[0].players[0])
        [early_link] = _links_of(early, old[0].code)
        await early.join_by_link(early_link)  # one came in before the redraw
        await table.settle()
        done = await say(table, judge, judge.private, "/groups redraw")
        assert "drawn anew" in done, done
        new = await table.app.service.repos.tours.groups(1, 1)
        assert [g.players for g in new] != [g.players for g in old]
        # Every link of the old draw is dead, whoever holds it.
        for group in old:
            for person in (p for p in table.people if p.id in group.players and p is not early):
                [url] = _links_of(person, group.code)
                with pytest.raises(SimulationError, match="expired"):
                    await person.join_by_link(url)
        # The tables are bound anew; the new invitations let the new rosters in.
        for group in new:
            chat = chats[group.code]
            await say(table, judge, chat, f"/bind {group.code}")
            for person in (p for p in table.people if p.id in group.players):
                if chat.member(person).is_member:
                    continue
                url = _links_of(person, group.code)[-1]
                await person.join_by_link(url)
                assert chat.member(person).is_member
        table.sandbox.assert_no_bot_errors()


@pytest.mark.rule("T1")
async def test_T1_unbind_revokes_the_invitations_to_the_chat() -> None:
    async with open_game(14, seed=26, lang="en") as table:
        await register_all(table, table.people)
        judge = table.host
        await say(table, judge, judge.private, "/groups confirm")
        [group] = await table.app.service.repos.tours.groups(1, 1)
        chat = table.sandbox.add_supergroup("Club chat", owner=judge)
        chat.promote_bot(by=judge, **RIGHTS)
        await say(table, judge, chat, f"/bind {group.code}")
        player = next(p for p in table.people if p.id == group.players[0])
        [link] = _links_of(player, group.code)
        done = await say(table, judge, chat, "/unbind")
        assert "no longer table 1." in done, done
        with pytest.raises(SimulationError, match="expired"):
            await player.join_by_link(link)
        # Bound anew, elsewhere: that table's new link is the one that holds.
        other = table.sandbox.add_supergroup("Table chat", owner=judge)
        other.promote_bot(by=judge, **RIGHTS)
        await say(table, judge, other, f"/bind {group.code}")
        await player.join_by_link(_links_of(player, group.code)[-1])
        assert other.member(player).is_member and not chat.member(player).is_member
        table.sandbox.assert_no_bot_errors()
