"""Telegram's side of a webhook: setWebhook's checks, and delivering updates by HTTP POST.

Once the bot calls setWebhook, every pending update is POSTed to its URL as JSON, with
the `X-Telegram-Bot-Api-Secret-Token` header when the bot gave a secret. An update
counts as delivered only when the bot answers 2xx; any other answer (or no answer) is
recorded as the webhook's last error and the update is sent again a little later, as
Telegram does. At most `max_connections` requests are in flight at once.

Telegram accepts only public HTTPS addresses on ports 443, 80, 88 and 8443. A Bot API
server started with `--local` also accepts plain HTTP, any port and local addresses;
`Sandbox(local_mode=True)` is that server, which is how a test's bot on 127.0.0.1 gets
its updates.
"""

from __future__ import annotations

import asyncio
import contextlib
import ipaddress
import json
import logging
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

import aiohttp

from sandbox.api_errors import ApiError
from sandbox.updates import UpdateQueue

log = logging.getLogger(__name__)

SECRET_HEADER = "X-Telegram-Bot-Api-Secret-Token"
_PORTS = (443, 80, 88, 8443)
_SECRET_CHARACTERS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-")
_DEFAULT_CONNECTIONS = 40
_LONGEST_URL = 512  # telegram-bot-api's limit on a webhook URL


@dataclass
class Webhook:
    url: str
    secret_token: str | None
    max_connections: int
    ip_address: str | None = None
    has_custom_certificate: bool = False
    last_error_date: int | None = None
    last_error_message: str | None = None

    def info(self, pending: int, allowed: list[str]) -> dict[str, Any]:
        """getWebhookInfo's answer."""
        answer: dict[str, Any] = {
            "url": self.url,
            "has_custom_certificate": self.has_custom_certificate,
            "pending_update_count": pending,
            "max_connections": self.max_connections,
        }
        if self.ip_address is not None:
            answer["ip_address"] = self.ip_address
        if self.last_error_date is not None:
            answer["last_error_date"] = self.last_error_date
            answer["last_error_message"] = self.last_error_message
        if allowed:
            answer["allowed_updates"] = allowed
        return answer


def checked_webhook(params: dict[str, Any], *, local: bool) -> Webhook | None:
    """setWebhook's parameters as Telegram checks them; None when `url` is empty (remove)."""
    url = params["url"]
    secret = params.get("secret_token", "")
    if len(secret) > 256:
        raise ApiError.bad_request("secret token is too long")
    if not set(secret) <= _SECRET_CHARACTERS:
        raise ApiError.bad_request("secret token contains unallowed characters")
    if not url:
        return None
    if len(url) > _LONGEST_URL:
        raise ApiError.bad_request("bad webhook: URL is too long")
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError:
        raise ApiError.bad_request("bad webhook: Wrong port number specified in the URL") from None
    if parts.scheme not in ("https", "http") or not parts.hostname:
        raise ApiError.bad_request("bad webhook: Failed to resolve host: Name or service not known")
    if not local:
        if parts.scheme != "https":
            raise ApiError.bad_request("bad webhook: HTTPS url must be provided for webhook")
        if port is not None and port not in _PORTS:
            raise ApiError.bad_request(
                "bad webhook: Webhook can be set up only on ports 80, 88, 443 or 8443"
            )
        for host in (parts.hostname, params.get("ip_address")):
            if host is not None and _reserved(host):
                raise ApiError.bad_request(f"bad webhook: IP address {host} is reserved")
    # Out of range is brought into it, as telegram-bot-api does.
    connections = params.get("max_connections", _DEFAULT_CONNECTIONS)
    return Webhook(
        url=url,
        secret_token=secret or None,
        max_connections=min(max(connections, 1), 100),
        ip_address=params.get("ip_address"),
        has_custom_certificate="certificate" in params,
    )


def _reserved(host: str) -> bool:
    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        return host == "localhost"
    return not address.is_global


class WebhookDelivery:
    """POSTs the queue's pending updates to the webhook while one is set."""

    def __init__(
        self,
        queue: UpdateQueue,
        clock: Callable[[], float],
        on_delivered: Callable[[], None],
        *,
        retry_after: float = 0.05,
        timeout: float = 60.0,
    ) -> None:
        self._queue = queue
        self._clock = clock
        self._on_delivered = on_delivered
        self.retry_after = retry_after  # seconds of real time before a failed one again
        self._timeout = timeout
        self._task: asyncio.Task[None] | None = None
        self.delivered = 0  # answered 2xx
        self.refused = 0  # any other answer, or none

    def start(self) -> None:
        if self._task is None:
            self._task = asyncio.create_task(self._run(), name="sandbox webhook delivery")

    async def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
            self._task = None

    async def _run(self) -> None:
        loop = asyncio.get_running_loop()
        changed = self._queue.changed()
        in_flight: dict[int, asyncio.Task[bool]] = {}
        not_before: dict[int, float] = {}  # update id -> loop time of its next attempt
        timeout = aiohttp.ClientTimeout(total=self._timeout)
        async with aiohttp.ClientSession(timeout=timeout) as session:
            try:
                while True:
                    changed.clear()
                    hook = self._queue.webhook
                    now = loop.time()
                    if hook is not None:
                        for update in self._queue.pending:
                            update_id = update["update_id"]
                            if len(in_flight) >= hook.max_connections:
                                break
                            if update_id in in_flight or not_before.get(update_id, 0) > now:
                                continue
                            in_flight[update_id] = asyncio.create_task(
                                self._post(session, hook, update)
                            )
                    waits: list[asyncio.Future[Any]] = [*in_flight.values()]
                    change = asyncio.ensure_future(changed.wait())
                    waits.append(change)
                    later = [t - now for t in not_before.values() if t > now]
                    await asyncio.wait(
                        waits,
                        timeout=min(later) if later else None,
                        return_when=asyncio.FIRST_COMPLETED,
                    )
                    change.cancel()
                    for update_id, task in list(in_flight.items()):
                        if not task.done():
                            continue
                        del in_flight[update_id]
                        if task.result():
                            not_before.pop(update_id, None)
                            self._queue.confirm(update_id)
                            self._on_delivered()
                        else:
                            not_before[update_id] = loop.time() + self.retry_after
                    pending = {u["update_id"] for u in self._queue.pending}
                    for update_id in set(not_before) - pending:
                        del not_before[update_id]  # dropped meanwhile
            finally:
                for task in in_flight.values():
                    task.cancel()
                if in_flight:
                    await asyncio.wait(in_flight.values())

    async def _post(
        self, session: aiohttp.ClientSession, hook: Webhook, update: dict[str, Any]
    ) -> bool:
        headers = {"Content-Type": "application/json"}
        if hook.secret_token is not None:
            headers[SECRET_HEADER] = hook.secret_token
        body = json.dumps(update, ensure_ascii=False).encode()
        try:
            async with session.post(hook.url, data=body, headers=headers) as answer:
                await answer.read()
                if 200 <= answer.status < 300:
                    self.delivered += 1
                    return True
                error = f"Wrong response from the webhook: {answer.status} {answer.reason}"
        except TimeoutError:
            error = "Read timeout expired"
        except aiohttp.ClientConnectionError:
            error = "Connection refused"
        self.refused += 1
        hook.last_error_date = int(self._clock())
        hook.last_error_message = error
        return False
