"""`python -m bot check`: is this bot ready to run? Said in plain words, never a traceback.

It reads the config the way `run` does, checks the token's shape, opens the database
(creating it or bringing its schema up to date, exactly as `run` would), and asks
Telegram who the bot is (getMe). `make run` does this first; so do the container and
the systemd unit. Each step prints one line; the first that fails says what is wrong and
what to do, and the exit status is 1. The token is never printed.
"""

from __future__ import annotations

import asyncio
import os
import sqlite3
import tomllib
from pathlib import Path
from typing import TextIO

from pydantic import ValidationError

from bot.config import Config, load_config

OK, PROBLEM = 0, 1
GET_ME_TIMEOUT = 20.0  # seconds: a Bot API that has not answered by then is unreachable


class ConfigProblem(Exception):
    """The config cannot be used; the message says why, for the person who wrote it."""


def config_file(path: Path | None, env: dict[str, str]) -> Path | None:
    """The file `load_config` reads: --config, $MAFIA_CONFIG, ./config.toml, or none."""
    if path is None and env.get("MAFIA_CONFIG"):
        path = Path(env["MAFIA_CONFIG"])
    if path is None and Path("config.toml").exists():
        path = Path("config.toml")
    return path


def read_config(path: Path | None, env: dict[str, str] | None = None) -> Config:
    """`load_config`, its failures turned into a `ConfigProblem` a person can act on."""
    env = dict(os.environ) if env is None else env
    file = config_file(path, env)
    if file is not None and not file.is_file():
        raise ConfigProblem(f"the config file {file} does not exist (copy config.example.toml)")
    try:
        return load_config(file, env)
    except PermissionError:
        raise ConfigProblem(f"the config file {file} cannot be read by this user") from None
    except tomllib.TOMLDecodeError as error:
        raise ConfigProblem(f"{file} is not valid TOML: {error}") from None
    except ValidationError as error:
        lines = [_plain(e) for e in error.errors(include_url=False, include_input=False)]
        where = file if file is not None else "the environment"
        problem = f"{where} has settings the bot cannot use:\n" + "\n".join(lines)
        raise ConfigProblem(problem) from None


def _plain(error: object) -> str:
    """One of pydantic's errors as "  [bot] token: what is wrong", never the value itself."""
    assert isinstance(error, dict)
    loc = [str(part) for part in error.get("loc", ())]
    message = str(error.get("msg", "")).removeprefix("Value error, ")
    if error.get("type") == "extra_forbidden":
        message = "no such setting (a typo? config.example.toml lists them all)"
    if not loc:
        return f"  {message}"
    place = f"[{loc[0]}]" + (f" {'.'.join(loc[1:])}" if len(loc) > 1 else "")
    key = loc[-1] if len(loc) > 1 else ""
    if key and message.startswith(f"{key}: "):
        message = message.removeprefix(f"{key}: ")  # our validators name the key already
    return f"  {place}: {message}"


async def check(
    config_path: Path | None,
    out: TextIO,
    env: dict[str, str] | None = None,
    *,
    token_required: bool = False,
) -> int:
    """Every check `run` depends on, one line each; 0 if the bot can run, 1 if not."""
    env = dict(os.environ) if env is None else env
    try:
        config = read_config(config_path, env)
    except ConfigProblem as problem:
        print(f"✗ config: {problem}", file=out)
        return PROBLEM
    file = config_file(config_path, env)
    print(
        f"✓ config: {file if file is not None else 'no file; defaults and environment'}", file=out
    )
    if not await _database(config, out):
        return PROBLEM
    if config.bot.token is None and token_required:
        print(
            "✗ no bot token: set [bot] token in the config, or MAFIA_BOT_TOKEN; "
            "@BotFather gives it when the bot is created",
            file=out,
        )
        return PROBLEM
    if config.bot.token is None:
        print(
            "· no bot token ([bot] token or MAFIA_BOT_TOKEN): `python -m bot run` plays "
            "the offline sandbox demo instead",
            file=out,
        )
        return OK
    print("✓ token: the shape @BotFather gives", file=out)
    if not await _telegram(config, out):
        return PROBLEM
    if config.bot.mode == "webhook":
        print(
            f"· webhook mode: Telegram will post to {config.bot.webhook_url}; the bot "
            f"listens on {config.bot.webhook_host}:{config.bot.webhook_port}",
            file=out,
        )
    return OK


async def _database(config: Config, out: TextIO) -> bool:
    from storage.db import Database
    from storage.errors import StorageError
    from storage.migrations import MIGRATIONS

    path = config.database_path
    if not path.parent.is_dir():
        print(
            f"✗ database: the folder {path.parent.resolve()} does not exist "
            "(create it, writable by the bot's user only)",
            file=out,
        )
        return False
    before = _schema_version(path)
    try:
        database = await Database.open(path, synchronous=config.bot.synchronous)
    except PermissionError as error:
        print(
            f"✗ database: {path} cannot be opened for writing by this user ({error.strerror}); "
            "the file and its folder must belong to the bot's user",
            file=out,
        )
        return False
    except StorageError as error:
        print(f"✗ database: {path}: {error}", file=out)
        return False
    except sqlite3.Error as error:
        print(
            f"✗ database: {path} cannot be used: {error} (is it a SQLite file, and is "
            "its folder writable by this user?)",
            file=out,
        )
        return False
    await database.close()
    latest = MIGRATIONS[-1].version if MIGRATIONS else 0
    if before is None:
        done = "created"
    elif before < latest:
        done = f"migrated from schema version {before}"
    else:
        done = "up to date"
    print(f"✓ database: {path.resolve()} (schema version {latest}, {done})", file=out)
    return True


def _schema_version(path: Path) -> int | None:
    """The file's schema version before `Database.open` touches it; None: no file yet."""
    if not path.exists() or path.stat().st_size == 0:
        return None
    try:
        with sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True) as connection:
            return int(connection.execute("PRAGMA user_version").fetchone()[0])
    except sqlite3.Error:
        return None  # Database.open says what is wrong with it


async def _telegram(config: Config, out: TextIO) -> bool:
    from aiogram import Bot
    from aiogram.client.session.aiohttp import AiohttpSession
    from aiogram.client.telegram import TelegramAPIServer
    from aiogram.exceptions import (
        TelegramAPIError,
        TelegramNetworkError,
        TelegramNotFound,
        TelegramUnauthorizedError,
    )

    assert config.bot.token is not None
    server = config.bot.api_server
    session = AiohttpSession(api=TelegramAPIServer.from_base(server))
    bot = Bot(config.bot.token.get_secret_value(), session=session)
    try:
        me = await asyncio.wait_for(bot.get_me(), GET_ME_TIMEOUT)
        hook = None
        if config.bot.mode != "webhook":
            hook = await asyncio.wait_for(bot.get_webhook_info(), GET_ME_TIMEOUT)
    except TelegramUnauthorizedError:
        print(
            "✗ Telegram refuses the token (Unauthorized): it was mistyped or revoked. "
            "@BotFather, /mybots → your bot → API Token shows the current one.",
            file=out,
        )
        return False
    except TelegramNotFound:
        print(f"✗ {server} answers 404 to the Bot API: is [bot] api_server right?", file=out)
        return False
    except (TelegramNetworkError, TimeoutError, OSError) as error:
        print(
            f"✗ cannot reach the Bot API at {server}: {error or type(error).__name__} "
            "(network, DNS, a firewall, or [bot] api_server)",
            file=out,
        )
        return False
    except TelegramAPIError as error:
        print(f"✗ the Bot API at {server} answered: {error.message}", file=out)
        return False
    finally:
        await bot.session.close()
    print(f"✓ Telegram: the bot is @{me.username} (id {me.id})", file=out)
    if hook is not None and hook.url:
        # Telegram refuses getUpdates while a webhook is set; `run` deletes it first.
        print(
            f"· a webhook is still set ({hook.url}) while [bot] mode is polling: "
            "`python -m bot run` deletes it at start (its pending updates are kept)",
            file=out,
        )
    if not me.can_join_groups:
        print(
            "✗ the bot cannot be added to groups: @BotFather, /mybots → Bot Settings → "
            "Allow Groups? → Turn groups on",
            file=out,
        )
        return False
    if not me.can_read_all_group_messages:
        print(
            "· privacy mode is on: the bot sees everything written in a group only as its "
            "administrator, which it must be anyway (to delete out-of-turn messages)",
            file=out,
        )
    return True
