"""Users and bans."""

from __future__ import annotations

import pytest

from storage import Ban, NotFoundError, Repositories, User
from tests.storage.storage_testdata import HOST, T0


async def test_upsert_records_and_renames_a_user_keeping_the_rest(repos: Repositories) -> None:
    users = repos.users
    created = await users.upsert(HOST, first_name="Anna", username="anna")
    assert created == User(
        user_id=HOST,
        first_name="Anna",
        username="anna",
        lang=None,
        started=False,
        blocked=False,
        nick=None,
    )
    await users.set_lang(HOST, "ru")
    await users.set_started(HOST, True)
    await users.set_blocked(HOST, True)
    await users.set_nick(HOST, "Shadow")
    renamed = await users.upsert(HOST, first_name="Anne", username=None)
    assert renamed == User(
        user_id=HOST,
        first_name="Anne",
        username=None,
        lang="ru",
        started=True,
        blocked=True,
        nick="Shadow",
    )
    assert await users.get(HOST) == renamed


async def test_setters_can_undo(repos: Repositories) -> None:
    users = repos.users
    await users.upsert(HOST, first_name="Anna", username=None)
    await users.set_lang(HOST, "en")
    await users.set_blocked(HOST, True)
    await users.set_nick(HOST, "Shadow")
    await users.set_lang(HOST, None)
    await users.set_blocked(HOST, False)
    await users.set_nick(HOST, None)
    assert await users.get(HOST) == User(HOST, "Anna", None, None, False, False, None)


async def test_by_username_ignores_case(repos: Repositories) -> None:
    anna = await repos.users.upsert(HOST, first_name="Anna", username="Anna_K")
    assert await repos.users.by_username("anna_k") == anna
    assert await repos.users.by_username("boris") is None


async def test_username_moves_to_its_new_owner(repos: Repositories) -> None:
    await repos.users.upsert(HOST, first_name="Anna", username="mafia_fan")
    boris = await repos.users.upsert(7, first_name="Boris", username="Mafia_Fan")
    assert await repos.users.by_username("mafia_fan") == boris
    anna = await repos.users.get(HOST)
    assert anna is not None
    assert anna.username is None


async def test_username_lookup_uses_the_index(repos: Repositories) -> None:
    plan = await repos.database.fetch_all(
        "EXPLAIN QUERY PLAN SELECT * FROM users WHERE username = ? COLLATE NOCASE", ("x",)
    )
    assert any("users_by_username" in row["detail"] for row in plan)


async def test_get_unknown_user_is_none(repos: Repositories) -> None:
    assert await repos.users.get(HOST) is None


@pytest.mark.parametrize("setter", ["set_lang", "set_started", "set_blocked", "set_nick"])
async def test_setters_on_unknown_user_fail(repos: Repositories, setter: str) -> None:
    values = {"set_lang": "en", "set_started": True, "set_blocked": True, "set_nick": "x"}
    with pytest.raises(NotFoundError):
        await getattr(repos.users, setter)(HOST, values[setter])


async def test_ban_unban_and_list(repos: Repositories) -> None:
    bans = repos.bans
    assert await bans.get(7) is None
    assert await bans.ban(7, reason="cheating", now=T0) == Ban(7, "cheating", T0)
    assert await bans.ban(5, reason="abuse", now=T0 + 1) == Ban(5, "abuse", T0 + 1)
    again = await bans.ban(7, reason="cheating again", now=T0 + 2)
    assert again == Ban(7, "cheating again", T0 + 2)
    assert await bans.get(7) == again
    assert await bans.all() == [Ban(5, "abuse", T0 + 1), again]
    assert await bans.unban(7)
    assert not await bans.unban(7)
    assert await bans.all() == [Ban(5, "abuse", T0 + 1)]
