"""The outbox of messages a game depends on."""

from __future__ import annotations

import sqlite3

import pytest

from storage import Game, NotFoundError, OutboxMessage, Repositories
from tests.storage.storage_testdata import CHAT, HOST, OTHER_CHAT, PLAYERS, T0


async def test_enqueue_list_and_mark_sent(seeded: Repositories, game: Game) -> None:
    outbox = seeded.outbox
    card = await outbox.enqueue(
        game_id=game.game_id,
        chat_id=PLAYERS[0],
        kind="role_card",
        payload_json='{"role": "sheriff"}',
        now=T0,
    )
    assert card == OutboxMessage(
        outbox_id=card.outbox_id,
        game_id=game.game_id,
        chat_id=PLAYERS[0],
        kind="role_card",
        payload_json='{"role": "sheriff"}',
        created_at=T0,
        sent_at=None,
        message_id=None,
    )
    result = await outbox.enqueue(
        game_id=game.game_id, chat_id=CHAT, kind="night_result", payload_json="{}", now=T0 + 1
    )
    assert await outbox.unsent() == [card, result]

    assert await outbox.mark_sent(card.outbox_id, message_id=77, now=T0 + 2)
    assert not await outbox.mark_sent(card.outbox_id, message_id=78, now=T0 + 3)
    assert await outbox.unsent() == [result]
    rows = await seeded.database.fetch_all(
        "SELECT sent_at, message_id FROM outbox WHERE outbox_id = ?", (card.outbox_id,)
    )
    assert [tuple(row) for row in rows] == [(T0 + 2, 77)]


async def test_an_edited_table_message_keeps_what_it_shows(
    seeded: Repositories, game: Game
) -> None:
    """A restart reads what the table message shows from its row: each edit that went out
    writes its text there, and an edit that names another message changes nothing."""
    outbox = seeded.outbox
    table = await outbox.enqueue(
        game_id=game.game_id, chat_id=CHAT, kind="board", payload_json='"seating"', now=T0
    )
    await outbox.showing(table.outbox_id, 7, '"before it went out"')
    latest = await outbox.latest(game.game_id, "board")
    assert latest is not None and latest.payload_json == '"seating"'
    await outbox.mark_sent(table.outbox_id, message_id=7, now=T0)
    await outbox.showing(table.outbox_id, 7, '"day 1"')
    latest = await outbox.latest(game.game_id, "board")
    assert latest is not None and latest.payload_json == '"day 1"'
    await outbox.showing(table.outbox_id, 9, '"another message"')
    latest = await outbox.latest(game.game_id, "board")
    assert latest is not None and (latest.message_id, latest.payload_json) == (7, '"day 1"')


async def test_unsent_of_one_game(seeded: Repositories, game: Game) -> None:
    other = await seeded.games.create(
        chat_id=OTHER_CHAT, host_user_id=HOST, settings_json="{}", now=T0
    )
    mine = await seeded.outbox.enqueue(
        game_id=game.game_id, chat_id=CHAT, kind="seating", payload_json="{}", now=T0
    )
    theirs = await seeded.outbox.enqueue(
        game_id=other.game_id, chat_id=OTHER_CHAT, kind="seating", payload_json="{}", now=T0
    )
    assert await seeded.outbox.unsent(game.game_id) == [mine]
    assert await seeded.outbox.unsent(other.game_id) == [theirs]


async def test_mark_sent_of_unknown_message_fails(seeded: Repositories) -> None:
    with pytest.raises(NotFoundError):
        await seeded.outbox.mark_sent(999, message_id=1, now=T0)


async def test_payload_must_be_json(seeded: Repositories, game: Game) -> None:
    with pytest.raises(sqlite3.IntegrityError, match="CHECK"):
        await seeded.outbox.enqueue(
            game_id=game.game_id, chat_id=CHAT, kind="seating", payload_json="{", now=T0
        )


async def test_delivered_messages_of_games_no_longer_running_are_pruned(
    seeded: Repositories, game: Game
) -> None:
    """Issue 25: the outbox stays bounded. What was delivered long ago for a game that is
    over goes; a running game's messages (its table message is recalled after a restart)
    and anything unsent stay."""
    from bot.services.inbox import PRUNE_EVERY, HandledUpdates
    from storage import GameStatus

    day = 24 * 3600.0
    running = await seeded.games.create(
        chat_id=OTHER_CHAT, host_user_id=HOST, settings_json="{}", now=T0
    )
    await seeded.games.set_status(running.game_id, GameStatus.RUNNING, now=T0)
    await seeded.games.set_status(game.game_id, GameStatus.RUNNING, now=T0)
    await seeded.games.set_status(game.game_id, GameStatus.OVER, now=T0)

    async def message(game_id: int, sent: bool) -> OutboxMessage:
        queued = await seeded.outbox.enqueue(
            game_id=game_id, chat_id=CHAT, kind="post", payload_json="{}", now=T0
        )
        if sent:
            await seeded.outbox.mark_sent(queued.outbox_id, message_id=1, now=T0)
        return queued

    old_over = [await message(game.game_id, sent=True) for _ in range(3)]
    unsent = await message(game.game_id, sent=False)
    kept_running = await message(running.game_id, sent=True)
    handled = HandledUpdates(seeded.processed, also_prune=[seeded.outbox.prune])
    for update_id in range(1, PRUNE_EVERY + 2):
        assert await handled.take(update_id)
        await handled.finish(update_id, now=T0 + 3 * day)
    rows = await seeded.database.fetch_all("SELECT outbox_id FROM outbox ORDER BY outbox_id")
    left = [row["outbox_id"] for row in rows]
    assert left == [unsent.outbox_id, kept_running.outbox_id]
    assert all(m.outbox_id not in left for m in old_over)
