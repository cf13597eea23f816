"""What makes two tournament nicks the same nick.

The sheets and standings name players by nick, and the Judge types nicks into
/adjust, /replace and /unregister: "Anna" and "anna", "Алёна" and "АЛЕНА" must be one
player to the bot, never two. SQLite's NOCASE folds only ASCII, so the key is made
here and stored beside the nick (and registered as the SQL function `nick_key` on
every connection, for the migration that filled it in).
"""

from __future__ import annotations

import unicodedata


def nick_key(nick: str) -> str:
    """The nick as the bot compares it: case, width, spacing and ё/е do not count."""
    folded = unicodedata.normalize("NFKC", nick).casefold().replace("ё", "е")
    return " ".join(folded.split())
