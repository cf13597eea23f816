"""The ways the sandbox says no.

`ApiError` is what the Bot API itself answers (a 400, 403, 404 or 429 in Telegram's JSON
form); the bot sees it through aiogram's exceptions exactly as it would in production.
`SimulationError` is a mistake in a test's script (a person sending to a group they are
not in, pressing a button that does not exist), raised to the test, never to the bot.
"""

from __future__ import annotations

from typing import Any


class ApiError(Exception):
    """A refusal in the Bot API's own words: `{"ok": false, "error_code": ..., ...}`."""

    def __init__(self, status: int, description: str, *, retry_after: int | None = None):
        super().__init__(description)
        self.status = status
        self.description = description
        self.retry_after = retry_after

    @classmethod
    def bad_request(cls, detail: str) -> ApiError:
        return cls(400, f"Bad Request: {detail}")

    @classmethod
    def forbidden(cls, detail: str) -> ApiError:
        return cls(403, f"Forbidden: {detail}")

    @classmethod
    def not_found(cls) -> ApiError:
        return cls(404, "Not Found")

    @classmethod
    def unauthorized(cls) -> ApiError:
        return cls(401, "Unauthorized")

    @classmethod
    def too_many_requests(cls, retry_after: int) -> ApiError:
        return cls(429, f"Too Many Requests: retry after {retry_after}", retry_after=retry_after)

    def payload(self) -> dict[str, Any]:
        body: dict[str, Any] = {
            "ok": False,
            "error_code": self.status,
            "description": self.description,
        }
        if self.retry_after is not None:
            body["parameters"] = {"retry_after": self.retry_after}
        return body


class SimulationError(Exception):
    """A simulated person was asked to do something they could not do in Telegram."""


class SettleTimeout(TimeoutError):
    """The bot was still busy (or never picked its updates up) when the deadline passed."""
