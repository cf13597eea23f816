"""Tables of the middle layer: `bot.cli.demo.open_table` with no wire.

The bot is built as `bot.app.build_app` wires it; the sandbox answers its every call in
process (`sandbox.inprocess.InProcessSession`) and the driver hands it each update as
polling would, on the virtual clock. A game plays here exactly as over HTTP (the same
seed, the same messages: tests/e2e/test_whole_games.py), in about 60% of the time.
"""

from __future__ import annotations

from contextlib import AbstractAsyncContextManager
from pathlib import Path

from bot.cli.demo import Table, open_table
from bot.rules.settings import GameSettings


def open_game(
    players: int,
    *,
    seed: int = 1,
    lang: str = "ru",
    settings: GameSettings | None = None,
    warning_seconds: float = 10.0,
    rate_limits: bool = False,
    folder: Path | None = None,
    judge: bool = False,
    basic_group: bool = False,
) -> AbstractAsyncContextManager[Table]:
    """`open_table` in process: the same table, people and options, no wire."""
    return open_table(
        players,
        seed=seed,
        lang=lang,
        settings=settings,
        warning_seconds=warning_seconds,
        rate_limits=rate_limits,
        folder=folder,
        judge=judge,
        basic_group=basic_group,
        in_process=True,
    )
