"""The game service in parts; `GameService` is the door handlers use."""

from bot.services.game.lobby import BeginOutcome, JoinOutcome, Seating
from bot.services.game.resume import Resumed
from bot.services.game.service import GameService
from bot.services.game.shared import CURRENT_UPDATE, NotRecorded, log_game

__all__ = [
    "CURRENT_UPDATE",
    "BeginOutcome",
    "GameService",
    "JoinOutcome",
    "NotRecorded",
    "Resumed",
    "Seating",
    "log_game",
]
