"""Typed configuration: a TOML file, then environment overrides, built in `main()`.

Nothing here runs at import time; `load_config` is called once by the entry point.
"""

from __future__ import annotations

import os
import tomllib
from dataclasses import fields
from pathlib import Path
from typing import Any, Literal
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from pydantic import BaseModel, ConfigDict, Field, SecretStr, field_validator

from bot.rules.settings import GameSettings, KillRule

DEFAULT_API_SERVER = "https://api.telegram.org"
LANGUAGES = ("ru", "en")


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class BotSection(_Strict):
    token: SecretStr | None = None
    api_server: str = DEFAULT_API_SERVER
    mode: Literal["polling", "webhook"] = "polling"
    webhook_url: str | None = None
    webhook_host: str = "127.0.0.1"
    webhook_port: int = 8080
    language: Literal["ru", "en"] = "ru"
    # The time zone of the clock times players read ("until 19:42:30").
    timezone: str = "Europe/Moscow"
    database: str = "mafia.sqlite3"
    # Telegram's flood windows (20 messages a minute to a group...) are multiplied by
    # this. Leave it at 1; a test server running games with scaled-down timers scales it.
    flood_window_scale: float = Field(default=1.0, gt=0)

    @field_validator("token", mode="before")
    @classmethod
    def _empty_is_none(cls, value: Any) -> Any:
        return value or None

    @field_validator("timezone")
    @classmethod
    def _known_zone(cls, value: str) -> str:
        try:
            ZoneInfo(value)
        except (ZoneInfoNotFoundError, ValueError):
            raise ValueError(f"unknown time zone {value!r}") from None
        return value


class AccessSection(_Strict):
    # Telegram ids allowed to create tournaments; empty: anyone may.
    judges: list[int] = Field(default_factory=list)


class CasualSection(_Strict):
    # S2: casual games may seat fewer players than a tournament table.
    min_players: int = 5
    max_players: int = 16


class GameSection(_Strict):
    """The default scheme: every timer of RULES (fractional seconds accepted) and N3."""

    introduction_seconds: float = 30
    round1_seconds: float = 60
    round2_seconds: float = 30
    defence_seconds: float = 60
    vote_seconds: float = 30
    last_word_seconds: float = 40
    acquaintance_seconds: float = 60
    night_seconds: float = 60
    kill_rule: KillRule = KillRule.UNANIMOUS
    # How long before the end of a turn the speaker is warned (PRODUCT).
    warning_seconds: float = 10
    mafia_by_players: dict[int, int] | None = None

    def settings(self, min_players: int, max_players: int) -> GameSettings:
        core = {f.name for f in fields(GameSettings)}
        values = {k: v for k, v in self.model_dump().items() if k in core and v is not None}
        return GameSettings(**values, min_players=min_players, max_players=max_players)


class Config(_Strict):
    bot: BotSection = BotSection()
    access: AccessSection = AccessSection()
    casual: CasualSection = CasualSection()
    game: GameSection = GameSection()
    base_dir: Path = Path()

    @property
    def database_path(self) -> Path:
        path = Path(self.bot.database)
        return path if path.is_absolute() else self.base_dir / path

    def casual_settings(self) -> GameSettings:
        return self.game.settings(self.casual.min_players, self.casual.max_players)


def load_config(path: Path | None = None, env: dict[str, str] | None = None) -> Config:
    """Read `path` (or $MAFIA_CONFIG, or ./config.toml if present), then apply env overrides."""
    env = dict(os.environ) if env is None else env
    if path is None and env.get("MAFIA_CONFIG"):
        path = Path(env["MAFIA_CONFIG"])
    if path is None and Path("config.toml").exists():
        path = Path("config.toml")
    data: dict[str, Any] = {}
    if path is not None:
        with path.open("rb") as f:
            data = tomllib.load(f)
        data["base_dir"] = path.parent
    section = dict(data.get("bot", {}))
    overrides = {
        "MAFIA_BOT_TOKEN": "token",
        "MAFIA_API_SERVER": "api_server",
        "MAFIA_DATABASE": "database",
        "MAFIA_LANGUAGE": "language",
    }
    for var, key in overrides.items():
        if env.get(var):
            section[key] = env[var]
    data["bot"] = section
    return Config.model_validate(data)
