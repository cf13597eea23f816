"""The pure cores stay pure (STYLE.md; issue 24 §5): `bot/rules` imports the standard
library and itself only; `bot/tournament` the standard library, itself and `bot/rules`.
No aiogram, aiosqlite, asyncio or clock of their own: they are values and functions, so a
game replays from its protocol and a tournament's arithmetic is checked as a table.
"""

from __future__ import annotations

import ast
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
# What a pure core may import besides itself: the standard library, less what would bring
# I/O, time or concurrency of its own into a function of its arguments.
FORBIDDEN_STDLIB = {"asyncio", "sqlite3", "socket", "threading", "subprocess", "time"}
CORES = {
    "bot/rules": {"bot.rules"},
    "bot/tournament": {"bot.tournament", "bot.rules"},
}


def imported(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names.add(node.module)
        elif isinstance(node, ast.ImportFrom) and node.level > 0:
            names.add(".")  # within the package itself
    return names


@pytest.mark.parametrize("core", sorted(CORES))
def test_a_pure_core_imports_the_standard_library_and_what_lies_below_it(core: str) -> None:
    allowed = CORES[core]
    files = sorted((ROOT / core).rglob("*.py"))
    assert files
    wrong = []
    for path in files:
        for name in imported(path):
            top = name.split(".")[0]
            if name == "." or any(name == a or name.startswith(f"{a}.") for a in allowed):
                continue
            if top in sys.stdlib_module_names and top not in FORBIDDEN_STDLIB:
                continue
            if top == "__future__":
                continue
            wrong.append(f"{path.relative_to(ROOT)}: {name}")
    assert not wrong, wrong
