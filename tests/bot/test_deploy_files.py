"""The files that deploy the bot (issue 13): the image's build context, the compose
file, the systemd unit.

No Docker engine runs here, so the build context is computed the way Docker computes it
(.dockerignore's rules, in order, the last match winning) and checked against what the
Dockerfile copies and what the bot reads at run time. `systemd-analyze verify` checks the
unit where systemd is installed.
"""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def _pattern(rule: str) -> re.Pattern[str]:
    """A .dockerignore pattern (Go's filepath.Match, plus `**` for any folders)."""
    out = ""
    i = 0
    while i < len(rule):
        if rule.startswith("**/", i):
            out += "(?:.*/)?"
            i += 3
        elif rule.startswith("**", i):
            out += ".*"
            i += 2
        elif rule[i] == "*":
            out += "[^/]*"
            i += 1
        elif rule[i] == "?":
            out += "[^/]"
            i += 1
        else:
            out += re.escape(rule[i])
            i += 1
    return re.compile(out)


def build_context(root: Path) -> set[str]:
    """The files `docker build .` sends: every file not excluded by .dockerignore."""
    rules = []
    for line in (root / ".dockerignore").read_text().splitlines():
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        keep = line.startswith("!")
        rules.append((keep, _pattern(line.removeprefix("!").strip("/"))))
    sent = set()
    for path in root.rglob("*"):
        if not path.is_file():
            continue
        name = path.relative_to(root).as_posix()
        parts = name.split("/")
        prefixes = ["/".join(parts[: k + 1]) for k in range(len(parts))]
        excluded = False
        for keep, pattern in rules:
            if any(pattern.fullmatch(p) for p in prefixes):
                excluded = not keep
        if not excluded:
            sent.add(name)
    return sent


@pytest.fixture(scope="module")
def context() -> set[str]:
    return build_context(ROOT)


def test_the_image_gets_the_code_the_lock_and_what_the_bot_reads(context: set[str]) -> None:
    needed = {"pyproject.toml", "requirements.lock", "README.md"}
    for package in ("bot", "handlers", "storage"):
        for path in (ROOT / package).rglob("*"):
            if path.suffix in (".py", ".toml", ".json") and "__pycache__" not in path.parts:
                needed.add(path.relative_to(ROOT).as_posix())
    assert "bot/views/locales/ru.toml" in needed
    assert needed <= context, sorted(needed - context)


def test_every_copy_of_the_dockerfile_finds_its_source(context: set[str]) -> None:
    dockerfile = (ROOT / "Dockerfile").read_text()
    sources = []
    for line in dockerfile.splitlines():
        if line.startswith("COPY "):
            *found, _target = line.split()[1:]
            sources += found
    assert sources
    for source in sources:
        assert source in context or any(f.startswith(f"{source}/") for f in context), source


def test_no_secret_and_no_clutter_goes_into_the_image(context: set[str]) -> None:
    for name in context:
        first = name.split("/")[0]
        assert first not in {".venv", ".git", "tests", "docs", "deploy", ".env"}, name
        assert not name.endswith((".pyc", ".sqlite3", "-wal", "-shm")), name
        assert name != "config.toml", name


def test_the_image_runs_as_its_own_user_with_the_database_on_a_volume() -> None:
    dockerfile = (ROOT / "Dockerfile").read_text()
    assert dockerfile.startswith("#") and "FROM python:3.11-slim" in dockerfile
    assert re.search(r"^USER mafia$", dockerfile, re.M)
    assert 'VOLUME ["/data"]' in dockerfile and "MAFIA_DATABASE=/data/" in dockerfile
    # The lock is installed as it is (no second resolution) and then checked whole.
    assert "--require-hashes --no-deps -r requirements.lock && pip check" in dockerfile
    # Issue 23: the start checks what no restart mends and waits for Telegram itself.
    assert "python -m bot check --token-required --offline && exec python -m bot run" in dockerfile


def test_compose_has_a_polling_and_a_webhook_profile_with_the_secret() -> None:
    compose = (ROOT / "compose.yaml").read_text()
    assert 'profiles: ["polling"]' in compose and 'profiles: ["webhook"]' in compose
    assert "MAFIA_WEBHOOK_SECRET" in compose and "${MAFIA_DOMAIN:-}" in compose
    # A required variable (`:?`) would stop the polling profile too: compose reads them all.
    assert ":?" not in compose
    caddy = (ROOT / "deploy" / "Caddyfile").read_text()
    assert "X-Telegram-Bot-Api-Secret-Token {$MAFIA_WEBHOOK_SECRET:unset}" in caddy
    assert "reverse_proxy bot:8080" in caddy
    # Every variable compose reads from .env is explained in the example.
    example = (ROOT / "deploy" / "env.example").read_text()
    for name in {*re.findall(r"\$\{(\w+)", compose), "MAFIA_WEBHOOK_SECRET", "MAFIA_BOT_TOKEN"}:
        assert re.search(rf"^{name}=", example, re.M), name


def _service(compose: str, name: str) -> str:
    """One service's block of compose.yaml, as written (two-space indented)."""
    found = re.search(rf"^  {name}:\n((?:    .*\n|\n)+)", compose, re.M)
    assert found, name
    return found.group(1)


def test_the_live_page_is_served_through_caddy_in_either_profile() -> None:
    """Issue 23: the page listened on 127.0.0.1 inside the container, nothing set [web]
    from the environment, and the Caddyfile answered 404 to everything but the webhook."""
    compose = (ROOT / "compose.yaml").read_text()
    # The page listens where Caddy reaches it, in both bot services (the anchor's
    # environment is merged into each, since a service's own `environment` replaces it).
    assert "MAFIA_WEB_HOST: 0.0.0.0" in compose
    for name in ("bot", "bot-webhook"):
        assert "<<: *bot-environment" in _service(compose, name), name
    assert "aliases: [bot]" in compose
    caddy_service = _service(compose, "caddy")
    assert 'profiles: ["webhook", "page"]' in caddy_service
    # Caddy gets what its Caddyfile reads and nothing more: never the bot's token.
    assert "env_file" not in caddy_service and "MAFIA_BOT_TOKEN" not in caddy_service
    caddy = (ROOT / "deploy" / "Caddyfile").read_text()
    assert "reverse_proxy bot:8081" in caddy
    routed = re.search(r"@page path (.+)", caddy)
    assert routed
    patterns = routed.group(1).split()
    # Every route bot/web/page.py serves is one Caddy passes on.
    web = (ROOT / "bot" / "web" / "page.py").read_text()
    for route in re.findall(r'add_(?:get|post)\("([^"]+)"', web):
        assert any(
            route == p or (p.endswith("*") and route.startswith(p[:-1])) for p in patterns
        ), route
    # The environment reaches [web] and the time zone.
    from bot.config import load_config

    config = load_config(
        None,
        env={
            "MAFIA_WEB_ENABLED": "1",
            "MAFIA_WEB_HOST": "0.0.0.0",
            "MAFIA_WEB_PORT": "8081",
            "MAFIA_WEB_PUBLIC_URL": "https://mafia.example.org",
            "MAFIA_TIMEZONE": "Asia/Yekaterinburg",
        },
    )
    assert config.web.enabled and config.web.host == "0.0.0.0" and config.web.port == 8081
    assert config.web.base_url == "https://mafia.example.org"
    assert config.bot.timezone == "Asia/Yekaterinburg"
    off = load_config(None, env={"MAFIA_WEB_ENABLED": "0"})
    assert not off.web.enabled


def test_the_token_file_is_never_committed() -> None:
    """compose.yaml's .env holds the token: git must not offer to add it."""
    ignored = (ROOT / ".gitignore").read_text().splitlines()
    assert ".env" in ignored
    if shutil.which("git") and (ROOT / ".git").exists():
        done = subprocess.run(
            ["git", "check-ignore", "-q", ".env"], cwd=ROOT, check=False, timeout=30
        )
        assert done.returncode == 0


def test_the_systemd_unit_restarts_checks_first_and_keeps_the_database_private() -> None:
    unit = (ROOT / "deploy" / "mafia-table.service").read_text()
    assert "Restart=on-failure" in unit
    assert "StateDirectoryMode=0700" in unit and "UMask=0077" in unit
    assert "ExecStartPre=/opt/mafia-table/.venv/bin/python -m bot check" in unit
    # Issue 23: the database's path is the config's alone, which the nightly backup reads
    # too; the unit's own MAFIA_DATABASE made the cron line back up another file.
    assert "MAFIA_DATABASE" not in unit
    assert "Environment=MAFIA_CONFIG=/etc/mafia-table/config.toml" in unit
    assert 'database = "/var/lib/mafia-table/mafia.sqlite3"' in unit
    # A configuration error is not retried; a network still coming up is waited for.
    assert "RestartPreventExitStatus=78" in unit
    assert "check --token-required --offline" in unit
    # Every step of the set-up is in the header: user, checkout, .venv, config 0640.
    for step in ("useradd", "make install", "-m 0640", "systemctl enable"):
        assert step in unit, step


@pytest.mark.skipif(shutil.which("systemd-analyze") is None, reason="no systemd-analyze here")
def test_the_systemd_unit_is_valid(tmp_path: Path) -> None:
    # The unit names /opt/mafia-table; verify it with this checkout's interpreter there.
    venv_python = ROOT / ".venv" / "bin" / "python"
    text = (ROOT / "deploy" / "mafia-table.service").read_text()
    text = text.replace("/opt/mafia-table/.venv/bin/python", str(venv_python))
    text = text.replace("/opt/mafia-table", str(ROOT))
    unit = tmp_path / "mafia-table.service"
    unit.write_text(text)
    done = subprocess.run(
        ["systemd-analyze", "verify", "--man=no", str(unit)],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    problems = [
        line
        for line in done.stderr.splitlines()
        # A container without systemd running as PID 1 says so; that is not the unit's fault.
        if "mafia-table.service" in line
    ]
    assert done.returncode == 0 and not problems, done.stderr


def test_make_installs_each_lock_as_it_is_then_checks_it() -> None:
    # A lock installed with pip's resolver on could stop installing, unchanged, the day a
    # dependency's extra (pytest-cov's coverage[toml]) met a newer release on the index.
    makefile = (ROOT / "Makefile").read_text()
    for lock in ("$(LOCK)", "$(DEV_LOCK)"):
        assert f"pip install --quiet --require-hashes --no-deps -r {lock}\n" in makefile, lock
    assert makefile.count("$(PY) -m pip check") == 2
