"""Webhook mode's settings: the address, the path we listen on, the secret (issue 10)."""

from __future__ import annotations

from pathlib import Path

import pytest
from pydantic import ValidationError

from bot.config import load_config, valid_webhook_secret
from handlers.webhook import listening_path, new_secret


def config_with(tmp_path: Path, bot_section: str) -> Path:
    path = tmp_path / "config.toml"
    path.write_text(f"[bot]\n{bot_section}\n", encoding="utf-8")
    return path


def test_webhook_mode_needs_an_address(tmp_path: Path) -> None:
    with pytest.raises(ValidationError, match="webhook mode needs"):
        load_config(config_with(tmp_path, 'mode = "webhook"'), env={})


@pytest.mark.parametrize("url", ["ftp://example.org/hook", "https:///hook", "example.org/hook"])
def test_a_webhook_address_telegram_cannot_call_is_refused(tmp_path: Path, url: str) -> None:
    with pytest.raises(ValidationError, match="webhook_url"):
        load_config(config_with(tmp_path, f'mode = "webhook"\nwebhook_url = "{url}"'), env={})


@pytest.mark.parametrize(
    "secret",
    ["short", "x" * 31, "x" * 257, "a+b/c=" * 8, "пароль" * 8, "has spaces in it" * 3],
)
def test_a_weak_or_unsendable_secret_is_refused(tmp_path: Path, secret: str) -> None:
    with pytest.raises(ValidationError, match="webhook_secret"):
        load_config(config_with(tmp_path, f'webhook_secret = "{secret}"'), env={})


def test_an_empty_secret_means_a_random_one_each_start(tmp_path: Path) -> None:
    config = load_config(config_with(tmp_path, 'webhook_secret = ""'), env={})
    assert config.bot.webhook_secret is None
    first, second = new_secret(), new_secret()
    assert first != second
    assert valid_webhook_secret(first) and len(first) == 64


def test_a_configured_secret_is_kept_and_never_shown(tmp_path: Path) -> None:
    secret = "A-z_09" * 6
    config = load_config(config_with(tmp_path, f'webhook_secret = "{secret}"'), env={})
    assert config.bot.webhook_secret is not None
    assert config.bot.webhook_secret.get_secret_value() == secret
    assert secret not in repr(config)


@pytest.mark.parametrize(
    ("url", "path"),
    [
        ("https://mafia.example.org/telegram/updates", "/telegram/updates"),
        ("https://mafia.example.org:8443/", "/"),
        ("https://mafia.example.org", "/"),
        ("https://example.org/bots/mafia?x=1", "/bots/mafia"),
    ],
)
def test_the_bot_listens_on_the_path_of_its_address(url: str, path: str) -> None:
    assert listening_path(url) == path
