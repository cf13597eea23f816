"""`python -m bot check` and `python -m bot backup` (issue 13).

The check says in plain words what stops the bot from running (a mistyped or revoked
token, a typo in a setting, a database it cannot open, a Bot API it cannot reach), never
with a traceback and never with the token. The backup is a consistent, owner-only copy
made while the bot writes, which the bot opens again as its database.
"""

from __future__ import annotations

import io
import os
import sqlite3
import stat
import subprocess
import sys
from pathlib import Path

import aiohttp
import pytest

from bot.__main__ import main
from bot.cli.backup import backup
from bot.cli.check import CONFIG, check
from sandbox import Sandbox
from storage.db import Database
from storage.migrations import MIGRATIONS

ROOT = Path(__file__).resolve().parents[2]


def write_config(folder: Path, bot_section: str, more: str = "") -> Path:
    path = folder / "config.toml"
    path.write_text(f"[bot]\n{bot_section}\n{more}", encoding="utf-8")
    return path


async def run_check(config: Path, lang: str = "en", **kwargs: bool) -> tuple[int, str]:
    """The check's lines in English (they follow `[bot] language`, Russian by default)."""
    out = io.StringIO()
    status = await check(config, out, env={"MAFIA_LANGUAGE": lang}, **kwargs)
    return status, out.getvalue()


async def test_a_ready_bot_passes_every_check(tmp_path: Path) -> None:
    async with Sandbox() as sandbox:
        config = write_config(
            tmp_path, f'token = "{sandbox.token}"\napi_server = "{sandbox.base_url}"'
        )
        status, said = await run_check(config)
        assert sandbox.calls("getMe")
    assert status == 0, said
    assert "✗" not in said
    assert "does not exist yet; the bot creates it at start" in said
    assert f"(schema version {MIGRATIONS[-1].version})" in said
    assert "@mafia_table_bot" in said
    assert "privacy mode is on" in said  # the sandbox's bot, like a new one, has it on
    assert sandbox.token not in said and "sandbox-token" not in said
    # Issue 23: the check looks and changes nothing; the start creates the file.
    assert not (tmp_path / "mafia.sqlite3").exists()


async def test_a_webhook_left_set_in_polling_mode_is_reported(tmp_path: Path) -> None:
    """Issue 23: while a webhook is set Telegram refuses getUpdates; check says so (and
    that `run` deletes it at start) instead of "all is well"."""
    async with Sandbox() as sandbox:
        sandbox.world.updates.set_webhook(None)
        config = write_config(
            tmp_path, f'token = "{sandbox.token}"\napi_server = "{sandbox.base_url}"'
        )
        status, said = await run_check(config)
        assert "webhook is still set" not in said
        async with aiohttp.ClientSession() as client:
            answer = await client.post(
                f"{sandbox.base_url}/bot{sandbox.token}/setWebhook",
                data={"url": "https://mafia.example.org/telegram/updates"},
            )
            assert (await answer.json())["ok"]
        status, said = await run_check(config)
    assert status == 0, said
    assert "a webhook is still set (https://mafia.example.org/telegram/updates)" in said
    assert "deletes it at start" in said


async def test_a_revoked_token_is_named_without_a_traceback(tmp_path: Path) -> None:
    async with Sandbox() as sandbox:
        config = write_config(
            tmp_path, f'token = "123456:revoked-token"\napi_server = "{sandbox.base_url}"'
        )
        status, said = await run_check(config)
    assert status == CONFIG  # a start would not mend it: systemd does not retry
    assert "Telegram refuses the token (Unauthorized)" in said
    assert "revoked-token" not in said and "Traceback" not in said


async def test_an_unreachable_api_is_named(tmp_path: Path) -> None:
    config = write_config(tmp_path, 'token = "123456:abc"\napi_server = "http://127.0.0.1:9"')
    status, said = await run_check(config)
    assert status == 1
    assert "cannot reach the Bot API at http://127.0.0.1:9" in said


@pytest.mark.parametrize(
    ("section", "named"),
    [
        ('token = "123456 abcdef"', "[bot] token: not a bot token"),
        ('token = "bot123456:abcdef"', "[bot] token: not a bot token"),
        ('token = "123456:abc"\nlanguge = "en"', "[bot] languge: no such setting"),
        ('token = "123456:abc"\nwebhook_port = 0', "[bot] webhook_port: Input should be"),
    ],
)
async def test_a_bad_config_is_named_in_plain_words(
    tmp_path: Path, section: str, named: str
) -> None:
    status, said = await run_check(write_config(tmp_path, section))
    assert status == CONFIG
    assert named in said, said
    assert "abcdef" not in said  # not even a mistyped token is repeated
    assert not (tmp_path / "mafia.sqlite3").exists()  # nothing was touched


async def test_a_database_it_cannot_open_is_named(tmp_path: Path) -> None:
    (tmp_path / "mafia.sqlite3").write_bytes(b"not a database at all" * 100)
    status, said = await run_check(write_config(tmp_path, 'token = "123456:abc"'))
    assert status == CONFIG
    assert "✗ database:" in said and "file is not a database" in said
    missing = write_config(tmp_path, 'database = "no/such/folder/mafia.sqlite3"')
    status, said = await run_check(missing)
    assert status == CONFIG and "does not exist" in said


async def test_an_older_database_is_named_and_left_for_the_start_to_migrate(
    tmp_path: Path,
) -> None:
    """Issue 23: the check says the start will migrate, so that a backup comes first; it
    migrated the file itself before."""
    database = await Database.open(tmp_path / "mafia.sqlite3", migrations=MIGRATIONS[:1])
    await database.close()
    status, said = await run_check(write_config(tmp_path, ""))
    assert status == 0, said
    latest = MIGRATIONS[-1].version
    assert f"(schema version 1); the bot migrates it to version {latest} at start" in said
    assert "python -m bot backup" in said
    with sqlite3.connect(tmp_path / "mafia.sqlite3") as connection:
        assert connection.execute("PRAGMA user_version").fetchone()[0] == 1


async def test_no_token_is_the_demo_unless_a_token_is_required(tmp_path: Path) -> None:
    config = write_config(tmp_path, 'token = ""')
    status, said = await run_check(config)
    assert status == 0 and "plays the offline sandbox demo" in said
    status, said = await run_check(config, token_required=True)
    assert status == CONFIG and "no bot token" in said


def test_run_with_a_mistyped_token_says_so_without_a_traceback(tmp_path: Path) -> None:
    """Before: aiogram's TokenValidationError, as a traceback."""
    config = write_config(tmp_path, 'token = "12345:abc def"')
    done = subprocess.run(
        [sys.executable, "-m", "bot", "--config", str(config), "run"],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=tmp_path,
        env={**os.environ, "MAFIA_BOT_TOKEN": "", "MAFIA_LANGUAGE": "en"},
        check=False,
    )
    assert done.returncode == CONFIG
    assert "[bot] token: not a bot token" in done.stderr
    assert "Traceback" not in done.stderr + done.stdout


# --- backups ------------------------------------------------------------------------------


async def test_a_backup_while_the_bot_writes_is_whole_private_and_opens_again(
    tmp_path: Path,
) -> None:
    path = tmp_path / "mafia.sqlite3"
    database = await Database.open(path)
    try:
        async with database.transaction():
            await database.execute(
                "INSERT INTO chats (chat_id, type, title) VALUES (-1001, 'supergroup', 'Club')"
            )
        # A write in progress: the copy has what was committed, nothing of this.
        async with database.transaction():
            await database.execute(
                "INSERT INTO chats (chat_id, type, title) VALUES (-1002, 'supergroup', 'Half')"
            )
            out = io.StringIO()
            folder = tmp_path / "backups"
            folder.mkdir()
            assert backup(path, folder, out, now=0) == 0, out.getvalue()
    finally:
        await database.close()
    copy = folder / "mafia-19700101-000000.sqlite3"
    assert f"backed up to {copy}" in out.getvalue()
    assert stat.S_IMODE(copy.stat().st_mode) == 0o600
    assert [p.name for p in folder.iterdir()] == [copy.name]  # no partial file, no -wal
    with sqlite3.connect(copy) as raw:
        assert raw.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        titles = raw.execute("SELECT title FROM chats").fetchall()
    assert titles == [("Club",)]
    # Restoring is putting the copy where the database was: the bot opens it as is.
    restored = await Database.open(copy)
    await restored.close()


def test_a_backup_never_overwrites_and_needs_a_database(tmp_path: Path) -> None:
    out = io.StringIO()
    assert backup(tmp_path / "none.sqlite3", tmp_path / "copy.sqlite3", out) == 1
    assert "there is no database" in out.getvalue()
    source = tmp_path / "mafia.sqlite3"
    sqlite3.connect(source).close()
    existing = tmp_path / "copy.sqlite3"
    existing.write_text("keep me")
    assert backup(source, existing, out) == 1
    assert existing.read_text() == "keep me" and "never overwrites" in out.getvalue()


def test_the_backup_command_takes_the_database_from_the_config(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    sqlite3.connect(tmp_path / "club.sqlite3").close()
    config = write_config(tmp_path, 'database = "club.sqlite3"')
    assert main(["--config", str(config), "backup", str(tmp_path / "copy.sqlite3")]) == 0
    assert "club.sqlite3 backed up to" in capsys.readouterr().out
    assert (tmp_path / "copy.sqlite3").is_file()


def test_a_container_is_configured_by_its_environment_alone(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from bot.cli.check import read_config

    env = {
        "MAFIA_BOT_TOKEN": "123456:abc",
        "MAFIA_DATABASE": str(tmp_path / "data" / "mafia.sqlite3"),
        "MAFIA_JUDGES": "111, 222",
        "MAFIA_MODE": "webhook",
        "MAFIA_WEBHOOK_URL": "https://mafia.example.org/telegram/updates",
        "MAFIA_WEBHOOK_SECRET": "s" * 40,
        "MAFIA_WEBHOOK_HOST": "0.0.0.0",
        "MAFIA_WEBHOOK_PORT": "8080",
        "MAFIA_LOG_FORMAT": "json",
    }
    monkeypatch.chdir(tmp_path)  # no ./config.toml here
    config = read_config(None, env)
    assert config.access.judges == [111, 222]
    assert config.bot.mode == "webhook" and config.bot.webhook_port == 8080
    assert config.bot.log_format == "json"
    assert config.database_path == tmp_path / "data" / "mafia.sqlite3"


def test_a_nightly_backup_into_a_folder_path_makes_the_folder_and_goes_on(tmp_path: Path) -> None:
    """`backup DIR/` into a folder that does not exist yet makes it (owner-only) and puts
    the copy inside; the next night's run adds its own file. Before, the first run wrote
    a file named like the folder and every later one stopped at "exists already"."""
    source = tmp_path / "mafia.sqlite3"
    sqlite3.connect(source).close()
    folder = tmp_path / "backups"
    out = io.StringIO()
    assert backup(source, f"{folder}/", out, now=0) == 0, out.getvalue()
    assert backup(source, f"{folder}/", out, now=86_400) == 0, out.getvalue()
    assert folder.is_dir() and stat.S_IMODE(folder.stat().st_mode) == 0o700
    assert sorted(p.name for p in folder.iterdir()) == [
        "mafia-19700101-000000.sqlite3",
        "mafia-19700102-000000.sqlite3",
    ]
    # What it read, and how much that holds: an empty database shows as one.
    assert f"{source} backed up to" in out.getvalue()
    assert "0 games, 0 tournaments" in out.getvalue()


def test_a_link_planted_beside_the_backup_cannot_turn_it_against_a_file(tmp_path: Path) -> None:
    """The copy is written to a file created exclusively under a fresh name: a symlink put
    at a name it might use (its old fixed partial name, or the target's) never has it
    write, or truncate, the file the link points at."""
    source = tmp_path / "mafia.sqlite3"
    with sqlite3.connect(source) as raw:
        raw.execute("CREATE TABLE games (game_id INTEGER)")
        raw.execute("INSERT INTO games VALUES (1), (2)")
    raw.close()
    victim = tmp_path / "victim.txt"
    victim.write_text("precious")
    folder = tmp_path / "backups"
    folder.mkdir(mode=0o700)
    name = "mafia-19700101-000000.sqlite3"
    (folder / f".{name}.partial").symlink_to(victim)
    out = io.StringIO()
    assert backup(source, folder, out, now=0) == 0, out.getvalue()
    assert victim.read_text() == "precious"
    assert "2 games, 0 tournaments" in out.getvalue()
    (folder / "next.sqlite3").symlink_to(victim)
    assert backup(source, folder / "next.sqlite3", out) == 1
    assert victim.read_text() == "precious" and "never overwrites" in out.getvalue()


def test_a_backup_refuses_a_folder_that_others_may_write_in(tmp_path: Path) -> None:
    source = tmp_path / "mafia.sqlite3"
    sqlite3.connect(source).close()
    shared = tmp_path / "shared"
    shared.mkdir()
    shared.chmod(0o777)
    out = io.StringIO()
    assert backup(source, shared, out, now=0) == 1
    assert "others may write in" in out.getvalue() and list(shared.iterdir()) == []
    shared.chmod(0o1777)  # sticky, like /tmp: others cannot move our files there
    assert backup(source, shared, out, now=0) == 0, out.getvalue()
