"""What each turn costs the group under Telegram's real windows (issue 22 §3; D2, D3, T1).

A group takes 20 of the bot's messages (and edits) a minute; every call the bot spends
there on something a player need not read is a turn's announcement waiting. The counts
here are the figures docs/developers.md gives ("Telegram's limits").
"""

from __future__ import annotations

import json
import random
from collections import Counter
from dataclasses import dataclass
from typing import Any

import pytest

from bot.cli.demo import Crowd, Table, play
from bot.rules.events import Event, NightStarted, Phase, SpeechStarted, VoteOpened
from bot.rules.protocol import entry_from_json
from sandbox import SENDING_METHODS, SimMessage
from tests.middle.games import open_game

# Every call that lands in the group's own window: new messages, edits, pins, deletions.
GROUP_CALLS = frozenset(
    {
        *SENDING_METHODS,
        "editMessageText",
        "editMessageReplyMarkup",
        "editMessageCaption",
        "pinChatMessage",
        "unpinChatMessage",
        "deleteMessage",
        "deleteMessages",
    }
)
SEED = 9  # the 16-player game of docs/developers.md


def group_calls(table: Table) -> Counter[str]:
    return Counter(c.method for c in table.sandbox.calls(GROUP_CALLS, chat=table.group, ok=True))


async def sixteen_player_game() -> tuple[Counter[str], Table]:
    async with open_game(16, seed=SEED, lang="ru", rate_limits=True) as table:
        await table.gather()
        await table.begin()
        state = await play(table, Crowd(table, random.Random(SEED), "ru"))
        assert state.finished
        table.sandbox.assert_no_bot_errors()
        return group_calls(table), table


async def test_a_sixteen_player_game_rings_the_group_only_for_news() -> None:
    """The figures: the calls a 16-player game makes into its group, how many of its
    posts ring the group's phones, and how many private messages it sends."""
    calls, table = await sixteen_player_game()
    sent = table.sandbox.calls("sendMessage", chat=table.group, ok=True)
    ringing = [c for c in sent if not c.params.get("disable_notification")]
    private = [
        c for c in table.sandbox.calls("sendMessage", ok=True)
        if c.chat_id is not None and c.chat_id > 0
    ]  # fmt: skip
    print(
        f"\ngroup calls of a 16-player game (seed {SEED}): {sum(calls.values())} "
        f"{dict(calls)}; {len(ringing)} of {len(sent)} posts ring; "
        f"{len(private)} private messages"
    )
    # The figures of docs/developers.md. Before issue 22 every one of the 213 posts rang
    # the group's phones, for the same 606 calls; now an ordinary turn rings nobody but,
    # privately, the one who speaks after it.
    assert sum(calls.values()) <= 606
    assert len(ringing) * 3 < len(sent)


@dataclass
class Turn:
    step: int
    phase: Phase
    seat: int
    opens: bool  # the first turn of its run (a round, the defence, the last words)
    post: SimMessage
    markup: Any


async def turns_of(table: Table) -> list[Turn]:
    """Every turn of the game, with the group message that announced it."""
    assert table.game_id is not None
    repos = table.app.service.repos
    rows = await repos.database.fetch_all(
        "SELECT kind, message_id FROM outbox WHERE game_id = ? AND kind LIKE 'turn:%'",
        (table.game_id,),
    )
    posted = {int(r["kind"].split(":")[1]): r["message_id"] for r in rows}
    messages = {m.message_id: m for m in table.group.messages()}
    markups = {
        c.result["message_id"]: c.params.get("reply_markup")
        for c in table.sandbox.calls("sendMessage", chat=table.group, ok=True)
    }
    turns: list[Turn] = []
    previous: Event | None = None
    for stored in await repos.protocol.read(table.game_id):
        event = entry_from_json(json.loads(stored.payload_json)).event
        if isinstance(event, SpeechStarted):
            opens = not (isinstance(previous, SpeechStarted) and previous.phase is event.phase)
            message_id = posted[event.step]
            turns.append(
                Turn(
                    event.step, event.phase, event.seat, opens, messages[message_id],
                    markups.get(message_id),
                )
            )  # fmt: skip
        if isinstance(event, SpeechStarted | VoteOpened | NightStarted):
            previous = event
    return turns


def seat_buttons(markup: Any) -> list[str]:
    if isinstance(markup, str):
        markup = json.loads(markup)
    rows = (markup or {}).get("inline_keyboard", [])
    return [b["text"] for row in rows for b in row if b["text"].isdigit()]


async def twelve_player_game(seed: int) -> tuple[Table, list[Turn]]:
    async with open_game(12, seed=seed, lang="ru") as table:
        await table.gather()
        await table.begin()
        state = await play(table, Crowd(table, random.Random(seed), "ru"))
        assert state.finished
        table.sandbox.assert_no_bot_errors()
        return table, await turns_of(table)


HINT = "Можно выставить одного игрока"
NEXT = "Вы говорите следующим"


@pytest.mark.rule("D3")
async def test_D3_the_nomination_hint_is_said_once_as_round_2_begins() -> None:
    table, turns = await twelve_player_game(4)
    second = [turn for turn in turns if turn.phase is Phase.ROUND_2]
    days = [turn for turn in second if turn.opens]
    assert len(days) >= 2 and len(second) > 2 * len(days)
    hinted = [m for m in table.group.messages() if m.from_bot and HINT in m.content]
    # Once a day, in the post of round 2's first turn, and in no other turn's post.
    assert [m.message_id for m in hinted] == [turn.post.message_id for turn in days]
    # Every round-2 turn keeps its nomination buttons: every living seat but the speaker's.
    for turn in second:
        assert seat_buttons(turn.markup), f"step {turn.step} has no nomination buttons"
        assert str(turn.seat) not in seat_buttons(turn.markup)


@pytest.mark.rule("D2")
async def test_D2_turns_go_silently_and_the_next_speaker_is_told_privately() -> None:
    table, turns = await twelve_player_game(5)
    ordinary = [turn for turn in turns if not turn.opens]
    assert len(ordinary) > 30
    for turn in ordinary:
        # Nothing but the turn to tell: the group's phones stay quiet (D2).
        if "\n\n" not in turn.post.content:
            assert turn.post.silent, f"step {turn.step} ({turn.phase}) rang the group"
    # What opens a day, a round, the defence or the last words still rings.
    assert all(not turn.post.silent for turn in turns if turn.opens)
    # Whoever speaks next hears of it privately, once, as the turn before theirs begins:
    # the next in the same run, or after round 1 the first of round 2.
    expected: Counter[int] = Counter()
    for i, turn in enumerate(turns[1:], start=1):
        before = turns[i - 1]
        if turn.opens and not (turn.phase is Phase.ROUND_2 and before.phase is Phase.ROUND_1):
            continue
        expected[turn.seat] += 1
        earlier = turns[i - 2].post.seq if i >= 2 else 0
        told = [
            m for m in table.person(turn.seat).inbox()
            if NEXT in m.content and earlier < m.seq < turn.post.seq
        ]  # fmt: skip
        assert len(told) == 1, f"step {turn.step}: {len(told)} private notices"
    for seat in table.state.seats if table.state else ():
        told = [m for m in table.person(seat).inbox() if NEXT in m.content]
        assert len(told) == expected[seat]
