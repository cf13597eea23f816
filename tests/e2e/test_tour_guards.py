"""A tour's guards (issue 20): no substitute once a table is dealt, no way into a table of
a voided draw, and an out player refused at the table with the reason."""

from __future__ import annotations

import pytest

from bot.demo import open_table
from tests.e2e.test_tournament import register_all, say, start_table


@pytest.mark.rule("T1")
@pytest.mark.rule("T3")
async def test_T1_T3_replace_is_refused_once_the_table_is_dealt_and_says_why() -> None:
    async with open_table(17, seed=21, lang="en") as table:
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
