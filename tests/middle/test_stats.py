"""/stats (issue 12): casual games count in a player's overall statistics."""

from __future__ import annotations

import random

from bot.cli.demo import Crowd, play
from bot.rules.sheet import sheet
from tests.middle.games import open_game


async def test_a_casual_game_counts_overall_and_nobody_reads_anothers() -> None:
    async with open_game(7, seed=8, lang="en", rate_limits=True) as table:
        await table.gather()
        await table.begin()
        state = await play(table, Crowd(table, random.Random(8), "en"))
        person = table.people[0]
        row = next(r for r in sheet(state) if r.user_id == person.id)
        await person.send(person.private, "/stats")
        await table.settle()
        text = person.inbox()[-1].content
        assert "Overall" in text and "Tournament" not in text
        role = table.texts("en", f"role.{row.role}")
        points = "0.0" if not row.earns_point else "1.0"
        for what in ("All roles", role):
            assert f"{what}: games 1, wins {int(row.won)}, points {points}" in text, text
        # Someone who judges nothing asks after another player: told so, shown nothing.
        other = table.people[1]
        await other.send(other.private, f"/stats {person.first_name}")
        await table.settle()
        assert "games" not in other.inbox()[-1].content
        table.sandbox.assert_no_bot_errors()
