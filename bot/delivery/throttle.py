"""How often the bot answers commands outside a game: a flood is dropped, not queued.

Anyone can add the bot to a group of their own and send it commands. Each answer waits
for that group's window (20 a minute), and a flood in many groups would fill the bot's
queues and its share of Telegram's 30 a second, which the games need. So, outside a
chat with a game, a command is answered only while two budgets allow it: its chat's
(a group gets a few answers, then one now and then) and its sender's (a person, one
command a second, after a burst). What is over budget is dropped, neither
answered nor done: a queued answer would only come late. A chat with a game is never
throttled here: its table has rules of its own (D10, N5), and its players' and Host's
commands are the game; nor is a group the bot administers (a club's own, between games).
What is throttled, then, is a stranger's group where the bot is a plain member, and what
anyone sends the bot in private outside their game.
"""

from __future__ import annotations

from dataclasses import dataclass

from bot.lru import LRU

# A group with no game: five answers at once, then one every 12 s (5 a minute, a
# quarter of the group's window).
CHAT_BURST, CHAT_EVERY = 5, 12.0
# A person, anywhere outside a game: twenty at once, then one a second; more than any
# Judge types or pastes, far less than a script.
PERSON_BURST, PERSON_EVERY = 20, 1.0
# How long what Telegram said of the bot's rights in a group is believed: a group where
# the bot administers (a club's) is never throttled; asked again after this long.
RIGHTS_KEPT = 600.0
# Chats and people remembered: those forgotten start again with a full budget, which
# costs nothing but the few answers of a burst.
REMEMBERED = 50_000


@dataclass
class _Bucket:
    tokens: float
    at: float


class Budget:
    """A token bucket per key: `burst` at once, then one every `every` seconds."""

    def __init__(self, burst: int, every: float, remembered: int = REMEMBERED) -> None:
        self.burst = burst
        self.every = every
        self._buckets: LRU[int, _Bucket] = LRU(remembered)

    def has_room(self, key: int, now: float) -> bool:
        return self._refilled(key, now).tokens >= 1.0

    def spend(self, key: int, now: float) -> None:
        bucket = self._refilled(key, now)
        bucket.tokens = max(0.0, bucket.tokens - 1.0)

    def _refilled(self, key: int, now: float) -> _Bucket:
        bucket = self._buckets.get(key)
        if bucket is None:
            bucket = _Bucket(float(self.burst), now)
            self._buckets[key] = bucket
        elapsed = max(0.0, now - bucket.at)
        bucket.tokens = min(float(self.burst), bucket.tokens + elapsed / self.every)
        bucket.at = now
        return bucket


class CommandBudgets:
    """The two budgets a command outside a game must fit: its chat's and its sender's."""

    def __init__(self) -> None:
        self.chats = Budget(CHAT_BURST, CHAT_EVERY)
        self.people = Budget(PERSON_BURST, PERSON_EVERY)

    def fits(self, chat_id: int, person: int, now: float, *, group: bool) -> bool:
        """Room in both budgets (a private chat has only its person's)."""
        return self.people.has_room(person, now) and (
            not group or self.chats.has_room(chat_id, now)
        )

    def spend(self, chat_id: int, person: int, now: float, *, group: bool) -> None:
        self.people.spend(person, now)
        if group:
            self.chats.spend(chat_id, now)
