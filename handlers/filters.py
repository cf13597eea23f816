"""Magic filters checked in the event loop.

aiogram runs a bare `F...` filter through `asyncio.to_thread` (it is a plain callable),
which costs a thread hop for every update it looks at; `Is(F...)` is the same test as an
async filter. The benchmark (make bench) showed those hops among the bot's hot spots.
"""

from __future__ import annotations

from aiogram import F
from aiogram.filters import Filter
from aiogram.types import TelegramObject
from aiogram.utils.magic_filter import MagicFilter


class Is(Filter):
    def __init__(self, magic: MagicFilter) -> None:
        self.magic = magic

    async def __call__(self, event: TelegramObject) -> bool:
        return bool(self.magic.resolve(event))


IN_GROUP = Is(F.chat.type.in_({"group", "supergroup"}))
IN_PRIVATE = Is(F.chat.type == "private")
