"""Ruff keeps Telegram, the database and the event loop out of the pure cores (issue 24
§5, STYLE.md): its banned-import rule (TID251), on for bot/rules/** and bot/tournament/**
only, flags each of them there, a submodule or a name from one too, and nothing elsewhere.
tests/bot/test_layers.py checks the cores' files themselves; this checks the lint."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
BANNED = ("aiogram", "aiosqlite", "asyncio", "sqlite3", "aiohttp")
IMPORTS = {
    "aiogram": "from aiogram.types import Message\n",
    "aiosqlite": "import aiosqlite\n",
    "asyncio": "import asyncio\n",
    "sqlite3": "from sqlite3 import connect\n",
    "aiohttp": "import aiohttp.web\n",
}


def banned_lines(filename: str, source: str) -> list[str]:
    """Ruff's TID251 findings for `source` as if it were the file `filename`."""
    done = subprocess.run(
        [sys.executable, "-m", "ruff", "check", "--no-cache", "--select", "TID251",
         "--output-format", "concise", "--stdin-filename", filename, "-"],
        cwd=ROOT, input=source, capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert done.returncode in (0, 1), done.stderr
    return [line for line in done.stdout.splitlines() if "TID251" in line]


@pytest.mark.parametrize("module", BANNED)
@pytest.mark.parametrize("core", ["bot/rules/engine.py", "bot/tournament/draw/probe.py"])
def test_a_pure_core_may_not_import_io_or_the_event_loop(core: str, module: str) -> None:
    found = banned_lines(core, IMPORTS[module])
    assert len(found) == 1, found
    assert f"`{module}" in found[0], found


@pytest.mark.parametrize(
    "adapter",
    ["bot/services/game/actions.py", "handlers/game.py", "storage/db.py", "sandbox/server.py"],
)
def test_the_adapters_may(adapter: str) -> None:
    assert banned_lines(adapter, "".join(IMPORTS.values())) == []
