"""The pinned table message in whole games: one message, edited, paced, kept over a restart."""

from __future__ import annotations

import json
import random
import re
from dataclasses import dataclass
from pathlib import Path

import pytest

from bot.cli.demo import Crowd, Table, play
from bot.rules.events import Phase
from bot.rules.roles import Role
from bot.views.i18n import Texts
from sandbox.world import SimMessage
from tests.middle.games import open_game

ROLE_NAMES = {lang: [Texts()(lang, f"role.{r.value}") for r in Role] for lang in ("ru", "en")}


def board(table: Table) -> SimMessage:
    pinned = table.group.pinned
    assert pinned is not None, "no pinned message"
    return pinned


def board_edits(table: Table, message_id: int) -> list[str]:
    return [
        str(c.params["text"])
        for c in table.sandbox.calls("editMessageText", chat=table.group.id, ok=True)
        if c.params.get("message_id") == message_id
    ]


def _untimed(text: str) -> str:
    return re.sub(r"\b\d\d:\d\d:\d\d\b", "hh:mm:ss", text)


@dataclass
class Played:
    posts: list[tuple[float, str]]  # the group's new messages, with their times
    pinned: list[int]  # the ids of the messages pinned, in order
    edits: list[str]  # the table message's texts, edit by edit
    final: str  # what it shows at the end
    roles: dict[int, Role]
    day: int
    others: list[float]  # the times of the group's other calls, the table's edits left out


async def play_16(lang: str, *, board_shown: bool = True) -> Played:
    """A 16-player game with Telegram's real windows (the sandbox refuses past them)."""
    async with open_game(16, seed=11, lang=lang, rate_limits=True) as table:
        if not board_shown:
            table.app.service.sender.board = lambda *args, **kwargs: None  # type: ignore[method-assign]
        await table.gather()
        await table.begin()
        pinned = board(table)
        state = await play(table, Crowd(table, random.Random(11), lang))
        # The last edit waits for room in the group's window, behind the stale buttons.
        await table.let_room_come()
        table.sandbox.assert_no_bot_errors()
        return Played(
            posts=[
                (c.time, str(c.params["text"]))
                for c in table.sandbox.calls("sendMessage", chat=table.group.id, ok=True)
            ],
            pinned=[m.message_id for m in table.group.pinned_messages],
            edits=board_edits(table, pinned.message_id),
            final=board(table).content,
            roles=state.roles,
            day=state.day,
            others=[
                c.time
                for c in table.sandbox.calls(chat=table.group.id, ok=True)
                if c.method in ("sendMessage", "editMessageText", "editMessageReplyMarkup")
                and c.params.get("message_id") != pinned.message_id
            ],
        )


@pytest.mark.heavy(20)
@pytest.mark.parametrize("lang", ["ru", "en"])
async def test_a_16_player_game_keeps_one_pinned_table_that_no_turn_waits_for(
    lang: str,
) -> None:
    """The table message is pinned at the deal and stays the one pinned message, edited
    as the game goes; it shows the result at the end and never a role before it. The
    same game without it posts every message within a second of the same moment, or
    later only where the game's own calls filled the window: no turn waited for it."""
    shown = await play_16(lang)
    assert len(shown.pinned) == 1
    for text in shown.edits[:-1]:  # before the end, never a role
        assert not any(name in text for name in ROLE_NAMES[lang]), text
    assert "🏁" in shown.final and "🎙" not in shown.final
    for seat, role in shown.roles.items():
        assert f"{seat} · " in shown.final and Texts()(lang, f"role.{role.value}") in shown.final
    bare = await play_16(lang, board_shown=False)
    # The same posts; a turn's end time is the clock's when its post went out, which
    # the late check below bounds.
    assert [_untimed(text) for _, text in shown.posts] == [_untimed(text) for _, text in bare.posts]
    # A turn's clock starts when its post is out, so a post that went a second later
    # moves every later one by that second: what the table may add is a second a post.
    drift = [a - b for (a, _), (b, _) in zip(shown.posts, bare.posts, strict=True)]
    late = [now - before for before, now in zip([0.0, *drift], drift, strict=False)]
    # Or it waited for a window that the game's own calls filled (the turns, their
    # warnings and buttons, in the order this game's timing gave them), not the table's:
    # the 20 a minute were taken without a single edit of the table.
    for (at, text), lost in zip(shown.posts, late, strict=True):
        if lost > 1.0:
            window = [t for t in shown.others if at - 60.0 < t < at]
            assert len(window) >= 19, (lost, text[:60], len(window))
    print(
        f"\n{lang}: {len(shown.edits)} edits of the table, {len(shown.posts)} posts, "
        f"day {shown.day}, a post at most {max(late):.1f} s later than without the table "
        "(past a second only where the game's own calls filled the window), "
        f"the game {drift[-1]:.0f} s longer"
    )


async def first_speech(table: Table) -> SimMessage:
    """The game dealt and at its first day's first speech: its pinned table message."""
    await table.gather()
    await table.begin()
    pinned = board(table)
    await table.wait_for(lambda s: s.phase is Phase.ROUND_1 and s.day == 1)
    return pinned


async def test_a_restart_goes_on_editing_the_same_table_message(tmp_path: Path) -> None:
    async with open_game(12, seed=14, lang="en", folder=tmp_path) as table:
        pinned = await first_speech(table)
        await table.restart()
        await table.advance()  # the next speaker
        await table.settle()
        state = table.state
        assert state is not None and state.speaker is not None
        assert board(table).message_id == pinned.message_id
        assert f"#{state.speaker} ({state.seats[state.speaker].nick})" in board(table).content
        assert len(table.group.pinned_messages) == 1
        table.sandbox.assert_no_bot_errors()


async def test_the_table_messages_row_keeps_what_its_last_edit_showed(tmp_path: Path) -> None:
    """Each edit of the table message stores its text in the message's own outbox row,
    found by its key, the deal's row included: what a restart reads is what the group
    sees, so an edit that a restart cut off is made again."""
    async with open_game(12, seed=14, lang="en", folder=tmp_path) as table:
        pinned = await first_speech(table)
        await table.advance()
        await table.settle()
        await table.let_room_come()
        edits = board_edits(table, pinned.message_id)
        assert edits, "the table was never edited"
        assert table.game_id is not None
        row = await table.app.service.repos.outbox.latest(table.game_id, "board")
        assert row is not None and row.message_id == pinned.message_id
        assert json.loads(row.payload_json)["text"] == edits[-1]


async def test_a_table_message_lost_in_a_restart_is_posted_and_pinned_anew(
    tmp_path: Path,
) -> None:
    """The stored id is gone (a game dealt before the table kept one): the next change
    posts the table again and pins it, and later edits go to that one."""
    async with open_game(12, seed=14, lang="en", folder=tmp_path) as table:
        await table.gather()
        await table.begin()
        old = board(table)
        await table.app.service.repos.database.execute("DELETE FROM outbox WHERE kind = 'board'")
        await table.restart()
        await table.settle()
        await table.let_room_come()  # the table goes up again in the group's spare room
        new = board(table)
        assert new.message_id != old.message_id and "seating" in new.content
        await table.advance()
        await table.settle()
        await table.restart()
        await table.advance()
        await table.settle()
        state = table.state
        assert state is not None and state.speaker is not None
        assert board(table).message_id == new.message_id
        assert f"#{state.speaker} ({state.seats[state.speaker].nick})" in board(table).content
        table.sandbox.assert_no_bot_errors()
