"""Tables of the middle layer: `bot.cli.demo.open_table` with no wire.

The bot is built as `bot.app.build_app` wires it; the sandbox answers its every call in
process (`sandbox.inprocess.InProcessSession`) and the driver hands it each update as
polling would, on the virtual clock. A game plays here exactly as over HTTP (the same
seed, the same messages: tests/e2e/test_whole_games.py), in about 60% of the time.
"""

from __future__ import annotations

import functools

from bot.cli.demo import open_table

# `open_table` in process: the same table, people and options, no wire.
open_game = functools.partial(open_table, in_process=True)
