"""One declaration per command (issue 21 §6): the handlers, the menus, /help, the refusals
and the README's command tables all agree with handlers/commands.py."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from aiogram.filters import Command
from aiogram.types import BotCommandScopeChat

from bot.app import SCOPES
from bot.views.i18n import LANGUAGES, Texts
from handlers import get_routers
from handlers.args import Word
from handlers.commands import BY_NAME, COMMANDS, HOST_ONLY, PRIVATE_ONLY, Where, help_text, menus
from handlers.filters import IN_GROUP, IN_PRIVATE
from handlers.guard import private_only
from handlers.host import refuse

# Handlers built from the declarations themselves: they answer a command sent where it
# does not work, or by someone who may not use it.
REFUSALS = {private_only, refuse}
API_TABLE = Path("sandbox/api_table.json")


def registered() -> dict[str, list[tuple[object, Where]]]:
    """Each command a router handles: its handlers and where each accepts it."""
    found: dict[str, list[tuple[object, Where]]] = {}
    for router in get_routers():
        around = [f.callback for f in router.message._handler.filters or ()]
        for handler in router.message.handlers:
            filters = around + [f.callback for f in handler.filters or ()]
            commands = [f for f in filters if isinstance(f, Command)]
            if not commands or handler.callback in REFUSALS:
                continue
            where = (
                Where.GROUP
                if IN_GROUP in filters
                else Where.PRIVATE
                if IN_PRIVATE in filters
                else Where.BOTH
            )
            for command in commands:
                for name in command.commands:
                    assert isinstance(name, str), name
                    found.setdefault(name, []).append((handler.callback, where))
    return found


def test_every_handler_has_its_declaration_and_every_declaration_its_handler() -> None:
    handled = registered()
    assert set(handled) == set(BY_NAME)
    for name, handlers in handled.items():
        wheres = {where for _, where in handlers}
        works = Where.BOTH if Where.BOTH in wheres or len(wheres) > 1 else wheres.pop()
        assert works is BY_NAME[name].where, name


def test_a_commands_arguments_are_its_handlers_and_help_shows_them() -> None:
    """handlers/args.py parses what a command takes; /help names it in both languages."""
    texts = Texts()
    for name, handlers in registered().items():
        forms = [getattr(callback, "spec", ((),)) for callback, _ in handlers]
        takes = any(form for spec in forms for form in spec)
        for lang in LANGUAGES:
            assert texts.has(lang, f"help_args.{name}") is takes, (name, lang)
            assert texts.has(lang, f"help.{name}"), (name, lang)
            assert texts.has(lang, f"commands.{name}"), (name, lang)


def test_help_names_the_words_a_command_takes_as_args_py_declares_them() -> None:
    """A command's first word chosen from a few (/lang ru|en, /registration open|closed)
    is shown in /help with every choice the handler accepts."""
    texts = Texts()
    checked = set()
    for name, handlers in registered().items():
        for callback, _ in handlers:
            for form in getattr(callback, "spec", ()):
                if form and isinstance(form[0].kind, Word) and len(form[0].kind.choices) <= 3:
                    for lang in LANGUAGES:
                        words = texts(lang, f"help_args.{name}")
                        assert all(c in words for c in form[0].kind.choices), (name, lang)
                    checked.add(name)
    assert {"lang", "registration", "groups", "finish"} <= checked


def test_the_refusals_and_the_guard_list_come_from_the_declarations() -> None:
    assert set(PRIVATE_ONLY) == {c.name for c in COMMANDS if c.where is Where.PRIVATE}
    assert {"stats", "registration", "unregister", "replace"} <= set(PRIVATE_ONLY)
    assert set(HOST_ONLY) == {"begin", "pause", "resume", "skip", "extend", "warn"} | {
        *("remove", "kick", "stop", "host")
    }


def test_menus_use_the_bot_apis_scopes_and_fit_its_bounds() -> None:
    """Each menu's scope is a BotCommandScope type of the Bot API (api.json, as the sandbox's
    table keeps it); a command is 1-32 of a-z, 0-9, _, a description 1-256 characters, at
    most 100 commands a menu."""
    table = json.loads(API_TABLE.read_text(encoding="utf-8"))["types"]
    types = {
        table[subtype]["fields"]["type"]["const"]: subtype
        for subtype in table["BotCommandScope"]["subtypes"]
    }
    texts = Texts()
    for menu in menus():
        assert menu.scope in types, menu.scope
        assert type(SCOPES[menu.scope]).__name__ == types[menu.scope]
        assert 1 <= len(menu.commands) <= 100
        assert len(set(menu.commands)) == len(menu.commands)
        for name in menu.commands:
            assert re.fullmatch(r"[a-z0-9_]{1,32}", name), name
            for lang in LANGUAGES:
                assert 1 <= len(texts(lang, f"commands.{name}")) <= 256
    assert BotCommandScopeChat.__name__ in types.values()  # the table is the real one


def test_menus_show_each_command_where_it_works() -> None:
    shown = {menu.scope: set(menu.commands) for menu in menus()}
    everywhere = {c.name for c in COMMANDS if c.menu_where.private}
    assert shown["all_private_chats"] == shown["default"] == everywhere
    assert "replace" in shown["all_private_chats"]  # the Judge's
    assert "status" in shown["all_private_chats"]  # N5: the safe way to ask at night
    assert shown["all_group_chats"] < shown["all_chat_administrators"]
    assert not {"pause", "bind", "start", "stats"} & shown["all_group_chats"]
    assert {"pause", "host", "bind", "unbind"} <= shown["all_chat_administrators"]


@pytest.mark.parametrize("lang", LANGUAGES)
def test_help_lists_every_command_the_menu_offers_there(lang: str) -> None:
    texts = Texts()
    for private in (False, True):
        text = help_text(texts, lang, private)
        listed = set(re.findall(r"^/([a-z_]+)", text, re.M))
        works = {
            c.name for c in COMMANDS if (c.menu_where.private if private else c.menu_where.group)
        }
        assert listed == works, (private, listed ^ works)
    assert "/extend N — " in help_text(texts, lang, private=False)


TABLE_HEADERS = {"README.md": "| Command | Who | What |", "README.ru.md": "| Команда | Кто | Что |"}
PRIVATE_MARKS = {"README.md": "(private)", "README.ru.md": "(в личке)"}


def command_table(readme: str) -> list[str]:
    text = Path(readme).read_text(encoding="utf-8")
    start = text.index(TABLE_HEADERS[readme] + "\n")
    rows = text[start:].split("\n\n", 1)[0].splitlines()[2:]
    assert rows and all(row.startswith("| ") for row in rows)
    return [row.split(" | ")[0] for row in rows]


@pytest.mark.parametrize("readme", sorted(TABLE_HEADERS))
def test_the_readmes_command_table_lists_exactly_the_declared_commands(readme: str) -> None:
    cells = command_table(readme)
    listed = [name for cell in cells for name in re.findall(r"`/([a-z_]+)", cell)]
    assert set(listed) == set(BY_NAME), set(listed) ^ set(BY_NAME)
    for cell in cells:
        for name in re.findall(r"`/([a-z_]+)", cell):
            # A command that works only in private says so in its row, and only it does.
            marked = PRIVATE_MARKS[readme] in cell
            assert marked is (BY_NAME[name].where is Where.PRIVATE), (readme, cell)
