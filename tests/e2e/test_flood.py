"""A flood from outside (issue 25): strangers add the bot, with no rights, to groups of
their own and send it commands in bursts, over the webhook, through real HTTP. Nothing
of it may slow the game that is being played or a newcomer's /start."""

from __future__ import annotations

import pytest

from bot.cli.demo import open_table
from bot.delivery.throttle import CHAT_BURST

GROUPS = 20
BURST = 20  # each stranger's /help in their group, at once


@pytest.mark.heavy(20)
async def test_a_flood_in_strangers_groups_is_dropped_and_the_game_and_start_go_on() -> None:
    async with open_table(12, seed=5, lang="en", webhook=True) as table:
        sandbox = table.sandbox
        await table.host.start_bot()
        await table.gather()
        await table.begin()
        strangers = []
        for n in range(GROUPS):
            stranger = sandbox.add_user(f"Stranger {n}", language_code="en")
            group = sandbox.add_supergroup(f"Not a club {n}", owner=stranger)
            group.add_bot(added_by=stranger)  # a member, with no rights
            strangers.append((stranger, group))
        for stranger, group in strangers:
            for _ in range(BURST):
                await stranger.send(group, "/help")
        newcomer = sandbox.add_user("Newcomer", language_code="en")
        started = table.clock.now()
        await newcomer.start_bot()
        await table.settle()
        answered = newcomer.inbox()
        assert answered, "the newcomer's /start was not answered"
        # Answered within a couple of seconds of the overall 30 a second, not behind a
        # minute of the strangers' queued replies.
        assert answered[0].date - started <= 3
        for _, group in strangers:
            replies = [m for m in group.messages() if m.from_bot]
            assert len(replies) <= CHAT_BURST  # the rest was dropped, not queued
        # The game went on meanwhile: the speaker's Finish is answered and the next
        # turn called within the group's own window.
        state = table.state
        assert state is not None and state.speaker is not None
        step = state.step
        pressed = table.clock.now()
        await table.pass_turn()
        await table.settle()
        after = table.state
        assert after is not None and after.step > step
        turn_posts = [
            c
            for c in sandbox.calls("sendMessage", chat=table.group.id, ok=True)
            if c.time >= pressed
        ]
        assert turn_posts and turn_posts[0].time - pressed <= 3
        sandbox.assert_no_bot_errors()
