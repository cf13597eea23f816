"""`python -m bot demo`: the same seed prints the same transcript, private chats included,
for every scenario, and another seed another one (issue 13).

Before: the join link's token was random; the mafia's relays, sent to several chats at
once, came out in the order the network gave them, at times that depended on the
machine's speed; a cosmetic edit (the 10-second warning) still on its way when the clock
moved on was booked in the group's window later on a slower machine, so that the turns
after it were posted later; and edits the clock woke (stale buttons, the table message)
raced the timer's work due at the same moment for room in that window. The second run
of each scenario is therefore played on a slow network, where every edit takes a few real
milliseconds to reach Telegram.

The scenarios are played as the command plays them (`play_demo`), one after another in
this process.
"""

from __future__ import annotations

import asyncio
import io
import re

import pytest
from aiogram import Bot
from aiogram.client.session.middlewares.base import (
    BaseRequestMiddleware,
    NextRequestMiddlewareType,
)
from aiogram.methods import Response, TelegramMethod
from aiogram.methods.base import TelegramType

from bot.cli.demo import Table, play_demo
from bot.cli.scenarios import SCENARIOS, SMALLEST_TOURNAMENT
from bot.config import Config

# Six players, the fewest each scenario plays out with; seven for the plain game, the
# fewest with two mafiosi, so that the mafia's relay is in it; a tournament's smallest
# table (T1).
PLAYERS = dict.fromkeys(SCENARIOS, 6) | {"game": 7, "tournament": SMALLEST_TOURNAMENT}
# The heaviest: played twice, not a third time for another seed, to keep the file short.
HEAVY = ("game", "tournament")


class SlowNetwork(BaseRequestMiddleware):
    """Each edit takes a few real milliseconds to reach Telegram once the limiter let it
    go, as on a busy machine: the sandbox looks idle meanwhile."""

    async def __call__(
        self,
        make_request: NextRequestMiddlewareType[TelegramType],
        bot: Bot,
        method: TelegramMethod[TelegramType],
    ) -> Response[TelegramType]:
        if method.__api_method__.startswith("edit"):
            await asyncio.sleep(0.005)
        return await make_request(bot, method)


async def transcript(
    scenario: str, seed: int, monkeypatch: pytest.MonkeyPatch, slow: bool = False
) -> str:
    boot = Table.boot

    async def booted(table: Table) -> None:
        await boot(table)
        if slow:  # registered last, it runs inside the limiter, after it let the call go
            table.bot.session.middleware(SlowNetwork())

    monkeypatch.setattr(Table, "boot", booted)
    out = io.StringIO()
    assert await play_demo(Config(), PLAYERS[scenario], seed, "ru", out, scenario) == 0
    return out.getvalue()


@pytest.mark.parametrize("scenario", SCENARIOS)
async def test_the_same_seed_prints_the_same_transcript(
    scenario: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    first = await transcript(scenario, 3, monkeypatch)
    assert "(private) |" in first
    assert re.search(r": /start (join|reg)_", first)  # the links from the seed are in it
    if scenario == "game":
        assert "(private) | Mafia Table [bot]: 💬" in first  # the mafia's relay is in it
    assert await transcript(scenario, 3, monkeypatch, slow=True) == first
    if scenario not in HEAVY:
        assert await transcript(scenario, 4, monkeypatch) != first
