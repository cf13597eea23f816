"""The table message: one pinned message per game, edited as the game goes.

Every seat with its number and nick, in the game or how and when it left, the warnings
it has, who speaks now and who is next, the day's nominations. A pure function of the
state, like `render`; the sender keeps the pinned message showing its latest text.

Nothing hidden is on it while the game runs: roles only once the game is over (the
protocol is public then), never a night's check or kill picks.
"""

from __future__ import annotations

from bot.rules.events import Cause, Phase
from bot.rules.sanctions import Penalty
from bot.rules.state import GameState, SanctionRecord, SeatState
from bot.views.i18n import Texts, escape
from bot.views.keys import BOARD

__all__ = ["BOARD", "board_text"]


_NIGHTS = (Phase.NIGHT, Phase.ACQUAINTANCE)
_SPEECH_PHASES = (
    Phase.INTRODUCTION,
    Phase.ROUND_1,
    Phase.ROUND_2,
    Phase.DEFENCE,
    Phase.LAST_WORDS,
)


def board_text(state: GameState, lang: str, t: Texts) -> str:
    """The table as the group reads it now."""
    blocks = ["\n".join(_now(state, lang, t))]
    blocks.append("\n".join(_seat_line(state, seat, lang, t) for seat in state.seats.values()))
    nominated = _nominations(state, lang, t)
    if nominated:
        blocks.append(nominated)
    body = "\n\n".join(b for b in blocks if b)
    return t(lang, "game.seating", game=state.game_id, seats=body, commitment=state.commitment)


def _numbered(state: GameState, seat: int, lang: str, t: Texts) -> str:
    return t(lang, "vote.seat", seat=seat, nick=escape(state.seats[seat].nick))


def _now(state: GameState, lang: str, t: Texts) -> list[str]:
    """Where the game stands: the phase, the speaker and the next one."""
    if state.phase is Phase.OVER:
        return [t(lang, f"board.over.{state.winner.value if state.winner else 'none'}")]
    if state.phase is Phase.ABORTED:
        return [t(lang, "board.aborted")]
    if state.phase is Phase.SETUP:
        return []
    if state.phase in _NIGHTS:
        lines = [t(lang, "board.night", night=state.day)]
    else:
        phase = t(lang, f"phase.{state.phase.value}")
        # The last word after a night opens the next day (its number comes with it).
        day = state.day + 1 if _morning(state) else state.day
        lines = [t(lang, "board.day", day=day, phase=phase)]
    if state.paused:
        lines[0] += " " + t(lang, "board.paused")
    if state.phase in _SPEECH_PHASES and state.speaker is not None:
        speaker = _numbered(state, state.speaker, lang, t)
        if state.queue:
            following = _numbered(state, state.queue[0], lang, t)
            lines.append(t(lang, "board.speaker_next", speaker=speaker, next=following))
        else:
            lines.append(t(lang, "board.speaker", speaker=speaker))
    return lines


def _seat_line(state: GameState, seat: SeatState, lang: str, t: Texts) -> str:
    nick = escape(seat.nick)
    if seat.alive:
        line = t(lang, "board.seat_in", seat=seat.seat, nick=nick)
    else:
        how = _departure(state, seat, lang, t)
        line = t(lang, "board.seat_out", seat=seat.seat, nick=nick, how=how)
    records = [r for r in state.sanctions if r.seat == seat.seat]
    warnings = [r for r in records if r.penalty is Penalty.WARNING]
    if warnings:
        what = _violations(warnings, lang, t)
        key = "board.warnings_named" if what else "board.warnings"
        line += " " + t(lang, key, count=len(warnings), what=what)
    if state.phase is Phase.OVER and seat.seat in state.roles:
        line = t(
            lang, "board.role", line=line, role=t(lang, f"role.{state.roles[seat.seat].value}")
        )
    return line


def _departure(state: GameState, seat: SeatState, lang: str, t: Texts) -> str:
    """How and when a seat left: "Д2, голосование", "Н3, отстрел", "Д4, удаление (грубость)"."""
    cause = seat.left or Cause.REMOVAL
    how = t(lang, f"board.cause.{cause.value}")
    if cause in (Cause.REMOVAL, Cause.DISQUALIFICATION):
        sanctions = [
            r for r in state.sanctions if r.seat == seat.seat and r.penalty is not Penalty.WARNING
        ]
        what = _violations(sanctions[-1:], lang, t)
        if what:
            how = t(lang, "board.for", how=how, what=what)
    if seat.left_day is None:  # a state stored before the table kept the day
        return how
    key = "board.night_short" if seat.left_at_night else "board.day_short"
    return t(lang, "board.when", when=t(lang, key, n=seat.left_day), how=how)


def _violations(records: list[SanctionRecord], lang: str, t: Texts) -> str:
    """The violations in words, each once, in the order they were given."""
    codes = list(dict.fromkeys(r.code for r in records if r.code is not None))
    return ", ".join(t(lang, f"violation.{code.value}") for code in codes)


def _nominations(state: GameState, lang: str, t: Texts) -> str:
    """D3-D4: the day's nominees in the order they were put up; in the vote, its leaders."""
    if state.phase in _NIGHTS or state.finished or state.phase is Phase.SETUP:
        return ""
    if _morning(state):
        return ""  # the last word after a night: yesterday's nominations are over
    nominees = list(dict.fromkeys(state.nominations.values()))
    if not nominees:
        return ""
    named = ", ".join(_numbered(state, s, lang, t) for s in nominees)
    return t(lang, "board.nominated", nominees=named)


def _morning(state: GameState) -> bool:
    """The last word of the night's victim: the morning before the next day's speeches."""
    return state.phase is Phase.LAST_WORDS and state.last_words_then is Phase.ROUND_1
