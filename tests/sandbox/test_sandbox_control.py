"""Driving a sandbox over its JSON control API, in-process and as its own process."""

from __future__ import annotations

import asyncio
import re
import sys
from collections.abc import AsyncIterator
from typing import Any

import aiohttp
import pytest
from aiogram import Bot
from aiogram.types import InlineKeyboardButton, InlineKeyboardMarkup

from sandbox import Sandbox


@pytest.fixture
async def http() -> AsyncIterator[aiohttp.ClientSession]:
    async with aiohttp.ClientSession() as session:
        yield session


async def control(
    http: aiohttp.ClientSession, base: str, path: str, body: dict[str, Any] | None = None
) -> Any:
    url = f"{base}/_sandbox/{path}"
    request = http.get(url) if body is None else http.post(url, json=body)
    async with request as response:
        if response.content_type == "text/plain":
            return await response.text()
        payload = await response.json()
        assert response.status == 200, payload
        return payload


async def test_people_and_groups_are_driven_over_http(
    http: aiohttp.ClientSession, sandbox: Sandbox, bot: Bot
) -> None:
    base = sandbox.base_url
    anna = await control(http, base, "users", {"first_name": "Anna", "username": "anna_k"})
    club = await control(http, base, "groups", {"title": "Club", "owner_id": anna["id"]})
    chat_id = club["chat"]["id"]
    await control(
        http, base, f"groups/{chat_id}/promote_bot", {"rights": {"can_pin_messages": True}}
    )
    await control(http, base, f"users/{anna['id']}/start_bot", {"payload": "t1"})
    button = InlineKeyboardButton(text="Sign", callback_data="sign")
    sheet = await bot.send_message(
        chat_id, "Sheet", reply_markup=InlineKeyboardMarkup(inline_keyboard=[[button]])
    )

    pressed = await control(
        http, base, f"users/{anna['id']}/press",
        {"chat_id": chat_id, "message_id": sheet.message_id, "button": "Sign"},
    )  # fmt: skip
    await bot.answer_callback_query(pressed["callback_query_id"], text="Signed")
    answer = await control(http, base, f"callbacks/{pressed['callback_query_id']}?wait=1")
    messages = await control(http, base, f"chats/{chat_id}/messages?visible=1")
    calls = await control(http, base, "calls?method=sendMessage")
    transcript = await control(http, base, "transcript")

    assert answer == {
        "answered": True, "text": "Signed", "show_alert": False, "url": None, "cache_time": 0,
    }  # fmt: skip
    assert messages[-1]["text"] == "Sheet"
    assert messages[-1]["buttons"] == [[{"text": "Sign", "callback_data": "sign", "url": None}]]
    assert [(c["method"], c["chat_id"], c["status"]) for c in calls] == [
        ("sendMessage", chat_id, 200)
    ]
    assert "Club | Mafia Table [bot]: Sheet [Sign]" in transcript
    assert len(sandbox.pending_updates) == 4  # my_chat_member, joined, /start, press


async def test_mistakes_in_control_requests_are_reported(
    http: aiohttp.ClientSession, sandbox: Sandbox
) -> None:
    anna = sandbox.add_user("Anna")

    url = f"{sandbox.base_url}/_sandbox/users/{anna.id}/send"
    async with http.post(url, json={"chat_id": anna.id, "text": "hi"}) as response:
        refusal = await response.json()

    assert response.status == 400
    assert "must press Start" in refusal["error"]


async def test_the_standalone_process_serves_any_well_formed_token(
    http: aiohttp.ClientSession,
) -> None:
    process = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "sandbox", "--port", "0", "--bot-username", "other_bot",
        stderr=asyncio.subprocess.PIPE,
    )  # fmt: skip
    try:
        assert process.stderr is not None
        banner = (await asyncio.wait_for(process.stderr.readline(), 10)).decode()
        found = re.search(r"http://[\d.]+:\d+", banner)
        assert found, banner
        base = found.group(0)
        identity = await control(http, base, "bot")
        async with http.get(f"{base}/bot123456:ANY-token/getMe") as response:
            me = await response.json()
        async with http.get(f"{base}/botnot-a-token/getMe") as response:
            malformed = response.status
    finally:
        process.terminate()
        await process.wait()

    assert identity["username"] == "other_bot"
    assert me["result"]["username"] == "other_bot"
    assert malformed == 404
