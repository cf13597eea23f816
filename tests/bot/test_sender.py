"""Outbound flow control on a virtual clock: windows, priority, folding, retry_after.

The bot talks to a fake session that records every call with the clock's time and
answers as Telegram would (or with a 429 when told to), so each test drives time itself
and reads exactly what went out, and when.
"""

from __future__ import annotations

import asyncio
import itertools
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from functools import partial
from typing import Any

import pytest
from aiogram import Bot
from aiogram.client.session.base import BaseSession
from aiogram.exceptions import TelegramForbiddenError, TelegramRetryAfter
from aiogram.methods import TelegramMethod
from aiogram.types import Chat, Message

from bot.delivery.limiter import GAME, PRIORITY, REPLY, SWEEP_EVERY, Limiter
from bot.delivery.longtext import LongMessages
from bot.delivery.sender import Sender
from bot.services.clock import VirtualClock
from bot.views.keys import BOARD, TURN, VOTE
from bot.views.render import Button, Edit, Post, Retime, Unkey

START = 1_000_000_000.0
GROUP, OTHER_GROUP = -1001, -1002
ANNA, BORIS = 101, 102
KB = ((Button("Pass", "t:1:1:0"),),)
KB2 = ((Button("Pass", "t:1:2:0"),),)


@dataclass(frozen=True)
class Call:
    time: float
    method: str
    chat: int | None
    text: str | None = None
    keyboard: str | None = None  # the first button's callback data


class FakeTelegram(BaseSession):
    """Answers every call at once; `refuse` may answer one with 429 retry_after N."""

    def __init__(self, clock: VirtualClock) -> None:
        super().__init__()
        self.clock = clock
        self.calls: list[Call] = []  # the calls Telegram accepted
        self.refuse: Callable[[Call], int | None] = lambda call: None
        self.forbidden: set[int] = set()
        self._ids = itertools.count(1)

    async def make_request(  # the signature is aiogram's
        self,
        bot: Bot,
        method: TelegramMethod[Any],
        timeout: Any = None,  # noqa: ASYNC109
    ) -> Any:
        name = method.__api_method__
        chat = getattr(method, "chat_id", None)
        markup = getattr(method, "reply_markup", None)
        first = markup.inline_keyboard[0][0].callback_data if markup else None
        call = Call(self.clock.now(), name, chat, getattr(method, "text", None), first)
        retry_after = self.refuse(call)
        if retry_after is not None:
            raise TelegramRetryAfter(method, "Too Many Requests", retry_after)
        if chat in self.forbidden:
            raise TelegramForbiddenError(method, "Forbidden: bot was blocked by the user")
        self.calls.append(call)
        if name != "sendMessage":
            return True
        assert isinstance(chat, int)  # every chat here is a number: groups below zero
        return Message(
            message_id=next(self._ids),
            date=datetime.fromtimestamp(self.clock.now(), tz=UTC),
            chat=Chat(id=chat, type="supergroup" if chat < 0 else "private"),
            text=call.text,
        )

    async def close(self) -> None:
        pass

    def stream_content(self, *args: Any, **kwargs: Any) -> Any:
        raise NotImplementedError

    def sent(self, method: str = "sendMessage", chat: int | None = None) -> list[Call]:
        return [c for c in self.calls if c.method == method and chat in (None, c.chat)]


@dataclass
class Rig:
    clock: VirtualClock
    telegram: FakeTelegram
    bot: Bot
    sender: Sender

    async def run(self, *tasks: Any) -> list[Any]:
        """Run `tasks` as the bot's activities, and the sender's workers, to the end; time
        moves when none of them is at work (`Workers.still`) and something still waits."""
        workers = self.sender.workers
        running = [workers.spawn(t) for t in tasks]
        for _ in range(100_000):
            if not await workers.still():
                await asyncio.sleep(0)
                continue
            if all(t.done() for t in running) and not self.sender.busy():
                return [t.result() for t in running]
            wake = self.clock.next_wake()
            if wake is None:
                raise AssertionError("the sender waits, and not on the clock")
            self.clock.set(wake)
        raise AssertionError("nothing moves")

    async def pass_time(self, seconds: float = 60.0) -> None:
        """Let time pass with nothing to do: what waits for a quiet moment goes."""
        self.clock.set(self.clock.now() + seconds)
        await self.run()

    async def send(self, chat: int, text: str, priority: int | None = None) -> Any:
        """A call made straight through the bot, as a handler makes it."""
        if priority is not None:
            PRIORITY.set(priority)
        return await self.bot.send_message(chat, text)

    async def edit(self, chat: int, message_id: int, text: str, priority: int | None = None) -> Any:
        if priority is not None:
            PRIORITY.set(priority)
        return await self.bot.edit_message_text(text, chat_id=chat, message_id=message_id)


@pytest.fixture
def rig() -> Rig:
    clock = VirtualClock(start=START)
    telegram = FakeTelegram(clock)
    bot = Bot("123456:TEST", session=telegram)
    sender = Sender(bot, clock)
    bot.session.middleware(sender.limiter)
    return Rig(clock, telegram, bot, sender)


def offsets(calls: list[Call]) -> list[float]:
    """When each call went, in seconds from the start."""
    return [c.time - START for c in calls]


def peak(times: list[float], window: float) -> int:
    """The most calls within any `window` seconds."""
    return max(sum(1 for u in times if t <= u < t + window) for t in times)


async def then(make: Callable[[], Any]) -> Any:
    """Do it after what the tasks before this one queued (one turn of the loop later)."""
    await asyncio.sleep(0)
    result = make()
    return await result if asyncio.iscoroutine(result) else result


# --- windows -------------------------------------------------------------------------


async def test_a_group_gets_twenty_messages_a_minute_at_most(rig: Rig) -> None:
    await rig.run(*(rig.send(GROUP, f"m{i}", GAME) for i in range(45)))
    times = offsets(rig.telegram.sent(chat=GROUP))
    # About one a second, as into any chat (three within a second draw 429s), and
    # twenty in any minute.
    assert times == [float(s) for s in [*range(20), *range(60, 80), *range(120, 125)]]
    assert peak(times, 60.0) == 20


async def test_replies_leave_a_quarter_of_the_group_window_to_the_game(rig: Rig) -> None:
    await rig.run(*(rig.send(GROUP, f"/status {i}") for i in range(20)))
    times = offsets(rig.telegram.sent(chat=GROUP))
    assert times == [float(s) for s in [*range(15), *range(60, 65)]]


async def test_a_private_chat_gets_one_message_a_second(rig: Rig) -> None:
    await rig.run(*(rig.send(ANNA, f"m{i}") for i in range(3)), rig.send(BORIS, "hello"))
    assert offsets(rig.telegram.sent(chat=ANNA)) == [0.0, 1.0, 2.0]
    assert offsets(rig.telegram.sent(chat=BORIS)) == [0.0]  # another chat is not held


async def test_the_bot_as_a_whole_sends_thirty_messages_a_second_at_most(rig: Rig) -> None:
    await rig.run(*(rig.send(1000 + i, "card") for i in range(70)))
    assert offsets(rig.telegram.sent()) == [0.0] * 30 + [1.0] * 30 + [2.0] * 10


async def test_edits_count_against_their_chat_but_not_the_whole_bot(rig: Rig) -> None:
    await rig.run(*(rig.send(GROUP, "turn", GAME) for _ in range(15)))  # 0 s to 14 s
    rig.clock.set(START + 20)
    await rig.run(
        *(rig.send(1000 + i, "card") for i in range(30)),  # the bot's 30 are used
        *(rig.edit(GROUP, i, f"edit {i}", GAME) for i in range(1, 8)),
    )
    # Five edits fit the group's window, a second apart, and the other two wait for
    # the first turns to leave it; the bot's window, full as it was, held back none.
    assert offsets(rig.telegram.sent("editMessageText")) == [
        20.0,
        21.0,
        22.0,
        23.0,
        24.0,
        60.0,
        61.0,
    ]


# --- priority ------------------------------------------------------------------------


async def test_when_the_window_opens_the_game_goes_first_and_cosmetics_last(rig: Rig) -> None:
    await rig.run(*(rig.send(GROUP, "earlier", GAME) for _ in range(20)))
    # Queued in the worst order: a cosmetic edit, a reply, then the game's turn.
    await rig.run(
        rig.edit(GROUP, 1, "lobby: 7 players"),
        rig.send(GROUP, "/status: day 1"),
        rig.sender.deliver(1, [Post(GROUP, "turn", KB, remember=TURN)]),
    )
    late = rig.telegram.calls[20:]
    assert [(c.method, c.text) for c in late] == [
        ("sendMessage", "turn"),
        ("sendMessage", "/status: day 1"),
        ("editMessageText", "lobby: 7 players"),
    ]
    # The turn as soon as the window has room; the reply once it leaves a quarter of the
    # window to the game, the lobby once it leaves half.
    assert offsets(late) == [60.0, 66.0, 72.0]


async def test_a_burst_of_cosmetic_edits_leaves_half_the_group_window(rig: Rig) -> None:
    lobby_edits = [rig.edit(GROUP, i, f"lobby {i}") for i in range(1, 16)]  # 15 messages
    await rig.run(*lobby_edits, rig.sender.deliver(1, [Post(GROUP, "seating", pin=True)]))
    # The seating (and its pin) went next, a second apart, although the edits asked
    # first; the edits filled half of the minute's window with them, then waited.
    assert offsets(rig.telegram.sent(chat=GROUP)) == [1.0]
    assert offsets(rig.telegram.sent("pinChatMessage")) == [2.0]
    edits = [0.0, *(float(s) for s in range(3, 10)), *(float(s) for s in range(60, 67))]
    assert offsets(rig.telegram.sent("editMessageText")) == edits


async def test_the_overall_window_serves_the_game_before_replies(rig: Rig) -> None:
    await rig.run(*(rig.send(1000 + i, "earlier") for i in range(30)))
    await rig.run(
        *(rig.send(2000 + i, "reply", REPLY) for i in range(30)),
        rig.sender.deliver(1, [Post(ANNA, "card", protect=True, essential=True)]),
    )
    second = [c.text for c in rig.telegram.sent() if offsets([c]) == [1.0]]
    assert second == ["card"] + ["reply"] * 29


# --- order and folding -----------------------------------------------------------------


async def test_a_chat_gets_its_posts_in_order(rig: Rig) -> None:
    posts = [Post(ANNA, f"keyboard {i}", ((Button(str(i), f"n:1:{i}:1"),),)) for i in range(5)]
    await rig.run(rig.sender.deliver(1, posts))
    sent = rig.telegram.sent(chat=ANNA)
    assert [c.text for c in sent] == [f"keyboard {i}" for i in range(5)]
    assert offsets(sent) == [0.0, 1.0, 2.0, 3.0, 4.0]


async def test_a_warning_for_a_turn_that_is_over_is_dropped(rig: Rig) -> None:
    await rig.run(*(rig.send(GROUP, "earlier") for _ in range(20)))  # the window is full
    await rig.run(
        rig.sender.deliver(1, [Post(GROUP, "🎙 Anna: 60 s.", KB, remember=TURN)]),
        then(lambda: rig.sender.note(1, GROUP, TURN, "⏳ 10 s left.")),
        then(lambda: rig.sender.deliver(1, [Post(GROUP, "🎙 Boris: 60 s.", KB2, remember=TURN)])),
    )
    late = rig.telegram.calls[20:]
    # One message: both turns, the later one's button; the stale warning never went out.
    assert [(c.method, c.text, c.keyboard) for c in late] == [
        ("sendMessage", "🎙 Anna: 60 s.\n\n🎙 Boris: 60 s.", "t:1:2:0")
    ]


async def test_two_pending_edits_of_one_message_become_one(rig: Rig) -> None:
    await rig.run(rig.sender.deliver(1, [Post(GROUP, "🎙 Anna", KB, remember=TURN)]))
    await rig.run(*(rig.send(GROUP, "earlier") for _ in range(19)))  # the window is full
    await rig.run(
        rig.sender.deliver(1, [Edit(GROUP, TURN, "✅ Anna nominates Boris.", KB2)]),
        then(lambda: rig.sender.note(1, GROUP, TURN, "⏳ 10 s left.")),
    )
    edits = rig.telegram.sent("editMessageText")
    assert [(c.text, c.keyboard) for c in edits] == [
        ("🎙 Anna\n✅ Anna nominates Boris.\n⏳ 10 s left.", "t:1:2:0")  # the note keeps it
    ]


async def test_an_edit_of_a_post_still_queued_goes_out_with_it(rig: Rig) -> None:
    await rig.run(*(rig.send(GROUP, "earlier") for _ in range(20)))
    await rig.run(
        rig.sender.deliver(1, [Post(GROUP, "🎙 Anna", KB, remember=TURN)]),
        then(lambda: rig.sender.deliver(1, [Edit(GROUP, TURN, "✅ nominates 3", KB2)])),
    )
    assert [(c.method, c.text, c.keyboard) for c in rig.telegram.calls[20:]] == [
        ("sendMessage", "🎙 Anna\n✅ nominates 3", "t:1:2:0")
    ]


async def test_a_keyboard_is_never_folded_away_by_another_kind_of_post(rig: Rig) -> None:
    await rig.run(*(rig.send(GROUP, "earlier") for _ in range(20)))
    vote = Post(GROUP, "Final vote", KB, remember=VOTE)
    await rig.run(
        rig.sender.deliver(1, [vote]),
        then(lambda: rig.sender.deliver(1, [Post(GROUP, "🌙 Night 1.")])),
    )
    assert [c.text for c in rig.telegram.calls[20:]] == ["Final vote", "🌙 Night 1."]


async def test_a_retime_puts_the_new_end_time_in_place_and_keeps_the_buttons(rig: Rig) -> None:
    # Issue 22 §2 (T2): the turn message says the end that holds now.
    turn = Post(
        GROUP, "🎙 Anna\nUntil 03:00:30 MSK.", KB, remember=TURN, clock="Until 03:00:30 MSK."
    )
    await rig.run(rig.sender.deliver(1, [turn]))
    await rig.run(rig.sender.deliver(1, [Edit(GROUP, TURN, "✅ nominates 3", KB)]))
    await rig.run(rig.sender.deliver(1, [Retime(GROUP, TURN, "⏸ Paused: 20 s left.")]))
    await rig.run(rig.sender.deliver(1, [Retime(GROUP, TURN, "⏸ Paused: 20 s left.")]))
    await rig.run(rig.sender.deliver(1, [Retime(GROUP, TURN, "Until 03:05:00 MSK.")]))
    assert [(c.method, c.text, c.keyboard) for c in rig.telegram.calls[2:]] == [
        ("editMessageText", "🎙 Anna\n⏸ Paused: 20 s left.\n✅ nominates 3", "t:1:1:0"),
        # the same line again changes nothing, so nothing is sent
        ("editMessageText", "🎙 Anna\nUntil 03:05:00 MSK.\n✅ nominates 3", "t:1:1:0"),
    ]
    await rig.run(rig.sender.deliver(2, [Retime(GROUP, TURN, "⏸ Paused: 9 s left.")]))
    assert len(rig.telegram.calls) == 4  # a message nobody remembers is left as it is


async def test_a_retime_of_a_turn_still_queued_goes_out_with_it(rig: Rig) -> None:
    await rig.run(*(rig.send(GROUP, "earlier") for _ in range(20)))  # the window is full
    turn = Post(
        GROUP, "🎙 Anna\nUntil 03:00:30 MSK.", KB, remember=TURN, clock="Until 03:00:30 MSK."
    )
    await rig.run(
        rig.sender.deliver(1, [turn]),
        then(lambda: rig.sender.deliver(1, [Retime(GROUP, TURN, "⏸ Paused: 20 s left.")])),
        then(lambda: rig.sender.deliver(1, [Retime(GROUP, TURN, "Until 03:01:00 MSK.")])),
    )
    assert [(c.method, c.text, c.keyboard) for c in rig.telegram.calls[20:]] == [
        ("sendMessage", "🎙 Anna\nUntil 03:01:00 MSK.", "t:1:1:0")
    ]
    await rig.run(rig.sender.deliver(1, [Retime(GROUP, TURN, "Until 03:02:00 MSK.")]))
    assert rig.telegram.calls[-1].text == "🎙 Anna\nUntil 03:02:00 MSK."  # remembered as folded


async def test_a_retime_waiting_when_the_turn_ends_takes_its_buttons_off(rig: Rig) -> None:
    turn = Post(
        GROUP, "🎙 Anna\nUntil 03:00:30 MSK.", KB, remember=TURN, clock="Until 03:00:30 MSK."
    )
    await rig.run(rig.sender.deliver(1, [turn]))
    await rig.run(*(rig.send(GROUP, "earlier") for _ in range(19)))  # the window is full
    await rig.run(
        rig.sender.deliver(1, [Retime(GROUP, TURN, "⏸ Paused: 20 s left.")]),
        then(lambda: rig.sender.deliver(1, [Unkey(GROUP, TURN)])),
    )
    await rig.pass_time()
    assert [(c.method, c.text, c.keyboard) for c in rig.telegram.calls[20:]] == [
        ("editMessageText", "🎙 Anna\n⏸ Paused: 20 s left.", None)
    ]


# --- buttons whose moment has passed ----------------------------------------------------


async def test_an_ended_turns_buttons_go_after_the_next_turn_is_called(rig: Rig) -> None:
    await rig.run(rig.sender.deliver(1, [Post(GROUP, "🎙 Anna", KB, remember=TURN)]))
    await rig.run(
        rig.sender.deliver(1, [Unkey(GROUP, TURN), Post(GROUP, "🎙 Boris", KB2, remember=TURN)])
    )
    await rig.pass_time()  # stale buttons wait for a quiet second, never hurry the clock
    assert [(c.method, c.text, c.keyboard) for c in rig.telegram.calls[1:]] == [
        ("sendMessage", "🎙 Boris", "t:1:2:0"),  # what happens now goes first
        ("editMessageReplyMarkup", None, None),  # Anna's buttons are taken off
    ]
    await rig.run(rig.sender.deliver(1, [Unkey(GROUP, TURN)]))
    await rig.run(rig.sender.deliver(1, [Unkey(GROUP, TURN)]))  # nothing left to take off
    await rig.pass_time()
    assert [c.method for c in rig.telegram.calls[3:]] == ["editMessageReplyMarkup"]


async def test_a_turn_that_ended_before_its_post_went_out_is_posted_without_buttons(
    rig: Rig,
) -> None:
    await rig.run(*(rig.send(GROUP, "earlier") for _ in range(20)))  # the window is full
    await rig.run(
        rig.sender.deliver(1, [Post(GROUP, "🎙 Anna", KB, remember=TURN)]),
        then(lambda: rig.sender.deliver(1, [Edit(GROUP, TURN, "✅ nominates 3", KB2)])),
        then(lambda: rig.sender.deliver(1, [Unkey(GROUP, TURN), Post(GROUP, "🌙 Night 1.")])),
    )
    assert [(c.method, c.text, c.keyboard) for c in rig.telegram.calls[20:]] == [
        ("sendMessage", "🎙 Anna\n✅ nominates 3", None),
        ("sendMessage", "🌙 Night 1.", None),
    ]


async def test_taking_buttons_off_waits_behind_the_game_and_a_backlog_folds(rig: Rig) -> None:
    await rig.run(rig.sender.deliver(1, [Post(GROUP, "🎙 Anna", KB, remember=TURN)]))
    await rig.run(*(rig.send(GROUP, "earlier") for _ in range(19)))  # the window is full
    kb3 = ((Button("Pass", "t:1:3:0"),),)
    await rig.run(
        rig.sender.deliver(1, [Unkey(GROUP, TURN), Post(GROUP, "🎙 Boris", KB2, remember=TURN)]),
        then(
            lambda: rig.sender.deliver(
                1, [Unkey(GROUP, TURN), Post(GROUP, "🎙 Vera", kb3, remember=TURN)]
            )
        ),
    )
    await rig.pass_time()
    # Two calls for two turns and a stale keyboard: Boris's turn, over before it was
    # shown, goes out with Vera's; then Anna's buttons go.
    assert [(c.method, c.text, c.keyboard) for c in rig.telegram.calls[20:]] == [
        ("sendMessage", "🎙 Boris\n\n🎙 Vera", "t:1:3:0"),
        ("editMessageReplyMarkup", None, None),
    ]


async def test_waiting_edits_of_one_message_made_straight_through_the_bot_merge(
    rig: Rig,
) -> None:
    await rig.run(*(rig.send(GROUP, "earlier") for _ in range(10)))  # no room for cosmetics
    answers = await rig.run(*(rig.edit(GROUP, 7, f"Lobby: {n} players") for n in range(1, 6)))
    edits = rig.telegram.sent("editMessageText")
    assert [c.text for c in edits] == ["Lobby: 5 players"]
    assert answers == [True] * 5  # every caller has the answer of the edit that went


async def test_essential_posts_are_waited_for_and_reported(rig: Rig) -> None:
    rig.telegram.forbidden.add(BORIS)
    cards = [
        Post(ANNA, "card A", protect=True, essential=True),
        Post(GROUP, "🎙 first turn", KB, remember=TURN),
        Post(BORIS, "card B", protect=True, essential=True),
    ]
    (delivery,) = await rig.run(rig.sender.deliver(1, cards))
    assert list(delivery.sent) == [0]
    assert [f.chat_id for f in delivery.failed] == [BORIS]
    # The card was in hand before the turn was called.
    assert [c.text for c in rig.telegram.calls] == ["card A", "🎙 first turn"]


# --- 429 ---------------------------------------------------------------------------------


async def test_retry_after_is_honoured_on_the_clock_and_order_kept(rig: Rig) -> None:
    refused: list[Call] = []

    def refuse(call: Call) -> int | None:
        if call.chat == GROUP and not refused:
            refused.append(call)
            return 7
        return None

    rig.telegram.refuse = refuse
    posts = [Post(GROUP, f"turn {i}", ((Button(str(i), f"t:1:{i}:0"),),)) for i in range(3)]
    await rig.run(rig.sender.deliver(1, posts), rig.send(ANNA, "elsewhere"))
    sent = rig.telegram.sent(chat=GROUP)
    assert [c.text for c in sent] == ["turn 0", "turn 1", "turn 2"]
    assert offsets(sent) == [7.0, 8.0, 9.0]  # the chat was held, then went on, paced
    assert offsets(rig.telegram.sent(chat=ANNA)) == [0.0]  # another chat was not


async def test_a_429_on_a_call_to_no_chat_holds_the_bot(rig: Rig) -> None:
    answers = iter([3])
    rig.telegram.refuse = lambda call: next(answers, None) if call.chat is None else None
    await rig.run(rig.bot.get_me(), then(lambda: rig.send(ANNA, "card")))
    assert offsets(rig.telegram.calls) == [3.0, 3.0]


async def test_a_third_of_calls_refused_loses_nothing_and_keeps_every_window(rig: Rig) -> None:
    rolls = iter(i % 3 == 0 for i in range(10_000))
    rig.telegram.refuse = lambda call: 1 if next(rolls) else None
    chats = [GROUP, OTHER_GROUP, ANNA, BORIS]
    batches = [
        rig.sender.deliver(1, [Post(chat, f"{chat}:{i}", KB, essential=chat > 0) for chat in chats])
        for i in range(40)
    ]
    await rig.run(*batches)
    for chat in chats:
        sent = rig.telegram.sent(chat=chat)
        assert [c.text for c in sent] == [f"{chat}:{i}" for i in range(40)]  # all, in order
        limit, window = (20, 60.0) if chat < 0 else (1, 1.0)
        assert peak(offsets(sent), window) <= limit
    assert peak(offsets(rig.telegram.sent()), 1.0) <= 30


# --- long texts (issue 10) -------------------------------------------------------------


def units(text: str | None) -> int:
    return len((text or "").encode("utf-16-le")) // 2


async def test_posts_are_folded_only_while_telegram_counts_them_short(rig: Rig) -> None:
    """N1: relays of emoji, two units each, folded by characters were refused as too long."""
    await rig.run(rig.send(ANNA, "earlier"))  # the chat's window is taken: the relays wait
    relays = [Post(ANNA, f"💬 5 · Boris: {mark * 1700}", protect=True) for mark in "🍎🍐🍋"]
    await rig.run(*(then(partial(rig.sender.deliver, 1, [p])) for p in relays))
    sent = rig.telegram.sent(chat=ANNA)[1:]
    assert all(units(c.text) <= 4096 for c in sent)
    assert "".join(c.text or "" for c in sent).count("🍐") == 1700


async def test_an_edit_that_would_grow_past_the_limit_comes_as_the_next_message(
    rig: Rig,
) -> None:
    await rig.run(rig.sender.deliver(1, [Post(GROUP, "🎙 " + "🙂" * 2040, KB, remember=TURN)]))
    await rig.run(rig.sender.deliver(1, [Edit(GROUP, TURN, "✅ nominates 3", KB2)]))
    await rig.run(rig.sender.deliver(1, [Edit(GROUP, TURN, "⏳ 10 s left.", KB2)]))
    posts = rig.telegram.sent(chat=GROUP)
    assert [(c.text, c.keyboard) for c in posts[1:]] == [("✅ nominates 3", "t:1:2:0")]
    [edit] = rig.telegram.sent("editMessageText", GROUP)
    assert edit.text == "✅ nominates 3\n⏳ 10 s left."


async def test_a_text_too_long_for_one_message_goes_as_several_each_paced(rig: Rig) -> None:
    rig.bot.session.middleware.unregister(rig.sender.limiter)
    rig.bot.session.middleware(LongMessages())  # as build_app installs them: outermost
    rig.bot.session.middleware(rig.sender.limiter)
    table = "\n".join(f"{i}. {'🎭' * 32} — 1.2" for i in range(200))
    await rig.run(rig.send(ANNA, table))
    sent = rig.telegram.sent(chat=ANNA)
    assert len(sent) == 4 and all(units(c.text) <= 4096 for c in sent)
    assert "\n".join(c.text or "" for c in sent) == table
    assert offsets(sent) == [0.0, 1.0, 2.0, 3.0]  # one a second, as to any private chat


async def test_the_windows_of_chats_gone_quiet_are_forgotten(rig: Rig) -> None:
    """Issue 10: a window per chat the bot ever wrote to would grow for months."""
    for chat in range(1, 2 * SWEEP_EVERY + 1):
        await rig.run(rig.send(chat, "Welcome"))
        rig.clock.set(rig.clock.now() + 0.05)
    assert len(rig.sender.limiter._slots) <= SWEEP_EVERY + 1
    assert len(rig.telegram.sent()) == 2 * SWEEP_EVERY


async def test_the_table_message_shows_its_latest_text_in_the_group_s_spare_room(
    rig: Rig,
) -> None:
    """Issue 11: the pinned table's edits fold (only the latest text goes) and wait for a
    quiet window, behind the turns: a busy minute posts its turns at once."""
    table = Post(GROUP, "table 0", pin=True, remember=BOARD, essential=True)
    await rig.run(rig.sender.deliver(1, [table]))  # a message and its pin: 2 of 20
    for i in range(1, 4):  # turns passed at once: 5 of 20 in the minute
        await rig.run(rig.sender.deliver(1, [Post(GROUP, f"turn {i}", KB, remember=TURN)]))

    async def changes() -> None:
        for i in range(1, 4):
            rig.sender.board(1, GROUP, f"table {i}")
            await asyncio.sleep(0)

    await rig.run(changes(), rig.sender.deliver(1, [Post(GROUP, "turn 4", KB, remember=TURN)]))
    # The table, its pin at 1 s, then the turns a second apart as the group's pace
    # allows: none waited for the table's edits.
    assert offsets(rig.telegram.sent(chat=GROUP)) == [0.0, 2.0, 3.0, 4.0, 5.0]
    assert not rig.telegram.sent("editMessageText")
    rig.clock.set(START + 60)  # the pin is still in the minute: five of twenty used
    await rig.run(asyncio.sleep(0))
    assert not rig.telegram.sent("editMessageText")
    rig.clock.set(START + 61)  # a quarter of the window is free again
    await rig.run(asyncio.sleep(0))
    edits = rig.telegram.sent("editMessageText")
    assert [(c.text, c.time - START) for c in edits] == [("table 3", 61.0)]
    rig.sender.board(1, GROUP, "table 3")  # what it shows already: no call
    await rig.run(asyncio.sleep(0))
    assert len(rig.telegram.sent("editMessageText")) == 1


async def test_stop_cancels_what_waits_for_a_quiet_minute(rig: Rig) -> None:
    """A process that ends (the benchmark's games on a clock that stops) leaves no worker
    waiting for ever: the table's edit waiting for room is cancelled, and sent never."""
    table = Post(GROUP, "table 0", pin=True, remember=BOARD, essential=True)
    await rig.run(rig.sender.deliver(1, [table]))
    for i in range(1, 4):
        await rig.run(rig.sender.deliver(1, [Post(GROUP, f"turn {i}", KB, remember=TURN)]))
    rig.sender.board(1, GROUP, "table 1")
    await rig.run(asyncio.sleep(0))
    assert not rig.telegram.sent("editMessageText")  # a quarter of the minute is used up
    waiting = asyncio.all_tasks() - {asyncio.current_task()}
    assert waiting  # the table's worker, asleep until the window has room
    await rig.sender.workers.stop()
    assert all(task.done() for task in waiting)
    await rig.pass_time(120)
    assert not rig.telegram.sent("editMessageText")


async def test_the_next_turn_keeps_its_buttons_when_the_warning_was_on_its_way(rig: Rig) -> None:
    """D10: the 10-second warning of a turn is on its way (Telegram asked it to wait) as
    the turn ends and the next one is posted. The ended turn's buttons come off that
    very message once the warning is out; the next speaker's post keeps its own, or
    they could not pass."""
    await rig.run(rig.sender.deliver(1, [Post(GROUP, "🎙 Anna", KB, remember=TURN)]))
    held: list[Call] = []

    def once(call: Call) -> int | None:
        if call.method == "editMessageText" and not held:
            held.append(call)
            return 2  # retry after 2 s: the warning stays on its way meanwhile
        return None

    rig.telegram.refuse = once
    rig.sender.note(1, GROUP, TURN, "⏳ 10 s")
    rig.clock.set(START + 1.5)  # the group's pace lets the warning go: refused, it waits
    for _ in range(30):
        await asyncio.sleep(0)
    assert held

    async def next_turn() -> None:
        await rig.sender.deliver(
            1, [Unkey(GROUP, TURN), Post(GROUP, "🎙 Boris", KB2, remember=TURN)]
        )

    await rig.run(next_turn())
    await rig.pass_time()
    posts = rig.telegram.sent(chat=GROUP)
    assert [(c.text, c.keyboard) for c in posts] == [("🎙 Anna", "t:1:1:0"), ("🎙 Boris", "t:1:2:0")]
    unkeyed = rig.telegram.sent("editMessageReplyMarkup")
    assert [c.chat for c in unkeyed] == [GROUP]  # Anna's message, once
    assert rig.sender.remembered[(1, TURN)].keyboard == KB2


# --- cost of waiting -------------------------------------------------------------------


async def test_only_the_call_that_can_go_is_woken(
    rig: Rig, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Hundreds of replies waiting for one busy group (a flood from outside) cost nothing
    while they wait: each time the window has room, the call that goes is weighed, not
    every call in the line. Before, every waiter woke and looked at every other on each
    admission (with 16,000 waiting, 73 % of a core and the loop paused up to 1.5 s)."""
    weighed = 0
    delay = Limiter._delay

    def counted(self: Limiter, *args: Any, **kwargs: Any) -> float:
        nonlocal weighed
        weighed += 1
        return delay(self, *args, **kwargs)

    monkeypatch.setattr(Limiter, "_delay", counted)
    waiting = 300
    await rig.run(
        *(rig.send(GROUP, f"/help {i}", REPLY) for i in range(waiting)),
        rig.sender.deliver(1, [Post(ANNA, "card", protect=True, essential=True)]),
    )
    assert len(rig.telegram.sent(chat=GROUP)) == waiting
    # The replies still go in order and within the group's window.
    assert [c.text for c in rig.telegram.sent(chat=GROUP)] == [f"/help {i}" for i in range(waiting)]
    times = [c.time for c in rig.telegram.sent(chat=GROUP)]
    assert all(b - a >= 1.0 for a, b in itertools.pairwise(times))
    assert all(times[i + 15] - times[i] >= 60.0 for i in range(len(times) - 15))
    assert weighed <= 6 * waiting, weighed  # a few looks per call, not one per call waiting
