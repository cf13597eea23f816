"""What a nick may be, and what makes two nicks the same nick.

A nick is printed into the group's posts, the pinned table, the Host's panel and the
live page: it is one line of printable text, so that no nick can draw a line that looks
like the bot's ("☠ Killed tonight: …") or turn the text around it right to left. Names
from Telegram profiles are made safe the same way (`profile_name`).

The sheets and standings name players by nick, and the Judge types nicks into
/adjust, /replace and /unregister: "Anna", "anna" and "Anna" with a zero-width space,
"Алёна" and "АЛЕНА" must be one player to the bot, never two. SQLite's NOCASE folds
only ASCII, so the key is made here and stored beside the nick (and registered as the
SQL function `nick_key` on every connection, for the migration that filled it in).
Beyond the key, a nick that renders like another one (a Cyrillic "А" for a Latin "A")
is told apart by `looks_like`.
"""

from __future__ import annotations

import unicodedata

NICK_LONGEST = 32
PROFILE_LONGEST = 64  # Telegram's own bound on a first name

# Letters that print as nothing at all, though Unicode files them as letters or symbols
# (blank "names" are made of them), and marks that are invisible on their own.
_BLANKS = frozenset("\u115f\u1160\u3164\uffa0\u2800\u034f\u17b4\u17b5")
# Variation selectors: they pick the emoji or the text form of the sign before them.
_SELECTORS = frozenset(chr(c) for c in (*range(0xFE00, 0xFE10), *range(0xE0100, 0xE01F0)))
# Marks stacked on one letter beyond this many are dropped ("Z̶̷̸̡̢…" covers the lines around).
_MARKS_ON_ONE_LETTER = 2


def clean_nick(text: str, longest: int | None = NICK_LONGEST) -> str:
    """`text` as one line of printable text, at most `longest` characters ("" if nothing
    printable is left): line breaks and other spacing become one space; control and
    format characters (bidi overrides, zero-width ones), private and unassigned code
    points and blank fillers are removed."""
    kept: list[str] = []
    marks = 0
    for char in unicodedata.normalize("NFC", text):
        category = unicodedata.category(char)
        if char.isspace() or category in ("Zl", "Zp"):
            kept.append(" ")
        elif category in ("Cc", "Cf", "Co", "Cs", "Cn") or char in _BLANKS:
            continue
        elif category.startswith("M"):
            marks += 1
            if marks <= _MARKS_ON_ONE_LETTER:
                kept.append(char)
            continue
        else:
            kept.append(char)
        marks = 0
    line = " ".join("".join(kept).split())
    return line if longest is None else line[:longest].rstrip()


def profile_name(
    first_name: str | None,
    last_name: str | None = None,
    username: str | None = None,
    fallback: str = "?",
) -> str:
    """A Telegram profile's name as the bot shows it: the first name made safe, else the
    last name, else the @username, else `fallback` (a name of invisible characters only)."""
    for name in (first_name, last_name):
        safe = clean_nick(name or "", PROFILE_LONGEST)
        if safe:
            return safe
    return f"@{username}" if username else fallback


def nick_key(nick: str) -> str:
    """The nick as the bot compares it: case, width, spacing, invisible characters,
    variation selectors and ё/е do not count."""
    visible = "".join(c for c in clean_nick(nick, None) if c not in _SELECTORS)
    folded = unicodedata.normalize("NFKC", visible).casefold().replace("ё", "е")
    return " ".join(folded.split())


# Capitals that print as Latin ones (or as another Latin letter: "I" as "l"), and small
# letters that do, for `looks_like`. Capitals are mapped before case is folded ("Н" is
# "H" only as a capital), small letters after.
_CAPITALS = str.maketrans(
    "АВЕКМНОРСТХУЅЈҮΑΒΕΖΗΙΚΜΝΟΡΤΥΧ",
    "ABEKMHOPCTXYSJYABEZHIKMNOPTYX",
) | {ord("I"): "l", ord("І"): "l", ord("Ӏ"): "l", ord("Ι"): "l"}
_SMALL = str.maketrans("аеорсухѕіјԁһӏԛԝαορνυι", "aeopcyxsijdhlqwaopvui")


def looks_like(nick: str) -> str:
    """What the nick looks like: two nicks with the same value render alike (the same
    key, or letters of other scripts that print as the same Latin ones)."""
    visible = "".join(c for c in clean_nick(nick, None) if c not in _SELECTORS)
    shape = unicodedata.normalize("NFKC", visible).translate(_CAPITALS)
    shape = shape.casefold().replace("ё", "е").translate(_SMALL)
    return " ".join(shape.split())
