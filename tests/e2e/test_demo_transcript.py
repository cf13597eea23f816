"""`python -m bot demo`: the same seed prints the same transcript, private chats included
(issue 13). Before: the join link's token was random, and the mafia's relays, sent to
several chats at once, came out in the order the network gave them, at times that
depended on the machine's speed.
"""

from __future__ import annotations

import io

from bot.config import Config
from bot.demo import play_demo


async def transcript(seed: int, lang: str) -> str:
    out = io.StringIO()
    assert await play_demo(Config(), 7, seed, lang, out) == 0
    return out.getvalue()


async def test_the_same_seed_prints_the_same_transcript() -> None:
    first = await transcript(2, "ru")
    assert "(private) | Mafia Table [bot]: 💬" in first  # the mafia's relay is in it
    assert "join_" in first
    assert await transcript(2, "ru") == first
