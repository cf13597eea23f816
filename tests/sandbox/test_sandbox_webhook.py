"""setWebhook, deleteWebhook and getWebhookInfo as the Bot API documents them (api.json),
and the sandbox delivering updates by POST to a bot's server with the secret header."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from typing import Any

import aiohttp
import pytest
from aiogram import Bot
from aiogram.exceptions import TelegramBadRequest, TelegramConflictError
from aiohttp import web

from sandbox import ManualClock, Sandbox


@pytest.fixture
async def local(clock: ManualClock) -> AsyncIterator[Sandbox]:
    """A sandbox as a `--local` Bot API server: it may call a bot on 127.0.0.1."""
    served = Sandbox(clock=clock, local_mode=True)
    await served.start()
    yield served
    await served.stop()


class Receiver:
    """A bot's webhook server: records what it got, answers with `status`."""

    def __init__(self) -> None:
        self.got: list[tuple[dict[str, Any], str | None]] = []
        self.status = 200
        self.arrived = asyncio.Event()

    async def handle(self, request: web.Request) -> web.Response:
        self.got.append(
            (await request.json(), request.headers.get("X-Telegram-Bot-Api-Secret-Token"))
        )
        self.arrived.set()
        return web.json_response({}, status=self.status)


@pytest.fixture
async def receiver() -> AsyncIterator[tuple[Receiver, str]]:
    target = Receiver()
    app = web.Application()
    app.router.add_post("/hook/in", target.handle)
    runner = web.AppRunner(app, access_log=None)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    port = runner.addresses[0][1]
    yield target, f"http://127.0.0.1:{port}/hook/in"
    await runner.cleanup()


# -- setWebhook's checks ---------------------------------------------------------------


@pytest.mark.parametrize(
    ("url", "refusal"),
    [
        ("http://example.org/hook", "HTTPS url must be provided for webhook"),
        ("https://example.org:8080/hook", "only on ports 80, 88, 443 or 8443"),
        ("https://127.0.0.1/hook", "IP address 127.0.0.1 is reserved"),
        ("https://10.1.2.3:8443/hook", "IP address 10.1.2.3 is reserved"),
        ("https:///hook", "Failed to resolve host"),
        ("https://example.org/" + "x" * 600, "URL is too long"),
    ],
)
async def test_telegram_calls_only_public_https_addresses_on_its_ports(
    sandbox: Sandbox, bot: Bot, url: str, refusal: str
) -> None:
    with pytest.raises(TelegramBadRequest, match=refusal):
        await bot.set_webhook(url)
    assert (await bot.get_webhook_info()).url == ""


@pytest.mark.parametrize("port", ["", ":443", ":80", ":88", ":8443"])
async def test_a_public_https_address_is_accepted(sandbox: Sandbox, bot: Bot, port: str) -> None:
    assert await bot.set_webhook(f"https://mafia.example.org{port}/telegram")
    assert (await bot.get_webhook_info()).url == f"https://mafia.example.org{port}/telegram"


@pytest.mark.parametrize(
    ("secret", "refusal"),
    [
        ("a" * 257, "secret token is too long"),
        ("has space", "secret token contains unallowed characters"),
        ("a+b/c=", "secret token contains unallowed characters"),
        ("секрет", "secret token contains unallowed characters"),
    ],
)
async def test_a_secret_outside_the_rule_is_refused(
    sandbox: Sandbox, bot: Bot, secret: str, refusal: str
) -> None:
    with pytest.raises(TelegramBadRequest, match=refusal):
        await bot.set_webhook("https://mafia.example.org/t", secret_token=secret)
    assert (await bot.get_webhook_info()).url == ""


@pytest.mark.parametrize("secret", ["a", "A-z_09" * 42 + "abcd", "x" * 256])
async def test_a_secret_of_1_to_256_allowed_characters_is_accepted(
    sandbox: Sandbox, bot: Bot, secret: str
) -> None:
    assert await bot.set_webhook("https://mafia.example.org/t", secret_token=secret)


@pytest.mark.parametrize(("asked", "kept"), [(None, 40), (1, 1), (100, 100), (0, 1), (500, 100)])
async def test_max_connections_defaults_to_40_and_stays_within_1_to_100(
    sandbox: Sandbox, bot: Bot, asked: int | None, kept: int
) -> None:
    await bot.set_webhook("https://mafia.example.org/t", max_connections=asked)
    assert (await bot.get_webhook_info()).max_connections == kept


async def test_webhook_info_reports_what_was_set(sandbox: Sandbox, bot: Bot) -> None:
    anna = sandbox.add_user("Anna")
    await anna.start_bot()

    await bot.set_webhook(
        "https://mafia.example.org/t",
        allowed_updates=["message", "callback_query"],
        ip_address="93.184.216.34",
    )
    info = await bot.get_webhook_info()

    assert info.url == "https://mafia.example.org/t"
    assert info.pending_update_count == 1  # Anna's /start, waiting for delivery
    assert info.allowed_updates == ["callback_query", "message"]
    assert info.ip_address == "93.184.216.34"
    assert info.has_custom_certificate is False


async def test_drop_pending_updates_drops_them(sandbox: Sandbox, bot: Bot) -> None:
    anna = sandbox.add_user("Anna")
    await anna.start_bot()

    await bot.set_webhook("https://mafia.example.org/t", drop_pending_updates=True)

    assert (await bot.get_webhook_info()).pending_update_count == 0


async def test_an_empty_url_removes_the_webhook(sandbox: Sandbox, bot: Bot) -> None:
    await bot.set_webhook("https://mafia.example.org/t")
    async with (
        aiohttp.ClientSession() as http,
        http.post(f"{sandbox.base_url}/bot{sandbox.token}/setWebhook", json={"url": ""}) as answer,
    ):
        assert (await answer.json()) == {"ok": True, "result": True}

    assert (await bot.get_webhook_info()).url == ""
    assert await bot.get_updates(timeout=0) == []


# -- getUpdates and the webhook exclude each other ---------------------------------------


async def test_get_updates_is_refused_while_a_webhook_is_set(sandbox: Sandbox, bot: Bot) -> None:
    await bot.set_webhook("https://mafia.example.org/t")

    with pytest.raises(TelegramConflictError, match="can't use getUpdates method while webhook"):
        await bot.get_updates(timeout=0)

    assert await bot.delete_webhook()
    assert await bot.get_updates(timeout=0) == []


async def test_set_webhook_ends_a_waiting_long_poll(sandbox: Sandbox, bot: Bot) -> None:
    other = sandbox.make_bot()
    try:
        poll = asyncio.create_task(bot.get_updates(timeout=5))
        await sandbox.wait_polling()
        await other.set_webhook("https://mafia.example.org/t")
        with pytest.raises(TelegramConflictError, match="terminated by setWebhook request"):
            await poll
    finally:
        await other.session.close()


async def test_delete_webhook_can_drop_what_was_pending(sandbox: Sandbox, bot: Bot) -> None:
    anna = sandbox.add_user("Anna")
    await bot.set_webhook("https://mafia.example.org/t")
    await anna.start_bot()

    await bot.delete_webhook(drop_pending_updates=True)

    assert (await bot.get_webhook_info()).pending_update_count == 0


# -- delivery ---------------------------------------------------------------------------


async def test_a_strict_sandbox_refuses_the_local_address_a_local_server_accepts(
    sandbox: Sandbox, bot: Bot, local: Sandbox, receiver: tuple[Receiver, str]
) -> None:
    _, url = receiver
    with pytest.raises(TelegramBadRequest, match="HTTPS url must be provided"):
        await bot.set_webhook(url)

    local_bot = local.make_bot()
    try:
        assert await local_bot.set_webhook(url)
    finally:
        await local_bot.session.close()


async def test_updates_are_posted_with_the_secret_header(
    local: Sandbox, receiver: tuple[Receiver, str]
) -> None:
    target, url = receiver
    bot = local.make_bot()
    try:
        await bot.set_webhook(url, secret_token="s3cret_-token")
        anna = local.add_user("Anna")
        await anna.start_bot()
        await local.settle()
    finally:
        await bot.session.close()

    [(update, secret)] = target.got
    assert update["message"]["text"] == "/start"
    assert secret == "s3cret_-token"
    assert local.pending_updates == []
    assert local.calls("getUpdates") == []


async def test_no_secret_no_header(local: Sandbox, receiver: tuple[Receiver, str]) -> None:
    target, url = receiver
    bot = local.make_bot()
    try:
        await bot.set_webhook(url)
        await local.add_user("Anna").start_bot()
        await local.settle()
    finally:
        await bot.session.close()

    assert [secret for _, secret in target.got] == [None]


async def test_an_update_not_answered_2xx_is_kept_reported_and_sent_again(
    local: Sandbox, receiver: tuple[Receiver, str], clock: ManualClock
) -> None:
    target, url = receiver
    target.status = 500
    local.webhook_delivery.retry_after = 0.01
    bot = local.make_bot()
    try:
        await bot.set_webhook(url)
        await local.add_user("Anna").start_bot()
        while len(target.got) < 2:
            target.arrived.clear()
            await asyncio.wait_for(target.arrived.wait(), 5)
        info = await bot.get_webhook_info()
        assert info.pending_update_count == 1
        assert (
            info.last_error_message == "Wrong response from the webhook: 500 Internal Server Error"
        )
        assert info.last_error_date is not None
        assert info.last_error_date.timestamp() == int(clock())

        target.status = 200
        await local.settle()
        assert (await bot.get_webhook_info()).pending_update_count == 0
    finally:
        await bot.session.close()
    assert {update["update_id"] for update, _ in target.got} == {1}


async def test_a_server_that_is_down_is_reported(local: Sandbox) -> None:
    bot = local.make_bot()
    try:
        await bot.set_webhook("http://127.0.0.1:9/nobody/listens")
        await local.add_user("Anna").start_bot()
        for _ in range(200):
            info = await bot.get_webhook_info()
            if info.last_error_message is not None:
                break
            await asyncio.sleep(0.01)
        assert info.last_error_message == "Connection refused"
        assert info.pending_update_count == 1
    finally:
        await bot.session.close()
