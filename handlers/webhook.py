"""Webhook mode: Telegram POSTs every update to our HTTP server instead of being polled.

Anyone who finds the address can POST to it too, so every request must carry the
secret we gave Telegram in setWebhook (the `X-Telegram-Bot-Api-Secret-Token` header);
a request without it is refused before its body is read, and changes nothing. A source
refused too often is answered 429 without a look at what it sends, and a connection that
sends half a request is dropped after a few seconds (bot.web.httpguard); a request with the
secret is Telegram's and never limited.

An update is answered 200 once it is decided: what it did is stored with its mark (see
`handlers.middleware.OncePerUpdate`), or it told Telegram something, or its handling is
over (`bot.services.inbox.ChatOrder`). Until then Telegram holds it and delivers it again if we
die. What it still has to send waits for Telegram's windows in the sender's queues, not
in the request: a reply held by a busy group's 20 a minute never keeps a connection, so
a flood in strangers' groups cannot take the connections that the games' presses need.
A handler that fails before it is decided is answered 500, so Telegram delivers the
update again and it is handled afresh (its mark was not stored); one that fails after
is logged, since delivering it again would find it handled.
"""

from __future__ import annotations

import asyncio
import hmac
import logging
import secrets
import socket
from collections.abc import Callable
from typing import Any
from urllib.parse import urlsplit

from aiogram import Bot, Dispatcher
from aiogram.types import Update
from aiogram.types.update import UpdateTypeLookupError
from aiohttp import web
from pydantic import ValidationError

from bot.config import valid_webhook_secret
from bot.delivery import runtime
from bot.services.workers import Workers
from bot.web.httpguard import HEADER_SECONDS, AddressLimit, source, too_many

log = logging.getLogger(__name__)

SECRET_HEADER = "X-Telegram-Bot-Api-Secret-Token"
# The dispatcher's data key that says an update answered 500 is delivered again.
REDELIVERY = "redelivery"
# Sources whose refused requests have been logged; beyond this many, no more lines, so a
# stranger cannot fill the log by forging source addresses.
LOGGED_SOURCES = 1024
# How many updates Telegram may have on their way to us at once (setWebhook's
# max_connections; Telegram's default, said here on purpose). A connection is held only
# until its update is decided, about 10 ms (75 ms at the 99th percentile under 400
# games' load, docs/developers.md, "How fast"), so 40 carry several hundred updates a second, more
# than the 30 messages a second Telegram lets a bot send: a burst of sixteen votes never
# waits for a connection. More would only let a flood in faster.
WEBHOOK_CONNECTIONS = 40
# The largest body read: an update is a few kilobytes (aiohttp's default is 1 MiB).
LARGEST_UPDATE = 256 * 1024
# Refused requests a source may make: a few at once (a proxy's misconfiguration shows in
# the log), then one a second; past it, 429 at once.
REFUSED_BURST, REFUSED_EVERY = 10, 1.0


def new_secret() -> str:
    """A fresh secret: 48 random bytes, 64 characters from Telegram's alphabet."""
    return secrets.token_urlsafe(48)


def listening_path(url: str) -> str:
    """Where we listen: the path of the address Telegram calls (a proxy passes it on)."""
    return urlsplit(url).path or "/"


class UpdateReceiver:
    """The aiohttp handler of the webhook path."""

    def __init__(self, dispatcher: Dispatcher, bot: Bot, secret: str) -> None:
        if not valid_webhook_secret(secret):
            raise ValueError("the webhook secret must be 32-256 characters of A-Za-z0-9_-")
        self._dispatcher = dispatcher
        self._bot = bot
        # The bot's (`build_app` puts them in the dispatcher): an update's handling is
        # theirs, the rest of it too, after Telegram has its answer.
        self._workers: Workers = dispatcher.get("workers") or Workers()
        self._secret = secret.encode()
        self._loads: Callable[..., Any] = runtime.json_codec()[0]
        self._logged: set[str] = set()
        self.refusals = AddressLimit(REFUSED_BURST, REFUSED_EVERY)
        # Updates answered already, still telling people what they did.
        self._finishing: set[asyncio.Future[Any]] = set()

    async def handle(self, request: web.Request) -> web.Response:
        given = request.headers.get(SECRET_HEADER)
        known = given is not None and hmac.compare_digest(given.encode(), self._secret)
        if not known and not self.refusals.admit(source(request)):
            return too_many(REFUSED_EVERY)
        if given is None:
            self._refused(request, "without the secret header")
            return web.Response(status=401, text="Unauthorized")
        if not hmac.compare_digest(given.encode(), self._secret):
            self._refused(request, "with a wrong secret")
            return web.Response(status=403, text="Forbidden")
        body = await request.read()  # past the application's client_max_size: 413
        try:
            update = Update.model_validate(self._loads(body), context={"bot": self._bot})
        except (ValueError, ValidationError):  # not JSON, or JSON that is not an Update
            log.warning("webhook: a request with a malformed update answered 400")
            return web.Response(status=400, text="Bad Request: malformed update")
        try:
            update.event_type  # noqa: B018  (the lookup is the check)
        except UpdateTypeLookupError:
            # A kind of update newer than this aiogram: delivering it again would not help.
            log.warning("webhook: update %d is of a kind unknown here, ignored", update.update_id)
            return web.json_response({})
        decided = asyncio.Event()
        handling = self._workers.spawn(
            self._dispatcher.feed_update(self._bot, update, on_decided=decided.set), "update"
        )
        waiting = asyncio.ensure_future(decided.wait())
        await asyncio.wait((handling, waiting), return_when=asyncio.FIRST_COMPLETED)
        waiting.cancel()
        if not handling.done():
            # Decided: the rest only tells people, at the pace of Telegram's windows.
            self._finishing.add(handling)
            handling.add_done_callback(self._finished_later(update.update_id))
            return web.json_response({})
        if handling.exception() is not None:
            log.error("webhook: update %d failed; Telegram will deliver it again",
                      update.update_id, exc_info=handling.exception())  # fmt: skip
            return web.Response(status=500, text="Internal Server Error")
        return web.json_response({})

    def finishing(self) -> int:
        """Updates answered already whose handlers still tell people what they did."""
        return len(self._finishing)

    def _finished_later(self, update_id: int) -> Callable[[asyncio.Future[Any]], None]:
        def done(handling: asyncio.Future[Any]) -> None:
            self._finishing.discard(handling)
            if not handling.cancelled() and handling.exception() is not None:
                log.error("webhook: update %d failed after it was answered", update_id,
                          exc_info=handling.exception())  # fmt: skip

        return done

    def _refused(self, request: web.Request, how: str) -> None:
        caller = source(request)
        if caller in self._logged or len(self._logged) >= LOGGED_SOURCES:
            return
        self._logged.add(caller)
        log.warning(
            "webhook: refused a request %s from %s (further ones from there are not logged)",
            how,
            caller,
        )


RECEIVER: web.AppKey[UpdateReceiver] = web.AppKey("receiver", UpdateReceiver)


def webhook_application(
    dispatcher: Dispatcher, bot: Bot, path: str, secret: str
) -> web.Application:
    web_app = web.Application(client_max_size=LARGEST_UPDATE)
    receiver = UpdateReceiver(dispatcher, bot, secret)
    web_app[RECEIVER] = receiver
    web_app.router.add_post(path, receiver.handle)
    return web_app


async def serve_webhook(
    dispatcher: Dispatcher,
    bot: Bot,
    url: str,
    secret: str,
    *,
    host: str = "127.0.0.1",
    port: int = 8080,
    sock: socket.socket | None = None,
) -> web.AppRunner:
    """Listen on `url`'s path, then tell Telegram to call `url` with `secret`.

    Listening comes first, so the first delivery finds us; the caller cleans the runner
    up. The webhook stays set when we stop: Telegram keeps updates until we are back.
    """
    # A failure to store is answered 500 from now on: Telegram delivers the update again,
    # and the person's action is applied then (handlers.failures.not_recorded).
    dispatcher[REDELIVERY] = True
    runner = web.AppRunner(
        webhook_application(dispatcher, bot, listening_path(url), secret),
        access_log=None,
        # An update being handled is finished, not cut off, when we stop.
        handler_cancellation=False,
        # A half-sent request is dropped after this long (bot.web.httpguard).
        keepalive_timeout=HEADER_SECONDS,
    )
    await runner.setup()
    site: web.BaseSite = (
        web.SockSite(runner, sock) if sock is not None else web.TCPSite(runner, host, port)
    )
    await site.start()
    try:
        await bot.set_webhook(
            url,
            secret_token=secret,
            allowed_updates=dispatcher.resolve_used_update_types(),
            max_connections=WEBHOOK_CONNECTIONS,
        )
    except BaseException:
        await runner.cleanup()
        raise
    log.info("webhook set; listening on %s", ", ".join(str(a) for a in runner.addresses))
    return runner
