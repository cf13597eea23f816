"""A table's code and the number players read (issue 22 §4).

The Judge names a tour's tables by code, T<tournament>R<tour>G<group> ("T1R2G3"), so that a
code is unique across tournaments and tours; a player reads only "стол 3": the tour is
said beside it, and the tournament is the one they play in.
"""

from __future__ import annotations

import re

_CODE = re.compile(r"T(\d+)R(\d+)G(\d+)")


def table_code(tournament_id: int, tour: int, group: int) -> str:
    """The Judge's code of the tour's `group`-th table (counting from 1)."""
    return f"T{tournament_id}R{tour}G{group}"


def table_number(code: str) -> str:
    """The number a player reads for the table `code`: its group within the tour. A code
    the bot did not make is shown as it is."""
    match = _CODE.fullmatch(code)
    return match.group(3) if match else code
