"""The record of every call the bot made, so a test can check what it did and when.

Tests read it to count messages per chat per minute, to find what the bot sent where,
and above all to fail on any request the bot got wrong: a 400 is a bug in the bot even
when the bot swallows the exception.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

# Calls that put a new message into a chat; the flood limits count these.
SENDING_METHODS = frozenset(
    {
        "sendMessage", "forwardMessage", "copyMessage", "sendPhoto", "sendDocument",
        "sendVoice", "sendVideo", "sendVideoNote", "sendAudio", "sendAnimation", "sendSticker",
    }
)  # fmt: skip


@dataclass(frozen=True)
class CallRecord:
    """One Bot API request: what was asked, when (sandbox clock), and the answer."""

    seq: int
    time: float
    method: str
    params: dict[str, Any]
    chat_id: int | None
    status: int
    description: str | None = None
    result: Any = None
    injected: bool = False

    @property
    def ok(self) -> bool:
        return self.status == 200

    @property
    def is_bot_error(self) -> bool:
        """A refusal caused by the request itself.

        403 (a person blocked the bot or never pressed Start) is a fact of life the bot
        must handle, not a malformed request; a 429 the sandbox injected on purpose is
        not the bot's doing either. Everything else that failed is.
        """
        return not self.ok and self.status != 403 and not self.injected

    def __str__(self) -> str:
        outcome = "ok" if self.ok else f"{self.status} {self.description}"
        return f"#{self.seq} {self.method} chat={self.chat_id}: {outcome}"
