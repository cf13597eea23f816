"""The final vote's buttons (D6): one vote per living player, final, open."""

from __future__ import annotations

from aiogram import Router
from aiogram.types import CallbackQuery

from bot.rules.actions import PlayerAction, Vote
from bot.rules.state import GameState
from bot.services.game import GameService
from bot.views.callbacks import VoteCb
from bot.views.i18n import Texts
from bot.views.render import named
from handlers.buttons import press


async def vote_button(
    query: CallbackQuery, callback_data: VoteCb, service: GameService, t: Texts, lang: str
) -> None:
    choice = callback_data.target or None  # 0 is the Abstain button

    def build(seat: int, _: GameState) -> PlayerAction:
        return Vote(seat, choice)

    state = await press(query, callback_data.game, callback_data.step, service, t, lang, build)
    if state is None:
        return
    if choice is None:
        await query.answer(t(lang, "vote.abstain_accepted"))
    else:
        who = named(state, choice, t, lang, html=False)
        await query.answer(t(lang, "vote.accepted", choice=who))


def make_router() -> Router:
    router = Router(name="vote")
    router.callback_query.register(vote_button, VoteCb.filter())
    return router
