"""T6: settings read in words and units, in both languages (bot.views.settings)."""

from __future__ import annotations

from dataclasses import replace

import pytest

from bot.rules.settings import KillRule
from bot.tournament.settings import JUDGE_RANGES, TournamentSettings, diff_settings
from bot.views.i18n import Texts
from bot.views.settings import SHOWN, change_lines, settings_lines

T = Texts()


@pytest.mark.rule("T6")
def test_T6_every_setting_the_judge_may_change_has_a_name_and_a_unit() -> None:
    assert set(JUDGE_RANGES) <= set(SHOWN)
    for lang in ("ru", "en"):
        lines = settings_lines(T, lang, TournamentSettings(), keys=True)
        assert len(lines) == len(SHOWN)
        for key, line in zip(SHOWN, lines, strict=True):
            assert line.endswith(f"— <code>{key}</code>")
            assert "_" not in line.split(" — <code>")[0]  # no key in the words
        plain = settings_lines(T, lang, TournamentSettings())
        assert not any("<code>" in line or "game." in line for line in plain)


@pytest.mark.rule("T6")
def test_T6_values_in_their_units_with_a_decimal_comma_in_russian() -> None:
    lines = settings_lines(T, "ru", TournamentSettings())
    assert "Круг 1: 60 с на игрока" in lines
    assert "Оправдательная речь: 60 с на лидера" in lines
    assert "Ночь: 60 с" in lines
    assert "Коэффициент при &gt;14 игроках: 1,2" in lines
    assert "Таблица видна игрокам до конца турнира: да" in lines
    assert "Coefficient with &gt;14 players: 1.2" in settings_lines(T, "en", TournamentSettings())


@pytest.mark.rule("T6")
def test_T6_a_change_reads_old_to_new_in_words() -> None:
    old = TournamentSettings()
    new = replace(
        old,
        bonus_coefficient=15,
        standings_visible=False,
        game=replace(old.game, night_seconds=7.5, kill_rule=KillRule.MAJORITY),
    )
    assert change_lines(T, "ru", diff_settings(old, new), new) == [
        "Коэффициент при &gt;14 игроках: 1,2 → 1,5",
        "Таблица видна игрокам до конца турнира: да → нет",
        "Ночь: 60 с → 7,5 с",
        "Отстрел: если все мафиози назвали одного и того же → "
        "если больше половины мафиози назвали одного и того же",
    ]
