"""A bounded mapping that forgets what was used least recently.

The bot runs for months and meets new people, chats and games every day: what it keeps
in memory only to spare the database a read must stay within a size, whatever comes.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Iterator
from typing import Generic, TypeVar, overload

K = TypeVar("K")
V = TypeVar("V")
D = TypeVar("D")


class LRU(Generic[K, V]):
    """At most `size` entries; reading or writing one makes it the last to be forgotten."""

    def __init__(self, size: int) -> None:
        if size < 1:
            raise ValueError("an LRU must hold at least one entry")
        self.size = size
        self._entries: OrderedDict[K, V] = OrderedDict()

    def __len__(self) -> int:
        return len(self._entries)

    def __contains__(self, key: object) -> bool:
        return key in self._entries

    def __iter__(self) -> Iterator[K]:
        return iter(self._entries)

    def __getitem__(self, key: K) -> V:
        value = self._entries[key]
        self._entries.move_to_end(key)
        return value

    def __setitem__(self, key: K, value: V) -> None:
        self._entries[key] = value
        self._entries.move_to_end(key)
        while len(self._entries) > self.size:
            self._entries.popitem(last=False)

    @overload
    def get(self, key: K) -> V | None: ...

    @overload
    def get(self, key: K, default: D) -> V | D: ...

    def get(self, key: K, default: object = None) -> object:
        if key not in self._entries:
            return default
        return self[key]

    @overload
    def pop(self, key: K) -> V | None: ...

    @overload
    def pop(self, key: K, default: D) -> V | D: ...

    def pop(self, key: K, default: object = None) -> object:
        return self._entries.pop(key, default)

    def touch(self, key: K) -> None:
        """Make the entry, if present, the last to be forgotten."""
        if key in self._entries:
            self._entries.move_to_end(key)
