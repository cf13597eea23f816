"""Command arguments, declared once and parsed in one place (issue 10): table-driven."""

from __future__ import annotations

from typing import Any

import pytest

from handlers.args import (
    GAME,
    GROUP_CODE,
    NAME,
    NICK,
    POINTS,
    REASON,
    SEAT,
    SECONDS,
    SETTINGS,
    USERNAME,
    Arg,
    BadArguments,
    Depends,
    Form,
    Word,
    parse,
)

EXTEND: tuple[Form, ...] = ((Arg("seconds", SECONDS),),)
WARN: tuple[Form, ...] = ((Arg("seat", SEAT), Arg("code", Word(("V1", "V2", "V4")))),)
HOST: tuple[Form, ...] = ((), (Arg("username", USERNAME),))
ADJUST: tuple[Form, ...] = ((Arg("nick", NICK), Arg("points", POINTS), Arg("reason", REASON)),)
FIX: tuple[Form, ...] = (
    (Arg("game", GAME), Arg("field", Word(("winner",))), Arg("side", Word(("mafia",)))),
    (Arg("game", GAME), Arg("field", Word(("seat",))), Arg("seat", SEAT)),
)
BIND: tuple[Form, ...] = ((Arg("code", GROUP_CODE), Arg("host", USERNAME, optional=True)),)
SETTING: tuple[Form, ...] = (
    (),
    (
        Arg("name", Word(tuple(SETTINGS))),
        Arg("value", Depends("name", SETTINGS)),
        Arg("override", Word(("override",)), optional=True),
    ),
)
TOURNAMENT: tuple[Form, ...] = ((Arg("name", NAME),),)

GOOD: list[tuple[tuple[Form, ...], str | None, dict[str, Any]]] = [
    (EXTEND, "30", {"seconds": 30}),
    (EXTEND, " 600 ", {"seconds": 600}),
    (EXTEND, "1", {"seconds": 1}),
    (WARN, "5 v2", {"seat": 5, "code": "V2"}),
    (WARN, "16 V4", {"seat": 16, "code": "V4"}),
    (HOST, None, {}),
    (HOST, "@anna_K", {"username": "@anna_K"}),
    (ADJUST, "Anna -0.5 late again", {"nick": "Anna", "points": -5, "reason": "late again"}),
    (ADJUST, "Anna +100 x", {"nick": "Anna", "points": 1000, "reason": "x"}),
    (FIX, "12 winner mafia", {"game": 12, "field": "winner", "side": "mafia"}),
    (FIX, "12 seat 3", {"game": 12, "field": "seat", "seat": 3}),
    (BIND, "t1r2g3", {"code": "T1R2G3"}),
    (BIND, "T1R2G3 @host", {"code": "T1R2G3", "host": "@host"}),
    (SETTING, "", {}),
    (SETTING, "game.night_seconds 45", {"name": "game.night_seconds", "value": 45}),
    (SETTING, "game.kill_rule MAJORITY", {"name": "game.kill_rule", "value": "majority"}),
    (SETTING, "group_max 15 override", {"name": "group_max", "value": 15, "override": "override"}),
    (TOURNAMENT, "Autumn  Cup", {"name": "Autumn Cup"}),
]

ABSURD = (
    *("-5", "0", "601", "1e3", "inf", "nan", "NaN", "-inf", "1" + "0" * 100, "10**100"),
    *("²", "１２", "١٢", "0x10", "+5", "5.0", "5,5", "<b>5</b>", "\u202e5", "5 6", "", "🙂"),
)

BAD: list[tuple[tuple[Form, ...], str | None]] = [
    *((EXTEND, value) for value in ABSURD),
    (EXTEND, None),
    (WARN, "0 V2"),
    (WARN, "17 V2"),
    (WARN, "5 V9"),
    (WARN, "5"),
    (WARN, "5 V2 extra"),
    (WARN, "V2 5"),
    (HOST, "anna"),
    (HOST, "@" + "a" * 40),
    (HOST, "@anna @boris"),
    (ADJUST, "Anna 99999 too much"),
    (ADJUST, "Anna 100.1 x"),
    (ADJUST, "Anna nan x"),
    (ADJUST, "Anna inf x"),
    (ADJUST, "Anna 1e3 x"),
    (ADJUST, "Anna 0.05 x"),
    (ADJUST, "Anna 1"),
    (ADJUST, "A" * 33 + " 1 x"),
    (ADJUST, "Anna 1 " + "x" * 201),
    (FIX, "12 winner nobody"),
    (FIX, "12 seat 99999999999"),
    (FIX, "9" * 100 + " winner mafia"),
    (FIX, "-1 winner mafia"),
    (FIX, "12 loser mafia"),
    (BIND, ""),
    (BIND, "T1R1"),
    (BIND, "T1R1G1; DROP TABLE games"),
    (BIND, "T" + "1" * 20 + "R1G1"),
    (SETTING, "game.night_seconds inf"),
    (SETTING, "game.night_seconds nan"),
    (SETTING, "game.night_seconds 1e300"),
    (SETTING, "game.night_seconds 0"),
    (SETTING, "game.night_seconds 3601"),
    (SETTING, "game.night_seconds"),
    (SETTING, "group_max 99999999999999999999"),
    (SETTING, "bonus_coefficient 9"),
    (SETTING, "game.kill_rule anyone"),
    (SETTING, "game.mafia_by_players {}"),
    (SETTING, "nosuch 5"),
    (SETTING, "group_min 12 override please"),
    (SETTING, "group_min 12 now"),
    (TOURNAMENT, ""),
    (TOURNAMENT, "x" * 101),
]


@pytest.mark.parametrize(("forms", "text", "expected"), GOOD)
def test_arguments_parse_to_typed_values(
    forms: tuple[Form, ...], text: str | None, expected: dict[str, Any]
) -> None:
    assert parse(forms, text) == expected


@pytest.mark.parametrize(("forms", "text"), BAD)
def test_absurd_arguments_are_refused(forms: tuple[Form, ...], text: str | None) -> None:
    with pytest.raises(BadArguments):
        parse(forms, text)


def test_every_setting_shown_by_settings_can_be_declared() -> None:
    from bot.rules.settings import TIMER_FIELDS

    assert {f"game.{name}" for name in TIMER_FIELDS} <= set(SETTINGS)
    assert {"group_min", "group_max", "bonus_threshold", "bonus_coefficient"} <= set(SETTINGS)
