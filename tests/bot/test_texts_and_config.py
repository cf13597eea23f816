"""Catalogs, config and rendering, without Telegram."""

from __future__ import annotations

import string
from pathlib import Path

import pytest

from bot.config import load_config
from bot.rules.engine import apply, start_game
from bot.rules.events import Player
from bot.rules.settings import GameSettings, KillRule
from bot.views.i18n import LANGUAGES, Texts, load_catalog
from bot.views.render import Audience, Edit, Post, Unkey, render

ROOT = Path(__file__).resolve().parents[2]


def placeholders(template: str) -> set[str]:
    return {name for _, name, _, _ in string.Formatter().parse(template) if name}


def test_catalogs_have_the_same_keys_and_placeholders() -> None:
    ru, en = load_catalog("ru"), load_catalog("en")
    # A word's forms after a number follow each language's own plural categories.
    words = {k for k in ru if k.startswith("plural.")}
    assert {k.rsplit(".", 1)[0] for k in words} == {
        k.rsplit(".", 1)[0] for k in en if k.startswith("plural.")
    }
    assert {k.rsplit(".", 1)[1] for k in words} == {"one", "few", "many"}
    assert {k.rsplit(".", 1)[1] for k in en if k.startswith("plural.")} == {"one", "other"}
    ru = {k: v for k, v in ru.items() if k not in words}
    en = {k: v for k, v in en.items() if not k.startswith("plural.")}
    assert set(ru) == set(en)
    for key in ru:
        assert placeholders(ru[key]) == placeholders(en[key]), key


def test_every_text_in_code_exists_in_the_catalogs() -> None:
    import re

    used: set[str] = set()
    for folder in ("bot", "handlers"):
        for path in (ROOT / folder).rglob("*.py"):
            used |= set(
                re.findall(
                    r'"((?:error|common|lobby|host|status|rights|phase|commands|'
                    r"day|night|over|button|turn|vote|lot|left|morning|sanction|"
                    r'penalty|role|game|verify|panel|violation)\.[a-z_0-9.]+)"',
                    path.read_text(),
                )
            )
    catalog = load_catalog("en")
    assert used, "the scan found no keys"
    assert sorted(k for k in used if k not in catalog) == []


def test_example_config_is_the_default_config() -> None:
    example = load_config(ROOT / "config.example.toml", env={})
    default = load_config(None, env={})
    assert example.casual_settings() == default.casual_settings()
    assert example.bot.token is None


def test_environment_overrides_the_file(tmp_path: Path) -> None:
    path = tmp_path / "config.toml"
    path.write_text(
        '[bot]\ntoken = "1:file"\n[game]\nround1_seconds = 0.5\nkill_rule = "majority"\n'
    )
    config = load_config(path, env={"MAFIA_BOT_TOKEN": "2:env", "MAFIA_DATABASE": "x.db"})
    assert config.bot.token is not None and config.bot.token.get_secret_value() == "2:env"
    assert config.database_path == tmp_path / "x.db"
    settings = config.casual_settings()
    assert settings.round1_seconds == 0.5 and settings.kill_rule is KillRule.MAJORITY


def test_unknown_setting_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "config.toml"
    path.write_text("[game]\nround_one = 5\n")
    with pytest.raises(ValueError, match="round_one"):
        load_config(path, env={})


@pytest.mark.parametrize(
    ("section", "text", "names"),
    [
        ("game", "introduction_seconds = 1e12", "introduction_seconds"),
        ("game", "night_seconds = inf", "night_seconds"),
        ("game", "vote_seconds = nan", "vote_seconds"),
        ("game", "round1_seconds = 0", "round1_seconds"),
        ("game", "warning_seconds = 1e12", "warning_seconds"),
        ("casual", "min_players = 20", "player bounds"),
        ("bot", "flood_window_scale = inf", "flood_window_scale"),
    ],
)
def test_an_absurd_value_in_the_config_stops_the_start_with_a_clear_error(
    tmp_path: Path, section: str, text: str, names: str
) -> None:
    """Issue 10: `1e12` seconds used to be accepted, and the bot failed later, mid-game."""
    path = tmp_path / "config.toml"
    path.write_text(f"[{section}]\n{text}\n")
    with pytest.raises(ValueError, match=names):
        load_config(path, env={})


@pytest.mark.parametrize("lang", LANGUAGES)
def test_the_deal_renders_a_pinned_seating_and_protected_cards(lang: str) -> None:
    players = [Player(100 + i, f"<b>P{i}</b>") for i in range(12)]
    state, events = start_game(7, players, GameSettings(), "seed", 0.0)
    out = render(events, state, Audience(7, -1001, lang), Texts())
    pinned = [o for o in out if isinstance(o, Post) and o.pin]
    assert len(pinned) == 1 and state.commitment in pinned[0].text
    assert "<b>P" not in pinned[0].text and "&lt;b&gt;P" in pinned[0].text  # nicks escaped
    cards = [o for o in out if isinstance(o, Post) and o.chat_id > 0 and o.protect]
    assert len(cards) == 12
    # Beside the cards, one private notice: the second speaker hears they speak next.
    notices = [o for o in out if isinstance(o, Post) and o.chat_id > 0 and not o.protect]
    assert len(notices) == 1
    turn = [o for o in out if isinstance(o, Post) and o.remember == "turn"]
    assert len(turn) == 1 and turn[0].keyboard is not None


def test_a_nomination_edits_the_turn_message_instead_of_posting() -> None:
    from bot.rules.actions import Nominate, Pass, Timeout
    from bot.rules.events import Phase

    players = [Player(100 + i, f"P{i}") for i in range(12)]
    state, _ = start_game(7, players, GameSettings(), "seed", 0.0)
    now = 0.0
    while state.phase is not Phase.ROUND_2:
        now += 100
        state, _ = apply(state, Timeout(state.step), now)
    assert state.speaker is not None
    target = next(s for s in state.living() if s != state.speaker)
    state, events = apply(state, Nominate(state.speaker, target), now)
    out = render(events, state, Audience(7, -1001, "en"), Texts())
    assert [type(o) for o in out] == [Edit]
    assert state.speaker is not None  # a nomination leaves the turn with its speaker
    state, events = apply(state, Pass(state.speaker), now)
    after = render(events, state, Audience(7, -1001, "en"), Texts())
    # The ended turn's buttons go, the next turn is posted, and the one after it hears
    # privately that they speak next (issue 22 §3).
    assert [type(o) for o in after] == [Unkey, Post, Post]
    assert sorted(o.chat_id > 0 for o in after if isinstance(o, Post)) == [False, True]
