"""Whole games played by simulated people, as they would play them (PRODUCT: a casual game)."""

from __future__ import annotations

import random

import pytest

from bot.cli.demo import Crowd, open_table, play
from bot.rules.roles import Side


async def play_out(players: int, seed: int) -> tuple[Side | None, int]:
    async with open_table(players, seed=seed, lang="en") as table:
        await table.gather()
        await table.begin()
        state = await play(table, Crowd(table, random.Random(seed), "en"))
        table.sandbox.assert_no_bot_errors()
        peak = table.sandbox.peak_messages(table.group, window=60.0)
        final = table.group.visible_messages()[-1]
        assert state.seed in final.content  # S3: the seed is revealed at the end
        return state.winner, peak


@pytest.mark.parametrize(("seed", "winner"), [(4, Side.MAFIA), (13, Side.PEACEFUL)])
async def test_a_game_ends_with_its_winner_named(seed: int, winner: Side) -> None:
    side, _ = await play_out(12, seed)
    assert side is winner


async def test_sixteen_players_stay_within_twenty_group_messages_a_minute() -> None:
    """Telegram allows 20 messages a minute in a group; default timers, game time."""
    _, peak = await play_out(16, 3)
    assert 0 < peak <= 20
