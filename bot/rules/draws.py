"""Every random draw of a game, made from one secret seed (S3).

The bot posts `commitment(seed)` at the deal and reveals the seed when the game is
over. Anyone can then recompute each draw with the algorithm docs/fairness.md publishes
(that document is the contract; tests/rules/test_fairness_document.py holds the two together):

    block(label, k) = HMAC-SHA256(key=the seed string's UTF-8 bytes, msg=f"{label}#{k}")
    index(label, n) = the first block (k = 0, 1, ...) whose leading 8 bytes, read as a
                      big-endian integer x, satisfy x < 2**64 - 2**64 % n; the draw is x % n
    shuffle(label, items) = Fisher-Yates from the last position i down to 1, swapping
                            i with index(f"{label}/{i}", i + 1)

Labels: "seats" (seating, over players sorted by Telegram id), "deal" (the deck
Commissioner, mafiosi, civilians; card i to seat i + 1), "day:<k>:first" (first speaker
among living seats in increasing order), "day:<k>:lot" (the lot, D8, likewise).
Rejection sampling keeps every draw exactly uniform.
"""

from __future__ import annotations

import hashlib
import hmac
from collections.abc import Sequence
from typing import TypeVar

T = TypeVar("T")

_SPACE = 2**64


def commitment(seed: str) -> str:
    """The hash posted at the deal; it binds the bot to the seed without revealing it."""
    return hashlib.sha256(seed.encode()).hexdigest()


def draw_index(seed: str, label: str, n: int) -> int:
    """A uniform integer in [0, n) determined by the seed and the label."""
    if n <= 0:
        raise ValueError(f"cannot draw from {n} items")
    limit = _SPACE - _SPACE % n
    counter = 0
    while True:
        digest = hmac.new(seed.encode(), f"{label}#{counter}".encode(), hashlib.sha256).digest()
        x = int.from_bytes(digest[:8], "big")
        if x < limit:
            return x % n
        counter += 1  # pragma: no cover - happens with probability below 2**-60 per draw


def draw(seed: str, label: str, items: Sequence[T]) -> T:
    return items[draw_index(seed, label, len(items))]


def shuffled(seed: str, label: str, items: Sequence[T]) -> list[T]:
    result = list(items)
    for i in range(len(result) - 1, 0, -1):
        j = draw_index(seed, f"{label}/{i}", i + 1)
        result[i], result[j] = result[j], result[i]
    return result
