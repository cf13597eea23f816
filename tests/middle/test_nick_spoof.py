"""Nicks cannot spoof the bot (issue 25 §2): a nick is one line of printable text.

`/nick` with line breaks drew a fake "☠ Killed tonight" line into the pinned table for
the whole game; "Anna" and "Anna" with a zero-width space registered as two players who
look the same. Names from Telegram profiles (casual games) are made safe the same way.
"""

from __future__ import annotations

import pytest

from tests.middle.games import open_game
from tests.steps import REGISTRATION, register_all, say, start_table

SPOOF = "Ira)\n\n☠ Killed tonight: #2 (Vera"


@pytest.mark.rule("T3")
async def test_a_nick_with_line_breaks_draws_no_line_into_the_pinned_table() -> None:
    async with open_game(12, seed=8, lang="en") as table:
        await register_all(table, table.people)
        spoofer = table.people[3]
        answer = await say(table, spoofer, spoofer.private, f"/nick {SPOOF}")
        await say(table, table.host, table.host.private, "/groups confirm")
        chat = await start_table(table, "T1R1G1")
        pinned = chat.pinned
        assert pinned is not None
        lines = pinned.content.splitlines()
        assert not any(line.startswith("☠") for line in lines), pinned.content
        # The nick stays inside its own line, after its seat number.
        spoof_lines = [line for line in lines if "Killed tonight" in line]
        assert spoof_lines and all("Ira) ☠" in line for line in spoof_lines), pinned.content
        # The player was shown what was kept: the line breaks went, the rest is one line.
        assert "Ira) ☠ Killed tonight: #2 (Vera" in answer
        assert "one line" in answer
        table.sandbox.assert_no_bot_errors()


@pytest.mark.parametrize("hidden", ["\u202e", "\u200b", "\u2066", "\u3164"])
async def test_invisible_characters_make_no_second_anna(hidden: str) -> None:
    async with open_game(12, seed=8, lang="en") as table:
        await register_all(table, table.people[:2])
        anna, other = table.people[:2]
        await say(table, anna, anna.private, "/nick Anna")
        taken = await say(table, other, other.private, f"/nick Anna{hidden}")
        assert "taken" in taken
        lookalike = await say(table, other, other.private, "/nick \u0410nna")  # Cyrillic А
        assert "looks just like" in lookalike
        player = await table.app.service.repos.tournaments.player(1, other.id)
        assert player is not None and player.nick == other.first_name
        # A nick of nothing visible is no nick: the usage, nothing changed.
        blank = await say(table, other, other.private, "/nick \u200b\u202e")
        assert blank.startswith("Usage: /nick")
        # Registering with a profile name that is Anna's behind a zero-width space gets
        # a nick of its own.
        created = await say(table, table.host, table.host.private, "/tournament Second")
        link = REGISTRATION.search(created)
        assert link is not None
        await anna.open_link(link.group(0))
        twin = table.sandbox.add_user(f"Anna{hidden}", language_code="en")
        await twin.open_link(link.group(0))
        await table.settle()
        nicks = await table.app.dispatcher["tournaments"].nicks(2)
        assert nicks[anna.id] == "Anna" and nicks[twin.id] == "Anna 2"


async def test_profile_names_are_one_safe_line_in_the_lobby_and_the_table() -> None:
    async with open_game(12, seed=5, lang="en") as table:
        table.people[0].first_name = SPOOF
        table.people[1].first_name = "\u202eanivA"
        table.people[2].first_name = "\u3164\u200b"  # nothing visible
        table.people[2].last_name = "Petrova"
        await table.gather()
        lobby = table.group.visible_messages()[-1]
        assert "☠ Killed" not in "\n".join(
            line for line in lobby.content.splitlines() if line.startswith("☠")
        )
        assert "\u202e" not in lobby.content and "Petrova" in lobby.content
        await table.begin()
        pinned = table.group.pinned
        assert pinned is not None
        assert not any(line.startswith("☠") for line in pinned.content.splitlines())
        for bad in ("\u202e", "\u3164", "\u200b"):
            assert all(bad not in m.content for m in table.group.messages())
        state = table.state
        assert state is not None
        nicks = {s.user_id: s.nick for s in state.seats.values()}
        assert nicks[table.people[0].id] == "Ira) ☠ Killed tonight: #2 (Vera"
        assert nicks[table.people[1].id] == "anivA"
        assert nicks[table.people[2].id] == "Petrova"
        table.sandbox.assert_no_bot_errors()
