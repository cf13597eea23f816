"""Running an aiogram dispatcher against the sandbox inside a test."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from aiogram import Bot, Dispatcher

from sandbox import Sandbox


@asynccontextmanager
async def polling(dispatcher: Dispatcher, bot: Bot, sandbox: Sandbox) -> AsyncIterator[None]:
    """Run the dispatcher's long polling for the duration of the block.

    Updates are handled one at a time before the next poll confirms them, which is what
    makes `Sandbox.settle` exact. The block starts once the first poll is waiting, so the
    dispatcher's allowed_updates already apply.
    """
    task = asyncio.create_task(
        dispatcher.start_polling(
            bot,
            handle_signals=False,
            handle_as_tasks=False,
            polling_timeout=1,
            close_bot_session=False,
        )
    )
    await sandbox.wait_polling()
    try:
        yield
    finally:
        await dispatcher.stop_polling()
        await task
