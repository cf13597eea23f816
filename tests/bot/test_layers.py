"""The pure cores stay pure (STYLE.md; issue 24 §5): `bot/rules` imports the standard
library and itself only; `bot/tournament` the standard library, itself and `bot/rules`.
No aiogram, aiosqlite, asyncio or clock of their own: they are values and functions, so a
game replays from its protocol and a tournament's arithmetic is checked as a table.
"""

from __future__ import annotations

import ast
import sys
from collections.abc import Iterable
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


def within(name: str, packages: Iterable[str]) -> bool:
    """Whether the module `name` is one of `packages` or lies under one of them."""
    return any(name == p or name.startswith(f"{p}.") for p in packages)


def modules_of(folder: str) -> list[Path]:
    files = sorted((ROOT / folder).rglob("*.py"))
    assert files, folder
    return files


@pytest.mark.parametrize("core", sorted(CORES))
def test_a_pure_core_imports_the_standard_library_and_what_lies_below_it(core: str) -> None:
    wrong = []
    for path in modules_of(core):
        for name in imported(path):
            top = name.split(".")[0]
            if name == "." or within(name, CORES[core]):
                continue
            if top in sys.stdlib_module_names and top not in FORBIDDEN_STDLIB:
                continue
            if top == "__future__":
                continue
            wrong.append(f"{path.relative_to(ROOT)}: {name}")
    assert not wrong, wrong


# Above the cores, each folder of the layout (README, "For developers") keeps off what lies
# above it or beside it: the Telegram layer (handlers/) is the top and nothing below imports
# it; the application layer (bot/services/) knows no Telegram and no HTTP; storage knows
# only SQLite. A name listed is refused with everything under it.
FOLDER_RULES: dict[str, tuple[str, ...]] = {
    "storage": ("aiogram", "aiohttp", "apscheduler", "bot", "handlers", "sandbox", "bench"),
    "bot/services": ("aiogram", "aiohttp", "handlers", "bot.web", "bot.cli", "sandbox", "bench"),
    "bot/views": ("aiohttp", "aiosqlite", "handlers", "bot.web", "bot.cli", "sandbox", "bench"),
    "bot/delivery": ("aiohttp", "aiosqlite", "handlers", "bot.web", "bot.cli", "bench"),
    "bot/web": ("aiogram", "aiosqlite", "handlers", "bot.cli", "sandbox", "bench"),
    "handlers": ("bot.cli", "sandbox", "bench"),
}


@pytest.mark.parametrize("folder", sorted(FOLDER_RULES))
def test_a_folder_of_the_layout_imports_nothing_above_or_beside_it(folder: str) -> None:
    wrong = [
        f"{path.relative_to(ROOT)}: {name}"
        for path in modules_of(folder)
        for name in imported(path)
        if within(name, FOLDER_RULES[folder])
    ]
    assert not wrong, wrong


def test_the_readme_map_names_every_folder_the_rules_hold() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    section = readme.split("## For developers", 1)[1].split("\n## ", 1)[0]
    rows = {
        line.split("|")[1].strip().strip("`").rstrip("/")
        for line in section.splitlines()
        if line.startswith("| `")
    }
    assert set(FOLDER_RULES) | set(CORES) <= rows, sorted((set(FOLDER_RULES) | set(CORES)) - rows)
