"""The log: one line per event that matters, with the game's and the chat's ids (issue 13).

Plain text by default, one JSON object a line with `[bot] log_format = "json"`. What the
log must never hold before the end (a role, the seed, the token) is checked over a whole
game in test_authorization.py::test_roles_and_the_seed_stay_secret_until_the_end.
"""

from __future__ import annotations

import io
import json
import logging
import random

import pytest

from bot.cli.demo import Crowd, play
from bot.logs import JsonLines, setup_logging
from tests.middle.games import open_game


async def test_a_game_logs_its_start_the_hosts_actions_and_its_end(
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.INFO, "bot.services.game")
    async with open_game(7, seed=3, lang="en", rate_limits=True) as table:
        await table.gather()
        await table.begin()
        state = table.state
        assert state is not None
        for command in ("/pause", "/resume", "/extend 15"):
            await table.host.send(table.group, command)
            await table.settle()
        end = await play(table, Crowd(table, random.Random(3), "en"))
        table.sandbox.assert_no_bot_errors()
    game, chat = state.game_id, table.group.id
    ours = [r for r in caplog.records if getattr(r, "game_id", None) == game]
    lines = [r.getMessage() for r in ours]
    prefix = f"game {game} in chat {chat}: "
    assert all(line.startswith(prefix) for line in lines), lines
    said = [line.removeprefix(prefix) for line in lines]
    assert said[0].startswith("lobby opened by user ")
    assert "started, 7 players" in said
    assert said.index("the Host's pause") < said.index("the Host's resume")
    assert "the Host's extend by 15 s" in said
    assert end.winner is not None
    assert said[-1] == f"finished, {end.winner.value} won"
    assert all(r.chat_id == chat for r in ours)  # type: ignore[attr-defined]

    # The same lines as JSON: one object a line, the ids as fields of their own.
    form = JsonLines()
    objects = [json.loads(form.format(r)) for r in ours]
    assert all("\n" not in form.format(r) for r in ours)
    assert objects[1]["game_id"] == game and objects[1]["chat_id"] == chat
    assert {o["logger"] for o in objects} == {"bot.services.game"}
    assert {o["level"] for o in objects} == {"INFO"}


def test_the_log_format_setting_chooses_text_or_json() -> None:
    root = logging.getLogger()
    handlers, level = root.handlers[:], root.level
    try:
        for form in ("text", "json"):
            stream = io.StringIO()
            setup_logging(form, stream)
            try:
                raise RuntimeError("disk full")
            except RuntimeError:
                logging.getLogger("bot.services.game").exception(
                    "game 4 in chat -1001: the commit failed",
                    extra={"game_id": 4, "chat_id": -1001},
                )
            out = stream.getvalue()
            if form == "text":
                assert "ERROR bot.services.game: game 4 in chat -1001: the commit failed" in out
                assert "Traceback" in out and "disk full" in out
            else:
                (line,) = out.splitlines()  # the traceback inside the one line
                record = json.loads(line)
                assert record["level"] == "ERROR" and record["game_id"] == 4
                assert record["chat_id"] == -1001 and "disk full" in record["error"]
    finally:
        root.handlers[:] = handlers
        root.setLevel(level)
