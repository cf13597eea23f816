"""The production timing path: APScheduler on the wall clock, with timers scaled down.

Every other end-to-end test runs on the virtual clock; this one proves that the
scheduler jobs (`turn:<game>`, `warn:<game>`) drive a whole game by themselves.
"""

from __future__ import annotations

import asyncio
import time
from pathlib import Path

from aiogram.client.default import DefaultBotProperties
from aiogram.enums import ParseMode

from bot.app import build_app
from bot.cli.demo import RIGHTS, demo_seed
from bot.rules.settings import GameSettings
from bot.services.clock import SchedulerTimers, WallClock
from bot.views.i18n import Texts
from sandbox import Sandbox
from storage.db import Database

SCALE = 0.004  # 30 s of game time in 0.12 s


async def test_a_game_left_to_its_timers_plays_to_the_end(tmp_path: Path) -> None:
    sandbox = Sandbox(clock=time.time)
    await sandbox.start()
    host = sandbox.add_user("Host", language_code="en")
    group = sandbox.add_supergroup("Club", owner=host)
    group.promote_bot(by=host, **RIGHTS)
    bot = sandbox.make_bot(default=DefaultBotProperties(parse_mode=ParseMode.HTML))
    database = await Database.open(tmp_path / "mafia.sqlite3")
    timers = SchedulerTimers()
    settings = GameSettings(min_players=6, max_players=8).scaled(SCALE)
    app = await build_app(
        bot,
        database,
        WallClock(),
        timers,
        Texts("en"),
        settings,
        10 * SCALE,
        seeds=lambda: demo_seed(3),
        pace_scale=SCALE,
    )
    timers.start()
    polling = asyncio.create_task(
        app.dispatcher.start_polling(
            bot, handle_as_tasks=False, handle_signals=False, polling_timeout=1
        )
    )
    try:
        await host.send(group, "/newgame")
        await sandbox.settle()
        lobby = group.visible_messages()[-1]
        for i in range(6):
            person = sandbox.add_user(f"P{i}", language_code="en")
            group.add_member(person)
            await person.follow(lobby, 0)
            await sandbox.settle()
        await host.send(group, "/begin")
        game = await app.service.active_game(group.id)
        assert game is not None
        # Nobody acts: every turn times out, every day ends in a lot (D8), every night
        # in a miss, until W1 or W2 ends the game.
        async with asyncio.timeout(60):
            while True:
                await asyncio.sleep(0.05)
                state = await app.service.state(game.game_id)
                if state is not None and state.finished:
                    break
        assert state.winner is not None
        assert any("By lot, player" in m.content for m in group.messages())
        assert any("s left." in m.content for m in group.messages())  # the warnings
        sandbox.assert_no_bot_errors()
    finally:
        await app.dispatcher.stop_polling()
        await polling
        timers.shutdown()
        await database.close()
        await bot.session.close()
        await sandbox.stop()
