"""`python -m bot verify`: every draw of a game recomputed from its revealed seed (S3).

Two ways in. `verify --protocol FILE.json` reads the protocol the Judge downloads with
/protocol once the game is over, recomputes the seating, the deal, each day's first
speaker and each lot from the seed and the living seats of the moment, and says for
each whether the game did the same. `verify SEED PLAYER...` needs no protocol: it prints
the seating, the deal and Day 0's first speaker, and with `--day K:SEATS` the first
speaker and the lot of day K among the seats the player saw alive.

docs/fairness.md states the algorithm; this tool is a convenience, not the proof.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TextIO

from bot.rules import draws
from bot.rules.events import (
    CardsDealt,
    DayStarted,
    GameStarted,
    LotDrawn,
    Player,
    SeatsDrawn,
)
from bot.rules.protocol import Entry, entry_from_json
from bot.rules.roles import Role, role_deck
from bot.rules.settings import GameSettings
from bot.rules.state import evolve, initial_state
from bot.views.i18n import Texts

# Exit codes: everything matches; a draw differs from the game; the input is unusable.
OK, DIFFERS, UNUSABLE = 0, 1, 2

_PLAYER = re.compile(r"^(\d+):(.+)$")
_DAY = re.compile(r"^(\d+):(\d+(?:,\d+)*)$")


def seating(seed: str, players: Sequence[Player]) -> list[Player]:
    """S1: the players in increasing order of Telegram id, shuffled; index i is seat i + 1."""
    return draws.shuffled(seed, "seats", sorted(players, key=lambda p: p.user_id))


def deal(seed: str, players: int, mafiosi: int) -> list[Role]:
    """S3: the deck (Commissioner, the mafiosi, the civilians) shuffled; card i to seat i + 1."""
    return draws.shuffled(seed, "deal", role_deck(players, mafiosi))


def first_speaker(seed: str, day: int, living: Sequence[int]) -> int:
    """D2: drawn among the living seats in increasing order."""
    return draws.draw(seed, f"day:{day}:first", sorted(living))


def lot(seed: str, day: int, living: Sequence[int]) -> int:
    """D8: drawn among the living seats in increasing order."""
    return draws.draw(seed, f"day:{day}:lot", sorted(living))


class _Report:
    """Writes the lines and counts what matched."""

    def __init__(self, out: TextIO, texts: Texts, lang: str) -> None:
        self.out, self.t, self.lang = out, texts, lang
        self.checked = self.differ = 0

    def line(self, key: str, **values: object) -> None:
        print(self.t(self.lang, key, **values), file=self.out)

    def outcome(self, expected: object, happened: object, shown: object = None) -> str:
        """The mark after a recomputed draw: it matches the game or it does not (and then
        what the game had, as `shown` if given)."""
        self.checked += 1
        if expected == happened:
            return self.t(self.lang, "verify.matches")
        self.differ += 1
        return self.t(self.lang, "verify.differs", happened=happened if shown is None else shown)

    def role(self, role: Role) -> str:
        return self.t(self.lang, f"role.{role.value}")


def _seats_text(seats: Sequence[int]) -> str:
    return ", ".join(str(s) for s in sorted(seats))


def verify_protocol(path: Path, out: TextIO, texts: Texts, lang: str) -> int:
    """Recompute every draw of the game in `path` and compare it with what happened."""
    report = _Report(out, texts, lang)
    try:
        data: Any = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        report.line("verify.bad_file", path=path, error=exc)
        return UNUSABLE
    if not isinstance(data, list) or not data or not isinstance(data[0], dict):
        report.line("verify.not_protocol", path=path)
        return UNUSABLE
    if data[0].get("type") != "GameStarted":
        report.line("verify.not_protocol", path=path)
        return UNUSABLE
    if "seed" not in data[0]:
        report.line("verify.no_seed")
        return UNUSABLE
    try:
        entries = [entry_from_json(item) for item in data]
    except (KeyError, TypeError, ValueError) as exc:
        report.line("verify.bad_file", path=path, error=exc)
        return UNUSABLE
    started = entries[0].event
    assert isinstance(started, GameStarted)
    seed = started.seed
    report.line("verify.game", game=started.game_id, players=len(started.players), seed=seed)
    computed = hashlib.sha256(seed.encode("utf-8")).hexdigest()
    report.line(
        "verify.commitment",
        commitment=computed,
        mark=report.outcome(computed, started.commitment),
    )
    try:
        dealt = _walk(report, started, entries[1:])
    except (KeyError, ValueError, AssertionError):
        dealt = False
    if not dealt:
        # Hand-edited beyond recognition (no seating, an unknown seat): nothing to compare.
        report.line("verify.not_protocol", path=path)
        return UNUSABLE
    if report.differ:
        report.line("verify.mismatch", count=report.differ, checked=report.checked)
        return DIFFERS
    report.line("verify.all_match", count=report.checked)
    return OK


def _walk(report: _Report, started: GameStarted, entries: Sequence[Entry]) -> bool:
    """Each draw recomputed over the living seats of its moment, beside the game's own.

    False when the protocol lacks the seating or the deal: a check without them is none.
    """
    seed = started.seed
    state = initial_state(started)
    for entry in entries:
        match entry.event:
            case SeatsDrawn(seating=seated):
                order = started.seat_order
                report.line("verify.seats" if order is None else "verify.seats_of_tour")
                happened = {a.seat: a for a in seated}
                expected = seating(seed, started.players)
                if order is not None:  # a balanced tour's order (T1)
                    by_id = {p.user_id: p for p in started.players}
                    expected = [by_id[user_id] for user_id in order]
                for i, player in enumerate(expected):
                    there = happened.get(i + 1)
                    mark = report.outcome(
                        player.user_id,
                        there.user_id if there else None,
                        f"{there.nick} (id {there.user_id})" if there else None,
                    )
                    report.line(
                        "verify.seat", seat=i + 1, nick=player.nick, id=player.user_id, mark=mark
                    )
            case CardsDealt(roles=roles):
                count = len(started.players)
                mafiosi = started.settings.mafiosi_for(count)
                report.line("verify.deck", mafia=mafiosi, civilians=count - mafiosi - 1)
                for i, card in enumerate(deal(seed, count, mafiosi)):
                    dealt = roles.get(i + 1)
                    mark = report.outcome(report.role(card), report.role(dealt) if dealt else None)
                    report.line("verify.card", seat=i + 1, role=report.role(card), mark=mark)
            case DayStarted(day=day, first_speaker=first):
                living = state.living()
                seat = first_speaker(seed, day, living)
                report.line(
                    "verify.first",
                    day=day,
                    among=_seats_text(living),
                    seat=seat,
                    nick=state.seats[seat].nick,
                    mark=report.outcome(seat, first),
                )
            case LotDrawn(seat=drawn):
                living = state.living()
                seat = lot(seed, state.day, living)
                report.line(
                    "verify.lot",
                    day=state.day,
                    among=_seats_text(living),
                    seat=seat,
                    nick=state.seats[seat].nick,
                    mark=report.outcome(seat, drawn),
                )
            case _:
                pass
        evolve(state, entry.event)
    return bool(state.seats) and bool(state.roles)


@dataclass(frozen=True)
class _DayAsked:
    day: int
    living: list[int]


def verify_seed(
    seed: str,
    players: Sequence[str],
    days: Sequence[str],
    mafiosi: int | None,
    out: TextIO,
    texts: Texts,
    lang: str,
) -> int:
    """The draws of a game with this seed and these players, to compare by eye."""
    report = _Report(out, texts, lang)
    parsed = _players(players)
    asked = [_day(d) for d in days]
    if parsed is None or None in asked:
        report.line("verify.usage")
        return UNUSABLE
    with_ids = _PLAYER.match(players[0]) is not None
    count = len(parsed)
    if mafiosi is None:
        mafiosi = GameSettings().mafia_by_players.get(count)
    if mafiosi is None or not 1 <= mafiosi < count - mafiosi:
        report.line("verify.no_table", players=count)
        return UNUSABLE
    report.line("verify.game_from_seed", players=count, seed=seed)
    commitment = hashlib.sha256(seed.encode("utf-8")).hexdigest()
    report.line("verify.commitment", commitment=commitment, mark="")
    seated = seating(seed, parsed)
    report.line("verify.seats")
    for i, player in enumerate(seated):
        if with_ids:
            report.line("verify.seat", seat=i + 1, nick=player.nick, id=player.user_id, mark="")
        else:
            report.line("verify.seat_no_id", seat=i + 1, nick=player.nick)
    report.line("verify.deck", mafia=mafiosi, civilians=count - mafiosi - 1)
    for i, card in enumerate(deal(seed, count, mafiosi)):
        report.line("verify.card", seat=i + 1, role=report.role(card), mark="")
    nicks = {i + 1: p.nick for i, p in enumerate(seated)}
    everyone = list(nicks)
    for day in [_DayAsked(0, everyone)] + [a for a in asked if a is not None]:
        if not day.living or not set(day.living) <= set(nicks):
            report.line("verify.bad_seats", day=day.day, players=count)
            return UNUSABLE
        among = _seats_text(day.living)
        for key, seat in (
            ("verify.first", first_speaker(seed, day.day, day.living)),
            ("verify.lot", lot(seed, day.day, day.living)),
        ):
            if key == "verify.lot" and day.day == 0:
                continue  # Day 0 has no vote and no lot (D1)
            report.line(key, day=day.day, among=among, seat=seat, nick=nicks[seat], mark="")
    return OK


def _players(args: Sequence[str]) -> list[Player] | None:
    """`ID:NICK` arguments sorted by id, or bare nicks already in increasing order of id."""
    if not args:
        return None
    matches = [_PLAYER.match(a) for a in args]
    if all(m is not None for m in matches):
        players = [Player(int(m.group(1)), m.group(2)) for m in matches if m is not None]
        if len({p.user_id for p in players}) != len(players):
            return None
        return sorted(players, key=lambda p: p.user_id)
    if any(m is not None for m in matches):
        return None  # ids for some players only: the order of the rest is unknown
    # Bare nicks: their order stands for the order of Telegram ids.
    return [Player(i, nick) for i, nick in enumerate(args)]


def _day(arg: str) -> _DayAsked | None:
    match = _DAY.match(arg)
    if match is None:
        return None
    return _DayAsked(int(match.group(1)), sorted({int(s) for s in match.group(2).split(",")}))
