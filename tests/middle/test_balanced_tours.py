"""Balanced tours through the sandbox (T1, S1; issue 20 section 5): /groups tells the Judge
how the proposal repeats earlier tours, and each table's game seats its players in the order
the tour drew, so a player's seat number changes from tour to tour."""

from __future__ import annotations

import pytest

from tests.middle.games import open_game
from tests.steps import play_tour, register_all, say


@pytest.mark.heavy(30)
@pytest.mark.rule("T1", "S1")
async def test_T1_a_balanced_tour_seats_the_table_in_its_drawn_order() -> None:
    async with open_game(15, seed=5, lang="en") as table:
        await register_all(table, table.people)
        tournaments = table.app.dispatcher["tournaments"]
        first = await say(table, table.host, table.host.private, "/groups")
        assert "Pairs that already shared a table: 0" in first
        assert "Players with a repeated seat: 0" in first
        [game_1] = await play_tour(table, table.people, seed=5)

        second = await say(table, table.host, table.host.private, "/groups")
        # One table of 15 again: every pair meets again, but nobody's seat repeats.
        assert "Pairs that already shared a table: 105" in second
        assert "Players with a repeated seat: 0" in second
        [game_2] = await play_tour(table, table.people, seed=6)

        seats = []
        for game_id in (game_1, game_2):
            state = await table.app.service.state(game_id)
            assert state is not None
            group = await tournaments.repos.tours.group_of_game(game_id)
            assert group is not None
            # The game's seats are the tour's order: seat i + 1 is the group's i-th player.
            assert [state.seats[s].user_id for s in sorted(state.seats)] == list(group.players)
            seats.append({st.user_id: s for s, st in state.seats.items()})
        assert all(seats[0][p.id] != seats[1][p.id] for p in table.people)
        table.sandbox.assert_no_bot_errors()
