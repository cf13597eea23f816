"""Tournaments and their players."""

from __future__ import annotations

import pytest

from storage import (
    AlreadyRegisteredError,
    NickTakenError,
    NotFoundError,
    PlayerStatus,
    Repositories,
    Tournament,
    TournamentPlayer,
    TournamentStatus,
)
from tests.storage.storage_testdata import HOST, PLAYERS, T0


@pytest.fixture
async def cup(seeded: Repositories) -> Tournament:
    return await seeded.tournaments.create(
        name="Autumn Cup", judge_user_id=HOST, settings_json='{"speech": 60}', now=T0
    )


async def test_create_and_get(seeded: Repositories, cup: Tournament) -> None:
    assert cup == Tournament(
        tournament_id=cup.tournament_id,
        name="Autumn Cup",
        judge_user_id=HOST,
        settings_json='{"speech": 60}',
        status=TournamentStatus.REGISTRATION,
        created_at=T0,
        reg_token=cup.reg_token,
    )
    assert await seeded.tournaments.get(cup.tournament_id) == cup
    assert await seeded.tournaments.get(999) is None


async def test_of_judge_newest_first(seeded: Repositories, cup: Tournament) -> None:
    later = await seeded.tournaments.create(
        name="Winter Cup", judge_user_id=HOST, settings_json="{}", now=T0 + 1
    )
    assert await seeded.tournaments.of_judge(HOST) == [later, cup]
    assert await seeded.tournaments.of_judge(PLAYERS[0]) == []


async def test_settings_and_status(seeded: Repositories, cup: Tournament) -> None:
    tournaments = seeded.tournaments
    await tournaments.set_settings(cup.tournament_id, '{"speech": 45}')
    await tournaments.set_status(cup.tournament_id, TournamentStatus.RUNNING)
    updated = await tournaments.get(cup.tournament_id)
    assert updated is not None
    assert (updated.settings_json, updated.status) == ('{"speech": 45}', TournamentStatus.RUNNING)
    with pytest.raises(NotFoundError):
        await tournaments.set_settings(999, "{}")
    with pytest.raises(NotFoundError):
        await tournaments.set_status(999, TournamentStatus.FINISHED)


async def test_register_and_list_players(seeded: Repositories, cup: Tournament) -> None:
    tournaments = seeded.tournaments
    first, second, _ = PLAYERS
    anna = await tournaments.register(cup.tournament_id, first, nick="Anna", now=T0 + 1)
    assert anna == TournamentPlayer(
        cup.tournament_id, first, "Anna", T0 + 1, PlayerStatus.REGISTERED
    )
    boris = await tournaments.register(cup.tournament_id, second, nick="Boris", now=T0 + 2)
    assert await tournaments.players(cup.tournament_id) == [anna, boris]
    assert await tournaments.player(cup.tournament_id, first) == anna
    assert await tournaments.player(cup.tournament_id, HOST) is None


async def test_register_twice_or_under_a_taken_nick(seeded: Repositories, cup: Tournament) -> None:
    tournaments = seeded.tournaments
    first, second, _ = PLAYERS
    await tournaments.register(cup.tournament_id, first, nick="Anna", now=T0)
    with pytest.raises(AlreadyRegisteredError):
        await tournaments.register(cup.tournament_id, first, nick="Other", now=T0)
    with pytest.raises(NickTakenError):
        await tournaments.register(cup.tournament_id, second, nick="Anna", now=T0)
    assert [p.user_id for p in await tournaments.players(cup.tournament_id)] == [first]


async def test_same_nick_in_another_tournament(seeded: Repositories, cup: Tournament) -> None:
    other = await seeded.tournaments.create(
        name="Other", judge_user_id=HOST, settings_json="{}", now=T0
    )
    await seeded.tournaments.register(cup.tournament_id, PLAYERS[0], nick="Anna", now=T0)
    await seeded.tournaments.register(other.tournament_id, PLAYERS[1], nick="Anna", now=T0)


async def test_change_nick(seeded: Repositories, cup: Tournament) -> None:
    tournaments = seeded.tournaments
    first, second, _ = PLAYERS
    await tournaments.register(cup.tournament_id, first, nick="Anna", now=T0)
    await tournaments.register(cup.tournament_id, second, nick="Boris", now=T0)
    await tournaments.set_player_nick(cup.tournament_id, first, "Anna")  # own nick: no change
    await tournaments.set_player_nick(cup.tournament_id, first, "Annette")
    with pytest.raises(NickTakenError):
        await tournaments.set_player_nick(cup.tournament_id, second, "Annette")
    with pytest.raises(NotFoundError):
        await tournaments.set_player_nick(cup.tournament_id, HOST, "Host")
    nicks = {p.user_id: p.nick for p in await tournaments.players(cup.tournament_id)}
    assert nicks == {first: "Annette", second: "Boris"}


async def test_player_status(seeded: Repositories, cup: Tournament) -> None:
    tournaments = seeded.tournaments
    await tournaments.register(cup.tournament_id, PLAYERS[0], nick="Anna", now=T0)
    await tournaments.set_player_status(cup.tournament_id, PLAYERS[0], PlayerStatus.DISQUALIFIED)
    player = await tournaments.player(cup.tournament_id, PLAYERS[0])
    assert player is not None
    assert player.status is PlayerStatus.DISQUALIFIED
    with pytest.raises(NotFoundError):
        await tournaments.set_player_status(cup.tournament_id, HOST, PlayerStatus.WITHDRAWN)


async def test_nicks_are_one_whatever_their_case(seeded: Repositories, cup: Tournament) -> None:
    """Issue 10: "anna" is Anna's nick, in ASCII and in Cyrillic alike (ё is е)."""
    tournaments = seeded.tournaments
    first, second, third = PLAYERS
    await tournaments.register(cup.tournament_id, first, nick="Anna", now=T0)
    await tournaments.register(cup.tournament_id, second, nick="Алёна", now=T0)
    with pytest.raises(NickTakenError):
        await tournaments.register(cup.tournament_id, third, nick="anna", now=T0)
    with pytest.raises(NickTakenError):
        await tournaments.register(cup.tournament_id, third, nick="АЛЕНА", now=T0)
    with pytest.raises(NickTakenError):
        await tournaments.set_player_nick(cup.tournament_id, second, " ANNA ")
    found = await tournaments.by_nick(cup.tournament_id, "алена")
    assert found is not None and found.user_id == second
    assert await tournaments.by_nick(cup.tournament_id, "Ann") is None
    assert await tournaments.unregister(cup.tournament_id, first)
    assert not await tournaments.unregister(cup.tournament_id, first)
    await tournaments.register(cup.tournament_id, third, nick="anna", now=T0)


async def test_registration_token_and_closing(seeded: Repositories, cup: Tournament) -> None:
    assert cup.reg_token and cup.registration_open
    assert await seeded.tournaments.by_reg_token(cup.reg_token) == cup
    assert await seeded.tournaments.by_reg_token(str(cup.tournament_id)) is None
    await seeded.tournaments.set_registration_open(cup.tournament_id, False)
    closed = await seeded.tournaments.get(cup.tournament_id)
    assert closed is not None and not closed.registration_open


async def test_a_tours_groups_come_in_the_order_people_read_their_codes(
    seeded: Repositories, cup: Tournament
) -> None:
    """Issue 20: T1R1G2 before T1R1G10, tour 2 after tour 1 whatever the digits."""
    tid = cup.tournament_id
    for tour, index in [(1, 10), (1, 2), (1, 1), (2, 1), (10, 1)]:
        await seeded.tours.add_group(f"T{tid}R{tour}G{index}", tid, tour, [], now=T0)
    one = [g.code for g in await seeded.tours.groups(tid, 1)]
    assert one == [f"T{tid}R1G1", f"T{tid}R1G2", f"T{tid}R1G10"]
    every = [g.code for g in await seeded.tours.groups(tid)]
    assert every == [*one, f"T{tid}R2G1", f"T{tid}R10G1"]
