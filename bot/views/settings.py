"""Settings in words (T6): "Круг 1: 60 с на игрока", not `game.round1_seconds = 60.0`.

The Judge's /settings lists each setting by name, in its units, with the key that
/settings takes to change it; the announcement to players (T6) and /rules use the same
words without the keys.
"""

from __future__ import annotations

from collections.abc import Sequence

from bot.rules.settings import TIMER_FIELDS, GameSettings, KillRule
from bot.tournament.settings import SettingChange, TournamentSettings, parse_tie_break
from bot.views.i18n import Texts, decimal

# What /settings shows, in this order: the tournament's own, then the game scheme.
SHOWN = (
    "group_min",
    "group_max",
    "bonus_threshold",
    "bonus_coefficient",
    "standings_visible",
    "tie_break",
    "balanced_tours",
    *(f"game.{name}" for name in (*TIMER_FIELDS, "kill_rule", "min_players", "max_players")),
)

# The unit a timer is counted in (the rest are one stretch of time).
_PER_PLAYER = {"introduction_seconds", "round1_seconds", "round2_seconds"}
_PER_LEADER = {"defence_seconds"}


def seconds(lang: str, value: float) -> str:
    """Whole seconds without ".0"; scaled-down timers keep one decimal, with a comma in ru."""
    number = str(int(value)) if float(value).is_integer() else f"{value:.1f}"
    return decimal(lang, number)


def value_text(t: Texts, lang: str, key: str, value: object) -> str:
    """A setting's value in its units: "60 с на игрока", "×1,2", "да"."""
    name = key.removeprefix("game.")
    if name in TIMER_FIELDS:
        assert isinstance(value, int | float)
        unit = "per_player" if name in _PER_PLAYER else "per_leader" if name in _PER_LEADER else ""
        return t(lang, f"setting_value.seconds{'_' + unit if unit else ''}", n=seconds(lang, value))
    if name == "kill_rule":
        return t(lang, f"setting_value.kill_{KillRule(str(value)).value}")
    if name == "bonus_coefficient":
        assert isinstance(value, int)
        whole, tenth = divmod(value, 10)
        return decimal(lang, f"{whole}.{tenth}")
    if isinstance(value, bool):
        return t(lang, f"setting_value.{'yes' if value else 'no'}")
    if name == "tie_break":
        order = parse_tie_break(str(value))
        return "; ".join(t(lang, f"tie_break.{criterion}") for criterion in order) or t(
            lang, "tie_break.none"
        )
    return str(value)


def name_text(t: Texts, lang: str, key: str, settings: TournamentSettings) -> str:
    return t(lang, f"setting_name.{key.replace('.', '_')}", threshold=settings.bonus_threshold)


def _value(settings: TournamentSettings, key: str) -> object:
    if key.startswith("game."):
        return getattr(settings.game, key.removeprefix("game."))
    return getattr(settings, key)


def settings_lines(
    t: Texts, lang: str, settings: TournamentSettings, *, keys: bool = False
) -> list[str]:
    """A line per setting; with `keys`, each ends with the key /settings changes it by."""
    lines = []
    for key in SHOWN:
        value = value_text(t, lang, key, _value(settings, key))
        line = f"{name_text(t, lang, key, settings)}: {value}"
        lines.append(f"{line} — <code>{key}</code>" if keys else line)
    return lines


def change_lines(
    t: Texts, lang: str, changes: Sequence[SettingChange], settings: TournamentSettings
) -> list[str]:
    """T6: "Круг 1: 60 с на игрока → 45 с на игрока", named as the new settings name it."""
    return [
        f"{name_text(t, lang, c.name, settings)}: "
        f"{value_text(t, lang, c.name, c.old)} → {value_text(t, lang, c.name, c.new)}"
        for c in changes
        if c.name in SHOWN  # the roles table is no /settings key: it never changes here
    ]


def game_rule_values(t: Texts, lang: str, game: GameSettings) -> dict[str, str]:
    """The game scheme's timers and kill rule, for the /rules text."""
    values = {name: seconds(lang, getattr(game, name)) for name in TIMER_FIELDS}
    values["kill_rule"] = t(lang, f"setting_value.kill_{game.kill_rule.value}")
    return values
