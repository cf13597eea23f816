"""Issue 10: seats only for those who may sit, and the Judge's hold on registration."""

from __future__ import annotations

import asyncio
import logging
import re

import pytest

from bot.cli.demo import RIGHTS, open_table
from bot.rules.settings import GameSettings
from sandbox import SimGroup
from storage.games import GameStatus
from tests.steps import register_all, say, told

REGISTRATION = re.compile(r"https://t\.me/\S+\?start=(reg_[\w-]+)")
INVITE = re.compile(r"https://t\.me/\+[\w-]+")


def lobby_link(group: SimGroup) -> str:
    lobby = group.visible_messages()[-1]
    url = lobby.buttons()[0][0].url
    assert url is not None
    return url


@pytest.mark.rule("T1")
async def test_T1_a_tournament_table_seats_its_roster_and_nobody_else() -> None:
    """A chat member off the roster cannot /join; a stranger with the link cannot either."""
    async with open_table(14, seed=2, lang="en") as table:
        roster, outsider, stranger = table.people[:12], table.people[12], table.people[13]
        await register_all(table, roster, "Winter Cup")
        judge = table.host
        confirmed = await say(table, judge, judge.private, "/groups confirm")
        [code] = re.findall(r"T\d+R\d+G\d+", confirmed)
        chat = table.sandbox.add_supergroup("Table one", owner=judge)
        chat.promote_bot(by=judge, **RIGHTS)
        await say(table, judge, chat, f"/bind {code}")
        for person in roster:
            invite = next(m for m in reversed(person.inbox()) if told(code) in m.content)
            url = INVITE.search(invite.content)
            assert url is not None
            await person.join_by_link(url.group(0))
        chat.add_member(outsider)
        await table.settle()
        await judge.send(chat, "/newgame")
        await table.settle()
        lobby = chat.visible_messages()[-1]
        for person in roster[:11]:
            await person.press(lobby, "I'm here")
            await table.settle()
        game = await table.app.service.active_game(chat.id)
        assert game is not None and game.join_token is not None

        refused = await say(table, outsider, chat, "/join")
        assert "not on this table's roster" in refused
        # The link leaked to them (a tournament lobby shows none; /begin may post one).
        await outsider.start_bot(f"join_{game.join_token}")
        await table.settle()
        assert "not on this table's roster" in outsider.inbox()[-1].content
        # Someone who was handed the link and is not even in the chat.
        await stranger.start_bot(f"join_{game.join_token}")
        await table.settle()
        assert "Only members of Table one" in stranger.inbox()[-1].content

        await roster[11].press(lobby, "I'm here")
        await table.settle()
        await judge.send(chat, "/begin")
        await table.settle()
        state = await table.app.service.state(game.game_id)
        assert state is not None
        assert {s.user_id for s in state.seats.values()} == {p.id for p in roster}
        table.sandbox.assert_no_bot_errors()


async def test_a_casual_lobby_seats_members_of_its_chat_and_says_when_it_is_full() -> None:
    settings = GameSettings(min_players=12, max_players=12)
    async with open_table(13, seed=2, lang="en", settings=settings) as table:
        await table.gather(table.people[:12])
        link = lobby_link(table.group)
        game = await table.app.service.active_game(table.group.id)
        assert game is not None and game.join_token is not None
        # The link names the lobby by a token, never by its number.
        assert f"join_{game.game_id}" not in link and game.join_token in link
        lobby = table.group.visible_messages()[-1]
        assert "All 12 seats are taken" in lobby.content
        late = table.people[12]
        await late.follow(lobby, 0)
        await table.settle()
        assert "is full" in late.inbox()[-1].content
        assert "The game in Mafia Club is full" in await say(table, late, table.group, "/join")

        outsider = table.sandbox.add_user("Passer-by", language_code="en")
        await table.host.send(table.group, "/leave")  # the Host holds no seat: nothing changes
        await table.people[0].send(table.group, "/leave")
        await table.settle()
        assert "All 12 seats are taken" not in table.group.visible_messages()[-1].content
        await outsider.open_link(link)
        await table.settle()
        assert "Only members of Mafia Club" in outsider.inbox()[-1].content
        players = await table.app.service.repos.lobby.players(game.game_id)
        assert outsider.id not in {p.user_id for p in players} and len(players) == 11

        # An old link named the game by its number: refused, and it seats nobody.
        await table.people[0].start_bot(f"join_{game.game_id}")
        await table.settle()
        assert "out of date" in table.people[0].inbox()[-1].content
        assert len(await table.app.service.repos.lobby.players(game.game_id)) == 11
        table.sandbox.assert_no_bot_errors()


async def test_one_seat_at_a_time() -> None:
    """A player in one lobby is told where they play when they join a second."""
    async with open_table(12, seed=2, lang="en") as table:
        await table.gather()
        first = table.game_id
        other = table.sandbox.add_supergroup("Second Club", owner=table.host)
        other.add_bot(added_by=table.host)
        other.promote_bot(by=table.host, **RIGHTS)
        anna = table.people[0]
        other.add_member(anna)
        await table.host.send(other, "/newgame")
        await table.settle()
        second = await table.app.service.active_game(other.id)
        assert second is not None
        second_lobby = other.visible_messages()[-1]
        first_lobby = table.group.visible_messages()[-1]
        await anna.follow(second_lobby, 0)
        await table.settle()
        told = anna.inbox()[-1].content
        assert f"already have a seat in game #{first} in Mafia Club" in told
        refused = await say(table, anna, other, "/join")
        assert f"game #{first}" in refused
        assert await table.app.service.repos.lobby.players(second.game_id) == []

        # Out of the first lobby, she may sit at the second.
        await anna.send(table.group, "/leave")
        await table.settle()
        await anna.follow(second_lobby, 0)
        await table.settle()
        assert "You joined game" in anna.inbox()[-1].content
        # And while that one runs, the first lobby cannot have her back.
        await anna.follow(first_lobby, 0)
        await table.settle()
        assert f"game #{second.game_id} in Second Club" in anna.inbox()[-1].content
        table.sandbox.assert_no_bot_errors()


@pytest.mark.rule("T1")
async def test_T1_the_judge_unregisters_and_closes_registration_nicks_ignore_case() -> None:
    async with open_table(5, seed=2, lang="en") as table:
        anna, boris, vera, gleb, dina = table.people
        judge = table.host
        link = await register_all(table, [anna, boris], "Winter Cup")
        service = table.app.dispatcher["tournaments"]
        cup = await service.judged_by(judge.id)
        # The link names the tournament by a token; the old numbered link is refused.
        assert f"reg_{cup.tournament_id}" not in link
        await dina.start_bot(f"reg_{cup.tournament_id}")
        await table.settle()
        assert "out of date" in dina.inbox()[-1].content

        # A second "anna" registers as a different nick: nicks are one whatever the case.
        vera_named_anna = table.sandbox.add_user("anna", language_code="en")
        await vera_named_anna.open_link(link)
        await table.settle()
        assert "as anna 2" in vera_named_anna.inbox()[-1].content

        # Only the Judge: a player has no tournament to act on.
        refused = await say(table, boris, boris.private, "/unregister Anna")
        assert "You have no tournament" in refused
        asked = await say(table, judge, judge.private, "/adjust Ann -0.5 late")
        assert "Did you mean: Anna, anna 2" in asked
        # "Anna", 2 points, for "-0.5 late"? Or "anna 2", -0.5? Refused; quotes settle it.
        ambiguous = await say(table, judge, judge.private, "/adjust ANNA 2 -0.5 late")
        assert "more than one way (Anna, anna 2)" in ambiguous
        done = await say(table, judge, judge.private, '/adjust "ANNA 2" -0.5 late')
        assert done.startswith("anna 2: -0.5")
        # Where only one reading has points after the nick, that reading is taken.
        maria = table.sandbox.add_user("Anna Maria", language_code="en")
        await maria.open_link(link)
        await table.settle()
        done = await say(table, judge, judge.private, "/adjust anna maria -1 late")
        assert done.startswith("Anna Maria: -1")
        rows = await table.app.service.repos.tours.adjustments(cup.tournament_id)
        assert [(r.user_id, r.tenths) for r in rows] == [(vera_named_anna.id, -5), (maria.id, -10)]

        answer = await say(table, judge, judge.private, "/unregister aNNa")
        assert "Anna is no longer registered" in answer
        assert "taken you off the list" in anna.inbox()[-1].content
        nicks = await service.nicks(cup.tournament_id)
        assert anna.id not in nicks and boris.id in nicks and vera_named_anna.id in nicks

        closed = await say(table, judge, judge.private, "/registration closed")
        assert "is closed" in closed
        await vera.open_link(link)
        await table.settle()
        assert "Registration for Winter Cup is closed" in vera.inbox()[-1].content
        assert vera.id not in await service.nicks(cup.tournament_id)
        await say(table, judge, judge.private, "/registration open")
        await gleb.open_link(link)
        await table.settle()
        assert "You are registered in" in gleb.inbox()[-1].content
        usage = await say(table, judge, judge.private, "/registration maybe")
        assert usage.startswith("Usage: /registration")
        table.sandbox.assert_no_bot_errors()


@pytest.mark.parametrize("first", ["/stop", "/begin"])
async def test_stop_and_begin_delivered_together(
    first: str, caplog: pytest.LogCaptureFixture
) -> None:
    """The lobby's /stop takes the game's lock like /begin: stopped, or dealt and stopped.

    Updates are handled side by side here, as in production.
    """
    second = "/begin" if first == "/stop" else "/stop"
    async with open_table(12, seed=2, lang="en") as table:
        await table.gather()
        assert table.game_id is not None
        table.concurrent = True
        await table.restart()
        service = table.app.service
        caplog.clear()
        with caplog.at_level(logging.ERROR):
            await table.host.send(table.group, first)
            await table.host.send(table.group, second)
            # Both always end in a stop; then let whatever else was under way finish.
            for _ in range(400):
                game = await service.repos.games.get(table.game_id)
                assert game is not None
                if game.status is GameStatus.ABORTED:
                    break
                await asyncio.sleep(0.01)
            for _ in range(5):
                await table.settle()
                await asyncio.sleep(0.05)
        assert [r.getMessage() for r in caplog.records if r.levelno >= logging.ERROR] == []
        game = await service.repos.games.get(table.game_id)
        assert game is not None and game.status is GameStatus.ABORTED
        state = await service.state(table.game_id)
        # Never dealt, or dealt and then stopped as a game: never running behind a stop.
        assert state is None or state.finished
        assert table.timers.next_due() is None
        table.sandbox.assert_no_bot_errors()


async def test_a_muted_member_may_join_one_who_left_may_not() -> None:
    """getChatMember as Telegram answers it: "restricted" with is_member either way."""
    async with open_table(12, seed=2, lang="en") as table:
        muted, gone, member = table.people[:3]
        await table.host.send(table.group, "/newgame")
        await table.settle()
        link = lobby_link(table.group)
        table.group.restrict(muted)
        table.group.remove_member(gone)
        table.group.restrict(gone, in_chat=False)
        for person in (muted, gone, member):
            await person.open_link(link)
            await table.settle()
        assert "You joined game" in muted.inbox()[-1].content
        assert "Only members of Mafia Club" in gone.inbox()[-1].content
        assert "You joined game" in member.inbox()[-1].content
        game = await table.app.service.active_game(table.group.id)
        assert game is not None
        seated = {p.user_id for p in await table.app.service.repos.lobby.players(game.game_id)}
        assert seated == {muted.id, member.id}
        table.sandbox.assert_no_bot_errors()
