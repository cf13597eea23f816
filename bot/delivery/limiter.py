"""The one door every Bot API call passes: Telegram's windows, on the injected clock.

Telegram lets a bot send about 30 messages a second overall, about one a second into one
private chat and 20 a minute into one group (an edit counts like a message), and answers
429 "retry after N" past that. `Limiter`, installed on the bot's session, keeps sliding
windows for the bot as a whole and for each chat, lets waiting calls through in order of
priority (what the game needs, then replies, then cosmetic edits), and honours a 429 by
holding the chat (or the bot) for `retry_after`, then trying again, as often as Telegram
asks: a 429 never loses a message. `bot.delivery.sender` queues and folds what a game
sends, behind it.
"""

from __future__ import annotations

import asyncio
import bisect
import heapq
import itertools
import logging
import math
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Any

from aiogram import Bot
from aiogram.client.session.middlewares.base import (
    BaseRequestMiddleware,
    NextRequestMiddlewareType,
)
from aiogram.exceptions import TelegramRetryAfter
from aiogram.methods import Response, TelegramMethod
from aiogram.methods.base import TelegramType

from bot.services.clock import Clock
from bot.services.workers import Workers

log = logging.getLogger(__name__)

OVERALL_LIMIT = (30, 1.0)  # at most 30 new messages a second from the bot as a whole
GROUP_LIMIT = (20, 60.0)  # at most 20 messages (or edits) to one group in any 60 seconds
# ...and about one a second, as into any chat: three posts within a second draw 429s
# even well under 20 a minute.
GROUP_PACE = (1, 1.0)
PRIVATE_LIMIT = (1, 1.0)  # about one message a second to one private chat

# Calls between two sweeps of the windows of chats gone quiet (the bot meets new chats
# every day; a window past its seconds holds nothing).
SWEEP_EVERY = 1_000

# Which waiting call goes first when a window opens: the lower, the sooner. STALE is for
# buttons whose moment has passed: they go in a quiet minute, never in the game's way.
GAME, REPLY, COSMETIC, STALE = 0, 1, 2, 3
# The pinned table's edits: after stale buttons, in what room they leave.
BOARD_EDIT = 4
# How much of a group's 20 a minute a call of that priority may fill: the rest is left
# for the game. Replies and cosmetic edits (the lobby, warnings) leave it a quarter and a
# half; stale buttons go in half a quiet minute (a burst of quick turns still has the
# other half, and the table's edits never leave them short); the table's edits go in a
# quarter, folded meanwhile.
SHARE = {REPLY: 0.75, COSMETIC: 0.5, STALE: 0.5, BOARD_EDIT: 0.25}
# The priority of the calls the current task makes; unset, a call gets its default.
PRIORITY: ContextVar[int | None] = ContextVar("priority", default=None)
# The room `Limiter.ready` kept for the current task's next call (a worker's).
RESERVED: ContextVar[_Ticket | None] = ContextVar("reserved", default=None)

# What the windows count. A new message counts against the bot's overall window and its
# chat's (a pin posts one in a group); an edit only against its chat's, which Telegram
# shares between sends and edits. Other calls wait their turn but count against nothing.
_MESSAGES = ("send", "copy", "forward", "pin")
_EDITS = ("edit",)
_ALL = "all"


def counted_by_windows(api_method: str) -> bool:
    """A call that Telegram's windows count, and so may have to wait for room."""
    return api_method.startswith((*_MESSAGES, *_EDITS))


@dataclass
class _Slot:
    """One call in a window. Telegram counts it somewhere between its start and its end,
    so it counts as of now while it is on its way, and from its end once answered."""

    at: float
    done: bool = False

    def time(self, now: float) -> float:
        return self.at if self.done else max(self.at, now)


@dataclass(eq=False)
class _Ticket:
    """One call waiting for its turn; it keeps its place in line through its retries."""

    rank: tuple[int, int]  # (priority, arrival): the lower goes first
    chat: int | None  # a 429 that holds the chat holds the call
    keys: tuple[object, ...]  # the windows the call counts against: _ALL, its chat
    share: float = 1.0  # how much of a group's window it may fill: the rest is for others
    superseded_by: _Ticket | None = None  # a later edit of the same message
    answer: asyncio.Future[Any] | None = None  # for the earlier edits it superseded
    target: tuple[int, int] | None = None  # (chat, message) of an edit, or None
    go: asyncio.Future[bool] | None = None  # admitted: True; superseded: False
    slot: _Slot | None = None  # its place in its windows, from its admission

    @property
    def lane(self) -> tuple[object, ...]:
        """Waiting calls with the same lane meet the same windows and holds: of them only
        the first in rank can be next, and the rest wait with it."""
        return (self.keys, self.share, self.chat)

    @property
    def lazy(self) -> bool:
        return self.rank[0] >= STALE  # waits for time that passes anyway


def _rank(ticket: _Ticket) -> tuple[int, int]:
    return ticket.rank


class Limiter(BaseRequestMiddleware):
    """Every Bot API call of the bot, paced within the flood limits on `clock`.

    Calls that wait for the same window go in order of priority, then of arrival. An
    edit made straight through the bot (the lobby, refreshed at every join) is cosmetic
    and modest: it leaves half of a group's window to the rest, so that a lobby filling
    up cannot hold back the turns that follow. A waiting edit of a message gives way to
    a later edit of it, and returns its answer: the later text is what the message would
    end up with anyway. (The sender's own cosmetic notes need no such rule: there is at
    most one a turn, and a newer post drops it.)

    `scale` multiplies the windows (a test playing with timers scaled down scales them by
    the same factor); `retry_after` is Telegram's and is never scaled.
    """

    def __init__(self, clock: Clock, scale: float = 1.0, workers: Workers | None = None) -> None:
        self.clock = clock
        self.scale = scale
        # A call waiting for room is parked there: it goes when the clock or another
        # call lets it. The wakes armed for the next room are its tasks.
        self.workers = workers or Workers()
        self._slots: dict[object, list[_Slot]] = {}
        self._held: dict[object, float] = {}  # chat (or _ALL) -> held until, after a 429
        # Waiting calls by lane, each lane in rank order (see `_dispatch`).
        self._lanes: dict[tuple[object, ...], list[_Ticket]] = {}
        self._edits: dict[tuple[int, int], _Ticket] = {}  # (chat, message) -> waiting edit
        self._seq = itertools.count()
        # The wakes armed for the next room: (when, task), one eager and one lazy.
        self._alarms: dict[bool, tuple[float, asyncio.Task[None]]] = {}
        self._calls = 0
        self.lazy_sleeping = 0  # calls waiting for room that nothing is in a hurry for
        # Calls admitted and not yet answered and booked: a virtual clock moved meanwhile
        # would book them at a time that depends on the machine's speed (bot.cli.demo).
        self.in_flight = 0

    async def __call__(
        self,
        make_request: NextRequestMiddlewareType[TelegramType],
        bot: Bot,
        method: TelegramMethod[TelegramType],
    ) -> Response[TelegramType]:
        name = method.__api_method__
        if name == "getUpdates":  # the long poll for updates sends nothing
            return await make_request(bot, method)
        chat_id = getattr(method, "chat_id", None)
        chat = chat_id if isinstance(chat_id, int) else None  # an @username is not keyed
        keys: tuple[object, ...] = ()
        if name.startswith(_MESSAGES):
            keys = (_ALL,) if chat is None else (_ALL, chat)
        elif name.startswith(_EDITS) and chat is not None:
            keys = (chat,)
        self._calls += 1
        if self._calls % SWEEP_EVERY == 0:
            self._sweep()
        priority = PRIORITY.get()
        modest = priority is None and name.startswith(_EDITS)
        if priority is None:  # a call made straight through the bot, by a handler
            priority = COSMETIC if modest else REPLY
        share = 0.5 if modest else SHARE.get(priority, 1.0)
        ticket = _Ticket((priority, next(self._seq)), chat, keys, share)
        claimed = self._claim(keys)
        message_id = getattr(method, "message_id", None)
        if name == "editMessageText" and chat is not None and isinstance(message_id, int):
            ticket.target = (chat, message_id)
            earlier = self._edits.get(ticket.target)
            if earlier is not None:  # still waiting (an admitted edit leaves `_edits`)
                earlier.superseded_by = ticket
                self._leave(earlier, admitted=False)
            if claimed is None:  # one with kept room is on its way already
                self._edits[ticket.target] = ticket
        try:
            result = await self._call(ticket, make_request, bot, method, claimed)
        except BaseException as error:
            if ticket.answer is not None and not ticket.answer.done():
                if isinstance(error, Exception):
                    ticket.answer.set_exception(error)
                else:
                    ticket.answer.cancel()
            raise
        if ticket.answer is not None and not ticket.answer.done():
            ticket.answer.set_result(result)
        return result

    def room_in(self, chat: int, priority: int) -> float:
        """Seconds until an edit in `chat` at `priority` would find room in its share of
        the chat's window (0: now), without waiting or counting anything."""
        ticket = _Ticket((priority, -1), chat, (chat,), SHARE.get(priority, 1.0))
        reservation = RESERVED.get()  # the room `ready` kept for this very call
        kept = reservation.slot if reservation is not None else None
        return self._delay(ticket, self.clock.now(), besides=kept)

    async def ready(self, chat: int, priority: int = GAME) -> None:
        """Wait until one message to `chat` can go now, and keep its room for the next
        call this task makes (a worker looks at what it holds once there is room, then
        sends it): no call that ranks lower takes the room meanwhile. The room is given
        back by `release`, or by the next `ready`, if no such call follows."""
        self.release()
        reservation = _Ticket((priority, next(self._seq)), chat, (_ALL, chat))
        await self._admitted(reservation)
        RESERVED.set(reservation)

    def release(self) -> None:
        """Give back the room `ready` kept for this task, if no call has taken it."""
        reservation = RESERVED.get()
        if reservation is None:
            return
        RESERVED.set(None)
        slot, reservation.slot = reservation.slot, None
        if slot is not None:
            for key in reservation.keys:
                self._unslot(key, slot)
            self._dispatch()  # the room is free again

    def _claim(self, keys: tuple[object, ...]) -> _Slot | None:
        """The room `ready` kept for this task, for a call counted in `keys`."""
        reservation = RESERVED.get()
        if reservation is None or not keys:
            return None  # a call no window counts needs no room
        if not set(keys) <= set(reservation.keys):
            self.release()  # another chat's call: it waits its turn
            return None
        RESERVED.set(None)
        slot, reservation.slot = reservation.slot, None
        if slot is not None:
            for key in set(reservation.keys) - set(keys):
                self._unslot(key, slot)  # an edit: the bot's overall window is not its
        return slot

    def _unslot(self, key: object, slot: _Slot) -> None:
        slots = self._slots.get(key)
        if slots is not None and slot in slots:
            slots.remove(slot)

    async def _call(
        self,
        ticket: _Ticket,
        make_request: NextRequestMiddlewareType[TelegramType],
        bot: Bot,
        method: TelegramMethod[TelegramType],
        claimed: _Slot | None = None,
    ) -> Response[TelegramType]:
        while True:
            if claimed is not None:
                ticket.slot, claimed = claimed, None  # the room `ready` kept: it goes
            elif not await self._admitted(ticket):
                later = ticket.superseded_by
                assert later is not None
                if later.answer is None:
                    later.answer = asyncio.get_running_loop().create_future()
                answer: Response[TelegramType] = await self.workers.park(later.answer)
                return answer
            slot = ticket.slot
            assert slot is not None
            self.in_flight += 1
            try:
                return await make_request(bot, method)
            except TelegramRetryAfter as error:
                # Telegram holds the chat (or, for a call to no chat, the bot): so do we.
                key = _ALL if ticket.chat is None else ticket.chat
                until = self.clock.now() + error.retry_after
                self._held[key] = max(self._held.get(key, until), until)
                log.info("%s: retry after %s s", method.__api_method__, error.retry_after)
            finally:
                slot.at, slot.done = max(slot.at, self.clock.now()), True
                self.in_flight -= 1

    async def _admitted(self, ticket: _Ticket) -> bool:
        """Wait until the call may go: True; False if a later edit superseded it."""
        if ticket.superseded_by is not None:
            return False
        ticket.go = asyncio.get_running_loop().create_future()
        lane = self._lanes.setdefault(ticket.lane, [])
        bisect.insort(lane, ticket, key=_rank)
        if ticket.lazy:
            self.lazy_sleeping += 1
        if lane[0] is ticket:  # behind another of its lane, it cannot go before it
            self._dispatch()
        try:
            return await self.workers.park(ticket.go)
        finally:
            if not ticket.go.done():
                self._leave(ticket, admitted=False)  # cancelled while waiting

    def _leave(self, ticket: _Ticket, *, admitted: bool) -> None:
        """Take a waiting call out of its lane: admitted (it goes), superseded (it returns
        the later edit's answer), or cancelled. Nothing if it is not waiting."""
        if ticket.go is None or ticket.go.done():
            return  # not waiting: it left its lane as it was admitted or superseded
        lane = self._lanes[ticket.lane]
        head = lane[0] is ticket
        lane.remove(ticket)
        if not lane:
            del self._lanes[ticket.lane]
        if ticket.lazy:
            self.lazy_sleeping -= 1
        if ticket.target is not None and self._edits.get(ticket.target) is ticket:
            del self._edits[ticket.target]  # on its way, or gone: a later edit goes alone
        ticket.go.set_result(admitted)
        if head and not admitted:
            self._dispatch()  # the next of its lane may go now

    def _dispatch(self) -> None:
        """Admit every waiting call that can go now, and arm a wake for the next room.

        Only the first call of each lane is weighed, in rank order: a call that ranks
        higher takes the room first, and one that finds none holds its lane back (the
        rest of the lane meets the same windows). So a look costs the number of lanes
        (about the chats with calls waiting), not the number of calls, and a call is
        woken only when it goes: thousands waiting for a busy group cost nothing while
        they wait.
        """
        now = self.clock.now()
        heads = [(lane[0].rank, key) for key, lane in self._lanes.items()]
        heapq.heapify(heads)
        wake = {False: math.inf, True: math.inf}  # eager, lazy
        while heads:
            _, key = heapq.heappop(heads)
            lane = self._lanes[key]
            ticket = lane[0]
            delay = self._delay(ticket, now)
            if delay > 0:
                wake[ticket.lazy] = min(wake[ticket.lazy], now + delay)
                continue
            ticket.slot = _Slot(now)
            for window in ticket.keys:
                self._slots.setdefault(window, []).append(ticket.slot)
            self._leave(ticket, admitted=True)
            if key in self._lanes:
                heapq.heappush(heads, (self._lanes[key][0].rank, key))
        if not self._lanes:  # nobody waits: no wake is needed
            for _, task in self._alarms.values():
                task.cancel()
            self._alarms.clear()
        for lazy, when in wake.items():
            self._arm(when, lazy)

    def _arm(self, when: float, lazy: bool) -> None:
        """Wake the waiting calls at `when` (an earlier wake already armed will do: it
        looks again and arms the next)."""
        armed = self._alarms.get(lazy)
        if when == math.inf or (armed is not None and armed[0] <= when and not armed[1].done()):
            return
        if armed is not None:
            armed[1].cancel()
        self._alarms[lazy] = (when, self.workers.spawn(self._alarm(when, lazy), "limiter wake"))

    async def _alarm(self, when: float, lazy: bool) -> None:
        await self.workers.park(self.clock.sleep_until(when, lazy=lazy))
        armed = self._alarms.get(lazy)
        if armed is not None and armed[0] == when:
            del self._alarms[lazy]
        self._dispatch()

    def _sweep(self) -> None:
        """Forget the windows and holds that no longer hold anything back."""
        now = self.clock.now()
        quiet = [
            key
            for key, slots in self._slots.items()
            if all(s.done and s.at + self._window(key, False)[1] <= now for s in slots)
        ]
        for key in quiet:
            del self._slots[key]
        for key in [k for k, until in self._held.items() if until <= now]:
            del self._held[key]

    def _window(self, key: object, share: float) -> tuple[int, float]:
        """The longest window the key counts against (what must be kept this long)."""
        return self._windows(key, share)[-1]

    def _windows(self, key: object, share: float) -> list[tuple[int, float]]:
        if key == _ALL:
            windows = [OVERALL_LIMIT]
        elif isinstance(key, int) and key < 0:
            limit, seconds = GROUP_LIMIT
            windows = [GROUP_PACE, (max(1, round(limit * share)), seconds)]
        else:
            windows = [PRIVATE_LIMIT]
        return [(limit, seconds * self.scale) for limit, seconds in windows]

    def _delay(self, ticket: _Ticket, now: float, besides: _Slot | None = None) -> float:
        """Seconds until the ticket's windows have room and no 429 holds its chat (not
        counting the slot `besides`)."""
        delay = 0.0
        for held_key in (_ALL, ticket.chat):
            held = self._held.get(held_key)
            if held is not None and held <= now:
                del self._held[held_key]
            elif held is not None:
                delay = max(delay, held - now)
        for key in ticket.keys:
            windows = self._windows(key, ticket.share)
            longest = windows[-1][1]
            slots = [s for s in self._slots.pop(key, ()) if s.time(now) + longest > now]
            if slots:
                self._slots[key] = slots
            for limit, seconds in windows:
                times = sorted(
                    t for s in slots if (t := s.time(now)) + seconds > now and s is not besides
                )
                if len(times) >= limit:
                    delay = max(delay, times[-limit] + seconds - now)
        return delay
