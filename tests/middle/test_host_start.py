"""A Host who never pressed Start is asked to, with a button to the bot's private chat,
at /newgame and again at /begin (issue 22 §1, V3: the night reports and the panel go
to the Host privately)."""

from __future__ import annotations

from sandbox import SimMessage
from tests.middle.games import open_game


def asks_for_start(messages: list[SimMessage]) -> list[SimMessage]:
    return [
        m for m in messages for row in m.buttons() for b in row if b.url and "?start=host" in b.url
    ]


async def test_newgame_and_begin_ask_a_host_who_never_pressed_start() -> None:
    async with open_game(12, seed=5, lang="ru") as table:
        await table.gather(table.people[:3])
        asked = asks_for_start(table.group.visible_messages())
        assert len(asked) == 1 and "Start" in asked[0].content
        await table.begin()  # too few to start: the Host is reminded
        assert len(asks_for_start(table.group.visible_messages())) == 2
        await table.host.follow(asked[0], 0)  # the button opens the chat and presses Start
        await table.settle()
        assert await table.app.service.reachable(table.host.id)
        table.sandbox.assert_no_bot_errors()


async def test_a_host_who_pressed_start_is_not_asked() -> None:
    async with open_game(12, seed=5, lang="ru") as table:
        await table.host.start_bot()
        await table.gather()
        await table.begin()
        assert asks_for_start(table.group.visible_messages()) == []
        table.sandbox.assert_no_bot_errors()
