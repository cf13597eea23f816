"""The protocol: append-only, and numbered without gaps."""

from __future__ import annotations

import asyncio
import json
import sqlite3

import pytest

from storage import Game, NewEvent, ProtocolRepository, Repositories, StoredEvent
from tests.storage.storage_testdata import HOST, OTHER_CHAT, T0


def event(kind: str, at: float, **fields: object) -> NewEvent:
    return NewEvent(at, json.dumps({"type": kind, **fields}))


async def test_append_numbers_the_batch_after_the_last_event(
    seeded: Repositories, game: Game
) -> None:
    protocol = seeded.protocol
    assert len(await protocol.read(game.game_id)) == 0
    first = await protocol.append(
        game.game_id, [event("seats_drawn", T0), event("cards_dealt", T0 + 1)]
    )
    assert first == [
        StoredEvent(game.game_id, 1, T0, "seats_drawn", '{"type": "seats_drawn"}'),
        StoredEvent(game.game_id, 2, T0 + 1, "cards_dealt", '{"type": "cards_dealt"}'),
    ]
    second = await protocol.append(game.game_id, [event("speech_started", T0 + 2, seat=1)])
    assert [(e.seq, e.type) for e in second] == [(3, "speech_started")]
    assert json.loads(second[0].payload_json) == {"type": "speech_started", "seat": 1}
    assert len(await protocol.read(game.game_id)) == 3
    assert await protocol.read(game.game_id) == first + second
    assert await protocol.read(game.game_id, from_seq=2) == first[1:] + second
    assert await protocol.read(game.game_id, from_seq=4) == []


async def test_empty_batch_appends_nothing(seeded: Repositories, game: Game) -> None:
    assert await seeded.protocol.append(game.game_id, []) == []
    assert len(await seeded.protocol.read(game.game_id)) == 0


async def test_each_game_counts_its_own_events(seeded: Repositories, game: Game) -> None:
    other = await seeded.games.create(
        chat_id=OTHER_CHAT, host_user_id=HOST, settings_json="{}", now=T0
    )
    await seeded.protocol.append(game.game_id, [event("a", T0), event("b", T0)])
    appended = await seeded.protocol.append(other.game_id, [event("c", T0)])
    assert [e.seq for e in appended] == [1]


async def test_concurrent_appends_stay_contiguous(seeded: Repositories, game: Game) -> None:
    batches = [[event("vote_cast", T0 + i, seat=i), event("tick", T0 + i)] for i in range(10)]
    await asyncio.gather(*(seeded.protocol.append(game.game_id, b) for b in batches))
    events = await seeded.protocol.read(game.game_id)
    assert [e.seq for e in events] == list(range(1, 21))
    # Each batch stays together.
    assert [e.type for e in events] == ["vote_cast", "tick"] * 10


@pytest.mark.parametrize(
    "payload",
    [
        '{"seat": 1}',  # no type
        '{"type": 5}',  # type not a string
        '["type"]',  # not an object
    ],
)
async def test_event_must_be_an_object_with_a_type(
    seeded: Repositories, game: Game, payload: str
) -> None:
    with pytest.raises(sqlite3.IntegrityError):
        await seeded.protocol.append(game.game_id, [event("fine", T0), NewEvent(T0, payload)])
    assert await seeded.protocol.read(game.game_id) == []


async def test_malformed_json_is_refused(seeded: Repositories, game: Game) -> None:
    with pytest.raises(sqlite3.Error):
        await seeded.protocol.append(game.game_id, [NewEvent(T0, '{"type": ')])
    assert await seeded.protocol.read(game.game_id) == []


async def test_events_need_a_known_game(seeded: Repositories) -> None:
    with pytest.raises(sqlite3.IntegrityError, match="FOREIGN KEY"):
        await seeded.protocol.append(999, [event("seats_drawn", T0)])


def test_repository_offers_no_way_to_change_the_past() -> None:
    public = {name for name in vars(ProtocolRepository) if not name.startswith("_")}
    assert public == {"append", "read"}


@pytest.mark.parametrize(
    "statement",
    [
        "UPDATE events SET payload_json = '{\"type\": \"forged\"}', type = 'forged'",
        "DELETE FROM events",
        "INSERT OR REPLACE INTO events (game_id, seq, at, type, payload_json) "
        "SELECT game_id, 1, 0, 'forged', '{\"type\": \"forged\"}' FROM games",
    ],
)
async def test_schema_refuses_to_rewrite_the_protocol(
    seeded: Repositories, game: Game, statement: str
) -> None:
    appended = await seeded.protocol.append(game.game_id, [event("seats_drawn", T0)])
    with pytest.raises(sqlite3.IntegrityError):
        await seeded.database.execute(statement)
    assert await seeded.protocol.read(game.game_id) == appended


@pytest.mark.parametrize("seq", [0, 1, 3])
async def test_schema_refuses_a_gap_or_a_repeat(seeded: Repositories, game: Game, seq: int) -> None:
    await seeded.protocol.append(game.game_id, [event("seats_drawn", T0)])
    with pytest.raises(sqlite3.IntegrityError):
        await seeded.database.execute(
            "INSERT INTO events (game_id, seq, at, type, payload_json) "
            "VALUES (?, ?, 0, 'x', '{\"type\": \"x\"}')",
            (game.game_id, seq),
        )
    assert len(await seeded.protocol.read(game.game_id)) == 1
