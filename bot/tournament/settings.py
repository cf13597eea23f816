"""Tournament settings: every value RULES.md marks `[setting]` in section T, plus the
game scheme every game of the tournament is played under (T6).

Points are kept in tenths (T4), so the bonus coefficient 1.2 is stored as 12.
"""

from __future__ import annotations

import dataclasses
import json
import math
from dataclasses import dataclass, field
from typing import Any

from bot.rules.codec import from_json, to_json
from bot.rules.errors import BadSettings
from bot.rules.settings import MAX_TIMER_SECONDS, TIMER_FIELDS, GameSettings

# T5: the tie-break criteria, in words in bot.tournament.tiebreak; the lot is always last.
TIE_BREAK_CRITERIA = (
    "wins",
    "bonus_wins",
    "commissioner_wins",
    "fewer_sanctions",
    "head_to_head",
    "lot",
)
DEFAULT_TIE_BREAK = "wins,bonus_wins,commissioner_wins,fewer_sanctions,lot"


def parse_tie_break(text: str) -> tuple[str, ...]:
    """ "wins,head_to_head" -> ("wins", "head_to_head", "lot"): known criteria, each once;
    the lot is always last (added if left out). "none" -> (): no tie-break, shared prize
    places are the Judge's to decide (7.1). Anything else raises `BadSettings`."""
    if text.strip() == "none":
        return ()
    names = tuple(name.strip() for name in text.split(",") if name.strip())
    known = all(n in TIE_BREAK_CRITERIA for n in names)
    if not names or not known or len(set(names)) != len(names):
        raise BadSettings(f"not a tie-break order: {text!r}", field="tie_break")
    if "lot" in names and names[-1] != "lot":
        raise BadSettings(f"the lot comes last: {text!r}", field="tie_break")
    return names if names[-1] == "lot" else (*names, "lot")


@dataclass(frozen=True)
class TournamentSettings:
    group_min: int = 12  # T1: smallest group (table)
    group_max: int = 16  # T1: largest group
    bonus_threshold: int = 14  # T4: the bonus applies when MORE than this many started
    bonus_coefficient: int = 12  # T4: in tenths, 12 = x1.2
    # T5: whether players may see the standings (/standings) before the end; the Judge
    # always may. After /finish everyone does.
    standings_visible: bool = True
    # T5: the order that splits equal totals reaching the prize places, criteria by name.
    tie_break: str = DEFAULT_TIE_BREAK
    # T1, beyond the regulation: /groups spreads tablemates, seat numbers and the bonus
    # tables (T4) across the tours (bot.tournament.groups; docs/fairness.md).
    balanced_tours: bool = True
    game: GameSettings = field(default_factory=GameSettings)  # the game scheme (T6)

    def __post_init__(self) -> None:
        for name in ("group_min", "group_max", "bonus_threshold", "bonus_coefficient"):
            value = getattr(self, name)
            if type(value) is not int:
                raise BadSettings(f"{name} must be a whole number, got {value!r}", field=name)
        for name in ("standings_visible", "balanced_tours"):
            if type(getattr(self, name)) is not bool:
                raise BadSettings(
                    f"{name} must be true or false, got {getattr(self, name)!r}", field=name
                )
        if type(self.tie_break) is not str:
            raise BadSettings(f"tie_break must be text, got {self.tie_break!r}", field="tie_break")
        parse_tie_break(self.tie_break)
        if not isinstance(self.game, GameSettings):
            raise BadSettings(f"game must be GameSettings, got {self.game!r}", field="game")
        if not 1 <= self.group_min <= self.group_max:
            raise BadSettings(
                "group bounds must satisfy 1 <= min <= max, "
                f"got {self.group_min}..{self.group_max}",
                field="group_min",
            )
        # Every group must be a table the game scheme can start (and has a roles entry for).
        if not self.game.min_players <= self.group_min <= self.group_max <= self.game.max_players:
            raise BadSettings(
                f"groups of {self.group_min}..{self.group_max} do not fit the game's "
                f"{self.game.min_players}..{self.game.max_players} players",
                field="group_min",
            )
        if self.bonus_threshold < 0:
            raise BadSettings(
                f"bonus_threshold must not be negative, got {self.bonus_threshold}",
                field="bonus_threshold",
            )
        # Interpretation: the coefficient is a bonus; it never lowers the point (10 = none).
        if self.bonus_coefficient < 10:
            raise BadSettings(
                f"bonus_coefficient is in tenths and at least 10 (x1.0), "
                f"got {self.bonus_coefficient}",
                field="bonus_coefficient",
            )


# What the Judge's /settings accepts, by dotted name: the regulation's tables of 12 to 16
# (T1), every timer from a second to an hour, a bonus threshold within a table's size
# and a coefficient from x1.0 to x3.0 (T4); standings_visible is 1 (players see the
# standings during the tournament) or 0 (only at the end, T5). Tests and casual games build settings
# directly and may go below these; nothing may go beyond what a game can run.
JUDGE_RANGES: dict[str, tuple[float, float]] = {
    "group_min": (12, 16),
    "group_max": (12, 16),
    "bonus_threshold": (0, 16),
    "bonus_coefficient": (10, 30),
    "standings_visible": (0, 1),
    "balanced_tours": (0, 1),
    **{f"game.{name}": (1, MAX_TIMER_SECONDS) for name in TIMER_FIELDS},
}


def check_judge_value(name: str, text: str) -> None:
    """Raise `BadSettings` (with `low`, `high`) if the Judge's `name` = `text` is out of range.

    A value that is no number at all is left to the setting's own parsing.
    """
    bounds = JUDGE_RANGES.get(name)
    if bounds is None:
        return
    try:
        value = float(text)
    except ValueError:
        return
    low, high = bounds
    if not (math.isfinite(value) and low <= value <= high):
        raise BadSettings(
            f"{name} must be within {low:g}..{high:g}, got {text!r}",
            field=name,
            low=f"{low:g}",
            high=f"{high:g}",
        )


def settings_to_json(settings: TournamentSettings) -> str:
    """The settings as JSON text (what storage keeps in `settings_json`)."""
    return json.dumps(to_json(settings), sort_keys=True, ensure_ascii=False)


def _check_keys(cls: type[Any], value: object, where: str) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise BadSettings(f"{where} must be a JSON object, got {value!r}", field=where)
    known = {f.name for f in dataclasses.fields(cls)}
    unknown = sorted(set(value) - known)
    if unknown:
        raise BadSettings(f"unknown setting(s) in {where}: {', '.join(unknown)}", field=unknown[0])
    return value


def settings_from_json(text: str) -> TournamentSettings:
    """Settings back from `settings_to_json`; a missing field takes its default.

    Anything malformed (not JSON, an unknown field, a value of the wrong type, values
    that break a rule) raises `BadSettings`.
    """
    try:
        raw = json.loads(text)
        top = _check_keys(TournamentSettings, raw, "settings")
        if "game" in top:
            _check_keys(GameSettings, top["game"], "game")
        result = from_json(TournamentSettings, top)
    except BadSettings:
        raise
    except (ValueError, TypeError, KeyError, AttributeError) as exc:
        raise BadSettings(f"malformed settings: {exc}") from exc
    assert isinstance(result, TournamentSettings)
    return result


@dataclass(frozen=True)
class SettingChange:
    """One setting that differs (T6): `name` is a dotted path such as `game.night_seconds`."""

    name: str
    old: object
    new: object


def _fields(obj: Any, prefix: str = "") -> list[tuple[str, object]]:
    out: list[tuple[str, object]] = []
    for f in dataclasses.fields(obj):
        value = getattr(obj, f.name)
        if dataclasses.is_dataclass(value) and not isinstance(value, type):
            out.extend(_fields(value, f"{prefix}{f.name}."))
        else:
            out.append((f"{prefix}{f.name}", value))
    return out


def diff_settings(old: TournamentSettings, new: TournamentSettings) -> list[SettingChange]:
    """The settings that differ between `old` and `new`, in declaration order (T6).

    Fields of the game scheme are flattened (`game.round1_seconds`); the roles table
    (`game.mafia_by_players`) is one field whose values are the whole tables.
    """
    return [
        SettingChange(name, before, after)
        for (name, before), (_, after) in zip(_fields(old), _fields(new), strict=True)
        if before != after
    ]
