"""S3: `python -m bot verify` recomputes the draws of a finished game for anyone."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from bot.__main__ import main
from bot.rules.events import Phase
from bot.rules.protocol import public_entries
from tests.rules.helpers import Game
from tests.rules.test_fairness_document import NICKS, documented_example, eventful_game


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str]:
    code = main(["verify", *args, "--lang", "en"])
    captured = capsys.readouterr()
    return code, captured.out + captured.err


def protocol_file(tmp_path: Path, game: Game, over: bool = True) -> tuple[Path, list[Any]]:
    data = public_entries(game.entries, game_over=over)
    path = tmp_path / "game.json"
    path.write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
    return path, data


@pytest.mark.rule("S3")
@pytest.mark.parametrize("players", [12, 16])
def test_S3_verify_agrees_with_a_finished_games_protocol(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], players: int
) -> None:
    game = eventful_game(players, "5b1e0c9d77aa4f10b2c3d4e5f6a7b8c9")
    path, _ = protocol_file(tmp_path, game)
    code, out = run(capsys, "--protocol", str(path))
    assert code == 0, out
    assert "✗" not in out
    # The commitment, every seat, every card, 4 first speakers and 2 lots.
    checks = 1 + 2 * players + 4 + 2
    assert out.count("✓") == checks
    assert f"All {checks} checks agree with the game" in out
    assert "Day 1: the lot, drawn among seats 1, 2, 3" in out


@pytest.mark.rule("S3")
@pytest.mark.parametrize(
    ("entry", "field", "value"),
    [
        ("DayStarted", "first_speaker", None),
        ("LotDrawn", "seat", None),
        ("GameStarted", "commitment", "0" * 64),
        ("CardsDealt", "roles", None),
        ("SeatsDrawn", "seating", None),
    ],
)
def test_S3_verify_finds_a_draw_that_was_changed(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    entry: str,
    field: str,
    value: object,
) -> None:
    game = eventful_game(12, "5b1e0c9d77aa4f10b2c3d4e5f6a7b8c9")
    path, data = protocol_file(tmp_path, game)
    target = next(d for d in data if d["type"] == entry)
    if field == "first_speaker" or field == "seat":
        target[field] = target[field] % 12 + 1
    elif field == "roles":
        roles = target["roles"]
        one, other = next(s for s, r in roles.items() if r == "mafia"), "1"
        roles[one], roles[other] = roles[other], roles[one]
        if roles[one] == roles[other]:  # pragma: no cover - seat 1 is not a mafioso here
            roles[other] = "commissioner"
    elif field == "seating":
        target["seating"][0]["user_id"], target["seating"][1]["user_id"] = (
            target["seating"][1]["user_id"],
            target["seating"][0]["user_id"],
        )
    else:
        target[field] = value
    path.write_text(json.dumps(data), encoding="utf-8")
    code, out = run(capsys, "--protocol", str(path))
    assert code == 1, out
    assert "✗ the game has:" in out
    assert "checks disagree with the game" in out


@pytest.mark.rule("S3")
def test_S3_verify_refuses_a_game_not_over_and_files_that_are_no_protocol(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    game = Game()
    game.advance_to(Phase.ROUND_1, day=1)
    path, _ = protocol_file(tmp_path, game, over=False)
    code, out = run(capsys, "--protocol", str(path))
    assert code == 2 and "the game is not over yet" in out
    for text in ("not json", "[]", '{"type": "GameStarted"}', '[{"type": "SeatsDrawn"}]'):
        path.write_text(text, encoding="utf-8")
        code, out = run(capsys, "--protocol", str(path))
        assert code == 2, (text, out)
    _, data = protocol_file(tmp_path, game, over=True)
    for drop in ("SeatsDrawn", "CardsDealt"):
        path.write_text(json.dumps([d for d in data if d["type"] != drop]), encoding="utf-8")
        code, out = run(capsys, "--protocol", str(path))
        assert code == 2 and "is not a game protocol" in out, drop
    path.write_text('[{"type": "GameStarted", "seed": "x"}]', encoding="utf-8")
    code, out = run(capsys, "--protocol", str(path))
    assert code == 2 and "Cannot read" in out
    code, out = run(capsys, "--protocol", str(tmp_path / "missing.json"))
    assert code == 2 and "Cannot read" in out
    code, out = run(capsys, "--protocol", str(path), "abc")
    assert code == 2 and "Usage" in out
    code, out = run(capsys)
    assert code == 2 and "Usage" in out


@pytest.mark.rule("S3")
def test_S3_verify_from_the_seed_prints_the_documented_example(
    capsys: pytest.CaptureFixture[str],
) -> None:
    seed, lines = documented_example()
    players = [f"{1001 + i}:{nick}" for i, nick in enumerate(NICKS)]
    everyone = ",".join(str(s) for s in range(1, 13))
    lot = int(lines[15].rsplit(" ", 1)[1])
    left = ",".join(str(s) for s in range(1, 13) if s != lot)
    days = ["--day", f"1:{everyone}", "--day", f"2:{left}"]
    code, out = run(capsys, seed, *reversed(players), *days)
    assert code == 0, out
    assert lines[0].split(": ")[1] in out
    for seat in range(1, 13):
        found = re.search(rf"^\s+No\. {seat}: (\S+) \(id (\d+)\)$", out, re.M)
        assert found is not None, out
        assert f"seat {seat}: {found.group(1)} ({found.group(2)})" in lines[seat]
        role = lines[seat].rsplit(" ", 1)[1].capitalize()
        assert re.search(rf"^\s+No\. {seat}: {role}$", out, re.M), (seat, role)
    first0, first1, lot1, first2 = (int(lines[i].rsplit(" ", 1)[1]) for i in (13, 14, 15, 16))
    assert re.search(rf"Day 0: first speaker, .*: No\. {first0} ", out)
    assert re.search(rf"Day 1: first speaker, .*: No\. {first1} ", out)
    assert re.search(rf"Day 1: the lot, .*: No\. {lot1} ", out)
    assert re.search(rf"Day 2: first speaker, .*: No\. {first2} ", out)
    assert "Day 0: the lot" not in out


@pytest.mark.rule("S3")
def test_S3_verify_from_the_seed_takes_bare_nicks_in_order_of_id(
    capsys: pytest.CaptureFixture[str],
) -> None:
    seed, lines = documented_example()
    code, out = run(capsys, seed, *NICKS)
    assert code == 0
    nick = lines[1].split()[2]
    assert re.search(rf"^\s+No\. 1: {nick}$", out, re.M), out


@pytest.mark.rule("S3")
@pytest.mark.parametrize(
    "args",
    [
        ["seed"],  # no players
        ["seed", "1:a", "b"],  # ids for some players only
        ["seed", "1:a", "1:b", "2:c", "3:d", "4:e"],  # an id twice
        ["seed", "a", "b", "c", "d", "e", "--day", "1:x"],
        ["seed", "a", "b", "c", "d", "e", "--day", "1:1,9"],  # no seat 9
        ["seed", "a", "b", "c", "d", "e", "--mafia", "3"],  # 3 of 5 cannot play
        ["seed", *[f"p{i}" for i in range(20)]],  # no roles table for 20
    ],
)
def test_S3_verify_from_the_seed_refuses_what_it_cannot_draw(
    capsys: pytest.CaptureFixture[str], args: list[str]
) -> None:
    code, _ = run(capsys, *args)
    assert code == 2
