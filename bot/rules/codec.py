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

# Values that are their own JSON form. Only these exact types: a subclass may be an Enum
# (an IntEnum is an int) and must give its value, so it goes through `_shape`.
_SCALARS = frozenset({str, int, float, bool, type(None)})

# What `to_json` does with a value of a class, other than a dataclass (whose shape is its
# field names).
_ENUM = "enum"
_DICT = "dict"
_SEQUENCE = "sequence"
_AS_IS = "as is"


@cache
def _shape(cls: type) -> tuple[str, ...] | str:
    """How `to_json` treats an instance of `cls`, decided once per class.

    The order of the checks is the encoding's: an Enum first (even one that is an int, a
    str or a dataclass), then a dataclass instance, a dict, a list or tuple, and anything
    else as it is.
    """
    if issubclass(cls, Enum):
        return _ENUM
    if dataclasses.is_dataclass(cls) and not issubclass(cls, type):
        return tuple(f.name for f in dataclasses.fields(cls))
    if issubclass(cls, dict):
        return _DICT
    if issubclass(cls, list | tuple):
        return _SEQUENCE
    return _AS_IS


def to_json(obj: Any) -> Any:
    # The whole state goes through here on every action: the work per value is one look
    # at its type, the rest is cached per class.
    cls: type = type(obj)
    if cls in _SCALARS:
        return obj
    shape = _shape(cls)
    if type(shape) is tuple:
        return {name: to_json(getattr(obj, name)) for name in shape}
    if shape is _ENUM:
        return obj.value
    if shape is _DICT:
        # JSON keys are strings; `from_json` turns them back by the declared key type.
        return {str(to_json(k)): to_json(v) for k, v in obj.items()}
    if shape is _SEQUENCE:
        return [to_json(v) for v in obj]
    return obj


# How `from_json` reads a value of a declared type (with what `_reading` found).
_OPTION = "option"  # a union: None where it allows None, else its first other option
_DICT_OF = "dict of"
_LIST_OF = "list of"
_TUPLE_OF = "tuple of"
_DATACLASS = "dataclass"
_ENUM_MEMBER = "enum member"
_FLOAT = "float"
_INT = "int"


@cache
def _reading(tp: Any) -> tuple[str, Any]:
    """How `from_json` reads a value declared as `tp`, decided once per type hint."""
    origin = get_origin(tp)
    if origin in (Union, types.UnionType):
        options = get_args(tp)
        others = [option for option in options if option is not type(None)]
        if others:
            return _OPTION, (type(None) in options, others[0])
    if origin is dict:
        return _DICT_OF, get_args(tp)
    if origin is list:
        (item_type,) = get_args(tp)
        return _LIST_OF, item_type
    if origin is tuple:
        return _TUPLE_OF, get_args(tp)[0]
    if isinstance(tp, type):
        if dataclasses.is_dataclass(tp):
            hints = get_type_hints(tp)
            # Fields the constructor does not take are left to it; a missing key, to
            # the field's default.
            return _DATACLASS, tuple(
                (f.name, hints[f.name]) for f in dataclasses.fields(tp) if f.init
            )
        if issubclass(tp, Enum):
            return _ENUM_MEMBER, None
        if tp is float:
            return _FLOAT, None
        if tp is int:
            return _INT, None
    return _AS_IS, None


def from_json(tp: Any, value: Any) -> Any:
    how, detail = _reading(tp)
    if how is _OPTION:
        nullable, option = detail
        if value is None and nullable:
            return None
        return from_json(option, value)
    if how is _DICT_OF:
        key_type, value_type = detail
        return {from_json(key_type, k): from_json(value_type, v) for k, v in value.items()}
    if how is _LIST_OF:
        return [from_json(detail, v) for v in value]
    if how is _TUPLE_OF:
        return tuple(from_json(detail, v) for v in value)
    if how is _DATACLASS:
        return tp(**{name: from_json(hint, value[name]) for name, hint in detail if name in value})
    if how is _ENUM_MEMBER:
        return tp(value)
    if how is _FLOAT:
        return float(value)
    if how is _INT:
        return int(value)
    return value
