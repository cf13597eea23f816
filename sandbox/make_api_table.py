"""Derive the sandbox's compact Bot API table from the scraped official specification.

The sandbox refuses every request the real Bot API would refuse for its shape: an unknown
method, an unknown or missing parameter, a value of the wrong type. It learns what is
legal from a table committed next to it (`api_table.json`), so the tests never depend on
where a copy of the specification happens to live. This script rebuilds that table from
the Bot API's documentation scraped into JSON (methods and types with their fields), when
Telegram publishes a new version of the API:

    python -m sandbox.make_api_table path/to/api.json

The table keeps, for every method, its parameters with their types and whether they are
required, and what it returns; for every type, its fields the same way, or the subtypes
of a union. A union member's discriminating field (`type`, `status`, `source`) carries
the constant it must hold, read from the field's description ("always "user"",
"must be chat"), so a nested object can be matched to the one member it claims to be.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path
from typing import Any

TABLE_PATH = Path(__file__).with_name("api_table.json")

_DISCRIMINATORS = ("type", "status", "source")
_CONSTANT = re.compile(r'(?:always|must be) "?([a-z_]+)"?')


def _field_table(fields: list[dict[str, Any]], in_union: bool) -> dict[str, dict[str, Any]]:
    table: dict[str, dict[str, Any]] = {}
    for field in fields:
        entry: dict[str, Any] = {"types": field["types"], "required": field["required"]}
        if in_union and field["name"] in _DISCRIMINATORS:
            found = _CONSTANT.search(field["description"])
            if found:
                entry["const"] = found.group(1)
        table[field["name"]] = entry
    return table


def build_table(spec: dict[str, Any]) -> dict[str, Any]:
    """The compact table for a parsed `api.json` document."""
    methods = {
        name: {
            "returns": method["returns"],
            "params": _field_table(method.get("fields", []), in_union=False),
        }
        for name, method in sorted(spec["methods"].items())
    }
    types: dict[str, Any] = {}
    for name, type_spec in sorted(spec["types"].items()):
        if "subtypes" in type_spec:
            types[name] = {"subtypes": type_spec["subtypes"]}
        else:
            in_union = bool(type_spec.get("subtype_of"))
            types[name] = {"fields": _field_table(type_spec.get("fields", []), in_union)}
    return {"version": spec["version"], "methods": methods, "types": types}


def render(table: dict[str, Any]) -> str:
    """One method or type per line: compact, yet a regenerated table diffs readably."""
    lines = ["{", f'"version": {json.dumps(table["version"])},']
    for section in ("methods", "types"):
        entries = table[section]
        lines.append(f'"{section}": {{')
        for index, (name, entry) in enumerate(entries.items()):
            comma = "," if index < len(entries) - 1 else ""
            body = json.dumps(entry, ensure_ascii=False, separators=(",", ":"))
            lines.append(f"{json.dumps(name)}: {body}{comma}")
        lines.append("}," if section == "methods" else "}")
    lines.append("}")
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("spec", type=Path, help="path to the scraped api.json")
    parser.add_argument(
        "--out", type=Path, default=TABLE_PATH, help=f"where to write (default {TABLE_PATH})"
    )
    args = parser.parse_args(argv)
    table = build_table(json.loads(args.spec.read_text(encoding="utf-8")))
    args.out.write_text(render(table), encoding="utf-8")
    print(
        f"{args.out}: {len(table['methods'])} methods, {len(table['types'])} types "
        f"({table['version']})",
        file=sys.stderr,
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
