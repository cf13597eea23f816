"""A press made for one step never lands on a later one (issue 21 §4, D5, D10).

The press and the clock race for the game's lock: the handler reads the state before it
takes the lock, so the step it saw may be over by the time its action applies. The test
holds the lock itself to order the race: the deadline's timer waits first, the press
second; the timer moves the game on, and the press must find its step gone. Over HTTP:
the press reaches the bot while the test holds the lock, as only a bot that polls by
itself takes it (in process, the driver hands updates over only as it settles).
"""

from __future__ import annotations

import asyncio

import pytest

from bot.cli.demo import Table, open_table
from bot.rules.events import Phase
from bot.timings import GameLock


async def _waiting(lock: GameLock, count: int) -> None:
    """Until `count` callers wait for the lock (the test holds it)."""
    for _ in range(2000):
        if len(lock._waiters or ()) >= count:
            return
        await asyncio.sleep(0.001)
    raise AssertionError(f"{count} callers never waited for the game's lock")


async def _to_round_2(table: Table) -> None:
    for _ in range(200):
        state = table.state
        assert state is not None
        if state.phase is Phase.ROUND_2:
            return
        if state.in_speech:
            await table.pass_turn()
        else:
            assert await table.advance()
    raise AssertionError("round 2 never came")


@pytest.mark.rule("D5")
@pytest.mark.rule("D10")
async def test_a_finish_press_for_round_2_never_ends_the_same_seats_defence() -> None:
    async with open_table(12, seed=5, lang="ru") as table:
        await table.gather()
        await table.begin()
        await _to_round_2(table)
        state = table.state
        assert state is not None and state.speaker is not None and table.game_id is not None
        # The first speaker nominates the last one alone: the last round-2 turn is
        # followed by the defence of the same seat (D4, D5).
        last = state.queue[-1]
        await table.nominate(last)
        while (now := table.state) is not None and now.speaker != last:
            await table.pass_turn()
        turn = table.state
        assert turn is not None and turn.phase is Phase.ROUND_2 and turn.deadline is not None
        old = table.turn_message()
        finish = old.button(0)
        # The 10-second warning goes first, on its own.
        while (due := table.timers.next_due()) is not None and due < turn.deadline:
            await table.advance()
        service = table.app.service
        lock = service.lock(table.game_id)
        async with lock:
            table.clock.set(turn.deadline)
            assert table.timers.fire_due() == 1  # the deadline: it waits for the lock
            await _waiting(lock, 1)
            late = await table.person(last).press_seen(old, finish)
            await _waiting(lock, 2)  # the press read its step and waits behind the timer
        await table.settle()
        answer = await late.wait_answer()
        assert answer.show_alert and answer.text == table.texts("ru", "error.stale")
        assert answer.text == "Эта кнопка из прошлой фазы."
        after = table.state
        assert after is not None and after.step == turn.step + 1
        assert after.phase is Phase.DEFENCE and after.speaker == last  # the defence goes on
        assert after.deadline is not None and after.deadline > table.clock.now()
        table.sandbox.assert_no_bot_errors()
