"""aiogram's HTTP session, minus the pause it takes when closing.

`AiohttpSession.close()` sleeps 250 ms so that TLS connections can shut down gracefully.
The sandbox speaks plain HTTP on 127.0.0.1, where there is nothing to wait for, and a
test suite that opens a bot per test would otherwise spend seconds asleep.
"""

from __future__ import annotations

from aiogram.client.session.aiohttp import AiohttpSession


class PlainHttpSession(AiohttpSession):
    async def close(self) -> None:
        if self._session is not None and not self._session.closed:
            await self._session.close()
