"""Webhook mode: Telegram POSTs every update to our HTTP server instead of being polled.

Anyone who finds the address can POST to it too, so every request must carry the
secret we gave Telegram in setWebhook (the `X-Telegram-Bot-Api-Secret-Token` header);
a request without it is refused before its body is read, and changes nothing.

An update is answered 200 only once it has been handled and its mark stored (see
`handlers.middleware.OncePerUpdate`): until then Telegram holds it and delivers it again
if we die, exactly as an unconfirmed getUpdates offset does in polling mode. A handler
that fails is answered 500, so Telegram delivers the update again and it is handled
afresh (its mark was not stored).
"""

from __future__ import annotations

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

from bot import runtime
from bot.config import valid_webhook_secret

log = logging.getLogger(__name__)

SECRET_HEADER = "X-Telegram-Bot-Api-Secret-Token"
# Sources whose refused requests have been logged; beyond this many, no more lines, so a
# stranger cannot fill the log by forging source addresses.
LOGGED_SOURCES = 1024
# The largest body read: an update is a few kilobytes (aiohttp's default is 1 MiB).
LARGEST_UPDATE = 256 * 1024


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
        self._secret = secret.encode()
        self._loads: Callable[..., Any] = runtime.json_codec()[0]
        self._logged: set[str] = set()

    async def handle(self, request: web.Request) -> web.Response:
        given = request.headers.get(SECRET_HEADER)
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
        try:
            await self._dispatcher.feed_update(self._bot, update)
        except Exception:
            log.exception("webhook: update %d failed; Telegram will deliver it again",
                          update.update_id)  # fmt: skip
            return web.Response(status=500, text="Internal Server Error")
        return web.json_response({})

    def _refused(self, request: web.Request, how: str) -> None:
        source = _source(request)
        if source in self._logged or len(self._logged) >= LOGGED_SOURCES:
            return
        self._logged.add(source)
        log.warning(
            "webhook: refused a request %s from %s (further ones from there are not logged)",
            how,
            source,
        )


def _source(request: web.Request) -> str:
    """The caller: the peer address, and behind a local reverse proxy the client it names."""
    peer = request.remote or "unknown"
    forwarded = request.headers.get("X-Forwarded-For")
    if forwarded and peer in ("127.0.0.1", "::1"):
        client = forwarded.split(",")[-1].strip()[:64]  # the one our proxy appended
        return f"{client} (via {peer})"
    return peer


def webhook_application(
    dispatcher: Dispatcher, bot: Bot, path: str, secret: str
) -> web.Application:
    web_app = web.Application(client_max_size=LARGEST_UPDATE)
    web_app.router.add_post(path, UpdateReceiver(dispatcher, bot, secret).handle)
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
    runner = web.AppRunner(
        webhook_application(dispatcher, bot, listening_path(url), secret),
        access_log=None,
        # An update being handled is finished, not cut off, when we stop.
        handler_cancellation=False,
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
        )
    except BaseException:
        await runner.cleanup()
        raise
    log.info("webhook set; listening on %s", ", ".join(str(a) for a in runner.addresses))
    return runner
