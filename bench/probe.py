"""What the benchmark measures, seen from the sandbox's side of the wire.

`Probe` wraps a `Sandbox`: it stamps every update when it is queued and when the bot's
getUpdates fetches it, and attributes each later Bot API call to the update it answers
(the first call after the fetch that names the update's callback query, message or
chat). From that come the latencies, the update rate, the sandbox's refusals and the
flood-limit windows the bot's sends broke. Nothing here needs the bot's co-operation.

How a call is matched to an update ("tags"): a message update waits for a call about
that message (deleteMessage) or, failing that, any call into its chat; a callback query
for answerCallbackQuery with its id or any call into the chat of the pressed message.
The driver can add chats to an update (a mafioso's night message is answered in the
partners' chats) or mark it silent (a speaker's speech: the bot rightly says nothing).
An answer that the bot's own flood pacing held back (the update's chat had its flood
window full when the bot fetched it, and the answer came only once the window reopened)
is counted apart: its delay is the pacing's, not the bot's speed.
"""

from __future__ import annotations

import contextlib
import math
import time
from collections import Counter, deque
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from bot.timings import percentile
from sandbox import SENDING_METHODS, CallRecord, Sandbox
from sandbox.ratelimit import LIMITED_METHODS
from sandbox.updates import UpdateQueue

Key = tuple[Any, ...]

# Telegram's flood limits, as the sandbox models them (sandbox.ratelimit): a chat's
# window counts new messages and edits, the overall one new messages. Per chat they
# scale with the game's timers; the overall one does not, because the benchmark's
# wall-clock rate is the rate a club of that many real-time games would produce.
CHAT_METHODS = LIMITED_METHODS
GROUP_WINDOW = (20, 60.0)
PRIVATE_WINDOW = (1, 1.0)
OVERALL_WINDOW = (30, 1.0)
# A send counts as over a limit only if it beats the window by this share of it:
# the bot paces on its own clock, the sandbox stamps arrivals, and the two differ by
# the network and event-loop jitter of a loaded machine. A send over the limit is one
# Telegram would refuse (429), so, as there, it does not take a place in the window.
WINDOW_TOLERANCE = 0.05


@dataclass
class Pending:
    """One update on its way through the bot."""

    update_id: int
    kind: str
    queued: float
    keys: tuple[Key, ...]
    fetched: float | None = None
    answered: float | None = None
    reopens: float | None = None  # when its chat's full flood window reopened, if it was full


@dataclass(frozen=True)
class Sample:
    queued: float
    latency: float  # seconds from queued to the first call in answer
    wait: float  # seconds from queued to fetched by getUpdates
    kind: str
    held: bool  # the answer was a send the bot's flood pacing held back


@dataclass
class Window:
    """What happened between two moments (perf_counter seconds)."""

    start: float
    end: float
    pushed: int
    fetched: int
    kinds: Counter[str]
    latencies: list[float]
    waits: list[float]
    held: list[float]
    unanswered: int
    errors: Counter[str]
    by_kind: dict[str, list[float]] = field(default_factory=dict)

    @property
    def seconds(self) -> float:
        return self.end - self.start

    @property
    def rate(self) -> float:
        return self.fetched / self.seconds if self.seconds > 0 else 0.0

    @property
    def offered(self) -> float:
        return self.pushed / self.seconds if self.seconds > 0 else 0.0

    def p(self, q: float) -> float:
        return percentile(self.latencies, q)


class _TimedQueue(UpdateQueue):
    def __init__(self, probe: Probe) -> None:
        super().__init__()
        self._probe = probe

    def push(self, kind: str, payload: dict[str, Any]) -> int | None:
        update_id = super().push(kind, payload)
        if update_id is not None:
            self._probe.queued(update_id, kind, payload)
        return update_id


@dataclass
class _SendLog:
    """Recent sends into one chat (or overall), for pacing and violations."""

    limit: int
    window: float
    times: deque[float] = field(default_factory=deque)

    def reopens(self, moment: float) -> float | None:
        """If the window is full at `moment`, when it has room again; else None."""
        inside = [t for t in self.times if moment - self.window < t <= moment]
        if len(inside) < self.limit:
            return None
        return inside[-self.limit] + self.window * (1 - WINDOW_TOLERANCE)

    def admit(self, moment: float) -> bool:
        """Count a send as Telegram would: False if it broke the limit (and was not counted).

        The window is shortened by the jitter tolerance, so that only a send that beats
        the limit by more than the jitter of the measurement counts as a violation.
        """
        window = self.window * (1 - WINDOW_TOLERANCE)
        if len(self.times) >= self.limit and moment - self.times[-self.limit] < window:
            return False
        self.times.append(moment)
        while len(self.times) > 2 * self.limit + 2:
            self.times.popleft()
        return True


class Probe:
    """Timestamps, attribution and counters for one sandbox (one bot run)."""

    def __init__(self, sandbox: Sandbox, scale: float) -> None:
        self.sandbox = sandbox
        self.scale = scale
        sandbox.keep_calls = False
        sandbox.world.updates = _TimedQueue(self)
        sandbox.observers.append(self._observe)
        self._pending: dict[int, Pending] = {}
        self._awaiting: dict[Key, deque[Pending]] = {}
        self._next_keys: tuple[Key, ...] | None = None
        self.pushes: list[tuple[float, str]] = []
        self.fetches: list[float] = []
        self.samples: list[Sample] = []
        self.unanswered: list[Pending] = []
        self.errors: list[tuple[float, str]] = []
        self.calls = Counter[str]()
        self.violations = Counter[str]()
        self.sends = 0
        self._chats: dict[int, _SendLog] = {}
        self._overall = _SendLog(*OVERALL_WINDOW)
        self.first_call: float | None = None
        self._last_fetched = 0

    def reset(self) -> None:
        """Forget the updates queued so far (the set-up's, which the bot never sees)."""
        self.sandbox.world.updates.drop_pending()
        self._pending.clear()
        self.pushes.clear()

    # -- what the driver tells the probe ---------------------------------------------------

    @contextlib.contextmanager
    def expecting(self, *chats: int, silent: bool = False) -> Iterator[None]:
        """The next update pushed is silent, or is also answered in `chats`."""
        self._next_keys = () if silent else tuple(("chat", c) for c in chats)
        try:
            yield
        finally:
            self._next_keys = None

    # -- the update queue -------------------------------------------------------------------

    def queued(self, update_id: int, kind: str, payload: dict[str, Any]) -> None:
        now = time.perf_counter()
        extra = self._next_keys
        self._next_keys = None
        label = kind
        keys: tuple[Key, ...] = ()
        if kind in ("message", "edited_message"):
            chat = payload["chat"]["id"]
            label = f"message:{payload['chat']['type']}"
            keys = (("msg", chat, payload["message_id"]), ("chat", chat))
        elif kind == "callback_query":
            keys = (("cq", payload["id"]),)
            message = payload.get("message")
            if message is not None:
                keys += (("chat", message["chat"]["id"]),)
        if extra is not None:
            keys = () if not extra else keys + extra
        self.pushes.append((now, label))
        if keys:
            self._pending[update_id] = Pending(update_id, label, now, keys)

    # -- the bot's calls ------------------------------------------------------------------

    def _observe(self, record: CallRecord) -> None:
        now = time.perf_counter()
        method = record.method
        if self.first_call is None:
            self.first_call = now
        self.calls[method] += 1
        if method == "getUpdates":
            if record.ok and record.result:
                self._fetched(now, record.result)
            return
        if not record.ok:
            self.errors.append((now, f"{method} {record.status}: {record.description}"))
        chat = record.chat_id
        counted = record.ok and method in CHAT_METHODS and chat is not None
        if counted and chat is not None and not self._log_of(chat).admit(now):
            self.violations["group" if chat < 0 else "private"] += 1
        if record.ok and method in SENDING_METHODS:
            self.sends += 1
            if not self._overall.admit(now):
                self.violations["overall"] += 1
        self._attribute(now, method, record.params, chat)

    def _log_of(self, chat: int) -> _SendLog:
        log = self._chats.get(chat)
        if log is None:
            limit, window = GROUP_WINDOW if chat < 0 else PRIVATE_WINDOW
            log = self._chats[chat] = _SendLog(limit, window * self.scale)
        return log

    def _fetched(self, now: float, updates: list[dict[str, Any]]) -> None:
        for update in updates:
            update_id = update["update_id"]
            if update_id <= self._last_fetched:
                continue  # fetched again: the bot had not confirmed it yet
            self._last_fetched = update_id
            self.fetches.append(now)
            pending = self._pending.get(update_id)
            if pending is None:
                continue
            pending.fetched = now
            chat = next((key[1] for key in pending.keys if key[0] == "chat"), None)
            if chat is not None:
                pending.reopens = self._log_of(chat).reopens(now)
            for key in pending.keys:
                self._awaiting.setdefault(key, deque()).append(pending)

    def _attribute(self, now: float, method: str, params: dict[str, Any], chat: int | None) -> None:
        keys: list[Key] = []
        if method == "answerCallbackQuery":
            keys.append(("cq", params.get("callback_query_id")))
        elif method == "deleteMessage" and chat is not None:
            keys.append(("msg", chat, params.get("message_id")))
        if chat is not None and method != "answerCallbackQuery":
            keys.append(("chat", chat))
        for key in keys:
            queue = self._awaiting.get(key)
            while queue and queue[0].answered is not None:
                queue.popleft()
            if not queue:
                continue
            pending = queue.popleft()
            pending.answered = now
            del self._pending[pending.update_id]
            assert pending.fetched is not None
            # The bot had to wait for the chat's window: that wait is the pacing's.
            held = pending.reopens is not None and now >= pending.reopens
            self.samples.append(
                Sample(
                    pending.queued,
                    now - pending.queued,
                    pending.fetched - pending.queued,
                    pending.kind,
                    held,
                )
            )
            return

    # -- results --------------------------------------------------------------------------

    def close_unanswered(self, before: float) -> None:
        """Give up on measured updates queued before `before` that got no answer."""
        for update_id, pending in list(self._pending.items()):
            if pending.queued < before:
                self.unanswered.append(pending)
                pending.answered = math.inf
                del self._pending[update_id]

    def window(self, start: float, end: float) -> Window:
        pushed = [label for t, label in self.pushes if start <= t < end]
        samples = [s for s in self.samples if start <= s.queued < end]
        return Window(
            start=start,
            end=end,
            pushed=len(pushed),
            fetched=sum(1 for t in self.fetches if start <= t < end),
            kinds=Counter(pushed),
            latencies=[s.latency for s in samples if not s.held],
            waits=[s.wait for s in samples],
            held=[s.latency for s in samples if s.held],
            unanswered=sum(1 for p in self.unanswered if start <= p.queued < end),
            errors=Counter(what for t, what in self.errors if start <= t < end),
            by_kind={
                kind: [s.latency for s in samples if s.kind == kind and not s.held]
                for kind in sorted({s.kind for s in samples})
            },
        )
