"""A restart with many unfinished games: every game is back on its clock (T2) after a
few reads of the database for all of them, not a few for each (issue 14).

The games are stored as the bot stores them (`bench.fill`, through the service),
then a bot is built on that database against the sandbox and resumed. The database's
round trips are counted up to the moment the last game's deadline is armed: the same
for 3 games as for 9. Read one by one, 500 games kept the last of them off its clock
for tens of seconds, while the first ones' deadlines already fired.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from aiogram.client.default import DefaultBotProperties
from aiogram.enums import ParseMode

from bench.fill import fill
from bench.players import Tables
from bot.app import build_app
from bot.config import Config
from bot.services.clock import VirtualClock, VirtualTimers
from bot.services.game.shared import TURN
from bot.views.i18n import Texts
from sandbox import Sandbox
from storage.db import Database


class Trips:
    """Counts the statements and transactions a database is asked for."""

    def __init__(self, database: Database) -> None:
        self.count = 0
        for name in ("execute", "execute_many", "fetch_all", "transaction"):
            setattr(database, name, self._counted(getattr(database, name)))

    def _counted(self, method: Callable[..., Any]) -> Callable[..., Any]:
        def call(*args: Any, **kwargs: Any) -> Any:
            self.count += 1
            return method(*args, **kwargs)

        return call


async def restart(tmp_path: Path, games: int) -> tuple[int, dict[int, int], list[int]]:
    """Store `games` running games, restart on them: the round trips made by the time
    each game's deadline was armed, and the groups that were told the bot is back."""
    sandbox = Sandbox(clock=time.time)
    tables = Tables(sandbox, games, started=True)
    path = tmp_path / f"mafia-{games}.sqlite3"
    await fill(path, tables, Config().casual_settings(), seed=3)
    await sandbox.start()
    bot = sandbox.make_bot(default=DefaultBotProperties(parse_mode=ParseMode.HTML))
    database = await Database.open(path)
    try:
        clock = VirtualClock(start=time.time())  # the deadlines stay ahead: none fires
        timers = VirtualTimers(clock)
        app = await build_app(bot, database, clock, timers, Texts("en"), Config().casual_settings())
        trips = Trips(database)
        armed: dict[int, int] = {}
        arm = timers.arm

        def counted_arm(kind: str, game_id: int, step: int, when: float) -> None:
            arm(kind, game_id, step, when)
            if kind == TURN:
                armed[game_id] = trips.count

        timers.arm = counted_arm  # type: ignore[method-assign]
        resumed = await app.service.resume_all()

        def told_now() -> list[int]:
            return [
                group.id
                for group in tables.groups
                if any("The bot is back" in str(m.content) for m in group.messages())
            ]

        # The notices go out from the sender's queues after the deadlines are armed; on a
        # busy machine the sandbox can look quiet for a moment before the last one leaves.
        for _ in range(100):
            await sandbox.settle()
            told = told_now()
            if len(told) == games:
                break
            await asyncio.sleep(0.05)
        return resumed, armed, told
    finally:
        await database.close()
        await bot.session.close()
        await sandbox.stop()


@pytest.mark.rule("T2")
async def test_T2_many_unfinished_games_are_rearmed_in_a_few_reads_for_all(
    tmp_path: Path,
) -> None:
    few, more = 3, 9
    resumed_few, armed_few, told_few = await restart(tmp_path, few)
    resumed_more, armed_more, told_more = await restart(tmp_path, more)
    assert (resumed_few, len(armed_few)) == (few, few)
    assert (resumed_more, len(armed_more)) == (more, more)
    # Every deadline was armed after the same few reads, however many games there are.
    assert max(armed_few.values()) == max(armed_more.values())
    assert max(armed_more.values()) <= 3
    # And every group still hears that the bot is back, once its game is on its clock.
    assert len(told_few) == few and len(told_more) == more
