"""The shape of every Bot API request and answer, checked against the committed table.

Telegram's own server is lenient about shape: it ignores parameters it does not know and
coerces what it can. The sandbox is deliberately stricter, so that a typo in a parameter
name, a missing required value or a string where an integer belongs fails a test instead
of silently doing nothing in production. The same checker also guards the other way: a
result the sandbox is about to return must be a valid object of the declared type, so the
bot under test never parses something the real Telegram would not send.

Values arrive in two shapes. Form and multipart bodies (aiogram's choice) carry strings:
integers and booleans as text, objects and arrays as JSON text, files as parts referenced
by `attach://<name>`. JSON bodies carry native values. Top-level parameters accept both;
nested objects must be proper JSON, as aiogram always sends them.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

from sandbox.api_errors import ApiError

TABLE_PATH = Path(__file__).with_name("api_table.json")

_INTEGER = re.compile(r"-?\d+")
_TRUE_WORDS = frozenset({"true", "1"})
_FALSE_WORDS = frozenset({"false", "0"})
_ARRAY = "Array of "


@dataclass(frozen=True)
class FieldSpec:
    types: tuple[str, ...]
    required: bool
    const: str | None = None


@dataclass(frozen=True)
class MethodSpec:
    name: str
    params: Mapping[str, FieldSpec]
    returns: tuple[str, ...]


@dataclass(frozen=True)
class UploadedFile:
    """A file part of a multipart request."""

    filename: str
    content_type: str
    data: bytes


# aiogram 3.31 speaks Bot API 10.3 and requires these fields on objects the sandbox returns;
# the committed table (10.1) predates them.
# A kind of message a later Bot API brings, which no client knows yet: a test sends it
# (SimUser.send_content) to show what the bot does with a kind it has never seen. Its
# object is any JSON object; nothing else in an answer may be undocumented.
FUTURE_KIND = "future_content"
_FUTURE_TYPE = "<a later Bot API's object>"

_NEWER_FIELDS: dict[str, dict[str, FieldSpec]] = {
    "ChatMemberAdministrator": {"can_send_welcome_messages": FieldSpec(("Boolean",), False)},
    "ChatAdministratorRights": {"can_send_welcome_messages": FieldSpec(("Boolean",), False)},
    "Message": {FUTURE_KIND: FieldSpec((_FUTURE_TYPE,), False)},
}


class _Mismatch(Exception):
    """A value does not fit a declared type; the message says where and why."""

    def __init__(self, message: str, path: str = ""):
        super().__init__(message)
        self.path = path


class _BadJson(_Mismatch):
    """A form field that should hold a JSON object or array does not parse."""


def _fields(raw: Mapping[str, Any]) -> dict[str, FieldSpec]:
    return {
        name: FieldSpec(tuple(spec["types"]), bool(spec["required"]), spec.get("const"))
        for name, spec in raw.items()
    }


class ApiSchema:
    """Every method and type of the Bot API, as the sandbox enforces them."""

    def __init__(self, table: Mapping[str, Any]):
        self.version: str = table["version"]
        self._methods: dict[str, MethodSpec] = {}
        for name, spec in table["methods"].items():
            self._methods[name.lower()] = MethodSpec(
                name, _fields(spec["params"]), tuple(spec["returns"])
            )
        self._objects: dict[str, dict[str, FieldSpec]] = {}
        self._unions: dict[str, tuple[str, ...]] = {}
        for name, spec in table["types"].items():
            if "subtypes" in spec:
                self._unions[name] = tuple(spec["subtypes"])
            else:
                self._objects[name] = _fields(spec["fields"]) | _NEWER_FIELDS.get(name, {})

    @classmethod
    @cache
    def load(cls) -> ApiSchema:
        return cls(json.loads(TABLE_PATH.read_text(encoding="utf-8")))

    def method(self, name: str) -> MethodSpec | None:
        """Method names are case-insensitive in the Bot API."""
        return self._methods.get(name.lower())

    # -- requests -------------------------------------------------------------------------

    def parse_params(
        self,
        method: MethodSpec,
        raw: Mapping[str, Any],
        files: Mapping[str, UploadedFile],
    ) -> dict[str, Any]:
        """Decoded parameters of one request, or the 400 the Bot API would answer."""
        params: dict[str, Any] = {}
        for name, value in raw.items():
            spec = method.params.get(name)
            if spec is None:
                raise ApiError.bad_request(f'unknown parameter "{name}" for method {method.name}')
            params[name] = self._parameter(name, spec, value, files)
        for name, spec in method.params.items():
            if spec.required and name not in params:
                if name == "text":
                    raise ApiError.bad_request("message text is empty")
                raise ApiError.bad_request(f'parameter "{name}" is required')
        return params

    def _parameter(
        self, name: str, spec: FieldSpec, value: Any, files: Mapping[str, UploadedFile]
    ) -> Any:
        problems: list[_Mismatch] = []
        for type_name in spec.types:
            try:
                return self._top_level(type_name, value, name, files)
            except _Mismatch as mismatch:
                problems.append(mismatch)
        if any(isinstance(mismatch, _BadJson) for mismatch in problems):
            raise ApiError.bad_request(f"can't parse {name} JSON object")
        # The member that got furthest into the value explains the refusal best.
        deepest = max(problems, key=lambda mismatch: len(mismatch.path))
        if deepest.path not in ("", name):
            raise ApiError.bad_request(f"can't parse {name}: {deepest}")
        raise ApiError.bad_request(f'parameter "{name}" must be {" or ".join(spec.types)}')

    def _top_level(
        self, type_name: str, value: Any, path: str, files: Mapping[str, UploadedFile]
    ) -> Any:
        if isinstance(value, UploadedFile):
            if type_name == "InputFile":
                return value
            raise _Mismatch(f"a file part is not a {type_name}")
        if isinstance(value, str) and type_name not in ("String", "InputFile"):
            value = _from_text(type_name, value)
        return self._check(type_name, value, path, files)

    # -- objects --------------------------------------------------------------------------

    def check_result(self, method: MethodSpec, value: Any) -> None:
        """Raise `ValueError` if `value` is not what `method` is documented to return."""
        problems: list[str] = []
        for type_name in method.returns:
            try:
                self._check(type_name, value, "result", {})
                return
            except _Mismatch as mismatch:
                problems.append(str(mismatch))
        raise ValueError(f"{method.name} result is not {' or '.join(method.returns)}: {problems}")

    def _check(
        self, type_name: str, value: Any, path: str, files: Mapping[str, UploadedFile]
    ) -> Any:
        if type_name.startswith(_ARRAY):
            if not isinstance(value, list):
                raise _Mismatch(f"field {path} must be {type_name}", path)
            inner = type_name[len(_ARRAY) :]
            return [self._check(inner, item, f"{path}[{i}]", files) for i, item in enumerate(value)]
        if type_name == _FUTURE_TYPE:
            if not isinstance(value, dict):
                raise _Mismatch(f"field {path} must be a JSON object", path)
            return value
        scalar = _SCALARS.get(type_name)
        if scalar is not None:
            if not scalar(value):
                raise _Mismatch(f"field {path} must be {type_name}", path)
            return value
        if type_name == "InputFile":
            if isinstance(value, str) and value.startswith("attach://"):
                part = files.get(value[len("attach://") :])
                if part is None:
                    raise _Mismatch(f"field {path}: no file part for {value}", path)
                return part
            raise _Mismatch(f"field {path} must be InputFile", path)
        if type_name in self._unions:
            return self._check_union(type_name, value, path, files)
        fields = self._objects.get(type_name)
        if fields is None:
            raise _Mismatch(f"field {path}: unknown type {type_name}", path)
        if not isinstance(value, dict):
            raise _Mismatch(f"field {path} must be a {type_name} object", path)
        for key, item in value.items():
            spec = fields.get(key)
            if spec is None:
                raise _Mismatch(
                    f'field {path} has unknown field "{key}" for {type_name}', f"{path}.{key}"
                )
            if spec.const is not None and item != spec.const:
                raise _Mismatch(f'field {path}.{key} must be "{spec.const}"', f"{path}.{key}")
            self._check_any(spec.types, item, f"{path}.{key}", files)
        for key, spec in fields.items():
            if spec.required and key not in value:
                raise _Mismatch(f'field {path} lacks required field "{key}" of {type_name}', path)
        return value

    def _check_any(
        self,
        types: tuple[str, ...],
        value: Any,
        path: str,
        files: Mapping[str, UploadedFile],
    ) -> None:
        problems: list[_Mismatch] = []
        for type_name in types:
            try:
                self._check(type_name, value, path, files)
                return
            except _Mismatch as mismatch:
                problems.append(mismatch)
        raise max(problems, key=lambda mismatch: len(mismatch.path))

    def _check_union(
        self, union: str, value: Any, path: str, files: Mapping[str, UploadedFile]
    ) -> Any:
        members = self._unions[union]
        if isinstance(value, dict):
            for member in members:
                for key, spec in self._objects.get(member, {}).items():
                    if spec.const is not None and value.get(key) == spec.const:
                        return self._check(member, value, path, files)
        problems: list[_Mismatch] = []
        for member in members:
            if any(spec.const is not None for spec in self._objects.get(member, {}).values()):
                continue
            try:
                return self._check(member, value, path, files)
            except _Mismatch as mismatch:
                problems.append(mismatch)
        if problems:
            raise max(problems, key=lambda mismatch: len(mismatch.path))
        raise _Mismatch(f"field {path} is none of {union}: {', '.join(members)}", path)


def _is_integer(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _is_float(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _is_boolean(value: Any) -> bool:
    return isinstance(value, bool)


def _is_string(value: Any) -> bool:
    return isinstance(value, str)


_SCALARS: dict[str, Callable[[Any], bool]] = {
    "Integer": _is_integer,
    "Float": _is_float,
    "Boolean": _is_boolean,
    "String": _is_string,
}


def _from_text(type_name: str, text: str) -> Any:
    """A form field's text as the value it stands for when `type_name` is expected."""
    if type_name == "Integer":
        if _INTEGER.fullmatch(text.strip()):
            return int(text)
        raise _Mismatch(f"{text!r} is not an Integer")
    if type_name == "Float":
        try:
            return float(text)
        except ValueError:
            raise _Mismatch(f"{text!r} is not a Float") from None
    if type_name == "Boolean":
        word = text.strip().lower()
        if word in _TRUE_WORDS:
            return True
        if word in _FALSE_WORDS:
            return False
        raise _Mismatch(f"{text!r} is not a Boolean")
    try:
        return json.loads(text)
    except json.JSONDecodeError:
        raise _BadJson(f"can't parse {type_name} JSON object") from None
