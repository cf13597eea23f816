"""A chat cannot be squatted (issue 25 §3).

Any member's `/newgame` left open locked the group: the owner's and the administrators'
`/stop`, `/newgame` and `/begin` were refused, and lobbies never expired. A member who
never pressed Start and `/join`ed held `/begin` up with no way to take them out.
"""

from __future__ import annotations

from bot.cli.demo import Table
from sandbox import SimUser
from storage.games import GameStatus
from tests.middle.games import open_game
from tests.steps import say


async def clock_to(table: Table, when: float) -> None:
    """Let the virtual clock run to `when`, every timer on the way firing."""
    while table.clock.now() < when:
        await table.linger(when - table.clock.now())


async def squatted(table: Table) -> SimUser:
    """A plain member opens a lobby in the club's group."""
    squatter = table.people[0]
    await squatter.send(table.group, "/newgame")
    await table.settle()
    game = await table.app.service.active_game(table.group.id)
    assert game is not None and game.host_user_id == squatter.id
    return squatter


async def test_the_owner_stops_a_lobby_a_member_opened() -> None:
    async with open_game(12, seed=5, lang="en") as table:
        await squatted(table)
        other = table.people[1]
        refused = await say(table, other, table.group, "/stop")  # a plain member: no
        assert refused.startswith("Only the Host")
        stopped = await say(table, table.host, table.group, "/stop")  # the group's owner
        assert "stopped" in stopped
        assert await table.app.service.active_game(table.group.id) is None
        table.sandbox.assert_no_bot_errors()


async def test_an_administrator_takes_a_lobby_over_and_begins_it() -> None:
    async with open_game(12, seed=5, lang="en") as table:
        squatter = await squatted(table)
        admin = table.people[1]
        table.group.promote(admin, can_delete_messages=True)
        taken = await say(table, admin, table.group, "/newgame")
        assert "now hosts" in taken
        game = await table.app.service.active_game(table.group.id)
        assert game is not None and game.host_user_id == admin.id
        # The squatter is no longer the Host of it.
        refused = await say(table, squatter, table.group, "/stop")
        assert refused.startswith("Only the Host")
        table.sandbox.assert_no_bot_errors()


async def test_a_demoted_administrator_is_checked_against_telegram() -> None:
    """The right is what Telegram says now, not what the bot saw once."""
    async with open_game(12, seed=5, lang="en") as table:
        admin = table.people[1]
        table.group.promote(admin, can_delete_messages=True)
        await table.settle()
        table.group.demote(admin)
        await table.settle()
        await squatted(table)
        refused = await say(table, admin, table.group, "/stop")
        assert refused.startswith("Only the Host")
        refused = await say(table, admin, table.group, "/newgame")
        assert refused.startswith("This chat already has a game")
        game = await table.app.service.active_game(table.group.id)
        assert game is not None and game.host_user_id == table.people[0].id


async def test_an_idle_lobby_expires_and_the_group_is_told() -> None:
    async with open_game(12, seed=5, lang="en") as table:
        await squatted(table)
        opened = table.clock.now()
        await clock_to(table, opened + 20 * 60)
        joiner = table.people[2]
        await joiner.send(table.group, "/join")  # activity: the lobby's clock starts again
        await table.settle()
        await clock_to(table, opened + 45 * 60)
        assert await table.app.service.active_game(table.group.id) is not None
        await clock_to(table, opened + 51 * 60)
        assert await table.app.service.active_game(table.group.id) is None
        told = table.group.messages()[-1].content
        assert "closed" in told and "30 min" in told
        table.sandbox.assert_no_bot_errors()


async def test_an_idle_lobby_still_expires_after_a_restart() -> None:
    async with open_game(12, seed=5, lang="en") as table:
        await squatted(table)
        game = await table.app.service.active_game(table.group.id)
        assert game is not None
        await table.restart()
        await clock_to(table, table.clock.now() + 31 * 60)
        stored = await table.app.service.repos.games.get(game.game_id)
        assert stored is not None and stored.status is GameStatus.ABORTED


async def test_the_host_kicks_who_holds_begin_up() -> None:
    async with open_game(13, seed=5, lang="en") as table:
        await table.gather(table.people[:12])
        silent = table.people[12]
        await silent.send(table.group, "/join")  # never pressed Start in the bot's chat
        await table.settle()
        held = await say(table, table.host, table.group, "/begin")
        assert "cannot write to" in held and silent.first_name in held
        refused = await say(table, table.people[0], table.group, "/kick 13")
        assert refused.startswith("Only the Host")
        for wrong in ("0", "14", "x", "13 13"):
            usage = await say(table, table.host, table.group, f"/kick {wrong}")
            assert usage.startswith("Usage: /kick"), wrong
        kicked = await say(table, table.host, table.group, "/kick 13")
        assert "#13" in kicked and silent.first_name in kicked
        # The /begin that waited for them goes ahead now.
        state = table.state
        assert state is not None and len(state.seats) == 12
        assert silent.id not in {s.user_id for s in state.seats.values()}
        table.sandbox.assert_no_bot_errors()
