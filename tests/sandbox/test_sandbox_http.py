"""Requests in every shape the Bot API accepts, checked against the method table."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from typing import Any

import aiohttp
import pytest

from sandbox import Sandbox


@pytest.fixture
async def http() -> AsyncIterator[aiohttp.ClientSession]:
    async with aiohttp.ClientSession() as session:
        yield session


async def call(
    http: aiohttp.ClientSession, sandbox: Sandbox, method: str, **kwargs: Any
) -> tuple[int, dict[str, Any]]:
    url = f"{sandbox.base_url}/bot{sandbox.token}/{method}"
    async with http.post(url, **kwargs) as response:
        return response.status, await response.json()


async def test_json_form_and_query_parameters_are_all_understood(
    http: aiohttp.ClientSession, sandbox: Sandbox
) -> None:
    anna = sandbox.add_user("Anna")
    await anna.start_bot()

    as_json = await call(http, sandbox, "sendMessage", json={"chat_id": anna.id, "text": "a"})
    as_form = await call(http, sandbox, "sendMessage", data={"chat_id": str(anna.id), "text": "b"})
    as_query = await call(http, sandbox, "sendMessage", params={"chat_id": anna.id, "text": "c"})

    assert [status for status, _ in (as_json, as_form, as_query)] == [200, 200, 200]
    assert [m.text for m in anna.inbox()] == ["a", "b", "c"]


async def test_an_unknown_method_is_not_found(
    http: aiohttp.ClientSession, sandbox: Sandbox
) -> None:
    status, body = await call(http, sandbox, "sendTelepathy", json={})

    assert status == 404
    assert body == {"ok": False, "error_code": 404, "description": "Not Found"}


@pytest.mark.parametrize(
    ("payload", "description"),
    [
        ({"chat_id": 1, "message_id": "seven"}, 'parameter "message_id" must be Integer'),
        ({"message_id": 7}, 'parameter "chat_id" is required'),
        ({"chat_id": 1, "message_id": 7, "colour": "red"}, 'unknown parameter "colour"'),
    ],
)
async def test_wrong_missing_and_unknown_parameters_are_refused(
    http: aiohttp.ClientSession,
    sandbox: Sandbox,
    payload: dict[str, Any],
    description: str,
) -> None:
    status, body = await call(http, sandbox, "deleteMessage", data=payload)

    assert status == 400
    assert body["ok"] is False
    assert body["error_code"] == 400
    assert body["description"].startswith("Bad Request: ")
    assert description in body["description"]


async def test_nested_objects_are_checked_field_by_field(
    http: aiohttp.ClientSession, sandbox: Sandbox
) -> None:
    anna = sandbox.add_user("Anna")
    await anna.start_bot()
    button = {"text": "Join", "callback_data": "join", "colour": "red"}
    markup = json.dumps({"inline_keyboard": [[button]]})

    status, body = await call(
        http, sandbox, "sendMessage", data={"chat_id": anna.id, "text": "x", "reply_markup": markup}
    )
    broken = await call(
        http, sandbox, "sendMessage", data={"chat_id": anna.id, "text": "x", "reply_markup": "{"}
    )

    assert status == 400
    assert 'unknown field "colour"' in body["description"]
    assert broken[1]["description"] == "Bad Request: can't parse reply_markup JSON object"


async def test_file_parts_are_read_by_name_or_by_attach_reference(
    http: aiohttp.ClientSession, sandbox: Sandbox
) -> None:
    anna = sandbox.add_user("Anna")
    await anna.start_bot()
    direct = aiohttp.FormData()
    direct.add_field("chat_id", str(anna.id))
    direct.add_field("photo", b"\x89PNG", filename="seat.png")
    attached = aiohttp.FormData()
    attached.add_field("chat_id", str(anna.id))
    attached.add_field("document", "attach://part1")
    attached.add_field("part1", b"protocol", filename="game.json")

    first = await call(http, sandbox, "sendPhoto", data=direct)
    second = await call(http, sandbox, "sendDocument", data=attached)

    assert (first[0], second[0]) == (200, 200)
    photo, document = anna.inbox()
    assert photo.file is not None
    assert photo.file.data == b"\x89PNG"
    assert document.file is not None
    assert (document.file.filename, document.file.data) == ("game.json", b"protocol")


async def test_a_token_of_another_bot_is_unauthorized() -> None:
    """Telegram answers a revoked or mistyped token of the right shape 401 (issue 13:
    `python -m bot check` names it)."""
    async with Sandbox() as sandbox, aiohttp.ClientSession() as http:
        async with http.get(f"{sandbox.base_url}/bot123456:revoked/getMe") as response:
            assert response.status == 401
            assert await response.json() == {
                "ok": False,
                "error_code": 401,
                "description": "Unauthorized",
            }
        async with http.get(f"{sandbox.base_url}/bot{sandbox.token}/getMe") as response:
            assert response.status == 200


@pytest.mark.parametrize(
    ("token", "method", "form"),
    [
        ("sandbox", "sendMessage", {"text": "hello"}),  # no chat_id
        ("sandbox", "sendMessage", {"chat_id": "1", "text": "hello"}),  # nobody's chat
        ("sandbox", "editMessageText", {"chat_id": "{anna}", "message_id": "x", "text": "a"}),
        ("sandbox", "sendTelepathy", {}),
        ("123:not-this-bot", "getMe", {}),
        ("not-a-token", "getMe", {}),
    ],
)
async def test_a_request_in_process_is_refused_as_over_http(
    http: aiohttp.ClientSession, sandbox: Sandbox, token: str, method: str, form: dict[str, str]
) -> None:
    """`Sandbox.call` is the path the HTTP server takes once a body is read (tests/middle)."""
    anna = sandbox.add_user("Anna")
    await anna.start_bot()
    token = sandbox.token if token == "sandbox" else token
    form = {key: value.format(anna=anna.id) for key, value in form.items()}
    async with http.post(f"{sandbox.base_url}/bot{token}/{method}", data=form) as response:
        over_http = response.status, await response.json()

    in_process = await sandbox.call(token, method, dict(form))

    assert over_http[0] != 200 and in_process == over_http
    logged = [(call.method, call.status, call.description) for call in sandbox.calls()]
    assert logged[-1] == logged[-2]


async def test_a_request_in_process_is_carried_out_as_over_http(
    http: aiohttp.ClientSession, sandbox: Sandbox
) -> None:
    anna = sandbox.add_user("Anna")
    await anna.start_bot()
    form = {"chat_id": str(anna.id), "text": "<b>hello</b>", "parse_mode": "HTML"}
    async with http.post(f"{sandbox.base_url}/bot{sandbox.token}/sendMessage", data=form):
        pass

    status, body = await sandbox.call(sandbox.token, "sendMessage", dict(form))

    assert status == 200 and body["result"]["text"] == "hello"
    assert [m.text for m in anna.inbox()] == ["hello", "hello"]
