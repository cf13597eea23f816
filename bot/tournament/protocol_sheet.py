"""T3: the result sheet as a tournament protocol, drawn from the game's protocol.

One pure function, `protocol_sheet`, turns the protocol's entries (the truth) and what
only the tournament knows (its name, the tour and table, the Host, the signature, the
Judge's corrections) into the sheet's data; `bot.views.sheet` renders it as a message
and as a printable document, so both always say the same.

Who left when: the protocol's `DayStarted`/`NightStarted` mark the phase, so a
`PlayerLeft` is stamped with the day or night it happened in (a night kill is
announced in the morning, but it is the night's: "Н3 убит"). A removal carries the
sanction that caused it (its V code and penalty). A casual game has no tournament,
tour, table or points: those fields are None and the sheet says so.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace

from bot.rules.events import (
    Cause,
    DayStarted,
    GameOver,
    GameStarted,
    HostChanged,
    NightStarted,
    PlayerLeft,
    SanctionGiven,
)
from bot.rules.protocol import Entry, replay
from bot.rules.roles import Role, Side
from bot.rules.sanctions import Penalty, VCode
from bot.rules.sheet import SheetRow, sheet
from bot.tournament.scoring import Scheme, Scoring, game_points, win_tenths


@dataclass(frozen=True)
class Departure:
    """How and when a seat left: `phase` "day" or "night" and its number (None: before
    the first day, which only a removal can be)."""

    cause: Cause
    phase: str | None
    number: int | None
    code: VCode | None = None  # the violation behind a removal
    penalty: Penalty | None = None


@dataclass(frozen=True)
class ProtocolRow:
    seat: int
    user_id: int
    nick: str
    role: Role
    side: Side
    left: Departure | None  # None: at the table to the end
    warnings: int
    won: bool
    earns_point: bool
    tenths: int | None  # None: a casual game keeps no points


@dataclass(frozen=True)
class Correction:
    """A Judge's change to the signed sheet (T3): what changed, why, when."""

    change: Mapping[str, object]
    reason: str
    at: float


@dataclass(frozen=True)
class ProtocolSheet:
    game_id: int
    tournament: str | None  # None: a casual game
    tour: int | None
    table: str | None  # the group's code, T1R2G3
    host: str
    started_at: float
    ended_at: float | None  # None: not over (no sheet is shown before the end)
    winner: Side | None  # after the Judge's corrections
    rows: tuple[ProtocolRow, ...]
    signed_by: str | None
    signed_at: float | None
    corrections: tuple[Correction, ...]
    per_win: int | None  # T4: tenths a winner earns here (x coefficient applied); casual: None
    absent: tuple[str, ...] = ()  # T1: the table's roster players who did not come


def hosts_of(entries: Iterable[Entry], host_now: int) -> list[int]:
    """Everyone who ran the game, in order (T3): the Host who dealt, then each one it was
    handed to (`HostChanged`); with no hand-over, the one Host it has now."""
    handed = [e.event for e in entries if isinstance(e.event, HostChanged)]
    if not handed:
        return [host_now]
    return [handed[0].previous, *(change.host for change in handed)]


def departures(entries: Iterable[Entry]) -> dict[int, Departure]:
    """Every seat that left, with the day or night it left in and the sanction behind it."""
    phase: str | None = None
    number: int | None = None
    removal: dict[int, tuple[VCode | None, Penalty]] = {}
    out: dict[int, Departure] = {}
    for entry in entries:
        match entry.event:
            case DayStarted(day=day):
                phase, number = "day", day
            case NightStarted(night=night):
                phase, number = "night", night
            case SanctionGiven(seat=seat, code=code, penalty=penalty):
                removal[seat] = (code, penalty)
            case PlayerLeft(seat=seat, cause=cause):
                why: tuple[VCode | None, Penalty | None] = (None, None)
                if cause in (Cause.REMOVAL, Cause.DISQUALIFICATION) and seat in removal:
                    why = removal[seat]
                out[seat] = Departure(cause, phase, number, *why)
    return out


def scheme_change(scheme: Scheme) -> dict[str, object]:
    """The Judge's rescore of a signed sheet under `scheme` (T3, T4), as a correction."""
    return {"field": "scheme", **scheme.to_json()}


def _from_sides(rows: Sequence[SheetRow], side: Side) -> list[SheetRow]:
    # T4: the winning side earns its point, except those a sanction took out of the game.
    return [
        replace(
            r,
            won=r.side is side,
            earns_point=r.side is side and not any(p != "warning" for p in r.penalties),
        )
        for r in rows
    ]


def corrected(
    rows: Sequence[SheetRow], corrections: Iterable[Correction], scheme: Scheme | None = None
) -> tuple[list[SheetRow], Scheme | None]:
    """The sheet after the Judge's corrections, composed in the order made (T3).

    A winner correction re-derives every seat's point from the sides; a seat's point
    correction then stands over it, whether made before or after (a later seat
    correction of the same seat replaces the earlier). A scheme correction rescores
    the sheet (the latest one counts). So the points always follow from the history.
    """
    winner: Side | None = None
    points: dict[int, bool] = {}
    for correction in corrections:
        change = correction.change
        if change.get("field") == "winner":
            winner = Side(str(change["value"]))
        elif change.get("field") == "scheme":
            scheme = Scheme.from_json(change)
        else:
            points[int(str(change.get("seat", 0)))] = bool(change.get("value"))
    result = list(rows) if winner is None else _from_sides(rows, winner)
    result = [replace(r, earns_point=points[r.seat]) if r.seat in points else r for r in result]
    return result, scheme


def corrected_rows(rows: Sequence[SheetRow], corrections: Iterable[Correction]) -> list[SheetRow]:
    return corrected(rows, corrections)[0]


def protocol_sheet(
    entries: Sequence[Entry],
    *,
    host: str,
    settings: Scoring | None = None,
    tournament: str | None = None,
    tour: int | None = None,
    table: str | None = None,
    signed_by: str | None = None,
    signed_at: float | None = None,
    corrections: Sequence[Correction] = (),
    absent: Sequence[str] = (),
) -> ProtocolSheet:
    """The sheet of a game from its protocol; `settings` None: a casual game (no points).

    `settings` is the scheme the game was played under; a scheme correction replaces it.
    """
    if not entries or not isinstance(entries[0].event, GameStarted):
        raise ValueError("a protocol starts with GameStarted")
    state = replay(entries)
    played = None if settings is None else Scheme.of(settings)
    rows, scheme = corrected(sheet(state), corrections, played)
    left = departures(entries)
    ended = next((e.at for e in entries if isinstance(e.event, GameOver)), None)
    points = game_points(rows, scheme) if scheme is not None else None
    winner = next((r.side for r in rows if r.won), None)  # after the Judge's corrections
    return ProtocolSheet(
        game_id=state.game_id,
        tournament=tournament,
        tour=tour,
        table=table,
        host=host,
        started_at=entries[0].at,
        ended_at=ended,
        winner=winner,
        rows=tuple(
            ProtocolRow(
                seat=r.seat,
                user_id=r.user_id,
                nick=r.nick,
                role=r.role,
                side=r.side,
                left=left.get(r.seat),
                warnings=sum(1 for p in r.penalties if p is Penalty.WARNING),
                won=r.won,
                earns_point=r.earns_point,
                tenths=None if points is None else points[r.user_id],
            )
            for r in rows
        ),
        signed_by=signed_by,
        signed_at=signed_at,
        corrections=tuple(corrections),
        per_win=None if scheme is None else win_tenths(len(rows), scheme),
        absent=tuple(absent),
    )
