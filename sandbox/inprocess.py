"""A Bot API session answered by the sandbox in process: no socket, the same answers.

`InProcessSession` is an aiogram session (`BaseSession`, as aiogram's own tests mock it):
each request is encoded as aiogram's HTTP session encodes it, answered by the sandbox's
own request handling (`Sandbox.call`, the path its HTTP server takes once a request's
body is read), so every answer, refusal, right and flood window is the sandbox's, and
recorded as `Sent`. The middle layer of the tests, and whole games that need no wire
(`open_table(..., in_process=True)`), run the bot on it.
"""

from __future__ import annotations

import json
from collections.abc import AsyncGenerator, AsyncIterator
from dataclasses import dataclass
from typing import Any, cast

from aiogram import Bot
from aiogram.client.session.base import BaseSession
from aiogram.methods import TelegramMethod
from aiogram.methods.base import TelegramType
from aiogram.types import InputFile

from sandbox.schema import UploadedFile
from sandbox.server import Sandbox


@dataclass(frozen=True)
class Sent:
    """One request the bot made, as its session sent it, and the sandbox's answer."""

    method: str
    params: dict[str, str]
    status: int
    description: str | None
    result: Any

    @property
    def ok(self) -> bool:
        return self.status == 200

    @property
    def chat_id(self) -> int | None:
        value = self.params.get("chat_id")
        return int(value) if value is not None and value.lstrip("-").isdigit() else None

    @property
    def text(self) -> str:
        """What the call shows: a message's text or a button's answer (empty if none)."""
        return self.params.get("text") or self.params.get("caption") or ""


class InProcessSession(BaseSession):
    """Bot API calls answered by the sandbox in process, each recorded as `Sent`."""

    def __init__(self, sandbox: Sandbox) -> None:
        super().__init__()
        self.sandbox = sandbox
        self.sent: list[Sent] = []

    async def make_request(
        self,
        bot: Bot,
        method: TelegramMethod[TelegramType],
        timeout: int | None = None,  # noqa: ASYNC109 (aiogram's signature; nothing waits here)
    ) -> TelegramType:
        name = method.__api_method__
        params, files = await self._encoded(bot, method)
        status, body = await self.sandbox.call(bot.token, name, dict(params), files)
        self.sent.append(Sent(name, params, status, body.get("description"), body.get("result")))
        # Read back as aiogram reads an answer off the wire: the same exceptions follow.
        response = self.check_response(
            bot=bot, method=method, status_code=status, content=json.dumps(body)
        )
        return cast(TelegramType, response.result)

    async def _encoded(
        self, bot: Bot, method: TelegramMethod[TelegramType]
    ) -> tuple[dict[str, str], dict[str, UploadedFile]]:
        """The request's fields as aiogram's HTTP session puts them in its form: text
        (objects as JSON), empty ones left out, files as parts of their own."""
        params: dict[str, str] = {}
        attached: dict[str, InputFile] = {}
        for key, value in method.model_dump(warnings=False).items():
            prepared = self.prepare_value(value, bot=bot, files=attached)
            if prepared:
                # Always text; a text enum (ParseMode) goes as its value, as on the wire.
                params[key] = str.__str__(prepared)
        files: dict[str, UploadedFile] = {}
        for key, attachment in attached.items():
            data = b"".join([chunk async for chunk in _chunks(attachment, bot)])
            filename = attachment.filename or key
            files[key] = UploadedFile(filename, "application/octet-stream", data)
        return params, files

    async def stream_content(
        self,
        url: str,
        headers: dict[str, Any] | None = None,
        timeout: int = 30,  # noqa: ASYNC109 (aiogram's signature)
        chunk_size: int = 65536,
        raise_for_status: bool = True,
    ) -> AsyncGenerator[bytes, None]:
        # The bot downloads no file from Telegram; a test that makes it try fails here.
        raise AssertionError(f"the bot tried to download {url}")
        yield b""  # pragma: no cover (makes this an async generator, as the base's is)

    async def close(self) -> None:
        """Nothing to close: no connection was opened."""


async def _chunks(attachment: InputFile, bot: Bot) -> AsyncIterator[bytes]:
    async for chunk in attachment.read(bot):
        yield chunk
