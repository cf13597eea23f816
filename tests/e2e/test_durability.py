"""Nothing lost: a restart in the middle of a game, duplicate updates, unsent cards."""

from __future__ import annotations

import asyncio
import json
import random
from pathlib import Path

import pytest
from aiogram.types import Update

from bot.cli.demo import Crowd, Table, open_table, play
from bot.rules.events import Phase
from bot.rules.protocol import entry_from_json, replay, state_to_json
from bot.views.render import Post


async def protocol_state(table: Table) -> dict[str, object]:
    assert table.game_id is not None
    stored = await table.app.service.repos.protocol.read(table.game_id)
    entries = [entry_from_json(json.loads(e.payload_json)) for e in stored]
    return state_to_json(replay(entries))


async def test_a_restart_mid_game_resumes_where_it_was(tmp_path: Path) -> None:
    async with open_table(12, seed=14, lang="en", folder=tmp_path) as table:
        await table.gather()
        await table.begin()
        crowd = Crowd(table, random.Random(14), "en")
        state = await table.wait_for(lambda s: s.phase is Phase.ROUND_1 and s.day == 1)
        speaker, step = state.speaker, state.step
        await table.restart()
        notice = next(m for m in reversed(table.group.messages()) if "goes on" in m.content)
        assert speaker is not None and table.named(speaker) in notice.content
        resumed = table.state
        assert resumed is not None and resumed.step == step  # the same turn, not a new one
        final = await play(table, crowd)
        assert final.winner is not None
        assert await protocol_state(table) == state_to_json(final)  # the protocol is the truth
        table.sandbox.assert_no_bot_errors()


async def test_a_deadline_that_passed_while_down_fires_at_once(tmp_path: Path) -> None:
    async with open_table(12, seed=3, lang="en", folder=tmp_path) as table:
        await table.gather()
        await table.begin()
        state = table.state
        assert state is not None and state.deadline is not None
        await table.shut_down()
        table.clock.set(state.deadline + 120)  # the bot was down for two minutes
        await table.boot()
        await table.settle()
        assert await table.advance()  # due at once: the clock need not move
        after = table.state
        assert after is not None and after.step == state.step + 1


async def test_a_card_caught_between_commit_and_send_goes_out_after_restart(
    tmp_path: Path,
) -> None:
    async with open_table(12, seed=4, lang="en", folder=tmp_path) as table:
        await table.gather()
        sender = table.app.service.sender

        async def crash(*_: object) -> None:
            raise ConnectionResetError("the process died between the commit and the send")

        sender.deliver = crash  # type: ignore[assignment, method-assign]
        await table.host.send(table.group, "/begin")
        await table.settle()
        assert not any("Your seat" in m.content for p in table.people for m in p.inbox())
        await table.restart()
        assert all(any("Your seat" in m.content for m in p.inbox()) for p in table.people)


async def test_an_update_delivered_twice_changes_nothing(table: Table) -> None:
    state = await table.wait_for(lambda s: s.phase is Phase.ROUND_2)
    assert state.speaker is not None
    target = next(s for s in state.living() if s != state.speaker)
    await table.nominate(target)
    db = table.app.service.repos.database
    row = await db.fetch_one("SELECT max(update_id) AS last FROM processed_updates")
    assert row is not None
    press = table.turn_message()
    again = Update.model_validate(
        {
            "update_id": row["last"],
            "callback_query": {
                "id": "duplicate",
                "from": table.person(state.speaker).to_api(),
                "message": press.to_api(),
                "chat_instance": "1",
                "data": press.buttons()[0][0].callback_data,
            },
        },
        context={"bot": table.bot},
    )
    before = len(await table.app.service.repos.protocol.read(state.game_id))
    await table.app.dispatcher.feed_update(table.bot, again)
    assert len(await table.app.service.repos.protocol.read(state.game_id)) == before
    assert table.state is not None and table.state.step == state.step


async def test_a_group_that_becomes_a_supergroup_keeps_its_game() -> None:
    # A basic group, upgraded by Telegram (tests/middle/test_migration.py: what it shows).
    async with open_table(12, seed=5, lang="en", basic_group=True) as table:
        await table.gather()
        await table.begin()
        new = table.group.migrate_to_supergroup()
        await table.settle()
        moved = await table.app.service.active_game(new.id)
        assert moved is not None and moved.game_id == table.game_id
        table.sandbox.assert_no_bot_errors()


@pytest.mark.rule("S3")
@pytest.mark.parametrize("after", [1, 7, 12])
async def test_S3_D10_a_crash_between_cards_resends_only_what_was_in_flight(
    tmp_path: Path, after: int
) -> None:
    """Issue 10: killed during the deal, the bot sent every card again and never posted the
    seating, the commitment, Day 0 or the first turn. Now each card is ticked off as it
    goes out: only the one in flight goes twice; the seating comes once; the first turn,
    which nobody heard of, is announced with its full time (recorded in the protocol)."""
    async with open_table(12, seed=9, lang="en", folder=tmp_path) as table:
        await table.gather()
        service = table.app.service
        sender = service.sender
        real_post = sender._post
        cards = 0
        died = asyncio.Event()

        async def dying_post(game_id: int, post: Post) -> int:
            nonlocal cards
            message_id = await real_post(game_id, post)
            cards += "Your seat" in post.text
            if cards == after:
                died.set()  # the message is out; the bot dies before it learns so
                await asyncio.Future()
            return message_id

        sender._post = dying_post  # type: ignore[method-assign]
        game = await service.active_game(table.group.id)
        assert game is not None
        dealing = asyncio.ensure_future(service.begin(game))
        async with asyncio.timeout(10):
            while not died.is_set():  # each card waits for its chat's window on the clock
                wake = table.clock.next_wake()
                if wake is not None:
                    table.clock.set(wake)
                await asyncio.sleep(0.001)
        for task in (dealing, *sender._workers.values()):
            task.cancel()
        await asyncio.gather(dealing, return_exceptions=True)
        table.clock.set(table.clock.now() + 600)  # down for ten minutes: the turn's time passed
        await table.restart()
        service = table.app.service
        received = [
            sum("Your seat" in m.content for m in person.inbox()) for person in table.people
        ]
        assert sorted(received) == [1] * 11 + [2]  # the one in flight, and no other
        group = table.group.messages()
        assert sum("seating" in m.content for m in group) == 1
        seating = next(m for m in group if "seating" in m.content)
        state = table.state
        assert state is not None and state.commitment in seating.content
        turn = table.turn_message()
        assert "has the floor: introductions, 30 s" in turn.content
        assert state.phase is Phase.INTRODUCTION and state.step == 1
        # The full time, from when the group saw the turn again (later posts, such as
        # the notice that the bot is back, may have moved the clock on since).
        assert state.deadline == turn.date + 30
        stored = await service.repos.protocol.read(state.game_id)
        kinds = [json.loads(e.payload_json)["type"] for e in stored]
        assert kinds[-1] == "ClockRestarted"
        assert await protocol_state(table) == state_to_json(state)  # replay stays true
        assert not await service.repos.outbox.unsent()
        table.sandbox.assert_no_bot_errors()
