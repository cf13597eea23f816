"""The framework's floor: an aiogram bot that only answers each update.

`python -m bench.bare --api-server URL --token TOKEN` polls like `python -m bot run`
(aiogram's `start_polling` with its defaults, the same session class and logging set-up)
and does the least a bot can do for each update: a text reply to every message, an
answer to every callback query. The benchmark runs it under the same load as the real
bot, so the difference between the two is what the game itself costs.
"""

from __future__ import annotations

import argparse
import asyncio
import logging

from aiogram import Bot, Dispatcher
from aiogram.client.session.aiohttp import AiohttpSession
from aiogram.client.telegram import TelegramAPIServer
from aiogram.types import CallbackQuery, Message


def make_dispatcher() -> Dispatcher:
    dispatcher = Dispatcher()

    @dispatcher.message()
    async def reply(message: Message) -> None:
        await message.answer("ok")

    @dispatcher.callback_query()
    async def answer(query: CallbackQuery) -> None:
        await query.answer()

    return dispatcher


async def serve(api_server: str, token: str) -> None:
    session = AiohttpSession(api=TelegramAPIServer.from_base(api_server))
    bot = Bot(token, session=session)
    try:
        await make_dispatcher().start_polling(bot)
    finally:
        await bot.session.close()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.bare", description=__doc__)
    parser.add_argument("--api-server", required=True)
    parser.add_argument("--token", required=True)
    args = parser.parse_args(argv)
    logging.basicConfig(
        level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s"
    )
    asyncio.run(serve(args.api_server, args.token))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
