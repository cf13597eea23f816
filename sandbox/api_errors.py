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

    def __init__(
        self,
        status: int,
        description: str,
        *,
        retry_after: int | None = None,
        migrate_to_chat_id: int | None = None,
    ):
        super().__init__(description)
        self.status = status
        self.description = description
        self.retry_after = retry_after
        self.migrate_to_chat_id = migrate_to_chat_id

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

    @classmethod
    def migrated(cls, new_chat_id: int) -> ApiError:
        """A request to a group that became a supergroup: Telegram names the new id in
        ResponseParameters."""
        return cls(
            400,
            "Bad Request: group chat was upgraded to a supergroup chat",
            migrate_to_chat_id=new_chat_id,
        )

    def payload(self) -> dict[str, Any]:
        body: dict[str, Any] = {
            "ok": False,
            "error_code": self.status,
            "description": self.description,
        }
        parameters: dict[str, int] = {}
        if self.retry_after is not None:
            parameters["retry_after"] = self.retry_after
        if self.migrate_to_chat_id is not None:
            parameters["migrate_to_chat_id"] = self.migrate_to_chat_id
        if parameters:
            body["parameters"] = parameters
        return body


class SimulationError(Exception):
    """A simulated person was asked to do something they could not do in Telegram."""


class SettleTimeout(TimeoutError):
    """The bot was still busy (or never picked its updates up) when the deadline passed."""
