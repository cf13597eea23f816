"""The live page's settings (issue 12): off by default; an address people can open."""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest
from pydantic import ValidationError

from bot.config import load_config
from bot.web.page import PageLinks
from storage.tournaments import Tournament, TournamentStatus


def config_with(tmp_path: Path, web_section: str) -> Path:
    path = tmp_path / "config.toml"
    path.write_text(f"[web]\n{web_section}\n", encoding="utf-8")
    return path


def test_the_page_is_off_unless_asked_for(tmp_path: Path) -> None:
    web = load_config(config_with(tmp_path, ""), env={}).web
    assert not web.enabled
    assert web.base_url == "http://127.0.0.1:8081"


def test_the_example_config_shows_every_default() -> None:
    example = Path(__file__).resolve().parents[2] / "config.example.toml"
    web = tomllib.loads(example.read_text(encoding="utf-8"))["web"]
    assert web == {
        "enabled": False,
        "host": "127.0.0.1",
        "port": 8081,
        "public_url": "",
        "launch_data_max_age_minutes": 60,
    }


def test_launch_data_is_kept_an_hour_unless_told_and_absurd_ages_are_refused(
    tmp_path: Path,
) -> None:
    """Issue 25 §5: a replay window on the Mini App's launch data, as Telegram advises."""
    assert load_config(config_with(tmp_path, ""), env={}).web.launch_data_max_age_minutes == 60
    told = load_config(config_with(tmp_path, "launch_data_max_age_minutes = 15"), env={})
    assert told.web.launch_data_max_age_minutes == 15
    for absurd in ("0", "-5", "100000", "inf", "nan"):
        with pytest.raises(ValidationError, match="launch_data_max_age_minutes"):
            load_config(config_with(tmp_path, f"launch_data_max_age_minutes = {absurd}"), env={})


def test_a_public_address_behind_a_proxy(tmp_path: Path) -> None:
    given = 'enabled = true\npublic_url = "https://club.example.org/mafia/"'
    web = load_config(config_with(tmp_path, given), env={}).web
    assert web.base_url == "https://club.example.org/mafia"


@pytest.mark.parametrize(
    "url",
    ["ftp://example.org", "https://", "example.org", "https://x.org/?a=1", "https://x.org/#a"],
)
def test_an_address_nobody_can_open_is_refused(tmp_path: Path, url: str) -> None:
    with pytest.raises(ValidationError, match="public_url"):
        load_config(config_with(tmp_path, f'public_url = "{url}"'), env={})


def tournament(number: int, reg_token: str) -> Tournament:
    return Tournament(number, "Cup", 1, "{}", TournamentStatus.RUNNING, 0.0, reg_token)


def test_page_tokens_are_unguessable_and_only_https_opens_in_telegram() -> None:
    links = PageLinks("https://club.example.org/mafia", "123:secret")
    first, second = tournament(1, "a" * 22), tournament(2, "a" * 22)
    assert links.token(first) != links.token(second)
    assert links.token(first) != PageLinks(links.base_url, "123:other").token(first)
    assert len(links.token(first)) == 24
    assert links.url(first) == f"https://club.example.org/mafia/t/1/{links.token(first)}/"
    assert "a" * 22 not in links.url(first)  # the registration token stays private
    assert links.opens_in_telegram
    assert not PageLinks("http://127.0.0.1:8081", "123:secret").opens_in_telegram


def test_a_page_token_is_checked_from_the_number_alone() -> None:
    """Issue 25 §5: the address is checked before the database is asked anything, so the
    token is made of the tournament's number and the secret only."""
    links = PageLinks("https://club.example.org/mafia", "123:secret")
    assert links.token(tournament(7, "a" * 22)) == links.token_of(7)
    assert links.token(tournament(7, "b" * 22)) == links.token_of(7)
    assert links.token_of(7) != links.token_of(8)


def test_open_tournaments_per_person_are_bounded_by_default(tmp_path: Path) -> None:
    """Issue 25 §5: `[access] open_tournaments_per_judge`, 3 unless told; absurd values
    are refused."""
    path = tmp_path / "config.toml"
    path.write_text("", encoding="utf-8")
    assert load_config(path, env={}).access.open_tournaments_per_judge == 3
    path.write_text("[access]\nopen_tournaments_per_judge = 5\n", encoding="utf-8")
    assert load_config(path, env={}).access.open_tournaments_per_judge == 5
    for absurd in ("0", "-1", "1000", "2.5"):
        path.write_text(f"[access]\nopen_tournaments_per_judge = {absurd}\n", encoding="utf-8")
        with pytest.raises(ValidationError, match="open_tournaments_per_judge"):
            load_config(path, env={})
