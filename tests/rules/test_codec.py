"""The codec gives exactly the JSON, and reads back exactly the values, it always has.

`to_json` and `from_json` decide per class (or per type hint) once and cache it; the
references below are the plain reflective algorithms they replaced, kept here only so
that any drift in the stored protocol, state or settings fails a test.
"""

from __future__ import annotations

import dataclasses
import json
import types
from collections import OrderedDict, defaultdict, namedtuple
from dataclasses import dataclass, field
from enum import Enum, IntEnum, StrEnum
from typing import Any, ClassVar, Optional, Union, get_args, get_origin, get_type_hints

import pytest

from bot.rules.codec import from_json, to_json
from bot.rules.events import EVENT_TYPES, ClockRestarted, Event, HostChanged, LotDrawn
from bot.rules.protocol import Entry, entry_to_json, state_from_json, state_to_json
from bot.rules.roles import Role
from bot.rules.sanctions import Penalty, VCode
from bot.rules.settings import GameSettings, KillRule
from bot.rules.sheet import SheetRow, sheet
from bot.rules.state import GameState, SanctionRecord, SeatState

from .test_properties import Plan, Run, play


def _reference_to_json(obj: Any) -> Any:
    if isinstance(obj, Enum):
        return obj.value
    if dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        return {f.name: _reference_to_json(getattr(obj, f.name)) for f in dataclasses.fields(obj)}
    if isinstance(obj, dict):
        return {str(_reference_to_json(k)): _reference_to_json(v) for k, v in obj.items()}
    if isinstance(obj, list | tuple):
        return [_reference_to_json(v) for v in obj]
    return obj


def _reference_from_json(tp: Any, value: Any) -> Any:
    origin = get_origin(tp)
    if origin in (Union, types.UnionType):
        options = get_args(tp)
        if value is None and type(None) in options:
            return None
        for option in options:
            if option is not type(None):
                return _reference_from_json(option, value)
    if origin is dict:
        key_type, value_type = get_args(tp)
        return {
            _reference_from_json(key_type, k): _reference_from_json(value_type, v)
            for k, v in value.items()
        }
    if origin is list:
        (item_type,) = get_args(tp)
        return [_reference_from_json(item_type, v) for v in value]
    if origin is tuple:
        item_type = get_args(tp)[0]
        return tuple(_reference_from_json(item_type, v) for v in value)
    if isinstance(tp, type):
        if dataclasses.is_dataclass(tp):
            hints = get_type_hints(tp)
            return tp(
                **{
                    f.name: _reference_from_json(hints[f.name], value[f.name])
                    for f in dataclasses.fields(tp)
                    if f.init and f.name in value
                }
            )
        if issubclass(tp, Enum):
            return tp(value)
        if tp is float:
            return float(value)
        if tp is int:
            return int(value)
    return value


def same(a: Any, b: Any) -> bool:
    """Equal and of the same types all the way down (True == 1, but not in JSON)."""
    if type(a) is not type(b):
        return False
    if isinstance(a, dict):
        return (
            list(a) == list(b)
            and all(same(k, k2) for k, k2 in zip(a, b, strict=True))
            and all(same(a[k], b[k]) for k in a)
        )
    if isinstance(a, list | tuple):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b, strict=True))
    return bool(a == b)


def assert_encodes_as_before(value: Any) -> Any:
    data = to_json(value)
    expected = _reference_to_json(value)
    assert same(data, expected), (value, data, expected)
    return data


# Sixteen players with the Host's clock and sanctions in play; one game played out, one
# stopped by the Host early on.
PLAYED = Plan(
    players=16,
    casual=False,
    kill_rule=KillRule.MAJORITY,
    seed="codec",
    choices=0,
    timeout_rate=0.15,
    host_rate=0.05,
    probe_rate=0.0,
    stop_rate=0.0,
)
STOPPED = dataclasses.replace(PLAYED, seed="codec-stopped", choices=5, stop_rate=0.002)


@pytest.fixture(scope="module")
def runs() -> list[Run]:
    return [play(PLAYED, checked=False, snapshot_every=25), play(STOPPED, checked=False)]


def test_a_played_games_state_encodes_as_before_at_every_point(runs: list[Run]) -> None:
    played = runs[0]
    assert len(played.state.seats) == 16 and played.state.finished
    states = [state for _, state in played.snapshots] + [r.state for r in runs]
    assert any(s.sanctions and s.votes and not s.finished for s in states)
    for state in states:
        data = assert_encodes_as_before(state)
        assert state_to_json(state) == data


@pytest.mark.rule("S3")
def test_S3_a_played_games_state_reads_back_as_before(runs: list[Run]) -> None:
    for state in [s for _, s in runs[0].snapshots] + [r.state for r in runs]:
        data = json.loads(json.dumps(state_to_json(state)))
        back = from_json(GameState, data)
        assert back == state == _reference_from_json(GameState, data)
        assert state_from_json(data) == state
        assert same(to_json(back), to_json(state))


def test_every_event_type_encodes_and_reads_back_as_before(runs: list[Run]) -> None:
    # Those the random games rarely or never reach, as the engine emits them (D8, D10, T3).
    samples = [
        Entry(1.5, LotDrawn(seat=7)),
        Entry(2.25, ClockRestarted(step=41, deadline=90.5)),
        Entry(3.0, HostChanged(previous=1001, host=1002)),
    ]
    entries = [e for r in runs for e in r.entries] + samples
    assert {type(e.event) for e in entries} == set(EVENT_TYPES.values())
    for entry in entries:
        event = entry.event
        data = assert_encodes_as_before(event)
        assert entry_to_json(entry) == {"at": entry.at, "type": type(event).__name__, **data}
        data = json.loads(json.dumps(data))
        cls = EVENT_TYPES[type(event).__name__]
        back: Event = from_json(cls, data)
        assert back == event == _reference_from_json(cls, data)


def test_settings_records_and_the_sheet_encode_as_before(runs: list[Run]) -> None:
    settings = GameSettings(min_players=5, round1_seconds=1.5, kill_rule=KillRule.MAJORITY)
    data = assert_encodes_as_before(settings)
    assert data["mafia_by_players"]["12"] == 3
    assert from_json(GameSettings, data) == settings == _reference_from_json(GameSettings, data)
    rows = sheet(runs[0].state)
    data = assert_encodes_as_before(rows)
    back = [from_json(SheetRow, d) for d in json.loads(json.dumps(data))]
    assert back == rows == [_reference_from_json(SheetRow, d) for d in data]
    record = SanctionRecord(3, None, Penalty.WARNING)
    assert assert_encodes_as_before(record) == {"seat": 3, "code": None, "penalty": "warning"}
    seat = SeatState(1, 1001, "Вера", left_day=2)
    assert from_json(SeatState, to_json(seat)) == seat


# --- the corners: what the order of the checks decides ----------------------------------


class Level(IntEnum):
    LOW = 1
    HIGH = 2


class Colour(StrEnum):
    RED = "red"


class Pair(Enum):
    ONE_TWO = (1, 2)  # an Enum's value is given as it is, not encoded further


class Flag(int):
    """An int that is not an Enum stays itself."""


class Name(str):
    pass


Point = namedtuple("Point", "x y")


@dataclass(frozen=True)
class Inner:
    level: Level
    colour: Colour | None = None


@dataclass
class Outer:
    KIND: ClassVar[str] = "outer"  # not a field: not encoded
    inners: tuple[Inner, ...]
    by_colour: dict[Colour, list[Inner]]
    nested: dict[int, dict[Colour, float | None]]
    maybe: int | None = None
    derived: int = field(init=False, default=0)  # encoded, but not given back to __init__


@pytest.mark.parametrize(
    "value",
    [
        None,
        True,
        False,
        0,
        -7,
        1.5,
        float("inf"),
        "",
        "Вера",
        Level.HIGH,
        Colour.RED,
        Pair.ONE_TWO,
        Flag(5),
        Name("x"),
        (1, "a", None),
        [True, 1, 1.0, None],
        Point(1, Level.LOW),
        {1: "a", Level.HIGH: "b", Colour.RED: "c", False: "d", None: "e", 2.5: "f"},
        {3: {4: {Level.HIGH: (Colour.RED, None)}}},
        defaultdict(list, {1: [Inner(Level.LOW)]}),
        OrderedDict([(Role.MAFIA, Penalty.BAN), (VCode.V2, 1)]),
        {1, 2},
        frozenset({Level.LOW}),
        Inner,  # a dataclass itself, not an instance: as it is
        Level,
        Inner(Level.HIGH, Colour.RED),
        Outer(
            inners=(Inner(Level.LOW), Inner(Level.HIGH, Colour.RED)),
            by_colour={Colour.RED: [Inner(Level.HIGH)]},
            nested={1: {Colour.RED: None}, 2: {}},
            maybe=0,
        ),
    ],
    ids=lambda value: type(value).__name__,
)
def test_every_kind_of_value_encodes_as_before(value: Any) -> None:
    data = assert_encodes_as_before(value)
    assert same(to_json(value), data)  # the second time, from the cache, too


def test_enums_that_are_ints_or_strs_give_their_value_not_themselves() -> None:
    for member in (Level.HIGH, Colour.RED):
        assert type(to_json(member)) is type(member.value)
        assert type(to_json({member: member})[str(member.value)]) is type(member.value)
    assert to_json(True) is True and to_json({True: 1}) == {"True": 1}


def test_values_read_back_by_their_hints_as_before() -> None:
    outer = Outer(
        inners=(Inner(Level.LOW), Inner(Level.HIGH, Colour.RED)),
        by_colour={Colour.RED: [Inner(Level.HIGH)]},
        nested={1: {Colour.RED: None}, 2: {Colour.RED: 2.0}},
    )
    data = json.loads(json.dumps(to_json(outer)))
    back = from_json(Outer, data)
    assert back == outer == _reference_from_json(Outer, data)
    cases: list[tuple[Any, Any]] = [
        (Optional[int], None),  # noqa: UP045 - the old spelling is a Union too
        (int | None, "3"),
        (Level | None, 2),
        (float, 3),
        (int, 2.0),
        (bool, True),
        (str, "x"),
        (Any, {"a": [1]}),
        (list, [1, "2"]),
        (tuple[Penalty, ...], ["warning", "ban"]),
        (dict[int, Role], {"1": "mafia"}),
        (dict[str, Any], {"k": [None]}),
        (list[dict[int, float]], [{"2": 1}]),
    ]
    for tp, value in cases:
        for _ in range(2):  # the first call decides and caches, the second reads the cache
            got, expected = from_json(tp, value), _reference_from_json(tp, value)
            assert same(got, expected), (tp, value, got, expected)
    # None where the hint does not allow it is read as its first option would, and fails.
    for decode in (from_json, _reference_from_json):
        with pytest.raises(TypeError):
            decode(int | str, None)
