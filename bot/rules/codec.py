"""Dataclasses to JSON-ready values and back, driven by their type hints.

The state, the settings and every event round-trip through this one codec, so
the protocol stored in SQLite and the JSON download are the same data.
"""

from __future__ import annotations

import dataclasses
import types
from enum import Enum
from functools import cache
from typing import Any, Union, get_args, get_origin, get_type_hints


def to_json(obj: Any) -> Any:
    if isinstance(obj, Enum):
        return obj.value
    if dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        return {f.name: to_json(getattr(obj, f.name)) for f in dataclasses.fields(obj)}
    if isinstance(obj, dict):
        # JSON keys are strings; `from_json` turns them back by the declared key type.
        return {str(to_json(k)): to_json(v) for k, v in obj.items()}
    if isinstance(obj, list | tuple):
        return [to_json(v) for v in obj]
    return obj


@cache
def _hints(cls: type) -> dict[str, Any]:
    return get_type_hints(cls)


def from_json(tp: Any, value: Any) -> Any:
    origin = get_origin(tp)
    if origin in (Union, types.UnionType):
        options = get_args(tp)
        if value is None and type(None) in options:
            return None
        for option in options:
            if option is not type(None):
                return from_json(option, value)
    if origin is dict:
        key_type, value_type = get_args(tp)
        return {from_json(key_type, k): from_json(value_type, v) for k, v in value.items()}
    if origin is list:
        (item_type,) = get_args(tp)
        return [from_json(item_type, v) for v in value]
    if origin is tuple:
        item_type = get_args(tp)[0]
        return tuple(from_json(item_type, v) for v in value)
    if isinstance(tp, type):
        if dataclasses.is_dataclass(tp):
            hints = _hints(tp)
            return tp(
                **{
                    f.name: from_json(hints[f.name], value[f.name])
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
