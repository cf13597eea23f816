"""Bounded resources (issue 10, part 5): what the bot keeps in memory stays within a size.

A bot runs for months. The people, chats and games it meets, and the games a stale or
forged button or a /sheet makes it read, must not pile up; the running games must stay
cached (every action reads them), and no answer may depend on what was forgotten.
"""

from __future__ import annotations

import pytest

from bot.rules.events import Phase
from bot.rules.roles import Role
from bot.services.game import GameService, people, states
from storage.chats import ChatType
from storage.games import GameStatus
from tests.middle.games import open_game
from tests.steps import forge


async def settled_games(service: GameService, state_json: str, count: int) -> list[int]:
    """Games over long ago, in a chat of their own, as the database keeps them."""
    repos, now = service.repos, service.clock.now()
    await repos.chats.upsert(-100_777, type=ChatType.SUPERGROUP, title="Old table")
    host = (await repos.games.running())[0].host_user_id
    made = []
    for _ in range(count):
        game = await repos.games.create(
            chat_id=-100_777, host_user_id=host, settings_json="{}", now=now
        )
        await repos.games.save_state(game.game_id, state_json=state_json, deadline=None, now=now)
        await repos.games.set_status(game.game_id, GameStatus.RUNNING, now=now)
        await repos.games.set_status(game.game_id, GameStatus.OVER, now=now)
        made.append(game.game_id)
    return made


async def test_caches_stay_bounded_and_the_running_game_keeps_its_state(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(states, "KEEP_SETTLED", 5)
    monkeypatch.setattr(states, "KEEP_LOCKS", 10)
    monkeypatch.setattr(people, "KEEP_PEOPLE", 20)
    monkeypatch.setattr(people, "KEEP_CHATS", 3)
    async with open_game(12, seed=5, lang="en") as table:
        await table.gather()
        await table.begin()
        service = table.app.service
        game = await service.repos.games.get(table.game_id or 0)
        assert game is not None and game.state_json is not None
        old = await settled_games(service, game.state_json, 40)
        # Buttons naming those games (and games that never were), as a forger presses.
        turn = table.turn_message()
        for game_id in [*old, *range(10**6, 10**6 + 40)]:
            forge(table, table.people[0], turn, f"t:{game_id}:1:0")
        await table.settle()
        # Newcomers, each in their own chat with the bot, and a few groups.
        for i in range(60):
            person = table.sandbox.add_user(f"Guest {i}", language_code="en")
            await person.start_bot()
        for i in range(6):
            group = table.sandbox.add_supergroup(f"Other club {i}", owner=table.host)
            await table.host.send(group, "/rules")
        await table.settle()
        assert len(service.states.settled) <= 5
        assert len(service.states.locks) <= 2 * 10
        for known in (
            service.people.known_users,
            service.people.user_langs,
            service.people.username_owners,
        ):
            assert len(known) <= 20
        for chats in (service.people.known_chats, service.people.chat_langs):
            assert len(chats) <= 3
        # The running game never left the cache, and plays on.
        state = service.cached_state(table.game_id or 0)
        assert state is not None and not state.finished
        step = state.step
        await table.pass_turn()
        after = table.state
        assert after is not None and after.step > step
        # Someone forgotten is still answered in their language, and stored as they are.
        first = table.sandbox.user(table.people[0].id)
        await first.send(first.private, "/lang ru")
        await table.settle()
        assert (await service.repos.users.get(first.id)) is not None
        assert await service.user_lang(first.id) == "ru"
        table.sandbox.assert_no_bot_errors()


async def test_a_private_text_does_not_read_every_running_game(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """N1: the relay finds the writer's game through the index of players, at any load."""
    async with open_game(12, seed=5, lang="en") as table:
        await table.gather()
        await table.begin()
        service = table.app.service
        reads = 0
        running = service.repos.games.running

        async def counted() -> object:
            nonlocal reads
            reads += 1
            return await running()

        monkeypatch.setattr(service.repos.games, "running", counted)
        state = await table.wait_for(lambda s: s.phase is Phase.ACQUAINTANCE)
        first, second, *_ = state.living_mafia()
        writer, partner = table.person(first), table.person(second)
        for i in range(5):
            await writer.send(writer.private, f"relay {i}")
            await table.settle()
        assert [m.content for m in partner.inbox() if "relay" in m.content][-5:] == [
            f"💬 {table.named(first)}: relay {i}" for i in range(5)
        ]
        assert reads <= 1  # once, at the first text: then kept at every deal and end
        civilian = next(s for s, r in state.roles.items() if r is Role.CIVILIAN)
        assert [g.game_id for g, _ in await service.games_of_user(table.person(civilian).id)] == [
            table.game_id
        ]
        # After a restart the index is read again from the database.
        await table.restart()
        await writer.send(writer.private, "after the restart")
        await table.settle()
        assert partner.inbox()[-1].content.endswith("after the restart")
        # A game over is out of it: its players are told they have no game running.
        await table.host.send(table.group, "/stop")
        await table.settle()
        assert await table.app.service.games_of_user(writer.id) == []
        table.sandbox.assert_no_bot_errors()
