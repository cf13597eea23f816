"""Names and codes in the order people read them: T1R1G2 before T1R1G10, "Анна 16"
before "Анна 112". Runs of digits compare as numbers, the rest without case."""

from __future__ import annotations

import re

_PARTS = re.compile(r"(\d+)")


def natural_key(text: str) -> tuple[tuple[int, str | int], ...]:
    """A sort key: text parts by their case-folded letters, digit runs by their value."""
    key: list[tuple[int, str | int]] = []
    for index, part in enumerate(_PARTS.split(text)):
        if index % 2:
            key.append((1, int(part)))
        elif part:
            key.append((0, part.casefold()))
    return tuple(key)
