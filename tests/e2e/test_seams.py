"""What real Telegram does between an update and the bot's answer to it (issue 21).

Webhook mode never loops (§5): an error that a redelivery cannot mend (the message to
reply to is gone, the button's query expired, the chat is gone) is handled where it
happens, and the update is answered 200 once; only a failure to store answers 500.
"""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator

import pytest
from aiogram.types import Update

from bot.cli.demo import RIGHTS, Table, open_table


@pytest.fixture
async def webhook_table() -> AsyncIterator[Table]:
    """Twelve players in the club's group, no game yet, the bot on a webhook."""
    async with open_table(12, seed=5, lang="ru", webhook=True) as table:
        await table.settle()
        yield table


async def hold(table: Table) -> None:
    """Telegram holds the updates a moment (a slow network): what people do meanwhile
    happens before the bot hears of it."""
    await table.sandbox.webhook_delivery.stop()


async def release(table: Table) -> None:
    table.sandbox.webhook_delivery.start()
    await table.settle()


async def test_a_command_deleted_before_the_reply_is_answered_once_never_redelivered(
    webhook_table: Table, caplog: pytest.LogCaptureFixture
) -> None:
    table = webhook_table
    person = table.people[0]
    delivery = table.sandbox.webhook_delivery
    await hold(table)
    sent = await person.send(table.group, "/pass")  # no game here: the bot replies so
    await person.delete(sent)
    refused, delivered = delivery.refused, delivery.delivered
    await release(table)

    assert delivery.refused == refused  # answered 200 the first time...
    assert delivery.delivered == delivered + 1  # ...and delivered once
    replies = [m for m in table.group.visible_messages() if m.from_bot]
    assert len(replies) == 1 and replies[0].reply_to is None  # said once, without the reply
    assert table.sandbox.pending_updates == []
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR]


async def test_an_expired_button_query_is_dropped_and_never_redelivered(
    webhook_table: Table, caplog: pytest.LogCaptureFixture
) -> None:
    table = webhook_table
    await table.gather()
    await table.begin()
    state = table.state
    assert state is not None and state.speaker is not None
    other = next(seat for seat in state.seats if seat != state.speaker)
    delivery = table.sandbox.webhook_delivery
    await hold(table)
    press = await table.person(other).press(table.turn_message(), 0)  # not theirs: refused
    press.expire()  # the update waited past Telegram's patience
    refused, delivered = delivery.refused, delivery.delivered
    await release(table)

    assert delivery.refused == refused  # answered 200 the first time...
    assert delivery.delivered == delivered + 1  # ...and delivered once
    assert press.answer is None  # Telegram refused the answer: it was dropped
    assert table.state == state
    assert table.sandbox.pending_updates == []
    too_old = [r for r in caplog.records if "too old" in r.getMessage()]
    assert len(too_old) == 1 and too_old[0].levelno == logging.WARNING
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR]


async def test_a_person_who_blocked_the_bot_before_its_reply_is_logged_once(
    webhook_table: Table, caplog: pytest.LogCaptureFixture
) -> None:
    table = webhook_table
    person = table.people[2]
    delivery = table.sandbox.webhook_delivery
    await person.start_bot()
    await table.settle()
    await hold(table)
    await person.send(person.private, "/help")
    await person.send(person.private, "/rules")
    await person.block_bot()
    refused, delivered = delivery.refused, delivery.delivered
    await release(table)

    assert delivery.refused == refused  # nothing to deliver again: answered 200
    assert delivery.delivered == delivered + 3  # /help, /rules and the blocking
    assert table.sandbox.pending_updates == []
    out_of_reach = [r for r in caplog.records if "out of reach" in r.getMessage()]
    assert len(out_of_reach) == 1 and out_of_reach[0].levelno == logging.WARNING
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR]


async def test_an_update_of_a_kind_unknown_here_is_skipped_with_a_warning(
    webhook_table: Table, caplog: pytest.LogCaptureFixture
) -> None:
    """Telegram adds kinds of updates before aiogram learns them (the sandbox speaks only
    the kinds of its Bot API table, so this one is fed to the bot's dispatcher as polling
    feeds it): it is skipped with a warning, and the next update is handled as ever."""
    table = webhook_table
    newer = Update.model_validate(
        {"update_id": 10**6, "future_kind": {"chat": table.group.to_api()}},
        context={"bot": table.bot},
    )
    await table.app.dispatcher.feed_update(table.bot, newer)
    await table.host.send(table.group, "/help")
    await table.settle()

    assert table.group.visible_messages()[-1].from_bot  # /help answered after it
    unknown = [r for r in caplog.records if "unknown here" in r.getMessage()]
    assert len(unknown) == 1 and unknown[0].levelno == logging.WARNING
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR]


# --- §3: a game never runs unseen ------------------------------------------------------


@pytest.fixture
async def playing() -> AsyncIterator[Table]:
    """Twelve players, the game begun (polling), the Host reachable in private."""
    async with open_table(12, seed=7, lang="ru") as table:
        await table.host.start_bot()
        await table.gather()
        await table.begin()
        yield table


async def remove_the_bot(table: Table) -> None:
    """The group's owner bans the bot from the group mid-game."""
    table.group.remove_bot(by=table.host, ban=True)
    await table.settle()


async def test_the_bot_removed_mid_game_pauses_it_and_the_host_hears_why(
    playing: Table,
) -> None:
    table = playing
    before = table.state
    assert before is not None and not before.paused
    inbox = len(table.host.inbox())

    await remove_the_bot(table)

    state = table.state
    assert state is not None and state.paused and state.step == before.step
    for _ in range(5):  # the clock runs on: nothing of the game moves with it
        await table.advance()
    assert table.state is not None and table.state.step == before.step
    told = [m.content for m in table.host.inbox()[inbox:]]
    assert len(told) == 1 and "удалили из группы" in told[0], told
    assert "прав" not in told[0]  # the real reason, not lost rights
    refused = table.sandbox.calls(chat=table.group, ok=False)
    assert all("kicked" in (c.description or "") for c in refused)

    table.group.promote_bot(by=table.host, **RIGHTS)  # the owner brings the bot back
    await table.settle()

    state = table.state
    assert state is not None and not state.paused and state.step == before.step
    told = [m.content for m in table.host.inbox()[inbox:]]
    assert len(told) == 2 and "снова в группе" in told[1], told
    # The game goes on by its clock again.
    await table.wait_for(lambda now: now.step > before.step, limit=5)


async def test_the_host_stops_from_private_a_game_whose_group_removed_the_bot(
    playing: Table,
) -> None:
    table = playing
    await remove_the_bot(table)
    notice = table.host.inbox()[-1]

    press = await table.host.press(notice, 0)
    await table.settle()

    state = table.state
    assert state is not None and state.finished
    assert press.answer is not None


async def test_a_seated_player_who_leaves_the_group_is_told_to_the_host_once(
    playing: Table,
) -> None:
    table = playing
    state = table.state
    assert state is not None
    seat = next(s for s in sorted(state.seats) if table.person(s).id != table.host.id)
    inbox = len(table.host.inbox())

    table.group.remove_member(table.person(seat))  # chat_member and the service message
    await table.settle()

    told = [m.content for m in table.host.inbox()[inbox:]]
    assert len(told) == 1, told
    assert f"/remove {seat}" in told[0] and "больше нет в группе" in told[0]
    assert table.state == state  # the Host decides; nothing changes by itself
