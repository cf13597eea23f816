"""What holds the bot's two HTTP servers (the live page and the webhook) against a stranger.

- A client gets a few seconds to send a whole request's headers, then it is dropped: a
  connection that sends half a request and waits is not kept for an hour. aiohttp's own
  `keepalive_timeout` does it: it runs from the moment a connection opens, and closes it
  unless a whole request has come by then (or after the last answer, once idle).
- A source address gets so many requests, then 429 for a while (a token bucket each, a
  bounded number of sources remembered): one caller cannot take the server for itself.
"""

from __future__ import annotations

import ipaddress
import time
from collections.abc import Callable
from dataclasses import dataclass

from aiohttp import web
from aiohttp.typedefs import Handler, Middleware

from bot.lru import LRU

# Seconds a connection may take to send a whole request (and stay idle between two).
HEADER_SECONDS = 5.0
# Source addresses remembered; one forgotten starts again with a full budget.
SOURCES_KEPT = 10_000


def _behind_proxy(peer: str) -> bool:
    """A peer on this machine or a private network (a container's proxy on the compose
    network) is our reverse proxy; one from the internet names nobody but itself."""
    try:
        return ipaddress.ip_address(peer).is_private
    except ValueError:
        return False


def source(request: web.Request) -> str:
    """The caller: the peer address, and behind our reverse proxy the client it names
    (the last address of X-Forwarded-For, the one our proxy appended)."""
    peer = request.remote or "unknown"
    forwarded = request.headers.get("X-Forwarded-For")
    if forwarded and _behind_proxy(peer):
        client = forwarded.split(",")[-1].strip()[:64]
        if client:
            return f"{client} (via {peer})"
    return peer


@dataclass
class _Bucket:
    tokens: float
    at: float


class AddressLimit:
    """`burst` requests at once per source, then one every `every` seconds; past it, 429.

    Time is the server's real time (`time.monotonic` unless told): the load it guards is
    in real seconds, whatever the game clock says."""

    def __init__(
        self,
        burst: int,
        every: float,
        *,
        clock: Callable[[], float] = time.monotonic,
        kept: int = SOURCES_KEPT,
    ) -> None:
        if burst < 1 or every <= 0:
            raise ValueError("a limit needs a burst of at least one and a positive pace")
        self.burst = burst
        self.every = every
        self._clock = clock
        self._buckets: LRU[str, _Bucket] = LRU(kept)

    def admit(self, who: str) -> bool:
        """Whether `who` may have one more request now (and spend it if so)."""
        now = self._clock()
        bucket = self._buckets.get(who)
        if bucket is None:
            bucket = _Bucket(float(self.burst), now)
            self._buckets[who] = bucket
        refill = max(0.0, now - bucket.at) / self.every
        bucket.tokens = min(float(self.burst), bucket.tokens + refill)
        bucket.at = now
        if bucket.tokens < 1.0:
            return False
        bucket.tokens -= 1.0
        return True

    def remembered(self) -> int:
        return len(self._buckets)

    def middleware(self) -> Middleware:
        """Every request of an application counted against its source."""

        @web.middleware
        async def limited(request: web.Request, handler: Handler) -> web.StreamResponse:
            if not self.admit(source(request)):
                return too_many(self.every)
            return await handler(request)

        return limited


def too_many(every: float) -> web.Response:
    return web.Response(
        status=429, text="Too Many Requests", headers={"Retry-After": str(max(1, round(every)))}
    )
