"""What every game button shares: the game, the step it was made for, the presser's seat."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable

from aiogram.types import CallbackQuery

from bot import timings
from bot.rules.actions import PlayerAction
from bot.rules.errors import RuleError
from bot.rules.state import GameState
from bot.services.game import GameService
from bot.views.i18n import Texts


async def press(
    query: CallbackQuery,
    game_id: int,
    step: int,
    service: GameService,
    t: Texts,
    lang: str,
    build: Callable[[int, GameState], PlayerAction],
) -> GameState | None:
    """Apply the button's action for the presser's seat; answer with an alert if refused.

    The step is compared here with the state as last known, and again by the engine with
    the state the action meets. Returns the state after the action, or None when it was
    refused (and answered).
    """
    with timings.phase("state"):
        state = await service.state(game_id)
    refusal: str | None = None
    seat = state.seat_of(query.from_user.id) if state is not None else None
    if state is None or state.finished:
        refusal = "error.game_finished"
    elif step != state.step:
        refusal = "error.stale"  # a button left from an earlier turn or phase
    elif seat is None:
        refusal = "error.not_a_player"
    if refusal is not None or state is None or seat is None:
        await query.answer(t(lang, refusal or "error.rule"), show_alert=True)
        return None
    # The action carries its step: the engine refuses it, inside the game's lock, if the
    # step moved on while this press waited for the lock (issue 21).
    action = dataclasses.replace(build(seat, state), step=step)
    try:
        new_state, _ = await service.act(game_id, action)
    except RuleError as error:
        await query.answer(t(lang, f"error.{error.code}"), show_alert=True)
        return None
    return new_state
