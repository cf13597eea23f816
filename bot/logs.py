"""The bot's log: one line per event that matters, as plain text or as JSON.

A line about a game carries its ids twice: in the words ("game 12 in chat -100…") for
someone reading the text, and as the record's `game_id` and `chat_id` for a collector
reading JSON. No line names a role or a seed before the game is over
(`tests/middle/test_authorization.py` plays a game and reads every line).
"""

from __future__ import annotations

import json
import logging
import sys
from datetime import UTC, datetime
from typing import Literal, TextIO

TEXT_FORMAT = "%(asctime)s %(levelname)s %(name)s: %(message)s"
# What a line about a game or a chat carries besides its message (`extra=`).
FIELDS = ("game_id", "chat_id", "user_id", "update_id")


class JsonLines(logging.Formatter):
    """One JSON object a line: time (UTC, ISO 8601), level, logger, message, the ids."""

    def format(self, record: logging.LogRecord) -> str:
        line: dict[str, object] = {
            "time": datetime.fromtimestamp(record.created, UTC).isoformat(timespec="milliseconds"),
            "level": record.levelname,
            "logger": record.name,
            "message": record.getMessage(),
        }
        for name in FIELDS:
            value = getattr(record, name, None)
            if value is not None:
                line[name] = value
        if record.exc_info:
            line["error"] = self.formatException(record.exc_info)
        return json.dumps(line, ensure_ascii=False, default=str)


def setup_logging(
    form: Literal["text", "json"] = "text", stream: TextIO | None = None
) -> logging.Handler:
    """Send INFO and up to `stream` (stderr), in the form the config asks for."""
    handler = logging.StreamHandler(stream or sys.stderr)
    handler.setFormatter(JsonLines() if form == "json" else logging.Formatter(TEXT_FORMAT))
    root = logging.getLogger()
    for old in list(root.handlers):
        root.removeHandler(old)
    root.addHandler(handler)
    root.setLevel(logging.INFO)
    return handler


def about_game(game_id: int, chat_id: int) -> dict[str, object]:
    """`extra=` for a line about a game."""
    return {"game_id": game_id, "chat_id": chat_id}
