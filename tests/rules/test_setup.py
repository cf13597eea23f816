"""S1-S3: seats, the roles table, the deal and the game seed."""

from __future__ import annotations

import hashlib
import random
from collections import Counter

import pytest

from bot.rules import draws, engine
from bot.rules.actions import Sanction
from bot.rules.errors import BadPlayerCount, BadSettings
from bot.rules.events import (
    CardsDealt,
    DayStarted,
    GameOver,
    GameStarted,
    LotDrawn,
    Phase,
    Player,
    SeatsDrawn,
)
from bot.rules.protocol import public_entries
from bot.rules.roles import Role, role_deck
from bot.rules.sanctions import Penalty
from bot.rules.settings import GameSettings

from .helpers import CASUAL, SEED, Game, first_of, make_players, of_type, walk

TOURNAMENT_TABLE = [(12, 3), (13, 3), (14, 4), (15, 4), (16, 4)]


# --- S1 seats --------------------------------------------------------------------------


@pytest.mark.rule("S1")
@pytest.mark.parametrize("n", [12, 13, 14, 15, 16])
def test_S1_seats_are_numbered_1_to_n_one_per_player(n: int) -> None:
    game = Game(n)
    seating = first_of(game.events, SeatsDrawn).seating
    assert [a.seat for a in seating] == list(range(1, n + 1))
    assert sorted(a.user_id for a in seating) == sorted(p.user_id for p in game.players)
    assert sorted(game.state.seats) == list(range(1, n + 1))
    for a in seating:
        st = game.state.seats[a.seat]
        assert (st.user_id, st.nick, st.alive, st.left) == (a.user_id, a.nick, True, None)
        assert game.state.seat_of(a.user_id) == a.seat
    assert game.state.seat_of(-1) is None


@pytest.mark.rule("S1")
@pytest.mark.parametrize(
    ("start", "seats", "expected"),
    [
        (1, [1, 2, 3, 4, 5], [1, 2, 3, 4, 5]),
        (4, [1, 2, 3, 4, 5], [4, 5, 1, 2, 3]),
        (12, list(range(1, 13)), [12, *range(1, 12)]),
        (3, [1, 2, 5, 7], [5, 7, 1, 2]),  # start not among them: the next one clockwise
        (8, [7, 2, 5], [2, 5, 7]),  # wraps from N to 1
    ],
)
def test_S1_clockwise_is_increasing_number_wrapping_to_1(
    start: int, seats: list[int], expected: list[int]
) -> None:
    assert Game().state.clockwise_from(start, seats) == expected


@pytest.mark.rule("S1")
def test_S1_seating_ignores_the_order_players_are_listed_in() -> None:
    players = make_players(12)
    shuffled = players[:]
    random.Random(3).shuffle(shuffled)
    _, a = engine.start_game(1, players, GameSettings(), SEED, 0.0)
    _, b = engine.start_game(1, shuffled, GameSettings(), SEED, 0.0)
    assert first_of(a, SeatsDrawn) == first_of(b, SeatsDrawn)
    assert first_of(a, CardsDealt) == first_of(b, CardsDealt)


# --- S2 roles --------------------------------------------------------------------------


@pytest.mark.rule("S2")
@pytest.mark.parametrize(("n", "mafiosi"), TOURNAMENT_TABLE)
def test_S2_roles_table_for_tournament_tables(n: int, mafiosi: int) -> None:
    assert GameSettings().mafiosi_for(n) == mafiosi
    game = Game(n)
    counts = Counter(game.state.roles.values())
    assert counts == {Role.COMMISSIONER: 1, Role.MAFIA: mafiosi, Role.CIVILIAN: n - mafiosi - 1}
    assert sorted(game.state.roles) == list(range(1, n + 1))
    # The peaceful side is 9-12 players for N = 12-16.
    assert len(game.state.living_peaceful()) == n - mafiosi
    assert 9 <= n - mafiosi <= 12


@pytest.mark.rule("S2")
@pytest.mark.parametrize("n", range(5, 12))
def test_S2_casual_tables_keep_the_peaceful_side_larger(n: int) -> None:
    game = Game(n, settings=CASUAL)
    counts = Counter(game.state.roles.values())
    assert counts[Role.COMMISSIONER] == 1
    assert counts[Role.MAFIA] == CASUAL.mafiosi_for(n)
    assert n - counts[Role.MAFIA] > counts[Role.MAFIA]


@pytest.mark.rule("S2")
@pytest.mark.parametrize(
    ("n", "mafiosi", "expected"),
    [
        (12, 3, [Role.COMMISSIONER] + [Role.MAFIA] * 3 + [Role.CIVILIAN] * 8),
        (14, 4, [Role.COMMISSIONER] + [Role.MAFIA] * 4 + [Role.CIVILIAN] * 9),
    ],
)
def test_S2_role_deck(n: int, mafiosi: int, expected: list[Role]) -> None:
    assert role_deck(n, mafiosi) == expected


@pytest.mark.rule("S2")
@pytest.mark.parametrize(
    "kwargs",
    [
        {"introduction_seconds": 0},
        {"round1_seconds": -1},
        {"round2_seconds": 0.0},
        {"defence_seconds": float("nan")},
        {"introduction_seconds": 1e12},  # issue 10: the year 33714 cannot be armed
        {"round1_seconds": float("inf")},
        {"night_seconds": 3601},
        {"round2_seconds": "30"},  # a string where seconds are due
        {"vote_seconds": 0},
        {"last_word_seconds": -40},
        {"acquaintance_seconds": 0},
        {"night_seconds": 0},
        {"min_players": 3, "max_players": 16},
        {"min_players": 14, "max_players": 13},
        {"max_players": 17},  # the default table stops at 16
        {"mafia_by_players": {**dict.fromkeys(range(12, 17), 3), 12: 6}},  # 6 of 12: W1 at once
        {"mafia_by_players": dict.fromkeys(range(12, 17), 0)},
    ],
    ids=lambda kw: ",".join(kw),
)
def test_S2_settings_are_validated(kwargs: dict[str, object]) -> None:
    with pytest.raises(BadSettings) as caught:
        GameSettings(**kwargs)  # type: ignore[arg-type]
    assert caught.value.code == "bad_settings"
    assert isinstance(caught.value, ValueError)


@pytest.mark.rule("S2")
@pytest.mark.parametrize("n", [11, 17])
def test_S2_tournament_table_takes_12_to_16_players(n: int) -> None:
    with pytest.raises(BadPlayerCount) as caught:
        engine.start_game(1, make_players(n), GameSettings(), SEED, 0.0)
    assert caught.value.values == {"players": n, "min": 12, "max": 16}


@pytest.mark.rule("S2")
def test_S2_a_player_cannot_sit_twice() -> None:
    players = [*make_players(11), Player(1001, "again")]
    with pytest.raises(BadPlayerCount):
        engine.start_game(1, players, GameSettings(), SEED, 0.0)


# --- S3 the deal and the seed ----------------------------------------------------------


@pytest.mark.rule("S3")
def test_S3_same_seed_gives_the_same_game() -> None:
    a, b = Game(seed="same"), Game(seed="same")
    assert a.events == b.events
    for game in (a, b):
        game.advance_to(Phase.ROUND_1, day=3)
    assert a.events == b.events
    assert a.state == b.state


@pytest.mark.rule("S3")
def test_S3_the_deal_is_afresh_for_every_seed() -> None:
    deals = {tuple(Game(seed=f"seed-{i}").state.roles.values()) for i in range(10)}
    assert len(deals) > 1


@pytest.mark.rule("S3")
def test_S3_every_seat_can_get_every_role() -> None:
    seen: dict[int, set[Role]] = {seat: set() for seat in range(1, 13)}
    for i in range(150):
        _, events = engine.start_game(1, make_players(12), GameSettings(), f"s{i}", 0.0)
        for seat, role in first_of(events, CardsDealt).roles.items():
            seen[seat].add(role)
    assert all(roles == set(Role) for roles in seen.values())


@pytest.mark.rule("S3")
def test_S3_commitment_is_sha256_of_the_seed_and_hides_it() -> None:
    game = Game(seed="the secret")
    started = first_of(game.events, GameStarted)
    expected = hashlib.sha256(b"the secret").hexdigest()
    assert started.commitment == game.state.commitment == draws.commitment("the secret")
    assert started.commitment == expected
    assert "the secret" not in started.commitment
    # Until the game is over the published protocol carries the commitment, not the seed,
    # and neither the deal nor any night action.
    published = public_entries(game.entries, game_over=False)
    assert published[0]["commitment"] == expected
    assert "seed" not in published[0]
    assert all(e["type"] != "CardsDealt" for e in published)


def _finished_game(seed: str) -> Game:
    game = Game(seed=seed)
    game.advance_to(Phase.ROUND_1, day=1)
    for seat in game.mafia():  # the Host removes every mafioso: W2 ends the game
        game.act(Sanction(seat, Penalty.REMOVAL_FROM_GAME))
    assert game.state.finished
    return game


@pytest.mark.rule("S3")
def test_S3_seed_is_revealed_at_the_end() -> None:
    game = _finished_game("revealed")
    over = first_of(game.last, GameOver)
    assert over.seed == "revealed"
    assert draws.commitment(over.seed) == first_of(game.events, GameStarted).commitment
    published = public_entries(game.entries, game_over=True)
    assert published[0]["seed"] == "revealed"
    assert any(e["type"] == "CardsDealt" for e in published)


@pytest.mark.rule("S3")
@pytest.mark.parametrize("seed", ["alpha", "beta", "gamma", "дельта"])
def test_S3_every_draw_recomputes_from_the_revealed_seed(seed: str) -> None:
    game = Game(seed=seed)
    # Play three days quietly (the lot decides each day) and end the game.
    game.advance_to(Phase.ROUND_1, day=3)
    for seat in game.mafia():
        game.act(Sanction(seat, Penalty.REMOVAL_FROM_GAME))
    assert game.state.phase is Phase.OVER
    revealed = first_of(game.events, GameOver).seed
    started = first_of(game.events, GameStarted)
    assert draws.commitment(revealed) == started.commitment

    # Seats: the players sorted by Telegram id, shuffled with the label "seats".
    canonical = sorted(started.players, key=lambda p: p.user_id)
    seated = draws.shuffled(revealed, "seats", canonical)
    seating = first_of(game.events, SeatsDrawn).seating
    assert [(a.user_id, a.nick) for a in seating] == [(p.user_id, p.nick) for p in seated]
    # The deal: the deck for the table shuffled with "deal", card i to seat i + 1.
    deck = role_deck(12, started.settings.mafiosi_for(12))
    dealt = first_of(game.events, CardsDealt).roles
    assert [dealt[s] for s in range(1, 13)] == draws.shuffled(revealed, "deal", deck)
    # Each day's first speaker and each lot, from the living seats of the moment.
    days = lots = 0
    for state, event in walk(game.entries):
        if isinstance(event, DayStarted):
            days += 1
            label = f"day:{event.day}:first"
            assert event.first_speaker == draws.draw(revealed, label, state.living())
        elif isinstance(event, LotDrawn):
            lots += 1
            assert event.seat == draws.draw(revealed, f"day:{state.day}:lot", state.living())
    assert days == 4  # Days 0-3
    assert lots == 2  # Days 1 and 2 had no nominations


@pytest.mark.rule("S3")
def test_S3_draws_are_uniform_in_range_and_reject_empty() -> None:
    hits = Counter(draws.draw_index("seed", f"label{i}", 5) for i in range(2000))
    assert set(hits) == set(range(5))
    assert all(300 <= c <= 500 for c in hits.values())
    assert draws.shuffled("seed", "x", []) == []
    assert sorted(draws.shuffled("seed", "x", range(10))) == list(range(10))
    with pytest.raises(ValueError, match="cannot draw"):
        draws.draw_index("seed", "label", 0)


@pytest.mark.rule("S3")
def test_S3_a_game_needs_a_seed() -> None:
    with pytest.raises(ValueError, match="seed"):
        engine.start_game(1, make_players(12), GameSettings(), "", 0.0)


def test_start_game_events_in_order() -> None:
    game = Game()
    names = [type(e).__name__ for e in game.events]
    assert names == ["GameStarted", "SeatsDrawn", "CardsDealt", "DayStarted", "SpeechStarted"]
    assert of_type(game.events, GameStarted)[0].players == game.players
