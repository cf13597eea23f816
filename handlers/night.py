"""The night in private: the Commissioner's check, the mafia's picks and their relay (N1-N3)."""

from __future__ import annotations

from aiogram import F, Router
from aiogram.types import CallbackQuery, Message

from bot.rules.actions import Check, Kill, PlayerAction
from bot.rules.events import Phase
from bot.rules.roles import Role
from bot.rules.state import GameState
from bot.services.game import GameService
from bot.views.callbacks import NightCb
from bot.views.i18n import Texts, escape
from bot.views.render import Post, named
from handlers.buttons import press
from handlers.filters import IN_PRIVATE, Is
from handlers.guard import is_speech, not_a_command


async def night_button(
    query: CallbackQuery, callback_data: NightCb, service: GameService, t: Texts, lang: str
) -> None:
    target = callback_data.target

    def build(seat: int, state: GameState) -> PlayerAction:
        if state.roles[seat] is Role.COMMISSIONER:
            return Check(seat, target)
        return Kill(seat, target)  # the core refuses anyone who is not a living mafioso

    before = await service.state(callback_data.game)
    state = await press(query, callback_data.game, callback_data.step, service, t, lang, build)
    if state is None or before is None:
        return
    seat = before.seat_of(query.from_user.id)
    key = (
        "night.check.accepted"
        if seat and before.roles[seat] is Role.COMMISSIONER
        else ("night.kill.accepted")
    )
    # A callback answer is plain text: the nick goes in as it is, not escaped for HTML.
    who = named(state, target, t, lang, html=False)
    await query.answer(t(lang, key, player=who, target=who))


async def relay(message: Message, service: GameService, t: Texts, lang: str) -> None:
    """N1, N3: what a living mafioso writes to the bot at night goes to the other mafiosi."""
    assert message.from_user is not None and message.text is not None
    for game, state in await service.games_of_user(message.from_user.id):
        seat = state.seat_of(message.from_user.id)
        if seat is None or not state.is_alive(seat) or state.roles[seat] is not Role.MAFIA:
            continue
        if state.phase not in (Phase.ACQUAINTANCE, Phase.NIGHT) or state.paused:
            await message.answer(t(lang, "night.relay.closed"))
            return
        posts = []
        for partner in state.living_mafia():
            if partner == seat:
                continue
            user_id = state.seats[partner].user_id
            partner_lang = await service.user_lang(user_id)
            # Whole, however long: with its prefix a text may pass Telegram's limit, and
            # then goes out as two messages (bot.delivery.longtext).
            said = escape(message.text)
            by = named(state, seat, t, partner_lang)
            text = t(partner_lang, "night.relay", by=by, text=said)
            posts.append(Post(user_id, text, protect=True))
        await service.sender.deliver(game.game_id, posts)
        return
    await message.answer(t(lang, "common.private_hint"))


async def not_relayed(message: Message, service: GameService, t: Texts, lang: str) -> None:
    """N1, N3: the relay passes text only. A photo, a voice note or anything else a
    living mafioso sends at night reaches nobody (a partner's screen shows what the bot
    says, protected, and a night's talk is words): they are told so, and to write."""
    assert message.from_user is not None
    for _game, state in await service.games_of_user(message.from_user.id):
        seat = state.seat_of(message.from_user.id)
        if seat is None or not state.is_alive(seat) or state.roles[seat] is not Role.MAFIA:
            continue
        if state.phase not in (Phase.ACQUAINTANCE, Phase.NIGHT) or state.paused:
            await message.answer(t(lang, "night.relay.closed"))
        else:
            await message.answer(t(lang, "night.relay.text_only"))
        return
    await message.answer(t(lang, "common.private_hint"))


def make_router() -> Router:
    router = Router(name="night")
    router.callback_query.register(night_button, NightCb.filter())
    router.message.register(relay, IN_PRIVATE, Is(F.text), Is(~F.text.startswith("/")))
    router.message.register(not_relayed, IN_PRIVATE, Is(~F.text), is_speech, not_a_command)
    return router
