"""Every command, declared once: its name, who may use it, where it works, and its texts.

The menus (setMyCommands per scope), /help, the guard's refusal of a private chat's
command sent in a group and the refusal of a Host's command sent by anyone else are all
built from `COMMANDS`; a test checks that every registered handler has its declaration
and every declaration its handler, and that the README's command tables list exactly
these. The texts stay in bot/views/locales: `commands.NAME` is the menu's line, `help.NAME`
the /help line, and `help_args.NAME` the words the command takes as /help shows them
(for a command whose handler takes arguments: handlers/args.py parses and bounds them).
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum

from bot.views.i18n import Texts


class Who(Enum):
    """Who may use a command (the handler checks it against Telegram, not this)."""

    ANYONE = "anyone"
    PLAYER = "player"  # a player of the game or of the tournament
    HOST = "host"  # the Host of the chat's game
    JUDGE = "judge"  # a tournament's Judge


class Where(Enum):
    GROUP = "group"
    PRIVATE = "private"
    BOTH = "both"

    @property
    def group(self) -> bool:
        return self is not Where.PRIVATE

    @property
    def private(self) -> bool:
        return self is not Where.GROUP


@dataclass(frozen=True)
class Declared:
    name: str
    who: Who
    where: Where
    # Where the menu shows it, if not everywhere it works (/start in a group answers as
    # /help does, but a group's menu does not offer it).
    menu: Where | None = None

    @property
    def menu_where(self) -> Where:
        return self.menu if self.menu is not None else self.where


A, P, H, J = Who.ANYONE, Who.PLAYER, Who.HOST, Who.JUDGE
GROUP, PRIVATE, BOTH = Where.GROUP, Where.PRIVATE, Where.BOTH

COMMANDS: tuple[Declared, ...] = (
    Declared("start", A, BOTH, menu=PRIVATE),
    Declared("help", A, BOTH),
    Declared("rules", A, BOTH),
    Declared("status", A, BOTH),
    Declared("lang", A, BOTH),
    Declared("newgame", A, GROUP),
    Declared("join", A, GROUP),
    Declared("leave", A, GROUP),
    Declared("pass", P, GROUP),
    Declared("nominate", P, GROUP),
    Declared("expel", P, GROUP),
    Declared("begin", H, GROUP),
    Declared("pause", H, GROUP),
    Declared("resume", H, GROUP),
    Declared("skip", H, GROUP),
    Declared("extend", H, GROUP),
    Declared("warn", H, GROUP),
    Declared("remove", H, GROUP),
    Declared("kick", H, GROUP),
    Declared("stop", H, GROUP),
    Declared("host", H, GROUP),
    Declared("bind", J, GROUP),
    Declared("unbind", J, GROUP),
    Declared("nick", P, PRIVATE),
    Declared("standings", P, PRIVATE),
    Declared("sheet", P, PRIVATE),
    Declared("stats", A, PRIVATE),
    Declared("protocol", H, PRIVATE),
    Declared("tournament", J, PRIVATE),
    Declared("settings", J, PRIVATE),
    Declared("groups", J, PRIVATE),
    Declared("tour", J, PRIVATE),
    Declared("replace", J, PRIVATE),
    Declared("unregister", J, PRIVATE),
    Declared("registration", J, PRIVATE),
    Declared("fix", J, PRIVATE),
    Declared("adjust", J, PRIVATE),
    Declared("finish", J, PRIVATE),
    Declared("export", J, PRIVATE),
    Declared("unban", J, PRIVATE),
)

BY_NAME = {command.name: command for command in COMMANDS}
assert len(BY_NAME) == len(COMMANDS), "a command declared twice"


def shown(where: Where, who: tuple[Who, ...]) -> tuple[str, ...]:
    """The declared names a menu or /help offers `where` (a group, a private chat) to
    `who`, in order."""
    return tuple(
        c.name
        for c in COMMANDS
        if (c.menu_where.group if where is GROUP else c.menu_where.private) and c.who in who
    )


# The guard answers these in a group with where they work; the Host's refusal catches these
# from anyone but the Host.
PRIVATE_ONLY = tuple(c.name for c in COMMANDS if c.where is PRIVATE)
HOST_ONLY = tuple(c.name for c in COMMANDS if c.who is H and c.where.group)


@dataclass(frozen=True)
class Menu:
    """One setMyCommands call: a BotCommandScope's type and the commands it shows."""

    scope: str  # BotCommandScope*'s `type`
    commands: tuple[str, ...]


def menus() -> tuple[Menu, ...]:
    """Group members see the group's commands for everyone and for players; administrators
    (a Host or a Judge usually is one) the Host's and the Judge's too; a private chat, and
    any chat no scope covers, what works in private."""

    private = shown(PRIVATE, (A, P, H, J))
    return (
        Menu("all_group_chats", shown(GROUP, (A, P))),
        Menu("all_chat_administrators", shown(GROUP, (A, P, H, J))),
        Menu("all_private_chats", private),
        Menu("default", private),
    )


# /help: one section a kind of person, in this order.
SECTIONS = (A, P, H, J)


def help_line(texts: Texts, lang: str, name: str) -> str:
    words = texts(lang, f"help_args.{name}") if texts.has(lang, f"help_args.{name}") else ""
    said = f"/{name} {words}".rstrip()
    return f"{said} — {texts(lang, f'help.{name}')}"


def help_text(texts: Texts, lang: str, private: bool) -> str:
    """/help in a group or in private: the commands offered there, by who may use them."""
    where = PRIVATE if private else GROUP
    parts = [texts(lang, "help.title")]
    for who in SECTIONS:
        lines = [help_line(texts, lang, name) for name in shown(where, (who,))]
        if lines:
            heading = texts(lang, f"help.section_{who.value}")
            parts.append(f"<b>{heading}</b>\n" + "\n".join(lines))
    parts.append(texts(lang, "help.note_private" if private else "help.note_group"))
    return "\n\n".join(parts)
