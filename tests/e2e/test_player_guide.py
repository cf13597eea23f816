"""docs/player.ru.md shows what the bot really says (issue 22 §4).

Its examples claimed to be excerpts of `demo --players 7 --seed 2`, yet none matched what
that game printed, and they showed rule codes to players. Each example is now checked
against the transcript of that very game: its lines appear there in the same order ("…"
skips lines, and a line that ends in "…" is the start of one), and no rule code is in the
guide.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.bot.test_catalog import RULE_CODE
from tests.e2e.test_demo_transcript import transcript

GUIDE = Path(__file__).resolve().parents[2] / "docs" / "player.ru.md"
STAMP = re.compile(r"^\[\d\d:\d\d:\d\d\] ")
ELIDED = "…"


def examples(text: str) -> list[list[str]]:
    return [block.strip("\n").splitlines() for block in re.findall(r"```\n(.*?)```", text, re.S)]


def follows(example: list[str], lines: list[str]) -> bool:
    """The example's lines appear in `lines` in order, each right after the one before
    unless "…" stands between them."""
    at, loose = 0, True
    for wanted in example:
        if wanted == ELIDED:
            loose = True
            continue
        prefix = wanted.endswith(ELIDED)
        wanted = wanted.removesuffix(ELIDED)

        def fits(line: str, wanted: str = wanted, prefix: bool = prefix) -> bool:
            return line.startswith(wanted) if prefix else line == wanted

        if loose:
            found = next((i for i in range(at, len(lines)) if fits(lines[i])), None)
            if found is None:
                return False
            at = found + 1
        elif at < len(lines) and fits(lines[at]):
            at += 1
        else:
            return False
        loose = False
    return True


def test_the_matcher_tells_a_true_excerpt_from_a_false_one() -> None:
    lines = ["a", "b", "c", "d"]
    assert follows(["a", "b"], lines) and follows(["a", ELIDED, "d"], lines)
    assert follows(["b…", "c"], lines)
    assert not follows(["a", "c"], lines)  # "b" stands between them and no "…" says so
    assert not follows(["c", ELIDED, "a"], lines)
    assert not follows(["x"], lines)


async def test_the_players_guide_quotes_the_demo_game_it_names(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    text = GUIDE.read_text(encoding="utf-8")
    assert "demo --players 7\n--seed 2" in text or "demo --players 7 --seed 2" in text
    played = await transcript("game", 2, monkeypatch)
    lines = [STAMP.sub("", line) for line in played.splitlines()]
    blocks = examples(text)
    assert len(blocks) >= 10
    wrong = [block for block in blocks if not follows(block, lines)]
    assert not wrong, wrong


def test_the_players_guide_shows_no_rule_code() -> None:
    text = GUIDE.read_text(encoding="utf-8")
    assert not RULE_CODE.findall(text)
