"""The harness answers as the sandbox over HTTP does: its refusals become aiogram's."""

from __future__ import annotations

import pytest
from aiogram.exceptions import TelegramBadRequest, TelegramForbiddenError

from tests.middle.harness import Desk, open_desk


async def test_calls_are_answered_and_recorded_with_the_sandboxs_rights() -> None:
    async with open_desk() as desk:
        await _refusals_become_aiograms(desk)


async def _refusals_become_aiograms(desk: Desk) -> None:
    sent = await desk.call(desk.bot.send_message(desk.group.id, "Good evening"))
    assert desk.group.visible_messages()[-1].message_id == sent.message_id
    # A person who never pressed Start cannot be written to (Telegram's 403).
    with pytest.raises(TelegramForbiddenError, match="can't initiate conversation"):
        await desk.call(desk.bot.send_message(desk.people[0].id, "Hello"))
    # An edit that changes nothing is refused as Telegram refuses it.
    with pytest.raises(TelegramBadRequest, match="message is not modified"):
        await desk.call(
            desk.bot.edit_message_text(
                "Good evening", chat_id=desk.group.id, message_id=sent.message_id
            )
        )

    calls = [(call.method, call.chat_id, call.status) for call in desk.sent(since=0)]
    assert calls[-3:] == [
        ("sendMessage", desk.group.id, 200),
        ("sendMessage", desk.people[0].id, 403),
        ("editMessageText", desk.group.id, 400),
    ]
    assert desk.refused()[-1].description == (
        "Bad Request: message is not modified: specified new message content and reply "
        "markup are exactly the same as a current content and reply markup of the message"
    )
    # The sandbox logged the same calls, as it logs those that come over HTTP.
    logged = desk.sandbox.calls(("sendMessage", "editMessageText"))
    assert [(call.method, call.status) for call in logged] == [
        ("sendMessage", 200),
        ("sendMessage", 403),
        ("editMessageText", 400),
    ]


async def test_a_wrong_token_and_an_unknown_method_are_refused_as_over_http(desk: Desk) -> None:
    status, body = await desk.sandbox.call("123:not-this-bot", "getMe", {})
    assert (status, body["ok"]) == (401, False)
    status, body = await desk.sandbox.call(desk.sandbox.token, "sendTelepathy", {})
    assert (status, body["ok"]) == (404, False)
    status, body = await desk.sandbox.call(desk.sandbox.token, "sendMessage", {"chat_id": "1"})
    assert (status, body["description"]) == (400, "Bad Request: message text is empty")


async def test_the_same_flow_makes_the_same_calls_at_the_same_times() -> None:
    """Deterministic: the virtual clock moves only when everything waits on it."""
    records = []
    for _ in range(2):
        async with open_desk() as desk:
            await desk.open_lobby()
            await desk.begin()
            await desk.run_until(lambda state: state.day == 1)
            records.append(
                (
                    [(call.method, call.chat_id, call.text) for call in desk.session.sent],
                    [call.time for call in desk.sandbox.calls()],
                    desk.clock.now(),
                )
            )
    assert records[0] == records[1]
