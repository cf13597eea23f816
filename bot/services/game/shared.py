"""What every part of the game service shares: its log, its timers' and outbox's kinds,
and the failure an action's caller must tell apart from a refusal."""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from contextvars import ContextVar

import orjson

from bot.logs import about_game
from bot.rules.actions import Extend, HandOver, HostAction, Pause, Resume, Sanction, Skip, Stop
from bot.rules.state import GameState
from storage.games import Game

# One logger for the whole game service: a game's lines read as one story.
log = logging.getLogger("bot.services.game")

# The Telegram update being handled, so that marking it handled joins the action's
# transaction (set by the dispatcher's middleware; None for timers).
CURRENT_UPDATE: ContextVar[int | None] = ContextVar("current_update", default=None)

# Writes that join an action's transaction (`Actions.act`), given the new state.
Also = Callable[[GameState], Awaitable[None]]

TURN, WARN = "turn", "warn"  # the two timers a game can have (job ids `turn:<game>`)
# A casual lobby's timer (`lobby:<game>`): with no activity for a while it closes, so
# that a lobby nobody begins does not hold its chat (issue 25).
LOBBY = "lobby"
LOBBY_IDLE_SECONDS = 30 * 60.0

# Kinds of outbox messages: a post the game depends on, and the group post announcing
# step N ("turn:N"), kept so that a restart can tell whether the group ever heard of the
# turn it finds running.
OUTBOX_POST, OUTBOX_TURN = "post", "turn:"
# The pinned table message (`bot.views.board`): its id is what a restart needs to go on editing it.
OUTBOX_BOARD = "board"


class NotRecorded(Exception):
    """The action's transaction failed: nothing of it was stored, nobody was told of it.

    The person is answered "not recorded, try again", never as if it had been accepted.
    """


def log_game(game: Game, what: str, *args: object, level: int = logging.INFO) -> None:
    """One log line per event of a game that matters: lobby, start, a Host action, end.

    Never a role, a seat's card or the seed: the log is read by people who may play.
    """
    log.log(
        level,
        "game %s in chat %s: " + what,
        game.game_id,
        game.chat_id,
        *args,
        extra=about_game(game.game_id, game.chat_id),
    )


def host_action(action: HostAction) -> str:
    """The Host's action as the log names it; everything in it was said in the group."""
    match action:
        case Pause():
            return "pause"
        case Resume():
            return "resume"
        case Skip():
            return "skip"
        case Extend(seconds=seconds):
            return f"extend by {seconds:g} s"
        case Sanction(seat=seat, penalty=penalty, code=code):
            return f"{penalty.value} of seat {seat}" + (f" ({code.value})" if code else "")
        case Stop():
            return "stop"
        case HandOver(host=host):
            return f"hand-over to user {host}"


def dumps(value: object) -> str:
    """JSON for what every action stores (its events, the state): orjson's, for speed."""
    return orjson.dumps(value, option=orjson.OPT_NON_STR_KEYS).decode()
