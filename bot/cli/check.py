"""`python -m bot check`: is this bot ready to run? Said in plain words, never a traceback.

It reads the config the way `run` does, checks the token's shape, looks at the database
without changing it (a start creates or migrates it; the check only says which it will
do), checks that the page's and the webhook's settings can be served, and asks Telegram
who the bot is (getMe). `make run` does this first; so do the container and the systemd
unit, and `run` itself repeats the part that needs no network (`preflight`). Each step
prints one line, in `[bot] language`; the first that fails says what is wrong and what to
do. The token is never printed.

The exit status tells a supervisor what to do: 0 the bot can run; `CONFIG` (78, EX_CONFIG)
the config, the token or the database cannot be used, which no restart mends (the systemd
unit's RestartPreventExitStatus); `PROBLEM` (1) Telegram cannot be reached just now.
"""

from __future__ import annotations

import asyncio
import os
import sqlite3
import tomllib
from pathlib import Path
from typing import Any, TextIO

from pydantic import ValidationError

from bot.config import Config, load_config
from bot.views.i18n import DEFAULT_LANGUAGE, LANGUAGES, Texts

OK, PROBLEM = 0, 1
# sysexits.h's EX_CONFIG: what only a person can mend. systemd does not restart on it.
CONFIG = 78
GET_ME_TIMEOUT = 20.0  # seconds: a Bot API that has not answered by then is unreachable

_texts: Texts | None = None


def texts() -> Texts:
    global _texts
    if _texts is None:
        _texts = Texts()
    return _texts


class ConfigProblem(Exception):
    """The config cannot be used; the message says why, for the person who wrote it."""


def config_file(path: Path | None, env: dict[str, str]) -> Path | None:
    """The file `load_config` reads: --config, $MAFIA_CONFIG, ./config.toml, or none."""
    if path is None and env.get("MAFIA_CONFIG"):
        path = Path(env["MAFIA_CONFIG"])
    if path is None and Path("config.toml").exists():
        path = Path("config.toml")
    return path


def language(path: Path | None, env: dict[str, str] | None = None) -> str:
    """The language of the check's lines, even when the config cannot be used: the
    environment's MAFIA_LANGUAGE, else the file's `[bot] language` if it can be read."""
    env = dict(os.environ) if env is None else env
    wanted: Any = env.get("MAFIA_LANGUAGE")
    file = config_file(path, env)
    if not wanted and file is not None:
        try:
            with file.open("rb") as f:
                wanted = tomllib.load(f).get("bot", {}).get("language")
        except (OSError, tomllib.TOMLDecodeError, AttributeError):
            wanted = None
    return wanted if wanted in LANGUAGES else DEFAULT_LANGUAGE


def read_config(path: Path | None, env: dict[str, str] | None = None) -> Config:
    """`load_config`, its failures turned into a `ConfigProblem` a person can act on."""
    env = dict(os.environ) if env is None else env
    lang = language(path, env)
    t = texts()
    file = config_file(path, env)
    if file is not None and not file.is_file():
        raise ConfigProblem(t(lang, "check.config_missing", path=file))
    try:
        return load_config(file, env)
    except PermissionError:
        raise ConfigProblem(t(lang, "check.config_unreadable", path=file)) from None
    except tomllib.TOMLDecodeError as error:
        raise ConfigProblem(t(lang, "check.config_not_toml", path=file, error=error)) from None
    except ValidationError as error:
        lines = [_plain(e, lang) for e in error.errors(include_url=False, include_input=False)]
        where = file if file is not None else t(lang, "check.the_environment")
        problem = t(lang, "check.config_invalid", path=where) + "\n" + "\n".join(lines)
        raise ConfigProblem(problem) from None


def _plain(error: object, lang: str) -> str:
    """One of pydantic's errors as "  [bot] token: what is wrong", never the value itself."""
    assert isinstance(error, dict)
    loc = [str(part) for part in error.get("loc", ())]
    message = str(error.get("msg", "")).removeprefix("Value error, ")
    if error.get("type") == "extra_forbidden":
        message = texts()(lang, "check.no_such_setting")
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
    offline: bool = False,
) -> int:
    """Every check `run` depends on, one line each; 0 if the bot can run (see the module's
    note for the other statuses). `offline`: everything but Telegram, which `run` waits
    for itself (the systemd unit, so that a network still coming up is not a failure)."""
    env = dict(os.environ) if env is None else env
    try:
        config = read_config(config_path, env)
    except ConfigProblem as problem:
        t = texts()
        print(t(language(config_path, env), "check.config_problem", error=problem), file=out)
        return CONFIG
    status = preflight(config, config_file(config_path, env), out)
    if status != OK:
        return status
    t, lang = texts(), config.bot.language
    if config.bot.token is None and token_required:
        print(t(lang, "check.no_token_required"), file=out)
        return CONFIG
    if config.bot.token is None:
        print(t(lang, "check.no_token_demo"), file=out)
        return OK
    print(t(lang, "check.token_ok"), file=out)
    if offline:
        print(t(lang, "check.offline"), file=out)
        return OK
    return await _telegram(config, out)


def preflight(config: Config, file: Path | None, out: TextIO) -> int:
    """What `run` needs before it talks to anyone: the database and the listeners. The
    same lines as the check's, so that `run` fails the way `check` warned it would."""
    t, lang = texts(), config.bot.language
    where = file if file is not None else t(lang, "check.config_none")
    print(t(lang, "check.config_ok", path=where), file=out)
    if not _database(config, out):
        return CONFIG
    if config.web.enabled:
        print(
            t(
                lang,
                "check.web_on",
                host=config.web.host,
                port=config.web.port,
                url=f"{config.web.base_url}/t/…",
            ),
            file=out,
        )
    else:
        print(t(lang, "check.web_off"), file=out)
    if config.bot.mode == "webhook":
        print(
            t(
                lang,
                "check.webhook_mode",
                url=config.bot.webhook_url,
                host=config.bot.webhook_host,
                port=config.bot.webhook_port,
            ),
            file=out,
        )
    return OK


def _database(config: Config, out: TextIO) -> bool:
    """The database file as a start will find it, looked at without a write: a start
    creates it or migrates it, and a check that did so behind the organiser's back would
    upgrade a database that a backup should have been made of first."""
    from storage.migrations import MIGRATIONS

    t, lang = texts(), config.bot.language
    latest = MIGRATIONS[-1].version if MIGRATIONS else 0
    path = config.database_path
    shown = path.resolve()

    def problem(key: str, **values: object) -> bool:
        print(t(lang, key, path=shown, **values), file=out)
        return False

    if path.is_dir():
        return problem("check.db_is_folder")
    if not path.parent.is_dir():
        return problem("check.db_folder_missing", folder=path.parent.resolve())
    # WAL writes its -wal and -shm files beside the database: the folder must take them.
    if not os.access(path.parent, os.W_OK | os.X_OK):
        return problem("check.db_folder_read_only", folder=path.parent.resolve())
    if not path.exists() or path.stat().st_size == 0:
        print(t(lang, "check.db_new", path=shown, version=latest), file=out)
        return True
    if not os.access(path, os.R_OK | os.W_OK):
        return problem("check.db_cannot_write")
    try:
        with sqlite3.connect(f"{shown.as_uri()}?mode=ro", uri=True) as connection:
            version = int(connection.execute("PRAGMA user_version").fetchone()[0])
            connection.execute("SELECT count(*) FROM sqlite_master").fetchone()
    except sqlite3.Error as error:
        return problem("check.db_unusable", error=error)
    if version > latest:
        return problem("check.db_too_new", old=version, version=latest)
    if version < latest:
        print(t(lang, "check.db_older", path=shown, old=version, version=latest), file=out)
    else:
        print(t(lang, "check.db_current", path=shown, version=latest), file=out)
    return True


async def _telegram(config: Config, out: TextIO) -> int:
    from aiogram import Bot
    from aiogram.client.session.aiohttp import AiohttpSession
    from aiogram.client.telegram import TelegramAPIServer
    from aiogram.exceptions import (
        AiogramError,
        TelegramAPIError,
        TelegramNetworkError,
        TelegramNotFound,
        TelegramServerError,
        TelegramUnauthorizedError,
    )

    t, lang = texts(), config.bot.language
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
        print(t(lang, "check.unauthorized"), file=out)
        return CONFIG
    except TelegramNotFound:
        print(t(lang, "check.not_found", url=server), file=out)
        return CONFIG
    except (TelegramNetworkError, TelegramServerError, TimeoutError, OSError) as error:
        said = str(error) or type(error).__name__
        print(t(lang, "check.unreachable", url=server, error=said), file=out)
        return PROBLEM
    except TelegramAPIError as error:
        print(t(lang, "check.api_answered", url=server, error=error.message), file=out)
        return CONFIG
    except AiogramError:
        # A web server, a captive portal or a proxy's error page: not a Bot API.
        print(t(lang, "check.not_bot_api", url=server), file=out)
        return CONFIG
    finally:
        await bot.session.close()
    print(t(lang, "check.telegram_ok", name=me.username, id=me.id), file=out)
    if hook is not None and hook.url:
        # Telegram refuses getUpdates while a webhook is set; `run` deletes it first.
        print(t(lang, "check.webhook_left", url=hook.url), file=out)
    if not me.can_join_groups:
        print(t(lang, "check.no_groups"), file=out)
        return CONFIG
    if not me.can_read_all_group_messages:
        print(t(lang, "check.privacy_on"), file=out)
    return OK
