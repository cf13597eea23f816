"""The bot's update queue with getUpdates semantics: offsets, limits, long polling.

Telegram keeps every update until the bot confirms it by asking for a later offset; a
long poll returns as soon as something arrives; `allowed_updates` changes which kinds are
queued from then on (chat_member and reactions only when asked for); and a second poll
while one is waiting ends the first with 409 Conflict, which is how Telegram reports two
copies of a bot running at once. Tests rely on the same behaviour to know when the bot
has taken everything in (see `Sandbox.settle`).

While a webhook is set (`sandbox.webhook`), getUpdates is refused with 409 Conflict,
as Telegram does, and the updates wait here for delivery instead.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from sandbox.api_errors import ApiError

if TYPE_CHECKING:
    from sandbox.webhook import Webhook

# Kinds Telegram sends only when the bot lists them in allowed_updates.
OPT_IN_KINDS = frozenset({"chat_member", "message_reaction", "message_reaction_count"})


class UpdateQueue:
    def __init__(self) -> None:
        self._pending: list[dict[str, Any]] = []
        self._next_id = 1
        self._allowed: frozenset[str] | None = None
        self._waiters: set[asyncio.Event] = set()
        self._polled: asyncio.Event | None = None
        self._generation = 0
        self._closed = False
        self.webhook: Webhook | None = None
        self._changed: asyncio.Event | None = None

    @property
    def pending(self) -> list[dict[str, Any]]:
        """Updates not yet confirmed by the bot (delivered or not)."""
        return list(self._pending)

    async def wait_polling(self) -> None:
        """Return once a long poll is waiting."""
        await self._polled_event().wait()

    def _polled_event(self) -> asyncio.Event:
        if self._polled is None:
            self._polled = asyncio.Event()
        return self._polled

    def changed(self) -> asyncio.Event:
        """Set whenever an update arrives or the webhook changes (cleared by the waiter)."""
        if self._changed is None:
            self._changed = asyncio.Event()
        return self._changed

    def set_webhook(self, webhook: Webhook | None) -> None:
        self.webhook = webhook
        self._wake()  # a long poll waiting now ends in a conflict

    def set_allowed(self, allowed_updates: list[str] | None) -> None:
        """As getUpdates and setWebhook take it: None keeps, [] restores the default."""
        if allowed_updates is not None:
            self._allowed = frozenset(allowed_updates) if allowed_updates else None

    def allowed(self) -> list[str]:
        if self._allowed is None:
            return []
        return sorted(self._allowed)

    def confirm(self, update_id: int) -> None:
        """One update delivered by webhook and answered 2xx."""
        self._pending = [u for u in self._pending if u["update_id"] != update_id]
        self._wake()

    def wants(self, kind: str) -> bool:
        if self._allowed is None:
            return kind not in OPT_IN_KINDS
        return kind in self._allowed

    def push(self, kind: str, payload: dict[str, Any]) -> int | None:
        """Queue an update unless the bot's allowed_updates excludes its kind."""
        if not self.wants(kind):
            return None
        update_id = self._next_id
        self._next_id += 1
        self._pending.append({"update_id": update_id, kind: payload})
        self._wake()
        return update_id

    def drop_pending(self) -> None:
        self._pending.clear()

    def delay(self, wanted: Callable[[dict[str, Any]], bool]) -> list[tuple[str, dict[str, Any]]]:
        """Take the pending updates `wanted` picks out of the queue, undelivered, as
        (kind, payload): Telegram delivers them later (`push` them again then), as it
        sometimes does with a service message."""
        taken = [update for update in self._pending if wanted(update)]
        self._pending = [update for update in self._pending if not wanted(update)]
        return [
            next((kind, payload) for kind, payload in update.items() if kind != "update_id")
            for update in taken
        ]

    def close(self) -> None:
        """End every waiting poll (with no updates) and answer later ones at once."""
        self._closed = True
        self._wake()

    def _wake(self) -> None:
        for event in self._waiters:
            event.set()
        if self._changed is not None:
            self._changed.set()

    def _confirm(self, offset: int) -> None:
        if offset < 0:
            self._pending = self._pending[offset:]
        elif offset:
            self._pending = [u for u in self._pending if u["update_id"] >= offset]

    async def get_updates(
        self,
        *,
        offset: int,
        limit: int,
        poll_seconds: float,
        allowed_updates: list[str] | None,
    ) -> list[dict[str, Any]]:
        if self.webhook is not None:
            raise ApiError(
                409,
                "Conflict: can't use getUpdates method while webhook is active; "
                "use deleteWebhook to delete the webhook first",
            )
        if not 1 <= limit <= 100:
            limit = 100
        self.set_allowed(allowed_updates)
        self._confirm(offset)
        self._generation += 1
        generation = self._generation
        self._wake()  # a poll still waiting is now a conflicting one
        if self._pending or self._closed or poll_seconds <= 0:
            return self._pending[:limit]
        event = asyncio.Event()
        self._waiters.add(event)
        self._polled_event().set()
        try:
            async with asyncio.timeout(poll_seconds):
                while not (self._pending or self._closed):
                    event.clear()
                    await event.wait()
                    if self.webhook is not None:
                        raise ApiError(409, "Conflict: terminated by setWebhook request")
                    if generation != self._generation:
                        raise ApiError(
                            409,
                            "Conflict: terminated by other getUpdates request; "
                            "make sure that only one bot instance is running",
                        )
        except TimeoutError:
            return []
        finally:
            self._waiters.discard(event)
            if not self._waiters:
                self._polled_event().clear()
        return self._pending[:limit]
