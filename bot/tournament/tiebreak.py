"""T5: the tie-break order, where shared places would cross a prize place (1-3).

Interpretation (RULES T5). Equal totals share a place; only a group of equal totals
whose places reach into the top three is split, by the Judge's order of criteria
(chosen before the first tour, T6), each applied to what is still tied after the ones
before it:

- `wins`: more games won (wins that earned the point: a removed winner's does not count);
- `bonus_wins`: more of those at tables above the bonus threshold (T4, the sheet's scheme);
- `commissioner_wins`: more of those as Commissioner;
- `fewer_sanctions`: fewer warnings and sanctions over the tournament (V);
- `head_to_head`: more games won against the others still tied (a won game at which one
  of them sat on the losing side);
- `lot`, always last: a lot drawn from a committed seed (S3, docs/fairness.md):
  `shuffle(seed, "tiebreak:<place>", the tied players' Telegram ids in increasing order)`,
  where `<place>` is the first of the places they share; position 0 takes that place,
  and so on down to 3rd; those the lot puts below 3rd share the next place.

A still-tied subgroup whose places all lie below the prize places stays shared. Each
row the order separated says which criterion did it (`decided_by`), for /standings.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass, replace

from bot.rules.draws import shuffled
from bot.rules.roles import Role
from bot.rules.sheet import SheetRow
from bot.tournament.scoring import Scoring
from bot.tournament.settings import DEFAULT_TIE_BREAK, TIE_BREAK_CRITERIA, parse_tie_break
from bot.tournament.standings import StandingsRow

PRIZE_PLACES = 3
CRITERIA = TIE_BREAK_CRITERIA
DEFAULT_ORDER = parse_tie_break(DEFAULT_TIE_BREAK)
parse_order = parse_tie_break


@dataclass(frozen=True)
class Record:
    """What the criteria read of one player, from the signed sheets."""

    wins: int = 0
    bonus_wins: int = 0
    commissioner_wins: int = 0
    sanctions: int = 0


@dataclass(frozen=True)
class Game:
    """One signed sheet as the criteria read it: who earned the win, who lost."""

    winners: frozenset[int]
    losers: frozenset[int]


def records(
    sheets: Mapping[int, Sequence[SheetRow]],
    schemes: Mapping[int, Scoring],
    sanctions: Mapping[int, int],
) -> tuple[dict[int, Record], list[Game]]:
    """Every player's record and every game's winners and losers.

    `schemes`: each game's scheme (its bonus threshold); `sanctions`: user id -> warnings
    and sanctions over the tournament.
    """
    out: dict[int, Record] = {uid: Record(sanctions=n) for uid, n in sanctions.items()}
    games = []
    for game_id, rows in sorted(sheets.items()):
        above = len(rows) > schemes[game_id].bonus_threshold
        for row in rows:
            if not row.earns_point:
                continue
            old = out.get(row.user_id, Record(sanctions=sanctions.get(row.user_id, 0)))
            out[row.user_id] = replace(
                old,
                wins=old.wins + 1,
                bonus_wins=old.bonus_wins + int(above),
                commissioner_wins=old.commissioner_wins + int(row.role is Role.COMMISSIONER),
            )
        games.append(
            Game(
                frozenset(r.user_id for r in rows if r.earns_point),
                frozenset(r.user_id for r in rows if not r.won),
            )
        )
    return out, games


def _key(
    name: str, tied: Collection[int], record: Mapping[int, Record], games: Iterable[Game]
) -> Callable[[int], int]:
    """The criterion as a number per player, larger is better."""
    if name == "head_to_head":
        beaten = {
            uid: sum(1 for g in games if uid in g.winners and g.losers & set(tied)) for uid in tied
        }
        return beaten.__getitem__
    if name == "fewer_sanctions":
        return lambda uid: -record.get(uid, Record()).sanctions
    return lambda uid: int(getattr(record.get(uid, Record()), name))


def _resolve(
    tied: list[int],
    place: int,
    order: Sequence[str],
    record: Mapping[int, Record],
    games: Sequence[Game],
    seed: str | None,
) -> list[tuple[int, int, str | None]]:
    """(user id, place, the criterion that decided it) for a group sharing `place`."""
    if len(tied) == 1 or place > PRIZE_PLACES or not order:
        return [(uid, place, None) for uid in tied]
    name, rest = order[0], order[1:]
    if name == "lot":
        if seed is None:  # no committed seed yet: the lot cannot be drawn
            return [(uid, place, None) for uid in tied]
        drawn = shuffled(seed, f"tiebreak:{place}", sorted(tied))
        # The lot settles the prize places; those it puts below them share the next place.
        below = max(place, PRIZE_PLACES + 1)
        return [(uid, min(place + i, below), "lot") for i, uid in enumerate(drawn)]
    key = _key(name, tied, record, games)
    values = sorted({key(uid) for uid in tied}, reverse=True)
    if len(values) == 1:
        return _resolve(tied, place, rest, record, games, seed)
    out: list[tuple[int, int, str | None]] = []
    for value in values:
        group = [uid for uid in tied if key(uid) == value]
        if len(group) == 1:
            out.append((group[0], place, name))
        else:
            # Still tied: the rest of the order decides, within this subgroup only.
            out += _resolve(group, place, rest, record, games, seed)
        place += len(group)
    return out


def break_ties(
    rows: Sequence[StandingsRow],
    order: Sequence[str],
    record: Mapping[int, Record],
    games: Sequence[Game],
    seed: str | None,
) -> list[StandingsRow]:
    """The standings with the shared places that reach the prize places split by `order`.

    `seed`: the committed seed of the lot (None: none yet, the lot leaves them shared).
    Rows keep their order otherwise; the disqualified stay unplaced.
    """
    placed: dict[int | None, list[StandingsRow]] = {}
    for row in rows:
        placed.setdefault(row.place, []).append(row)
    out: list[StandingsRow] = []
    for place, group in placed.items():
        if place is None or len(group) == 1 or place > PRIZE_PLACES:
            out += group
            continue
        by_id = {r.user_id: r for r in group}
        decided = _resolve([r.user_id for r in group], place, order, record, games, seed)
        decided.sort(key=lambda d: d[1])
        out += [replace(by_id[uid], place=p, decided_by=why) for uid, p, why in decided]
    return out
