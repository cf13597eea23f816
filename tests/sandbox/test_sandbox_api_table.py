"""The committed method table and the generator that derives it from the specification."""

from __future__ import annotations

import json
from pathlib import Path

from sandbox.make_api_table import TABLE_PATH, build_table, main
from sandbox.schema import ApiSchema

SPEC = {
    "version": "Bot API 0.1",
    "methods": {
        "sendThing": {
            "returns": ["Message"],
            "fields": [
                {"name": "chat_id", "types": ["Integer", "String"], "required": True,
                 "description": "Target chat"},
                {"name": "scope", "types": ["Scope"], "required": False, "description": "Where"},
            ],
        },
        "getNothing": {"returns": ["Boolean"]},
    },
    "types": {
        "Scope": {"subtypes": ["ScopeAll", "ScopeChat"]},
        "ScopeAll": {"subtype_of": ["Scope"], "fields": [
            {"name": "type", "types": ["String"], "required": True,
             "description": 'Scope type, always "all"'}]},
        "ScopeChat": {"subtype_of": ["Scope"], "fields": [
            {"name": "type", "types": ["String"], "required": True,
             "description": "Scope type, must be chat"},
            {"name": "chat_id", "types": ["Integer"], "required": True, "description": "Chat"}]},
    },
}  # fmt: skip


def test_the_table_keeps_parameters_types_and_union_discriminators() -> None:
    table = build_table(SPEC)

    assert table["methods"]["sendThing"]["params"]["chat_id"] == {
        "types": ["Integer", "String"],
        "required": True,
    }
    assert table["methods"]["getNothing"] == {"returns": ["Boolean"], "params": {}}
    assert table["types"]["Scope"] == {"subtypes": ["ScopeAll", "ScopeChat"]}
    assert table["types"]["ScopeAll"]["fields"]["type"]["const"] == "all"
    assert table["types"]["ScopeChat"]["fields"]["type"]["const"] == "chat"


def test_the_generator_writes_a_table_the_schema_loads(tmp_path: Path) -> None:
    spec = tmp_path / "api.json"
    spec.write_text(json.dumps(SPEC), encoding="utf-8")
    out = tmp_path / "table.json"

    assert main([str(spec), "--out", str(out)]) == 0

    schema = ApiSchema(json.loads(out.read_text(encoding="utf-8")))
    method = schema.method("SENDTHING")
    assert method is not None
    assert method.params["chat_id"].required
    assert schema.parse_params(method, {"chat_id": "12", "scope": '{"type": "all"}'}, {}) == {
        "chat_id": 12,
        "scope": {"type": "all"},
    }


def test_the_committed_table_covers_the_bot_api() -> None:
    table = json.loads(TABLE_PATH.read_text(encoding="utf-8"))
    schema = ApiSchema.load()

    assert table["version"].startswith("Bot API ")
    send = schema.method("sendMessage")
    assert send is not None
    assert {"chat_id", "text", "reply_markup", "protect_content"} <= set(send.params)
    assert send.params["text"].required
    assert len(table["methods"]) > 150
