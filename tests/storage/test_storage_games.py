"""Games and lobbies."""

from __future__ import annotations

import sqlite3

import pytest

from storage import (
    ActiveGameExistsError,
    Game,
    GameStatus,
    GameStatusError,
    LobbyPlayer,
    NotFoundError,
    Repositories,
)
from tests.storage.storage_testdata import CHAT, HOST, OTHER_CHAT, PLAYERS, T0

MISSING = 999


async def begin(repos: Repositories, game: Game, *, deadline: float | None) -> None:
    await repos.games.set_status(game.game_id, GameStatus.RUNNING, now=T0 + 1)
    await repos.games.save_state(game.game_id, state_json="{}", deadline=deadline, now=T0 + 1)


async def test_create_opens_a_lobby(seeded: Repositories, game: Game) -> None:
    assert game == Game(
        game_id=game.game_id,
        chat_id=CHAT,
        host_user_id=HOST,
        status=GameStatus.LOBBY,
        tournament_id=None,
        settings_json='{"speech": 60}',
        state_json=None,
        deadline=None,
        lobby_message_id=None,
        created_at=T0,
        updated_at=T0,
        join_token=game.join_token,
    )
    assert await seeded.games.get(game.game_id) == game
    assert await seeded.games.get(MISSING) is None


async def test_one_active_game_a_chat(seeded: Repositories, game: Game) -> None:
    with pytest.raises(ActiveGameExistsError):
        await seeded.games.create(chat_id=CHAT, host_user_id=HOST, settings_json="{}", now=T0)
    other = await seeded.games.create(
        chat_id=OTHER_CHAT, host_user_id=HOST, settings_json="{}", now=T0
    )
    assert other.game_id != game.game_id
    await seeded.games.set_status(game.game_id, GameStatus.ABORTED, now=T0)
    again = await seeded.games.create(chat_id=CHAT, host_user_id=HOST, settings_json="{}", now=T0)
    assert again.game_id > other.game_id


async def test_create_needs_a_known_chat_and_host(seeded: Repositories) -> None:
    with pytest.raises(sqlite3.IntegrityError, match="FOREIGN KEY"):
        await seeded.games.create(chat_id=-5, host_user_id=HOST, settings_json="{}", now=T0)
    with pytest.raises(sqlite3.IntegrityError, match="FOREIGN KEY"):
        await seeded.games.create(chat_id=CHAT, host_user_id=MISSING, settings_json="{}", now=T0)


async def test_settings_must_be_json(seeded: Repositories) -> None:
    with pytest.raises(sqlite3.IntegrityError, match="CHECK"):
        await seeded.games.create(chat_id=CHAT, host_user_id=HOST, settings_json="{", now=T0)


async def test_active_in_chat(seeded: Repositories, game: Game) -> None:
    active = await seeded.games.active_in_chat(CHAT)
    assert active == game
    assert await seeded.games.active_in_chat(OTHER_CHAT) is None
    await begin(seeded, game, deadline=None)
    running = await seeded.games.active_in_chat(CHAT)
    assert running is not None
    assert running.status is GameStatus.RUNNING
    await seeded.games.set_status(game.game_id, GameStatus.OVER, now=T0 + 2)
    assert await seeded.games.active_in_chat(CHAT) is None


async def test_game_moves_only_forward(seeded: Repositories, game: Game) -> None:
    games = seeded.games
    with pytest.raises(GameStatusError):
        await games.set_status(game.game_id, GameStatus.OVER, now=T0)
    with pytest.raises(GameStatusError):
        await games.set_status(game.game_id, GameStatus.LOBBY, now=T0)
    running = await games.set_status(game.game_id, GameStatus.RUNNING, now=T0 + 1)
    assert (running.status, running.updated_at) == (GameStatus.RUNNING, T0 + 1)
    over = await games.set_status(game.game_id, GameStatus.OVER, now=T0 + 2)
    assert over.status is GameStatus.OVER
    for status in GameStatus:
        with pytest.raises(GameStatusError):
            await games.set_status(game.game_id, status, now=T0 + 3)
    with pytest.raises(NotFoundError):
        await games.set_status(MISSING, GameStatus.RUNNING, now=T0)


async def test_ending_a_game_clears_its_deadline(seeded: Repositories, game: Game) -> None:
    await begin(seeded, game, deadline=T0 + 60)
    aborted = await seeded.games.set_status(game.game_id, GameStatus.ABORTED, now=T0 + 2)
    assert aborted.deadline is None
    assert await seeded.games.pending_deadlines() == []
    with pytest.raises(sqlite3.IntegrityError, match="CHECK"):
        await seeded.games.set_deadline(game.game_id, T0 + 90, now=T0 + 3)


async def test_save_state_and_deadline(seeded: Repositories, game: Game) -> None:
    await begin(seeded, game, deadline=T0 + 60)
    await seeded.games.save_state(
        game.game_id, state_json='{"phase": "day"}', deadline=T0 + 120, now=T0 + 5
    )
    saved = await seeded.games.get(game.game_id)
    assert saved is not None
    assert (saved.state_json, saved.deadline, saved.updated_at) == (
        '{"phase": "day"}',
        T0 + 120,
        T0 + 5,
    )
    await seeded.games.set_deadline(game.game_id, None, now=T0 + 6)
    paused = await seeded.games.get(game.game_id)
    assert paused is not None
    assert (paused.state_json, paused.deadline, paused.updated_at) == (
        '{"phase": "day"}',
        None,
        T0 + 6,
    )


async def test_host_and_lobby_message(seeded: Repositories, game: Game) -> None:
    await seeded.games.set_host(game.game_id, PLAYERS[0], now=T0 + 1)
    await seeded.games.set_lobby_message(game.game_id, 42, now=T0 + 2)
    updated = await seeded.games.get(game.game_id)
    assert updated is not None
    assert (updated.host_user_id, updated.lobby_message_id, updated.updated_at) == (
        PLAYERS[0],
        42,
        T0 + 2,
    )


async def test_updates_of_a_missing_game_fail(seeded: Repositories) -> None:
    games = seeded.games
    with pytest.raises(NotFoundError):
        await games.save_state(MISSING, state_json="{}", deadline=None, now=T0)
    with pytest.raises(NotFoundError):
        await games.set_deadline(MISSING, T0, now=T0)
    with pytest.raises(NotFoundError):
        await games.set_host(MISSING, HOST, now=T0)
    with pytest.raises(NotFoundError):
        await games.set_lobby_message(MISSING, 1, now=T0)


async def test_running_and_pending_deadlines(seeded: Repositories, game: Game) -> None:
    other = await seeded.games.create(
        chat_id=OTHER_CHAT, host_user_id=HOST, settings_json="{}", now=T0
    )
    assert await seeded.games.running() == []
    await begin(seeded, game, deadline=T0 + 90)
    await begin(seeded, other, deadline=T0 + 30)
    assert [g.game_id for g in await seeded.games.running()] == [game.game_id, other.game_id]
    assert [g.game_id for g in await seeded.games.pending_deadlines()] == [
        other.game_id,
        game.game_id,
    ]
    await seeded.games.set_deadline(other.game_id, None, now=T0 + 2)
    assert [g.game_id for g in await seeded.games.pending_deadlines()] == [game.game_id]


async def test_pending_deadlines_use_the_index(seeded: Repositories) -> None:
    plan = await seeded.database.fetch_all(
        "EXPLAIN QUERY PLAN SELECT * FROM games WHERE deadline IS NOT NULL ORDER BY deadline"
    )
    assert any("games_by_deadline" in row["detail"] for row in plan)


async def test_games_of_a_tournament(seeded: Repositories) -> None:
    tournament = await seeded.tournaments.create(
        name="Cup", judge_user_id=HOST, settings_json="{}", now=T0
    )
    first = await seeded.games.create(
        chat_id=CHAT,
        host_user_id=HOST,
        settings_json="{}",
        now=T0,
        tournament_id=tournament.tournament_id,
    )
    await seeded.games.create(chat_id=OTHER_CHAT, host_user_id=HOST, settings_json="{}", now=T0)
    assert await seeded.games.of_tournament(tournament.tournament_id) == [first]


async def test_lobby_join_leave_and_order(seeded: Repositories, game: Game) -> None:
    lobby = seeded.lobby
    second, first, third = PLAYERS
    assert await lobby.join(game.game_id, first, nick="Anna", now=T0 + 1)
    assert await lobby.join(game.game_id, second, nick="Boris", now=T0 + 2)
    assert await lobby.join(game.game_id, third, nick="Vera", now=T0 + 2)
    assert not await lobby.join(game.game_id, first, nick="Anna again", now=T0 + 3)
    assert await lobby.players(game.game_id) == [
        LobbyPlayer(game.game_id, first, "Anna", T0 + 1),
        LobbyPlayer(game.game_id, second, "Boris", T0 + 2),
        LobbyPlayer(game.game_id, third, "Vera", T0 + 2),
    ]
    assert await lobby.leave(game.game_id, second)
    assert not await lobby.leave(game.game_id, second)
    assert [p.user_id for p in await lobby.players(game.game_id)] == [first, third]
    assert await lobby.join(game.game_id, second, nick="Boris", now=T0 + 4)
    assert [p.user_id for p in await lobby.players(game.game_id)] == [first, third, second]


async def test_lobbies_are_per_game(seeded: Repositories, game: Game) -> None:
    other = await seeded.games.create(
        chat_id=OTHER_CHAT, host_user_id=HOST, settings_json="{}", now=T0
    )
    await seeded.lobby.join(game.game_id, PLAYERS[0], nick="Anna", now=T0)
    assert await seeded.lobby.players(other.game_id) == []


async def test_a_lobby_has_a_join_token_nobody_can_guess(seeded: Repositories, game: Game) -> None:
    """Issue 10: the Join link carries a token, not the game's number."""
    assert game.join_token is not None and len(game.join_token) >= 20
    assert await seeded.games.by_join_token(game.join_token) == game
    assert await seeded.games.by_join_token(str(game.game_id)) is None
    other = await seeded.games.create(
        chat_id=OTHER_CHAT, host_user_id=HOST, settings_json="{}", now=T0
    )
    assert other.join_token != game.join_token


async def test_a_seat_elsewhere_is_found(seeded: Repositories, game: Game) -> None:
    """Issue 10: one seat at a time, in an open lobby or a running game."""
    other = await seeded.games.create(
        chat_id=OTHER_CHAT, host_user_id=HOST, settings_json="{}", now=T0
    )
    player = PLAYERS[0]
    assert await seeded.lobby.seated_elsewhere(player, other.game_id) is None
    await seeded.lobby.join(game.game_id, player, nick="P", now=T0)
    assert await seeded.lobby.seated_elsewhere(player, game.game_id) is None
    elsewhere = await seeded.lobby.seated_elsewhere(player, other.game_id)
    assert elsewhere is not None and elsewhere.game_id == game.game_id
    await seeded.games.set_status(game.game_id, GameStatus.RUNNING, now=T0)
    assert await seeded.lobby.seated_elsewhere(player, other.game_id) is not None
    await seeded.games.set_status(game.game_id, GameStatus.ABORTED, now=T0)
    assert await seeded.lobby.seated_elsewhere(player, other.game_id) is None
