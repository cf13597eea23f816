"""T1, T4, T6: the tournament settings, their validation, JSON and the change list."""

from __future__ import annotations

import dataclasses
import json

import pytest

from bot.rules.errors import BadSettings
from bot.rules.settings import GameSettings, KillRule
from bot.tournament.settings import (
    SettingChange,
    TournamentSettings,
    diff_settings,
    settings_from_json,
    settings_to_json,
)

DEFAULT = TournamentSettings()


@pytest.mark.rule("T1")
def test_T1_T4_defaults_are_the_regulation() -> None:
    assert (DEFAULT.group_min, DEFAULT.group_max) == (12, 16)
    assert (DEFAULT.bonus_threshold, DEFAULT.bonus_coefficient) == (14, 12)
    assert DEFAULT.game == GameSettings()


BAD = [
    pytest.param({"group_min": 0}, id="min below 1"),
    pytest.param({"group_min": 14, "group_max": 13}, id="min above max"),
    pytest.param({"group_min": 10}, id="group smaller than the game allows"),
    pytest.param({"group_max": 17}, id="group larger than the game allows"),
    pytest.param({"group_min": 12.0}, id="not a whole number"),
    pytest.param({"group_max": True}, id="a bool is not a number"),
    pytest.param({"bonus_threshold": -1}, id="negative threshold"),
    pytest.param({"bonus_coefficient": 9}, id="coefficient below x1.0"),
    pytest.param({"game": {"min_players": 12}}, id="game is not GameSettings"),
]


@pytest.mark.rule("T1")
@pytest.mark.parametrize("changes", BAD)
def test_T1_T4_bad_settings_are_refused(changes: dict[str, object]) -> None:
    with pytest.raises(BadSettings):
        TournamentSettings(**changes)  # type: ignore[arg-type]


@pytest.mark.rule("T1")
def test_T1_groups_may_use_the_whole_range_the_game_allows() -> None:
    game = GameSettings(min_players=8, max_players=16)
    settings = TournamentSettings(group_min=8, group_max=10, game=game)
    assert (settings.group_min, settings.group_max) == (8, 10)


@pytest.mark.rule("T6")
def test_T6_json_round_trip_keeps_every_value() -> None:
    changed = TournamentSettings(
        group_min=13,
        group_max=15,
        bonus_threshold=13,
        bonus_coefficient=15,
        game=dataclasses.replace(GameSettings(), night_seconds=12.5, kill_rule=KillRule.MAJORITY),
    )
    for settings in (DEFAULT, changed):
        text = settings_to_json(settings)
        assert settings_from_json(text) == settings
        assert json.loads(text)["game"]["mafia_by_players"]["14"] == 4


@pytest.mark.rule("T6")
def test_T6_missing_fields_take_defaults() -> None:
    assert settings_from_json("{}") == DEFAULT
    assert settings_from_json('{"group_max": 15, "game": {}}') == TournamentSettings(group_max=15)


MALFORMED = [
    pytest.param("not json", id="not JSON"),
    pytest.param("[]", id="not an object"),
    pytest.param('{"group_size": 12}', id="unknown field"),
    pytest.param('{"game": {"nigth_seconds": 5}}', id="unknown game field"),
    pytest.param('{"game": 5}', id="game not an object"),
    pytest.param('{"group_min": null}', id="null number"),
    pytest.param('{"group_min": "twelve"}', id="text number"),
    pytest.param('{"game": {"kill_rule": "random"}}', id="unknown kill rule"),
    pytest.param('{"game": {"mafia_by_players": {"x": 3}}}', id="bad roles table key"),
    pytest.param('{"bonus_coefficient": 5}', id="breaks a rule"),
]


@pytest.mark.rule("T6")
@pytest.mark.parametrize("text", MALFORMED)
def test_T6_malformed_json_raises_bad_settings(text: str) -> None:
    with pytest.raises(BadSettings):
        settings_from_json(text)


@pytest.mark.rule("T6")
def test_T6_no_change_no_announcement() -> None:
    assert diff_settings(DEFAULT, TournamentSettings()) == []


DIFFS = [
    pytest.param(
        TournamentSettings(group_max=15),
        [SettingChange("group_max", 16, 15)],
        id="group bound",
    ),
    pytest.param(
        TournamentSettings(bonus_threshold=12, bonus_coefficient=15),
        [SettingChange("bonus_threshold", 14, 12), SettingChange("bonus_coefficient", 12, 15)],
        id="scoring, in declaration order",
    ),
    pytest.param(
        TournamentSettings(game=GameSettings(round1_seconds=45.0, kill_rule=KillRule.MAJORITY)),
        [
            SettingChange("game.round1_seconds", 60.0, 45.0),
            SettingChange("game.kill_rule", KillRule.UNANIMOUS, KillRule.MAJORITY),
        ],
        id="game scheme, flattened",
    ),
    pytest.param(
        TournamentSettings(
            game=GameSettings(mafia_by_players={**GameSettings().mafia_by_players, 16: 5})
        ),
        [
            SettingChange(
                "game.mafia_by_players",
                GameSettings().mafia_by_players,
                {**GameSettings().mafia_by_players, 16: 5},
            )
        ],
        id="roles table as one field",
    ),
]


@pytest.mark.rule("T6")
@pytest.mark.parametrize(("new", "expected"), DIFFS)
def test_T6_diff_lists_the_changed_settings(
    new: TournamentSettings, expected: list[SettingChange]
) -> None:
    assert diff_settings(DEFAULT, new) == expected
    # And back: the same fields, old and new swapped.
    assert diff_settings(new, DEFAULT) == [SettingChange(c.name, c.new, c.old) for c in expected]
