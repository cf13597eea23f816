"""What the bot's process does to run lean: measured by `make bench`, see the README.

- uvloop runs the event loop (where it is installed: Linux and macOS), orjson decodes
  and encodes the Bot API's JSON. Both cut the CPU each update costs.
- aiogram parametrizes a pydantic model for every answer it reads (`Response[Message]`
  and the like); pydantic keeps those classes only weakly, so after a garbage
  collection the next call builds its class again, which costs milliseconds. A request
  middleware holds on to each one the bot has used.
- An edit's answer is not built into a `Message` (pydantic validating the message, its
  text's entities and every button of its keyboard): the bot never reads it, and an
  edit may answer plain `True` by the Bot API's own terms. Failures are read in full.
- After start-up, `gc.freeze()` moves what is alive then (modules, aiogram's and
  pydantic's schemas, the resumed games) out of the collector's reach, so that a full
  collection does not walk it again: such a walk stalls every game for tens of ms.

`MAFIA_STOCK_RUNTIME=1` in the environment turns all of it off, to measure what it is
worth (`python -m bench --stock-runtime`).
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import importlib
import json
import logging
import os
import time
from collections.abc import Callable, Iterator
from http import HTTPStatus
from typing import Any, cast

from aiogram import Bot
from aiogram.client.session.aiohttp import AiohttpSession
from aiogram.client.session.middlewares.base import (
    BaseRequestMiddleware,
    NextRequestMiddlewareType,
)
from aiogram.client.telegram import TelegramAPIServer
from aiogram.methods import (
    EditMessageCaption,
    EditMessageReplyMarkup,
    EditMessageText,
    Response,
    TelegramMethod,
)
from aiogram.methods.base import TelegramType

STOCK = "MAFIA_STOCK_RUNTIME"
log = logging.getLogger(__name__)


def stock() -> bool:
    return os.environ.get(STOCK, "") not in ("", "0")


def _optional(name: str) -> Any:
    if stock():
        return None
    try:
        return importlib.import_module(name)
    except ImportError:
        return None


def loop_factory() -> Callable[[], asyncio.AbstractEventLoop] | None:
    """uvloop's event loop, or None for asyncio's own."""
    uvloop = _optional("uvloop")
    return None if uvloop is None else uvloop.new_event_loop


def json_codec() -> tuple[Callable[..., Any], Callable[..., str]]:
    """`json_loads` and `json_dumps` for aiogram's session: orjson's, or the standard ones."""
    orjson = _optional("orjson")
    if orjson is None:
        return json.loads, json.dumps

    def dumps(value: Any) -> str:
        return str(orjson.dumps(value).decode())

    return orjson.loads, dumps


class KeepResponseModels(BaseRequestMiddleware):
    """Holds `Response[T]` for every kind of call made, so pydantic keeps it built."""

    def __init__(self) -> None:
        self._kept: dict[type, object] = {}

    async def __call__(
        self,
        make_request: NextRequestMiddlewareType[TelegramType],
        bot: Bot,
        method: TelegramMethod[TelegramType],
    ) -> Response[TelegramType]:
        kind = type(method)
        if kind not in self._kept:
            self._kept[kind] = Response[method.__returning__]  # type: ignore[name-defined]
        return await make_request(bot, method)


# Calls whose answer (`Message | bool`) the bot never reads.
UNREAD_ANSWERS = (EditMessageText, EditMessageReplyMarkup, EditMessageCaption)
# What such a call answers when it went through: `True`, as Telegram answers an edit of a
# message sent via inline mode. Built once; nothing changes it.
_DONE: Response[bool] = Response[bool](ok=True, result=True)


class PlainHttpSession(AiohttpSession):
    """aiogram's session, minus the pause it takes when closing where there is no TLS.

    `AiohttpSession.close()` sleeps 250 ms so that TLS connections can shut down
    gracefully. A plain HTTP server (the offline sandbox on 127.0.0.1, a local Bot API
    server) has nothing to wait for, and a test suite that opens a bot per test would
    otherwise spend seconds asleep.
    """

    def __init__(self, api: TelegramAPIServer, **kwargs: Any) -> None:
        super().__init__(api=api, **kwargs)
        self._tls = api.base.startswith("https:")

    async def close(self) -> None:
        if self._tls:
            await super().close()
        elif self._session is not None and not self._session.closed:
            await self._session.close()


class LeanSession(PlainHttpSession):
    """aiogram's session, minus the work on answers that nothing reads (module doc)."""

    def __init__(self, api: TelegramAPIServer, **kwargs: Any) -> None:
        super().__init__(api=api, **kwargs)
        self._lean = not stock()

    def check_response(
        self,
        bot: Bot,
        method: TelegramMethod[TelegramType],
        status_code: int,
        content: str,
    ) -> Response[TelegramType]:
        if (
            self._lean
            and isinstance(method, UNREAD_ANSWERS)
            and HTTPStatus.OK <= status_code <= HTTPStatus.IM_USED
        ):
            with contextlib.suppress(Exception):  # anything odd: read in full below
                if self.json_loads(content).get("ok") is True:
                    return cast(Response[TelegramType], _DONE)
        return super().check_response(bot, method, status_code, content)


def tune(bot: Bot) -> None:
    """Install the request-side savings on `bot` (nothing with MAFIA_STOCK_RUNTIME)."""
    if not stock():
        bot.session.middleware(KeepResponseModels())


def freeze_start_up() -> None:
    """Everything alive after start-up stays: let the collector skip it from now on."""
    if not stock():
        gc.collect()
        gc.freeze()


@contextlib.contextmanager
def watching_collections() -> Iterator[None]:
    """While the bot serves: a long garbage collection is logged (then no more, so that
    a process that goes on without the bot, a test's, is not told of its own)."""
    observe = _GcWatch().observe
    gc.callbacks.append(observe)
    try:
        yield
    finally:
        gc.callbacks.remove(observe)


# A collection that stops every game this long is worth a line in the log.
SLOW_GC = 0.05  # seconds


class _GcWatch:
    """Logs every garbage collection that held the event loop for SLOW_GC or more."""

    def __init__(self) -> None:
        self._began = 0.0

    def observe(self, phase: str, info: dict[str, int]) -> None:
        if phase == "start":
            self._began = time.perf_counter()
            return
        took = time.perf_counter() - self._began
        if took >= SLOW_GC:
            log.warning(
                "a garbage collection (generation %d, %d collected) held every game for %.0f ms",
                info["generation"],
                info["collected"],
                took * 1000,
            )
