"""Webhook mode over real HTTP both ways: the sandbox (a `--local` Bot API server) POSTs
updates to the bot's aiohttp server on 127.0.0.1, the bot calls the sandbox.

Only Telegram knows the secret the bot gave in setWebhook; a request without it, from
whoever found the address, changes nothing (issue 10).
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import logging
import random
import socket
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import aiohttp
import pytest

from bot.app import run_bot
from bot.cli.demo import Crowd, Table, open_table, play
from bot.config import Config
from bot.rules.events import Phase
from handlers.webhook import SECRET_HEADER, WEBHOOK_CONNECTIONS
from sandbox import Sandbox
from storage.marks import ProcessedRepository
from tests.steps import NOT_RECORDED, failing_appends


@pytest.fixture
async def table() -> AsyncIterator[Table]:
    """Twelve players, the game begun, the bot on a webhook; no bad request allowed."""
    async with open_table(12, seed=5, lang="en", webhook=True) as table:
        await table.gather()
        await table.begin()
        yield table
        table.sandbox.assert_no_bot_errors()


@pytest.fixture
async def http() -> AsyncIterator[aiohttp.ClientSession]:
    async with aiohttp.ClientSession() as session:
        yield session


def host_says(table: Table, text: str, update_id: int = 900_000) -> dict[str, Any]:
    """An update as Telegram would send it: the Host writing `text` in the group."""
    return {
        "update_id": update_id,
        "message": {
            "message_id": update_id,
            "date": int(table.clock.now()),
            "chat": {"id": table.group.id, "type": "supergroup", "title": table.group.title},
            "from": table.host.to_api(),
            "text": text,
            "entities": [{"type": "bot_command", "offset": 0, "length": len(text)}],
        },
    }


async def post(
    http: aiohttp.ClientSession, table: Table, body: bytes | dict[str, Any], secret: str | None
) -> int:
    headers = {"Content-Type": "application/json"}
    if secret is not None:
        headers[SECRET_HEADER] = secret
    kwargs: dict[str, Any] = {"json": body} if isinstance(body, dict) else {"data": body}
    async with http.post(table.webhook_url, headers=headers, **kwargs) as answer:
        return answer.status


async def test_a_whole_game_is_played_in_webhook_mode() -> None:
    async with open_table(12, seed=3, lang="ru", webhook=True) as table:
        await table.gather()
        await table.begin()
        state = await play(table, Crowd(table, random.Random(3), "ru"))

        assert state.finished and state.winner is not None
        sandbox = table.sandbox
        sandbox.assert_no_bot_errors()
        assert sandbox.calls("getUpdates") == []  # every update came by POST
        [set_webhook] = sandbox.calls("setWebhook", ok=True)
        assert set_webhook.params["url"] == table.webhook_url
        assert len(set_webhook.params["secret_token"]) >= 32
        delivery = sandbox.webhook_delivery
        assert delivery.delivered > 100 and delivery.refused == 0
        assert sandbox.pending_updates == []


async def test_a_forged_stop_without_the_secret_changes_nothing(
    table: Table, http: aiohttp.ClientSession, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.WARNING, "handlers.webhook")
    before = table.state
    calls = len(table.sandbox.calls())

    assert await post(http, table, host_says(table, "/stop"), None) == 401
    assert await post(http, table, host_says(table, "/stop", 900_001), "guess") == 403
    assert await post(http, table, host_says(table, "/stop", 900_002), "x" * 64) == 403
    await table.settle()

    assert table.state == before and table.state is not None and not table.state.finished
    assert len(table.sandbox.calls()) == calls  # the bot said nothing to anybody
    processed = ProcessedRepository(table.database)
    assert not await processed.has_update(900_000)
    refusals = [r.getMessage() for r in caplog.records if r.name == "handlers.webhook"]
    # Once per source: the same caller is not logged again, so the log cannot be flooded.
    assert len(refusals) == 1 and "127.0.0.1" in refusals[0]
    assert all(table.webhook_secret not in r.getMessage() for r in caplog.records)

    # The same update with the secret is the Host's own /stop: the secret is what stood
    # between a stranger and the game.
    assert await post(http, table, host_says(table, "/stop", 900_003), table.webhook_secret) == 200
    await table.settle()
    assert table.state is not None and table.state.finished


@pytest.mark.parametrize(
    "body",
    [b"{not json", b"", b"[1, 2]", b'{"update_id": "seven"}', b'{"message": {}}', b"\xff\xfe"],
)
async def test_a_malformed_update_is_answered_400_without_a_traceback(
    table: Table, http: aiohttp.ClientSession, caplog: pytest.LogCaptureFixture, body: bytes
) -> None:
    before = table.state

    assert await post(http, table, body, table.webhook_secret) == 400
    await table.settle()

    assert table.state == before
    assert not [r for r in caplog.records if r.exc_info or "Traceback" in r.getMessage()]


async def test_an_update_is_answered_only_once_it_is_stored(
    table: Table, http: aiohttp.ClientSession
) -> None:
    processed = ProcessedRepository(table.database)

    # The clock moves meanwhile if the bot waits on it: the reply waits for the group's window.
    answer = await table.until(
        post(http, table, host_says(table, "/status", 900_010), table.webhook_secret)
    )
    assert answer == 200

    # No settling: the 200 itself says the mark is in the database, so Telegram may
    # forget the update (in the background the answer came before the handler ran).
    assert await processed.has_update(900_010)


async def test_replies_wait_for_the_groups_window_in_the_sender_not_in_the_request(
    table: Table, http: aiohttp.ClientSession
) -> None:
    """Issue 25: a connection is held only until its update is decided (its mark
    stored), never while its reply waits for the group's 20 a minute: twenty of the
    Host's /status in one group are all answered 200 with the virtual clock standing
    still, their replies still queued, and every mark in the database."""
    processed = ProcessedRepository(table.database)
    ids = range(900_100, 900_120)
    secret = table.webhook_secret
    statuses = [post(http, table, host_says(table, "/status", n), secret) for n in ids]
    answers = await asyncio.wait_for(asyncio.gather(*statuses), timeout=20)
    assert answers == [200] * len(ids)
    assert all([await processed.has_update(n) for n in ids])
    replies = [m for m in table.group.visible_messages() if m.from_bot and "Day" in m.content]
    assert len(replies) < len(ids)  # the window holds the rest back: on the virtual clock
    sets = table.sandbox.calls("setWebhook", ok=True)
    assert sets[-1].params["max_connections"] == WEBHOOK_CONNECTIONS


async def test_the_bot_listens_only_on_the_path_of_its_url(
    table: Table, http: aiohttp.ClientSession
) -> None:
    elsewhere = table.webhook_url.replace("/telegram/updates", "/webhook")
    async with http.post(
        elsewhere, json=host_says(table, "/stop"), headers={SECRET_HEADER: table.webhook_secret}
    ) as answer:
        assert answer.status == 404
    async with http.get(table.webhook_url) as answer:
        assert answer.status == 405
    assert table.state is not None and not table.state.finished


async def test_a_restarted_bot_gets_what_came_while_it_was_down(table: Table) -> None:
    await table.shut_down()
    await table.host.send(table.group, "/status")
    await table.boot()
    await table.settle()

    assert table.sandbox.pending_updates == []
    assert table.group.visible_messages()[-1].from_bot


async def test_a_body_too_large_for_an_update_is_refused(
    table: Table, http: aiohttp.ClientSession
) -> None:
    before = table.state
    update = host_says(table, "/stop")
    update["message"]["text"] = "/stop " + "x" * 300_000

    assert await post(http, table, update, table.webhook_secret) == 413
    await table.settle()
    assert table.state == before


async def test_an_update_whose_handling_failed_is_delivered_again_and_handled_once(
    table: Table, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    service = table.app.service
    saw_user = service.saw_user
    failures: list[tuple[Any, ...]] = []

    async def fails_once(*args: Any, **kwargs: Any) -> Any:
        if not failures:
            failures.append(args)
            raise RuntimeError("the disk is full")
        return await saw_user(*args, **kwargs)

    monkeypatch.setattr(service, "saw_user", fails_once)
    replies = len([m for m in table.group.visible_messages() if m.from_bot])

    await table.host.send(table.group, "/status")
    await table.settle()

    assert failures  # the first delivery failed...
    assert table.sandbox.webhook_delivery.refused == 1  # ...was answered 500...
    assert "Wrong response from the webhook: 500" in (
        table.sandbox.world.updates.webhook.last_error_message or ""  # type: ignore[union-attr]
    )
    # ...and Telegram's second delivery was handled, once.
    assert len([m for m in table.group.visible_messages() if m.from_bot]) == replies + 1
    assert any("failed; Telegram will deliver it again" in r.getMessage() for r in caplog.records)


async def test_run_bot_in_webhook_mode_listens_on_the_url_path_with_a_fresh_secret(
    tmp_path: Path,
) -> None:
    """`python -m bot run`'s own code path, against a `--local` Bot API server."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    url = f"http://127.0.0.1:{port}/bots/mafia-table"
    async with Sandbox(local_mode=True) as sandbox:
        config = Config.model_validate(
            {
                "bot": {
                    "token": sandbox.token,
                    "api_server": sandbox.base_url,
                    "mode": "webhook",
                    "webhook_url": url,
                    "webhook_port": port,
                    "database": str(tmp_path / "mafia.sqlite3"),
                }
            }
        )
        running = asyncio.create_task(run_bot(config))
        try:
            async with asyncio.timeout(20):
                while not sandbox.calls("setWebhook", ok=True):
                    assert not running.done(), running
                    await asyncio.sleep(0.02)
            [call] = sandbox.calls("setWebhook", ok=True)
            secret = call.params["secret_token"]
            assert call.params["url"] == url and len(secret) == 64
            assert "message" in call.params["allowed_updates"]

            anna = sandbox.add_user("Anna")
            await anna.start_bot()
            await sandbox.settle(within=20)
            assert anna.inbox()[-1].from_bot
            assert sandbox.webhook_delivery.delivered == 1
        finally:
            running.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await running
            gc.unfreeze()  # run_bot froze the start-up heap: give this process's back


async def test_polling_after_webhook_mode_deletes_the_leftover_webhook_and_hears(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """A club that moves from webhook to polling mode: Telegram still has the webhook, and
    getUpdates is refused with 409 for as long as it is set. The polling start deletes it
    (and says so in the log), then hears its updates."""
    async with Sandbox(local_mode=True) as sandbox:
        async with aiohttp.ClientSession() as client:
            answer = await client.post(
                f"{sandbox.base_url}/bot{sandbox.token}/setWebhook",
                data={"url": "https://mafia.example.org/telegram/updates"},
            )
            assert (await answer.json())["ok"]
        config = Config.model_validate(
            {
                "bot": {
                    "token": sandbox.token,
                    "api_server": sandbox.base_url,
                    "mode": "polling",
                    "database": str(tmp_path / "mafia.sqlite3"),
                }
            }
        )
        caplog.set_level(logging.WARNING)
        running = asyncio.create_task(run_bot(config))
        try:
            async with asyncio.timeout(20):
                while not sandbox.calls("getUpdates", ok=True):
                    assert not running.done(), running
                    await asyncio.sleep(0.02)
            assert sandbox.calls("deleteWebhook", ok=True)
            anna = sandbox.add_user("Anna")
            await anna.start_bot()
            async with asyncio.timeout(20):
                while not anna.inbox():
                    assert not running.done(), running
                    await asyncio.sleep(0.02)
            assert anna.inbox()[-1].from_bot
            assert not sandbox.calls("getUpdates", ok=False)  # never a 409 conflict
            said = [r.getMessage() for r in caplog.records]
            assert any("mafia.example.org" in m and "deleted" in m for m in said), said
        finally:
            running.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await running
            gc.unfreeze()


async def test_a_press_whose_commit_failed_is_answered_500_and_done_at_the_next_delivery(
    table: Table, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 21 §5: only a failure to store answers 500. Telegram delivers the press again,
    and it is done then, once; the player is not told "try again" meanwhile, which would
    have them press a second time for what the second delivery does anyway."""
    state = await table.wait_for(lambda s: s.phase is Phase.ROUND_1)
    failed = failing_appends(monkeypatch, 1)
    press = await table.pass_turn()
    assert failed() == 1
    assert table.sandbox.webhook_delivery.refused >= 1  # answered 500...
    assert press.answer is None or press.answer.text != NOT_RECORDED  # ...and no "try again"
    after = table.state
    assert after is not None and after.step == state.step + 1  # done at the next delivery
    stored = await table.app.service.repos.protocol.read(state.game_id)
    assert len([e for e in stored if '"passed"' in e.payload_json]) == 1


async def test_a_half_sent_request_is_dropped_after_a_few_seconds(table: Table) -> None:
    """Issue 25 §5: connections that send half a request and wait are not held (500 were
    still held after 90 s); Telegram's own deliveries go on meanwhile."""
    from bot.web.httpguard import HEADER_SECONDS

    assert HEADER_SECONDS <= 10
    writers = []
    try:
        readers = []
        for _ in range(50):
            reader, writer = await asyncio.open_connection("127.0.0.1", table.webhook_port)
            writer.write(b"POST / HTTP/1.1\r\nHost: x\r\nContent-Type: applic")
            await writer.drain()
            readers.append(reader)
            writers.append(writer)

        async def closed(reader: asyncio.StreamReader) -> bool:
            try:
                async with asyncio.timeout(HEADER_SECONDS + 3):
                    while await reader.read(1024):
                        pass
                return True
            except TimeoutError:
                return False
            except ConnectionError:
                return True

        assert sum(await asyncio.gather(*(closed(r) for r in readers))) == 50
    finally:
        for writer in writers:
            writer.close()
            with contextlib.suppress(ConnectionError):
                await writer.wait_closed()


async def test_a_source_refused_again_and_again_is_answered_429_and_telegram_is_not(
    table: Table, http: aiohttp.ClientSession
) -> None:
    """Issue 25 §5: a stranger guessing the secret gets a few refusals, then 429 at once;
    a request with the secret is Telegram's and is never limited."""
    from bot.web.httpguard import AddressLimit
    from handlers.webhook import RECEIVER, REFUSED_BURST, REFUSED_EVERY

    receiver = table.webhook_runner.app[RECEIVER]
    receiver.refusals = AddressLimit(REFUSED_BURST, REFUSED_EVERY, clock=lambda: 0.0)
    before = table.state
    answers = [
        await post(http, table, host_says(table, "/stop", 910_000 + n), "x" * 64)
        for n in range(REFUSED_BURST + 20)
    ]
    assert answers == [403] * REFUSED_BURST + [429] * 20
    assert await post(http, table, host_says(table, "/stop", 911_000), None) == 429
    await table.settle()
    assert table.state == before
    secret = table.webhook_secret
    for n in range(3):
        assert await post(http, table, host_says(table, "/help", 912_000 + n), secret) == 200
    await table.settle()
