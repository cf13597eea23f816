"""A player's V record over the whole tournament, for `bot.rules.sanctions.penalty_for`.

Interpretation (RULES V): a repeat counts over the whole tournament, except V5 and
V7's warnings, which `penalty_for` counts within the game given to it. So the record
passed to it holds the player's offences from every game of the tournament, the
running one included (its earlier sanctions matter for V5 and V7). Sanctions given
without a V code (a plain `/remove`) are on the sheet but count for no ladder.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from bot.rules.sanctions import Offence, Penalty, VCode, disqualifies, penalty_for
from bot.rules.state import SanctionRecord


@dataclass(frozen=True)
class TournamentOffence:
    """One sanction in one game of the tournament, by player rather than seat."""

    user_id: int
    game_id: int
    code: VCode | None  # None: a sanction without a V code
    penalty: Penalty


def offences_in_game(
    game_id: int, seats: Mapping[int, int], sanctions: Iterable[SanctionRecord]
) -> list[TournamentOffence]:
    """A game's sanctions (`GameState.sanctions`) with seats turned into users (seat -> user)."""
    return [TournamentOffence(seats[s.seat], game_id, s.code, s.penalty) for s in sanctions]


def record_of(user_id: int, offences: Iterable[TournamentOffence]) -> list[Offence]:
    """The player's record over the tournament, by game id (in given order within a game)."""
    mine = sorted((o for o in offences if o.user_id == user_id), key=lambda o: o.game_id)
    return [Offence(o.code, o.game_id, o.penalty) for o in mine if o.code is not None]


def tournament_penalty(
    user_id: int, code: VCode, game_id: int, offences: Iterable[TournamentOffence]
) -> Penalty:
    """The sanction the bot proposes for a new violation `code` in game `game_id` (V)."""
    return penalty_for(code, record_of(user_id, offences), game_id)


def disqualified_users(offences: Iterable[TournamentOffence]) -> frozenset[int]:
    """Players whose tournament a sanction ended (not placed, T5): disqualification,
    removal from the tournament (V6) or a ban (V4)."""
    return frozenset(o.user_id for o in offences if disqualifies(o.penalty))
