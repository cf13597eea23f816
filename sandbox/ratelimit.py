"""Telegram's flood limits on sending, and a deterministic clock for tests about time.

Telegram answers 429 "Too Many Requests: retry after N" when a bot sends faster than
about 30 messages a second overall, one a second into one private chat, or 20 a minute
into one group; and three new messages into one group within a second draw 429s too,
however far under 20 a minute. An edit counts against its chat's limit as a message
does (Telegram's developers say the two share it: tdlib/td#2592, #3034), not against the
overall one. A game
that posts a turn message per speaker must stay under the group limit, so the sandbox can
enforce all three (sliding windows over the sandbox clock).
"""

from __future__ import annotations

import math
from collections import deque
from dataclasses import dataclass, field

from sandbox.calllog import SENDING_METHODS

# What the flood limits count: new messages, and (in their chat) edits of messages.
LIMITED_METHODS = SENDING_METHODS | {
    "editMessageText", "editMessageCaption", "editMessageMedia", "editMessageReplyMarkup",
}  # fmt: skip


@dataclass(frozen=True)
class Window:
    """At most `limit` messages within any `seconds`."""

    limit: int
    seconds: float


@dataclass(frozen=True)
class RateLimits:
    overall: Window = Window(30, 1.0)
    private_chat: Window = Window(1, 1.0)
    group_chat: Window = Window(20, 60.0)
    # New messages into one group in a burst: a third within a second is refused.
    group_burst: Window | None = Window(2, 1.0)


class ManualClock:
    """A clock that moves only when told: `clock()` is the time, `advance()` moves it."""

    def __init__(self, start: float = 1_750_000_000.0):
        self.now = start

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += seconds


@dataclass
class RateLimiter:
    limits: RateLimits
    _sent: dict[object, deque[float]] = field(default_factory=dict)

    def admit(self, chat_id: int, *, group: bool, now: float, edit: bool = False) -> int | None:
        """Count one message (or edit) to `chat_id`, or return the seconds to wait first."""
        chat_window = self.limits.group_chat if group else self.limits.private_chat
        checks: tuple[tuple[object, Window], ...] = ((chat_id, chat_window),)
        if not edit:
            checks = (("all", self.limits.overall), *checks)
            if group and self.limits.group_burst is not None:
                checks = (*checks, (("burst", chat_id), self.limits.group_burst))
        wait = 0.0
        for key, window in checks:
            times = self._sent.setdefault(key, deque())
            while times and times[0] <= now - window.seconds:
                times.popleft()
            if len(times) >= window.limit:
                wait = max(wait, times[0] + window.seconds - now)
        if wait > 0:
            return max(1, math.ceil(wait))
        for key, _ in checks:
            self._sent[key].append(now)
        return None
