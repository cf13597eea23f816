"""S1 with balanced tours (T1, issue 20 section 5): a tournament table whose tour drew its
seat order seats the players in that order, and the protocol says so, so the check of the
game (docs/fairness.md) recomputes the seating from the tour's draw, not the game's seed."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bot.__main__ import main
from bot.rules import engine
from bot.rules.events import Event, GameStarted, SeatsDrawn
from bot.rules.protocol import Entry, entry_to_json
from bot.rules.settings import GameSettings

from .helpers import SEED, make_players


def start(order: list[int] | None) -> list[Event]:
    players = make_players(13)
    _state, events = engine.start_game(
        7, players, GameSettings(min_players=13, max_players=13), SEED, 0.0, seat_order=order
    )
    return list(events)


@pytest.mark.rule("S1", "T1")
def test_S1_the_tour_s_seat_order_is_the_seating() -> None:
    order = [p.user_id for p in reversed(make_players(13))]
    events = start(order)
    started = next(e for e in events if isinstance(e, GameStarted))
    seated = next(e for e in events if isinstance(e, SeatsDrawn))
    assert [a.user_id for a in seated.seating] == order
    assert [a.seat for a in seated.seating] == list(range(1, 14))
    assert started.seat_order == order
    # Without one the game draws its seats from its own seed, as always.
    drawn = next(e for e in start(None) if isinstance(e, SeatsDrawn))
    assert [a.user_id for a in drawn.seating] != order
    assert next(e for e in start(None) if isinstance(e, GameStarted)).seat_order is None


@pytest.mark.rule("S1")
def test_S1_a_seat_order_that_is_not_the_players_is_refused() -> None:
    ids = [p.user_id for p in make_players(13)]
    with pytest.raises(ValueError, match="seat order"):
        start([*ids[:-1], 999999])
    with pytest.raises(ValueError, match="seat order"):
        start(ids[:-1])


@pytest.mark.rule("S1", "S3")
def test_S3_the_check_recomputes_a_tour_s_seating(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    order = [p.user_id for p in reversed(make_players(13))]
    path = tmp_path / "game.json"
    entries = [entry_to_json(Entry(0.0, event)) for event in start(order)]
    path.write_text(json.dumps(entries), encoding="utf-8")
    code = main(["verify", "--protocol", str(path), "--lang", "en"])
    out = capsys.readouterr().out
    assert code == 0, out
    assert "✗" not in out
    assert "seat order" in out
