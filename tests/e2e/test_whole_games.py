"""Whole games played by simulated people, as they would play them (PRODUCT: a casual game)."""

from __future__ import annotations

import random

from bot.cli.demo import Crowd, open_table, play
from bot.rules.roles import Side


async def play_out(
    players: int, seed: int, *, in_process: bool = False
) -> tuple[Side | None, int, str]:
    async with open_table(players, seed=seed, lang="en", in_process=in_process) as table:
        await table.gather()
        await table.begin()
        state = await play(table, Crowd(table, random.Random(seed), "en"))
        table.sandbox.assert_no_bot_errors()
        peak = table.sandbox.peak_messages(table.group, window=60.0)
        final = table.group.visible_messages()[-1]
        assert state.seed in final.content  # S3: the seed is revealed at the end
        return state.winner, peak, table.transcript()


async def test_a_game_ends_with_its_winner_named() -> None:
    side, _, _ = await play_out(12, 13)
    assert side is Side.PEACEFUL


async def test_a_game_in_process_is_the_game_over_http() -> None:
    """The whole games of the middle layer (`open_table(..., in_process=True)`: the
    sandbox answers every call in process, the driver hands the bot each update) stand
    for games over HTTP: the same seed plays the same game, message for message."""
    over_http = await play_out(12, 4)
    in_process = await play_out(12, 4, in_process=True)
    assert over_http[0] is Side.MAFIA
    assert in_process == over_http


async def test_sixteen_players_stay_within_twenty_group_messages_a_minute() -> None:
    """Telegram allows 20 messages a minute in a group; default timers, game time."""
    _, peak, _ = await play_out(16, 3)
    assert 0 < peak <= 20
