"""Typed configuration: a TOML file, then environment overrides, built in `main()`.

Nothing here runs at import time; `load_config` is called once by the entry point.
"""

from __future__ import annotations

import os
import re
import tomllib
from dataclasses import fields
from pathlib import Path
from typing import Any, Literal
from urllib.parse import urlsplit
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from pydantic import BaseModel, ConfigDict, Field, SecretStr, field_validator, model_validator

from bot.rules.errors import BadSettings
from bot.rules.settings import MAX_TIMER_SECONDS, GameSettings, KillRule

DEFAULT_API_SERVER = "https://api.telegram.org"
_TELEGRAM = "api.telegram.org"
LANGUAGES = ("ru", "en")
# Telegram's rule for a webhook's secret_token: 1-256 characters of A-Z, a-z, 0-9, _ and -;
# ours asks for 32 at least, which nobody guesses by trying.
_SECRET = re.compile(r"[A-Za-z0-9_-]{32,256}")
# The ports Telegram delivers webhooks to (setWebhook); a local Bot API server (`--local`)
# calls any address, http:// too, so the rule holds only for Telegram's own servers.
WEBHOOK_PORTS = (443, 80, 88, 8443)
# What @BotFather gives: the bot's numeric id, a colon, then the secret part. Checked at
# load, so that a mistyped token is named in plain words, not as an aiogram traceback.
_TOKEN = re.compile(r"[0-9]{1,20}:[A-Za-z0-9_-]{1,128}")


def valid_webhook_secret(secret: str) -> bool:
    return _SECRET.fullmatch(secret) is not None


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class BotSection(_Strict):
    token: SecretStr | None = None
    api_server: str = DEFAULT_API_SERVER
    mode: Literal["polling", "webhook"] = "polling"
    # Webhook mode: the address Telegram calls; we listen on its path (see README).
    webhook_url: str | None = None
    # What Telegram sends back in every webhook request; empty: a random one each start.
    webhook_secret: SecretStr | None = None
    webhook_host: str = "127.0.0.1"
    webhook_port: int = Field(default=8080, ge=1, le=65535)
    language: Literal["ru", "en"] = "ru"
    # The time zone of the clock times players read ("until 19:42:30").
    timezone: str = "Europe/Moscow"
    database: str = "mafia.sqlite3"
    # SQLite's synchronous pragma: "full" keeps every acknowledged action through a power
    # loss; "normal" may lose the last ones, for a little less CPU (docs/developers.md, "How fast").
    synchronous: Literal["full", "normal"] = "full"
    # Telegram's flood windows (20 messages a minute to a group...) are multiplied by
    # this. Leave it at 1; a test server running games with scaled-down timers scales it.
    flood_window_scale: float = Field(default=1.0, gt=0, le=1000, allow_inf_nan=False)
    # The log's lines: "text" for people reading them, "json" (one object a line) for a
    # log collector.
    log_format: Literal["text", "json"] = "text"

    @field_validator("token", "webhook_secret", "webhook_url", mode="before")
    @classmethod
    def _empty_is_none(cls, value: Any) -> Any:
        return value or None

    @field_validator("token")
    @classmethod
    def _token_shape(cls, value: SecretStr | None) -> SecretStr | None:
        if value is not None and _TOKEN.fullmatch(value.get_secret_value()) is None:
            # The value itself is never repeated: a token half-right is still half a secret.
            raise ValueError(
                "token: not a bot token; @BotFather gives one like 123456789:AAE... "
                "(digits, a colon, then letters, digits, _ and -), with no spaces or quotes"
            )
        return value

    @field_validator("webhook_secret")
    @classmethod
    def _strong_secret(cls, value: SecretStr | None) -> SecretStr | None:
        if value is not None and not valid_webhook_secret(value.get_secret_value()):
            raise ValueError(
                "webhook_secret: 32-256 characters of A-Z, a-z, 0-9, _ and - "
                "(or empty for a random one each start)"
            )
        return value

    @field_validator("webhook_url")
    @classmethod
    def _callable_url(cls, value: str | None) -> str | None:
        if value is not None:
            parts = urlsplit(value)
            if parts.scheme not in ("https", "http") or not parts.hostname:
                raise ValueError("webhook_url: an https:// address Telegram can reach")
        return value

    @model_validator(mode="after")
    def _webhook_has_url(self) -> BotSection:
        if self.mode == "webhook" and self.webhook_url is None:
            raise ValueError("webhook mode needs [bot] webhook_url")
        if self.webhook_url is not None and urlsplit(self.api_server).hostname == _TELEGRAM:
            # Telegram itself refuses these at setWebhook: refused here, in plain words,
            # rather than in a traceback when `run` starts.
            parts = urlsplit(self.webhook_url)
            if parts.scheme != "https":
                raise ValueError(
                    "webhook_url: Telegram calls https:// addresses only "
                    "(behind a reverse proxy with a certificate, README)"
                )
            try:
                port = parts.port or 443
            except ValueError:
                raise ValueError("webhook_url: the port is not a number") from None
            if port not in WEBHOOK_PORTS:
                raise ValueError(
                    f"webhook_url: Telegram calls ports 443, 80, 88 or 8443 only, not {port}"
                )
        return self

    @field_validator("timezone")
    @classmethod
    def _known_zone(cls, value: str) -> str:
        try:
            ZoneInfo(value)
        except (ZoneInfoNotFoundError, ValueError):
            raise ValueError(f"unknown time zone {value!r}") from None
        return value


class AccessSection(_Strict):
    # Telegram ids allowed to create and run tournaments (every Judge command); empty: anyone.
    judges: list[int] = Field(default_factory=list)
    # Tournaments one person may have open (not finished) at once: with `judges` empty
    # anyone may create them, and no one may create them without end (issue 25 §5).
    open_tournaments_per_judge: int = Field(default=3, ge=1, le=100)

    @field_validator("judges", mode="before")
    @classmethod
    def _numeric_ids(cls, value: Any) -> Any:
        # "@kirill" is the usual first try: a username can change hands, an id cannot.
        for judge in value if isinstance(value, list) else ():
            if isinstance(judge, str) and not judge.strip().lstrip("-").isdigit():
                raise ValueError(
                    f"judges: {judge[:40]!r} is not a numeric Telegram user id; a username "
                    "can change hands, so the bot asks for the id (the Judge sends /start "
                    "to @userinfobot, or /whoami to this bot, to learn it)"
                )
        return value


class CasualSection(_Strict):
    # S2: casual games may seat fewer players than a tournament table.
    min_players: int = Field(default=5, ge=4, le=100)
    max_players: int = Field(default=16, ge=4, le=100)
    # Issue 25: a casual lobby with no join, leave or Host's command for this long closes,
    # and its group is told, so that a lobby nobody begins does not hold the chat.
    lobby_idle_minutes: float = Field(default=30, gt=0, le=24 * 60, allow_inf_nan=False)


def _timer(default: float) -> Any:
    # Above 0 and at most an hour, finite: a deadline must stay a date a scheduler can
    # arm. Fractions are allowed, for test servers running games scaled down.
    return Field(default=default, gt=0, le=MAX_TIMER_SECONDS, allow_inf_nan=False)


class GameSection(_Strict):
    """The default scheme: every timer of RULES (fractional seconds accepted) and N3."""

    introduction_seconds: float = _timer(30)
    round1_seconds: float = _timer(60)
    round2_seconds: float = _timer(30)
    defence_seconds: float = _timer(60)
    vote_seconds: float = _timer(30)
    last_word_seconds: float = _timer(40)
    acquaintance_seconds: float = _timer(60)
    night_seconds: float = _timer(60)
    kill_rule: KillRule = KillRule.UNANIMOUS
    # How long before the end of a turn the speaker is warned (PRODUCT).
    warning_seconds: float = Field(default=10, ge=0, le=MAX_TIMER_SECONDS, allow_inf_nan=False)
    mafia_by_players: dict[int, int] | None = None

    def settings(self, min_players: int, max_players: int) -> GameSettings:
        core = {f.name for f in fields(GameSettings)}
        values = {k: v for k, v in self.model_dump().items() if k in core and v is not None}
        if self.mafia_by_players is not None:
            # A table of a few counts (the example's 12-16) changes those counts only: the
            # casual sizes below keep S2's, or a table for 12-16 alone would stop the bot.
            table = GameSettings().mafia_by_players
            values["mafia_by_players"] = {**table, **self.mafia_by_players}
        return GameSettings(**values, min_players=min_players, max_players=max_players)


class WebSection(_Strict):
    """The live tournament page (bot.web.page): off unless asked for."""

    enabled: bool = False
    host: str = "127.0.0.1"
    port: int = Field(default=8081, ge=1, le=65535)
    # Where people reach the page: the reverse proxy's HTTPS address (a Mini App button
    # needs HTTPS); empty: the bare listener, http://host:port, for a look on this machine.
    public_url: str | None = None
    # How old the Mini App's signed launch data may be before `/me` refuses it as a
    # replayed copy (Telegram's advice: check auth_date); at least a minute, at most a day.
    launch_data_max_age_minutes: float = Field(default=60, ge=1, le=24 * 60, allow_inf_nan=False)

    @field_validator("public_url", mode="before")
    @classmethod
    def _empty_is_none(cls, value: Any) -> Any:
        return value or None

    @field_validator("public_url")
    @classmethod
    def _page_address(cls, value: str | None) -> str | None:
        if value is not None:
            parts = urlsplit(value)
            if parts.scheme not in ("https", "http") or not parts.hostname:
                raise ValueError("public_url: an https:// address people can reach")
            if parts.query or parts.fragment:
                raise ValueError("public_url: an address without ? or #")
            value = value.rstrip("/")
        return value

    @property
    def base_url(self) -> str:
        return self.public_url or f"http://{self.host}:{self.port}"


class Config(_Strict):
    bot: BotSection = BotSection()
    access: AccessSection = AccessSection()
    casual: CasualSection = CasualSection()
    game: GameSection = GameSection()
    web: WebSection = WebSection()
    base_dir: Path = Path()

    @property
    def database_path(self) -> Path:
        path = Path(self.bot.database)
        return path if path.is_absolute() else self.base_dir / path

    def casual_settings(self) -> GameSettings:
        return self.game.settings(self.casual.min_players, self.casual.max_players)

    @model_validator(mode="after")
    def _one_listener_a_port(self) -> Config:
        """The page and the webhook are two servers: on one port the second cannot start."""
        bot, web = self.bot, self.web
        if web.enabled and bot.mode == "webhook" and web.port == bot.webhook_port:
            hosts = {web.host, bot.webhook_host}
            if len(hosts) == 1 or hosts & {"0.0.0.0", "::", ""}:
                raise ValueError(
                    f"[web] port {web.port} is [bot] webhook_port too: the live page and "
                    "the webhook need a port each (the reverse proxy sends each its path)"
                )
        return self

    @model_validator(mode="after")
    def _playable(self) -> Config:
        """The scheme and the casual table sizes must make a game, or the bot won't start."""
        try:
            self.casual_settings()
        except BadSettings as error:
            raise ValueError(str(error)) from error
        return self


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
        # For containers configured by their environment alone (compose.yaml).
        "MAFIA_MODE": "mode",
        "MAFIA_WEBHOOK_URL": "webhook_url",
        "MAFIA_WEBHOOK_SECRET": "webhook_secret",
        "MAFIA_WEBHOOK_HOST": "webhook_host",
        "MAFIA_WEBHOOK_PORT": "webhook_port",
        "MAFIA_LOG_FORMAT": "log_format",
        "MAFIA_TIMEZONE": "timezone",
    }
    for var, key in overrides.items():
        if env.get(var):
            section[key] = env[var]
    data["bot"] = section
    # The live page, for a container (compose.yaml's page behind Caddy).
    web = dict(data.get("web", {}))
    for var, key in {
        "MAFIA_WEB_ENABLED": "enabled",
        "MAFIA_WEB_HOST": "host",
        "MAFIA_WEB_PORT": "port",
        "MAFIA_WEB_PUBLIC_URL": "public_url",
    }.items():
        if env.get(var):
            web[key] = env[var]
    if web:
        data["web"] = web
    if env.get("MAFIA_JUDGES"):
        access = dict(data.get("access", {}))
        access["judges"] = [j for j in re.split(r"[\s,]+", env["MAFIA_JUDGES"]) if j]
        data["access"] = access
    return Config.model_validate(data)
