"""A whole game while Telegram enforces its flood limits and refuses a third of all calls.

The sandbox answers 429 "retry after 1" to a third of the bot's calls, chosen at random,
and refuses for real any message past 30 a second overall, one a second into a private
chat or 20 a minute into a group (edits included). The bot must lose nothing the game
depends on, and break no limit itself: a 429 the sandbox injected is not the bot's fault,
one it earned is.
"""

from __future__ import annotations

import json
import random

import pytest
from aiogram.exceptions import TelegramRetryAfter

from bot.cli.demo import Crowd, Table, open_table, play
from bot.rules.events import NightStarted, Phase, SpeechStarted, VoteOpened
from bot.rules.protocol import Entry, entry_from_json, replay
from sandbox import SENDING_METHODS, ManualClock, RateLimits, Sandbox, SimMessage, Window

EDITS = {"editMessageText"}


async def entries_of(table: Table) -> list[Entry]:
    assert table.game_id is not None
    stored = await table.app.service.repos.protocol.read(table.game_id)
    return [entry_from_json(json.loads(e.payload_json)) for e in stored]


def buttons_for(messages: list[SimMessage], prefix: str) -> list[SimMessage]:
    """The bot's messages with a button whose callback data starts with `prefix`."""
    return [
        m
        for m in messages
        if m.from_bot
        and any((b.callback_data or "").startswith(prefix) for row in m.buttons() for b in row)
    ]


def seconds(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else f"{value:.1f}"


async def test_a_game_loses_nothing_while_a_third_of_all_calls_are_refused() -> None:
    async with open_table(12, seed=2, lang="en", rate_limits=True, flaky_429=0.33) as table:
        await table.gather()
        await table.begin()
        state = await play(table, Crowd(table, random.Random(2), "en"))
        sandbox, group, t = table.sandbox, table.group, table.texts

        # The sandbox did refuse a third of the calls, and the bot broke no limit itself.
        injected = [r for r in sandbox.calls() if r.injected]
        assert len(injected) > 0.25 * len([r for r in sandbox.calls() if r.method != "getUpdates"])
        sandbox.assert_no_bot_errors()
        calls = sandbox.calls(SENDING_METHODS | EDITS, chat=group, ok=True)
        times = [r.time for r in calls]
        assert max(sum(1 for u in times if s <= u < s + 60) for s in times) <= 20

        # Every role card reached its player.
        for seat, role in state.roles.items():
            card = t("en", "role.card", seat=seat, role=t("en", f"role.{role.value}"), game=1)
            plain = card.replace("<b>", "").replace("</b>", "")
            assert any(plain in m.content for m in table.person(seat).inbox()), seat

        # Every turn and every vote was called in the group, and every night keyboard
        # reached each mafioso and the Commissioner alive that night.
        lines = [line for m in group.messages() if m.from_bot for line in m.content.split("\n")]
        entries = await entries_of(table)
        settings = state.settings
        length = {
            Phase.INTRODUCTION: settings.introduction_seconds,
            Phase.ROUND_1: settings.round1_seconds,
            Phase.ROUND_2: settings.round2_seconds,
            Phase.DEFENCE: settings.defence_seconds,
            Phase.LAST_WORDS: settings.last_word_seconds,
        }
        turns = [e.event for e in entries if isinstance(e.event, SpeechStarted)]
        assert len(turns) > 30
        for turn in turns:
            line = t(
                "en",
                f"turn.{turn.phase.value}",
                speaker=table.named(turn.seat),
                seconds=seconds(length[turn.phase]),
            )
            said = sum(1 for u in turns if (u.phase, u.seat) == (turn.phase, turn.seat))
            assert lines.count(line) == said, line
        votes = [e.event for e in entries if isinstance(e.event, VoteOpened)]
        assert votes
        for vote in votes:
            # The ballot's keyboard went out (it is taken off once the vote closed).
            sent = sandbox.calls("sendMessage", chat=group, ok=True)
            assert any(f'"v:1:{vote.step}:' in json.dumps(r.params) for r in sent), vote
        nights = 0
        for index, entry in enumerate(entries):
            night = entry.event
            if not isinstance(night, NightStarted) or night.phase is not Phase.NIGHT:
                continue
            nights += 1
            then = replay(entries[: index + 1])
            acting = [*then.living_mafia(), then.commissioner()]
            for seat in filter(then.is_alive, acting):
                # Sent with its keyboard (which the night's end takes away again).
                person = table.person(seat)
                sent = sandbox.calls(SENDING_METHODS, chat=person.id, ok=True)
                wanted = f"n:1:{night.step}:"
                assert any(wanted in str(r.params.get("reply_markup")) for r in sent), seat
        assert nights > 0

        # The sheet is posted, with its seed and its Sign button.
        sheet = group.visible_messages()[-1]
        assert state.finished and state.seed in sheet.content
        assert buttons_for([sheet], "g:1")


async def test_the_sandbox_counts_an_edit_against_its_group_not_the_whole_bot() -> None:
    """Telegram shares a chat's limit between sends and edits (so the sandbox and the
    bot's limiter count both there); the bot's overall limit counts new messages."""
    clock = ManualClock()
    limits = RateLimits(overall=Window(3, 1.0), group_chat=Window(3, 60.0))
    async with Sandbox(clock=clock, rate_limits=limits) as sandbox:
        bot = sandbox.make_bot()
        anna = sandbox.add_user("Anna")
        club = sandbox.add_supergroup("Club", owner=anna)
        club.add_bot()
        try:
            first = await bot.send_message(club.id, "Turn 1")
            await bot.send_message(club.id, "Turn 2")
            await bot.edit_message_text(
                "Turn 1, 10 s left", chat_id=club.id, message_id=first.message_id
            )
            with pytest.raises(TelegramRetryAfter):  # the group's three are used
                await bot.edit_message_text(
                    "Turn 1, done", chat_id=club.id, message_id=first.message_id
                )
            other = sandbox.add_supergroup("Other club", owner=anna)
            other.add_bot()
            await bot.send_message(other.id, "hello")  # the third new message this second
            with pytest.raises(TelegramRetryAfter):
                await bot.send_message(other.id, "again")  # the bot's three are used
            clock.advance(60)
            await bot.edit_message_text(
                "Turn 1, done", chat_id=club.id, message_id=first.message_id
            )
        finally:
            await bot.session.close()
    assert [r.injected for r in sandbox.rejected()] == [False, False]
