"""The documents a club reads (issue 13): both READMEs open with the two commands,
docs/rules.md names every rule the code and the tests cite, in Russian and in English,
config.example.toml shows every setting, and no document points outside the repository.
"""

from __future__ import annotations

import re
from pathlib import Path

from pydantic import BaseModel

from bot.config import AccessSection, BotSection, CasualSection, GameSection

ROOT = Path(__file__).resolve().parents[2]


def cited_rules() -> set[str]:
    cited: set[str] = set()
    for folder in ("bot", "handlers", "storage", "tests"):
        for path in (ROOT / folder).rglob("*.py"):
            cited |= set(re.findall(r'rule\("([TSDNWV][0-9]{1,2})"\)', path.read_text()))
    return cited


def test_both_readmes_open_with_make_run_and_make_test() -> None:
    for name in ("README.md", "README.ru.md"):
        lines = (ROOT / name).read_text(encoding="utf-8").splitlines()
        assert lines[0].startswith("# ") and lines[2] == "```sh", name
        assert lines[3].startswith("make run ") and lines[4].startswith("make test "), name


def test_the_rules_document_defines_every_rule_cited_in_both_languages() -> None:
    text = (ROOT / "docs" / "rules.md").read_text(encoding="utf-8")
    russian, english = text.split('<a id="english"></a>')
    cited = cited_rules()
    assert {"D7", "N3", "V4", "T7"} <= cited  # the scan works
    for part in (russian, english):
        defined = set(re.findall(r"\*\*([TSDNW][0-9]{1,2})\b", part))
        defined |= set(re.findall(r"^\| (V[0-9]) \|", part, re.M))
        assert sorted(cited - defined) == [], part[:40]


def test_the_player_guides_exist_in_both_languages_and_link_each_other() -> None:
    ru = (ROOT / "docs" / "player.ru.md").read_text(encoding="utf-8")
    en = (ROOT / "docs" / "player.md").read_text(encoding="utf-8")
    assert "(player.md)" in ru and "(player.ru.md)" in en
    for guide in (ru, en):
        assert "python -m bot demo" in guide and "rules.md" in guide


def test_the_example_config_shows_every_setting() -> None:
    example = (ROOT / "config.example.toml").read_text(encoding="utf-8")
    sections: dict[str, type[BaseModel]] = {
        "bot": BotSection,
        "access": AccessSection,
        "casual": CasualSection,
        "game": GameSection,
    }
    for name, model in sections.items():
        body = example.split(f"[{name}]\n", 1)[1].split("\n[", 1)[0]
        for key in model.model_fields:
            assert re.search(rf"^#? ?\[?{name}\.{key}\]|^# ?{key} ?=|^{key} ?=", body, re.M) or (
                f"[{name}.{key}]" in example
            ), f"[{name}] {key}"


def test_no_document_or_docstring_points_outside_the_repository() -> None:
    paths = [*ROOT.glob("*.md"), *(ROOT / "docs").glob("*.md"), ROOT / "config.example.toml"]
    for folder in ("bot", "handlers", "storage"):
        paths += (ROOT / folder).rglob("*.py")
    for path in paths:
        text = path.read_text(encoding="utf-8")
        assert "/work/" not in text and "/shared/" not in text, path


def test_the_russian_readme_lists_the_violations_in_the_bots_words() -> None:
    # Issue 22 §4: a Host reads V1-V7 in words, the same words `/warn N` offers.
    from bot.rules.sanctions import VCode
    from bot.views.i18n import Texts

    readme = (ROOT / "README.ru.md").read_text(encoding="utf-8")
    texts = Texts("ru")
    for code in VCode:
        row = f"| {code.value} | {texts('ru', f'violation.{code.value}')} |"
        assert row in readme, row
