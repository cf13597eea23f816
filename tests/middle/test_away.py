"""A game paused because the bot was removed from its group goes on when the bot is back,
even if the bot restarted in between (issue 21 §3, D10)."""

from __future__ import annotations

import pytest

from bot.cli.demo import RIGHTS
from tests.middle.games import open_game


@pytest.mark.rule("D10")
async def test_D10_the_bot_back_after_a_restart_resumes_the_game_it_paused() -> None:
    async with open_game(12, seed=7, lang="ru") as table:
        await table.host.start_bot()
        await table.gather()
        await table.begin()
        before = table.state
        assert before is not None and not before.paused
        table.group.remove_bot(by=table.host, ban=True)
        await table.settle()
        assert table.state is not None and table.state.paused

        await table.restart()  # what the process kept in memory is gone
        table.group.promote_bot(by=table.host, **RIGHTS)  # the owner brings the bot back
        await table.settle()

        state = table.state
        assert state is not None and not state.paused and state.step == before.step
        told = [m.content for m in table.host.inbox()]
        assert "снова в группе" in told[-1], told
        await table.wait_for(lambda now: now.step > before.step, limit=5)


@pytest.mark.rule("D10")
async def test_D10_a_game_the_host_paused_stays_paused_when_the_bot_is_back() -> None:
    async with open_game(12, seed=7, lang="ru") as table:
        await table.host.start_bot()
        await table.gather()
        await table.begin()
        await table.host.send(table.group, "/pause")
        await table.settle()
        assert table.state is not None and table.state.paused
        table.group.remove_bot(by=table.host, ban=True)
        await table.settle()

        await table.restart()
        table.group.promote_bot(by=table.host, **RIGHTS)
        await table.settle()

        state = table.state
        assert state is not None and state.paused  # the Host's own pause: their /resume
