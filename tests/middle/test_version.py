"""The release on /start for the people the config names (issue 23 §3): a club's
organiser sees which version answers, in the bot itself."""

from __future__ import annotations

import bot
from tests.middle.games import open_game


async def test_start_names_the_release_to_a_configured_judge_only() -> None:
    async with open_game(12, lang="ru", judge=True) as table:
        assert table.judge is not None
        await table.judge.start_bot()
        await table.settle()
        player = table.people[0]
        await player.start_bot()
        await table.settle()
        assert f"Mafia Table {bot.__version__}" in table.judge.inbox()[-1].content
        assert "Mafia Table" not in player.inbox()[-1].content
