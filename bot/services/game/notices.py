"""What the Host must hear of a game's faults, and who a message could not reach."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from bot.delivery.sender import Sender, Undelivered
from bot.rules.events import CardsDealt, Event
from bot.rules.state import GameState
from bot.services.game.people import People
from bot.services.game.shared import log
from bot.views.i18n import Texts
from bot.views.render import Keyboard, Post, named
from storage.games import Game


@dataclass(eq=False, repr=False)
class Notices:
    people: People
    t: Texts
    sender: Sender

    async def tell_host_of(self, about: Game, key: str, **values: object) -> None:
        """A fault the Host must act on (`tell_host`), in the words of `key`."""
        await self.tell_host(about, lambda lang: self.t(lang, key, **values))

    async def tell_host(
        self,
        about: Game,
        text: Callable[[str], str],
        private_keyboard: Keyboard | None = None,
    ) -> None:
        """What the Host must hear, in their language (`text(lang)`): to them in private
        (with `private_keyboard`, buttons only the Host may press), or in the group if
        they never opened a chat with the bot (or blocked it)."""
        try:
            failed = True
            if await self.people.reachable(about.host_user_id):
                lang = await self.people.user_lang(about.host_user_id)
                post = Post(about.host_user_id, text(lang), private_keyboard, essential=True)
                delivery = await self.sender.deliver(about.game_id, [post])
                failed = bool(delivery.failed)
            if failed:
                lang = await self.people.chat_lang(about.chat_id)
                await self.sender.deliver(about.game_id, [Post(about.chat_id, text(lang))])
        except Exception:  # telling is all that is left to do: it must not fail its caller
            log.exception("game %s: could not tell the Host", about.game_id)

    async def report_undelivered(
        self, game: Game, state: GameState, failed: Sequence[Undelivered], events: Sequence[Event]
    ) -> None:
        if not failed:
            return
        # Only the deal writes to every player. Every later private message (a night
        # keyboard, a check, a partner's pick) goes to the Commissioner or the mafia, so
        # naming who missed one would show their roles: the group never hears of those,
        # only the Host does, and not even the Host if they hold a seat.
        public = any(isinstance(e, CardsDealt) for e in events)
        if not public and state.seat_of(game.host_user_id) is not None:
            return
        to = game.chat_id if public else game.host_user_id
        lang = await (self.people.chat_lang(to) if public else self.people.user_lang(to))
        names = []
        for f in failed:
            seat = state.seat_of(f.chat_id)
            names.append(named(state, seat, self.t, lang) if seat else str(f.chat_id))
        text = self.t(lang, "host.undelivered", players=self.t.listing(lang, sorted(set(names))))
        await self.sender.deliver(game.game_id, [Post(to, text)])
