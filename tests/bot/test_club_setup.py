"""A club's set-up without traps (issue 23 §1–§2): what `check` accepts, `run` accepts;
what `run` refuses, it refuses in `check`'s words with a status systemd understands; a
network still coming up is waited for; the documented backup line reads the bot's
database; the example config works as its comments say.
"""

from __future__ import annotations

import asyncio
import contextlib
import io
import logging
import os
import re
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest
from aiohttp import web

import bot
from bot.__main__ import main
from bot.app import StartRefused, make_bot, reach_telegram
from bot.cli.check import CONFIG, PROBLEM, check
from bot.cli.restore import RunLock, restore
from bot.config import load_config
from bot.views.i18n import Texts
from sandbox import Sandbox
from storage.db import Database
from storage.migrations import MIGRATIONS
from tests.bot.test_check_and_backup import run_check, write_config

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize(
    ("webhook", "named"),
    [
        ("http://mafia.example.org/telegram/updates", "https:// addresses only"),
        ("https://mafia.example.org:8080/telegram/updates", "not 8080"),
        ("https://mafia.example.org:99999/hook", "port is not a number"),
    ],
)
async def test_a_webhook_telegram_would_refuse_is_refused_by_the_check(
    tmp_path: Path, webhook: str, named: str
) -> None:
    """Before: the check passed, and `run` died at setWebhook with a traceback."""
    section = f'token = "123456:abc"\nmode = "webhook"\nwebhook_url = "{webhook}"'
    status, said = await run_check(write_config(tmp_path, section))
    assert status == CONFIG, said
    assert "[bot] webhook_url" in said or "[bot]:" in said, said
    assert named in said, said


def test_a_local_bot_api_server_may_call_plain_http_on_any_port(tmp_path: Path) -> None:
    """Telegram's rule is Telegram's: a `--local` Bot API server calls any address."""
    section = (
        'api_server = "http://127.0.0.1:8081"\nmode = "webhook"\n'
        'webhook_url = "http://127.0.0.1:9000/hook"'
    )
    config = load_config(write_config(tmp_path, section), env={})
    assert config.bot.webhook_url == "http://127.0.0.1:9000/hook"


async def test_the_page_on_the_webhooks_port_is_refused_by_the_check(tmp_path: Path) -> None:
    section = (
        'token = "123456:abc"\nmode = "webhook"\n'
        'webhook_url = "https://mafia.example.org/telegram/updates"\nwebhook_port = 8080'
    )
    status, said = await run_check(
        write_config(tmp_path, section, "[web]\nenabled = true\nport = 8080\n")
    )
    assert status == CONFIG
    assert "the live page and the webhook need a port each" in said
    # On another port, the check names both listeners.
    status, said = await run_check(
        write_config(tmp_path, section, "[web]\nenabled = true\nport = 8081\n"),
        offline=True,
    )
    assert status == 0, said
    assert "· live page: listening on 127.0.0.1:8081" in said
    assert "· webhook mode:" in said


async def test_a_database_path_that_is_a_folder_is_named_by_check_and_by_run(
    tmp_path: Path,
) -> None:
    (tmp_path / "data").mkdir()
    config = write_config(tmp_path, 'token = "123456:abc"\ndatabase = "data"')
    status, said = await run_check(config, offline=True)
    assert status == CONFIG
    assert "is a folder; [bot] database must name a file" in said
    # `run` itself, as systemd starts it: one line, status 78, no traceback.
    done = await asyncio.to_thread(
        subprocess.run,
        [sys.executable, "-m", "bot", "--config", str(config), "run"],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=tmp_path,
        env={**os.environ, "MAFIA_BOT_TOKEN": "", "MAFIA_LANGUAGE": ""},
        check=False,
    )
    assert done.returncode == CONFIG, done.stderr
    # Russian by default, as `[bot] language` is.
    assert "это папка" in done.stderr
    assert "Traceback" not in done.stderr + done.stdout


async def test_a_server_that_answers_a_page_is_not_a_bot_api(tmp_path: Path) -> None:
    """An `api_server` that answers HTML (a web server, a captive portal): before, the
    check raised aiogram's ClientDecodeError as a traceback."""
    app = web.Application()

    async def page(request: web.Request) -> web.Response:
        return web.Response(text="<html><body>Welcome</body></html>", content_type="text/html")

    app.router.add_route("*", "/{tail:.*}", page)
    runner = web.AppRunner(app)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    port = site._server.sockets[0].getsockname()[1]  # type: ignore[union-attr]
    try:
        config = write_config(
            tmp_path, f'token = "123456:abc"\napi_server = "http://127.0.0.1:{port}"'
        )
        status, said = await run_check(config)
    finally:
        await runner.cleanup()
    assert status == CONFIG
    assert "answers, but not as a Bot API" in said
    assert "Traceback" not in said


async def test_an_unreachable_telegram_is_a_retry_not_a_configuration_error(
    tmp_path: Path,
) -> None:
    config = write_config(tmp_path, 'token = "123456:abc"\napi_server = "http://127.0.0.1:9"')
    status, said = await run_check(config)
    assert status == PROBLEM  # systemd may retry this one
    # The unit's own check leaves Telegram to the bot.
    status, said = await run_check(config, offline=True)
    assert status == 0, said
    assert "waits for it itself" in said


async def test_run_waits_for_telegram_with_backoff_and_one_line_a_try(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """Before: a 90-line traceback, and systemd gave up after five of them."""
    async with Sandbox() as sandbox:
        bot_ = make_bot(sandbox.token, "http://127.0.0.1:9")  # nothing listens there
        slept: list[float] = []

        async def sleep(seconds: float) -> None:
            slept.append(seconds)
            if len(slept) == 4:  # the network comes up
                bot_.session.api = make_bot(sandbox.token, sandbox.base_url).session.api

        caplog.set_level(logging.WARNING, logger="bot.app")
        try:
            await reach_telegram(bot_, Texts(), "en", sleep=sleep)
        finally:
            await bot_.session.close()
    assert slept == [1.0, 2.0, 5.0, 10.0]
    lines = [r.getMessage() for r in caplog.records if r.name == "bot.app"]
    assert len([line for line in lines if "trying again in" in line]) == 4
    assert lines[-1] == "Telegram can be reached again"
    assert not any(r.exc_info for r in caplog.records)


async def test_run_refuses_a_revoked_token_without_retrying() -> None:
    async with Sandbox() as sandbox:
        bot_ = make_bot("123456:revoked-token", sandbox.base_url)

        async def never(seconds: float) -> None:
            raise AssertionError("a revoked token is not retried")

        try:
            with pytest.raises(StartRefused, match="Unauthorized"):
                await reach_telegram(bot_, Texts(), "en", sleep=never)
        finally:
            await bot_.session.close()


async def test_the_check_speaks_the_configured_language(tmp_path: Path) -> None:
    config = write_config(tmp_path, 'token = ""')
    out = io.StringIO()
    assert await check(config, out, env={}) == 0
    said = out.getvalue()
    assert "✓ настройки:" in said and "офлайн-демо" in said
    out = io.StringIO()
    english = write_config(tmp_path, 'token = ""\nlanguage = "en"')
    assert await check(english, out, env={}) == 0
    assert "✓ config:" in out.getvalue()
    # A config that cannot be read still speaks the language it asks for.
    broken = write_config(tmp_path, 'language = "en"\nlanguge = "ru"')
    out = io.StringIO()
    assert await check(broken, out, env={}) == CONFIG
    assert "no such setting" in out.getvalue()


def test_judges_given_as_usernames_are_named_with_what_to_give_instead(tmp_path: Path) -> None:
    config = write_config(tmp_path, "", '[access]\njudges = ["@kirill"]\n')
    out = io.StringIO()
    status = asyncio.run(check(config, out, env={"MAFIA_LANGUAGE": "en"}))
    said = out.getvalue()
    assert status == CONFIG
    assert "'@kirill' is not a numeric Telegram user id" in said
    assert "@userinfobot" in said


def test_the_example_roles_table_works_uncommented_as_written(tmp_path: Path) -> None:
    """config.example.toml's [game.mafia_by_players] names 12-16 only; uncommented, it
    stopped the bot (no entry for the casual sizes 5-11)."""
    text = (ROOT / "config.example.toml").read_text()
    assert "# [game.mafia_by_players]" in text
    text = re.sub(r"^# (\[game\.mafia_by_players\])$", r"\1", text, flags=re.M)
    text = re.sub(r"^# (\d+ = \d+)$", r"\1", text, flags=re.M)
    path = tmp_path / "config.toml"
    path.write_text(text, encoding="utf-8")
    config = load_config(path, env={})
    table = config.casual_settings().mafia_by_players
    assert table[12] == 3 and table[16] == 4  # as the example says
    assert table[5] == 1  # the counts it does not list keep the default


async def test_the_readme_nightly_backup_line_reads_the_bots_database(tmp_path: Path) -> None:
    """The README's cron line, run as written (with this machine's folders for the
    server's): it reads the database the config names, not a stray file beside the
    checkout that an earlier `make run` left (issue 23: it printed ✓ with 0 games)."""
    etc, lib, opt, backups = (tmp_path / n for n in ("etc", "lib", "opt", "backups"))
    for folder in (etc, lib, opt):
        folder.mkdir()
    database = lib / "mafia.sqlite3"
    opened = await Database.open(database)
    await opened.close()
    (etc / "config.toml").write_text(f'[bot]\ndatabase = "{database}"\n', encoding="utf-8")
    # The stray database an earlier `make run` left in the checkout.
    stray = await Database.open(opt / "mafia.sqlite3")
    await stray.close()
    for readme in ("README.md", "README.ru.md"):
        block = re.search(r"```sh\n(15 4 \* \* \* .+?)```", (ROOT / readme).read_text(), re.S)
        assert block, f"{readme}: the cron line"
        line = block.group(1).replace("\\\n", " ").strip()
        # A line of /etc/cron.d: five time fields and the user, then the command.
        fields = line.split(None, 6)
        assert fields[5] == "mafia", f"{readme}: the cron line runs as the bot's user"
        command = (
            fields[6]
            .replace("/etc/mafia-table", str(etc))
            .replace("/opt/mafia-table/.venv/bin/python", sys.executable)
            .replace("/var/backups/mafia-table", str(backups))
        )
        done = await asyncio.to_thread(
            subprocess.run,
            ["sh", "-c", command],
            capture_output=True,
            text=True,
            timeout=120,
            cwd=opt,
            env={k: v for k, v in os.environ.items() if not k.startswith("MAFIA_")},
            check=False,
        )
        assert done.returncode == 0, done.stdout + done.stderr
        assert str(database) in done.stdout, done.stdout
        for copy in backups.glob("mafia-*.sqlite3"):
            copy.unlink()


def test_the_release_is_named_in_one_voice() -> None:
    """`--version`, pyproject.toml and the CHANGELOG's top entry name the same release."""
    out = io.StringIO()
    with contextlib.redirect_stdout(out), pytest.raises(SystemExit) as done:
        main(["--version"])
    assert done.value.code == 0
    assert out.getvalue().strip() == f"Mafia Table {bot.__version__}"
    pyproject = (ROOT / "pyproject.toml").read_text()
    assert f'version = "{bot.__version__}"' in pyproject
    changelog = (ROOT / "CHANGELOG.md").read_text()
    [top] = re.findall(r"^## (\S+)", changelog, re.M)[:1]
    assert top == bot.__version__
    assert "Never upgrade in the middle of a tournament" in changelog
    migrated = re.search(r"migrated to schema version (\d+)", changelog)
    assert migrated is not None, "the changelog names the schema version"
    assert MIGRATIONS[-1].version == int(migrated.group(1))


# --- restore --------------------------------------------------------------------------


async def _a_database_with_a_game(path: Path, migrations: int | None = None) -> None:
    chosen = MIGRATIONS if migrations is None else MIGRATIONS[:migrations]
    opened = await Database.open(path, migrations=chosen)
    await opened.close()


def test_restore_puts_a_backup_in_place_keeps_the_old_aside_and_migrates(tmp_path: Path) -> None:
    """Issue 23: the README's restore steps as one command."""
    data = tmp_path / "data"
    data.mkdir(mode=0o700)
    database = data / "mafia.sqlite3"
    asyncio.run(_a_database_with_a_game(database))
    old = tmp_path / "old.sqlite3"
    asyncio.run(_a_database_with_a_game(old, migrations=1))  # a backup of an older version
    config = write_config(tmp_path, f'database = "{database}"')
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        status = main(["--config", str(config), "restore", str(old)])
    said = out.getvalue()
    assert status == 0, said
    latest = MIGRATIONS[-1].version
    assert f"migrated from 1 to {latest}" in said
    kept = list(data.glob("mafia.sqlite3.before-restore-*"))
    assert kept and "kept aside" in said
    assert (database.stat().st_mode & 0o777) == 0o600
    with contextlib.closing(sqlite3.connect(database)) as db:
        assert db.execute("PRAGMA user_version").fetchone()[0] == latest


def test_restore_refuses_a_running_bots_database_and_what_is_not_a_backup(
    tmp_path: Path,
) -> None:
    database = tmp_path / "mafia.sqlite3"
    asyncio.run(_a_database_with_a_game(database))
    backup_file = tmp_path / "copy.sqlite3"
    asyncio.run(_a_database_with_a_game(backup_file))
    before = database.read_bytes()
    with RunLock(database) as lock:  # what a running bot holds
        assert lock.acquire()
        out = io.StringIO()
        assert restore(database, backup_file, out) == 1
        assert "a bot is running" in out.getvalue()
        # A second bot on the same database is refused at start.
        assert not RunLock(database).acquire()
    junk = tmp_path / "junk.sqlite3"
    junk.write_bytes(b"not a database" * 100)
    out = io.StringIO()
    assert restore(database, junk, out) == 1
    assert "cannot be restored" in out.getvalue()
    assert database.read_bytes() == before  # nothing was touched
    assert not list(tmp_path.glob("*.before-restore-*"))


async def test_a_second_bot_on_the_same_database_is_refused(tmp_path: Path) -> None:
    from bot.app import run_bot
    from bot.config import Config

    database = tmp_path / "mafia.sqlite3"
    config = Config.model_validate(
        {
            "bot": {
                "token": "123456:abc",
                "api_server": "http://127.0.0.1:9",
                "database": str(database),
            }
        }
    )
    with RunLock(database) as lock:
        assert lock.acquire()
        with pytest.raises(StartRefused, match="уже работает бот"):
            await run_bot(config)
