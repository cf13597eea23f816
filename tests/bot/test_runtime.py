"""bot.delivery.runtime: what keeps the bot lean, and what tells when it was not."""

from __future__ import annotations

import logging

import pytest

from bot.delivery import runtime


def test_a_long_garbage_collection_is_logged(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    """Every game stops while the collector walks the heap: a walk of 50 ms or more is
    worth a warning (the benchmark shows the bot's warnings under its results)."""
    now = iter([10.0, 10.01, 20.0, 20.08])
    monkeypatch.setattr("bot.delivery.runtime.time.perf_counter", lambda: next(now))
    watch = runtime._GcWatch()
    with caplog.at_level(logging.WARNING, logger="bot.delivery.runtime"):
        watch.observe("start", {"generation": 0})
        watch.observe("stop", {"generation": 0, "collected": 3})  # 10 ms: nothing said
        watch.observe("start", {"generation": 2})
        watch.observe("stop", {"generation": 2, "collected": 40})
    assert [r.getMessage() for r in caplog.records] == [
        "a garbage collection (generation 2, 40 collected) held every game for 80 ms"
    ]


def test_collections_are_watched_only_while_the_bot_serves() -> None:
    import gc

    before = list(gc.callbacks)
    with runtime.watching_collections():
        assert len(gc.callbacks) == len(before) + 1
    assert gc.callbacks == before


async def test_an_edit_that_went_through_is_not_read_and_one_that_failed_is(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The bot's session answers an edit that Telegram took with True (no Message built:
    nothing reads it); a refused edit still raises with Telegram's words, and a post
    still answers its Message. With the stock runtime, the edit's Message is built."""
    from aiogram.exceptions import TelegramBadRequest
    from aiogram.types import Message

    from bot.app import make_bot
    from sandbox import Sandbox

    async with Sandbox() as sandbox:
        anna = sandbox.add_user("Anna")
        await anna.start_bot()
        bot = make_bot(sandbox.token, sandbox.base_url)
        try:
            sent = await bot.send_message(anna.id, "Turn 1")
            assert isinstance(sent, Message) and sent.text == "Turn 1"
            edited = await bot.edit_message_text(
                "Turn 1 is over", chat_id=anna.id, message_id=sent.message_id
            )
            assert edited is True
            assert anna.inbox()[-1].content == "Turn 1 is over"
            with pytest.raises(TelegramBadRequest, match="message to edit not found"):
                await bot.edit_message_text("gone", chat_id=anna.id, message_id=999)
            with pytest.raises(TelegramBadRequest, match="not modified"):
                await bot.edit_message_text(
                    "Turn 1 is over", chat_id=anna.id, message_id=sent.message_id
                )
        finally:
            await bot.session.close()
        monkeypatch.setenv(runtime.STOCK, "1")
        stock = make_bot(sandbox.token, sandbox.base_url)
        try:
            edited = await stock.edit_message_text(
                "Turn 2", chat_id=anna.id, message_id=sent.message_id
            )
            assert isinstance(edited, Message) and edited.text == "Turn 2"
        finally:
            await stock.session.close()
