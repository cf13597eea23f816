"""Authority is never taken by a reply or a topic, nor by a chat (issue 21 §2).

A command's target comes from an explicit argument or from a reply to a real member's
own message: not the first message of a forum topic (which every message of the topic
replies to), not a service message, not a linked channel's post Telegram forwarded, not
a bot. A message sent on behalf of a chat (an anonymous administrator, a channel, an
automatic forward) opens, stops and runs nothing.
"""

from __future__ import annotations

import pytest

from bot.cli.demo import Table
from bot.views.i18n import Texts
from sandbox import SimGroup, SimMessage
from storage.games import GameStatus
from tests.middle.games import open_game
from tests.steps import tournament_table

CHANNEL = {"id": -1_002_000_000_001, "type": "channel", "title": "Club news"}
HOST_USAGE = "Reply /host to a member's message"
AS_YOURSELF = "Send the command as yourself"


async def host_of(table: Table, chat: SimGroup) -> int:
    game = await table.app.service.active_game(chat.id)
    assert game is not None
    return game.host_user_id


async def hand_over(table: Table, command: SimMessage) -> str:
    """What the group heard after the Host's /host."""
    await table.settle()
    answer = table.group.visible_messages()[-1]
    assert answer.from_bot
    return answer.content


@pytest.mark.rule("S1")
async def test_a_bare_host_in_a_topic_hands_the_game_to_nobody() -> None:
    async with open_game(12, seed=5, lang="en") as table:
        creator = table.sandbox.add_user("Topic Maker", language_code="en")
        table.group.add_member(creator)
        table.group.make_forum()
        topic = table.group.create_topic("Game night", by=creator)
        table.topic = topic  # the game is played in the topic
        await table.settle()
        await table.gather()
        await table.begin()
        # The command replies to the topic's first message, which the topic's creator sent.
        command = await table.host.send(table.group, "/host", topic=topic)
        assert command.reply_to is not None and command.reply_to.sender is creator
        assert HOST_USAGE in await hand_over(table, command)
        assert await host_of(table, table.group) == table.host.id
        assert creator.inbox() == []  # no panel, no roles
        table.sandbox.assert_no_bot_errors()


@pytest.mark.rule("S1")
async def test_a_bare_host_in_another_topic_is_pointed_to_the_game(table: Table) -> None:
    """The game in General, /host in a topic opened since: not the game's topic."""
    creator = table.sandbox.add_user("Topic Maker", language_code="en")
    table.group.add_member(creator)
    table.group.make_forum()
    topic = table.group.create_topic("Chat while we play", by=creator)
    await table.settle()
    command = await table.host.send(table.group, "/host", topic=topic)
    assert "is played in the group's General topic" in await hand_over(table, command)
    assert await host_of(table, table.group) == table.host.id
    assert creator.inbox() == []  # no panel, no roles


@pytest.mark.rule("S1")
async def test_host_refuses_a_reply_to_a_forward_a_bot_a_chat_or_a_service_message() -> None:
    async with open_game(10, seed=3, lang="en") as table:
        await table.gather()  # in the lobby, where nothing said is deleted
        await replies_that_name_nobody(table)
        table.sandbox.assert_no_bot_errors()


async def replies_that_name_nobody(table: Table) -> None:
    group = table.group
    newcomer = table.sandbox.add_user("Newcomer", language_code="en")
    group.add_member(newcomer)
    joined = group.visible_messages()[-1]
    assert joined.service and joined.sender is newcomer
    forwarded = group.linked_channel_post(CHANNEL, "Tonight: the final table")
    anonymous = await table.host.send_as_group(group, "Doors open at 7")
    by_channel = await newcomer.send_as_channel(group, CHANNEL, "Club news")
    await table.settle()
    by_bot = next(m for m in reversed(group.visible_messages()) if m.from_bot)
    for target in (joined, forwarded, anonymous, by_channel, by_bot):
        command = await table.host.send(group, "/host", reply_to=target)
        assert HOST_USAGE in await hand_over(table, command), target
        assert await host_of(table, group) == table.host.id
    # A reply to a member's own message still hands the game over.
    said = await newcomer.send(group, "I can host")
    command = await table.host.send(group, "/host", reply_to=said)
    assert "Newcomer" in await hand_over(table, command)
    assert await host_of(table, group) == newcomer.id


@pytest.mark.rule("T7")
async def test_T7_a_bare_expel_in_a_topic_expels_nobody() -> None:
    async with open_game(12, seed=8, lang="en") as table:
        chat = await tournament_table(table)
        observer = table.sandbox.add_user("Onlooker", language_code="en")
        chat.add_member(observer)
        chat.make_forum()
        topic = chat.create_topic("Spectators", by=observer)
        await table.settle()
        game = await table.app.service.active_game(chat.id)
        assert game is not None
        state = await table.app.service.state(game.game_id)
        assert state is not None
        seat = next(s for s in state.living() if s != state.speaker)
        player = next(p for p in table.people if p.id == state.seats[seat].user_id)
        await player.send(chat, "/expel", topic=topic)
        await table.settle()
        assert chat.status_of(observer) == "member"
        forwarded = chat.linked_channel_post(CHANNEL, "Live from table 1")
        await player.send(chat, "/expel", reply_to=forwarded)
        await table.settle()
        assert "Reply /expel" in player.inbox()[-1].content
        table.sandbox.assert_no_bot_errors()


async def refused(table: Table, before: int) -> list[str]:
    await table.settle()
    return [m.content for m in table.group.visible_messages()[before:] if m.from_bot]


async def test_newgame_on_behalf_of_a_chat_opens_nothing() -> None:
    async with open_game(10, seed=3, lang="en") as table:
        group, host = table.group, table.host
        before = len(group.visible_messages())
        await host.send_as_group(group, "/newgame")
        answers = await refused(table, before)
        assert len(answers) == 1 and AS_YOURSELF in answers[0]
        assert "anonymous" in answers[0]  # an anonymous Host is told how to act
        assert await table.app.service.active_game(group.id) is None
        group.linked_channel_post(CHANNEL, "/newgame")
        await table.people[0].send_as_channel(group, CHANNEL, "/newgame")
        await table.settle()
        assert await table.app.service.active_game(group.id) is None
        assert await table.app.service.repos.users.get(777000) is None
        table.sandbox.assert_no_bot_errors()


async def test_a_lobby_is_neither_begun_nor_stopped_on_behalf_of_a_chat() -> None:
    async with open_game(10, seed=3, lang="en") as table:
        await table.gather()
        group = table.group
        before = len(group.visible_messages())
        for command in ("/begin", "/stop", "/join"):
            await table.host.send_as_group(group, command)
        answers = await refused(table, before)
        assert len(answers) == 1 and AS_YOURSELF in answers[0]  # once, not a flood
        group.linked_channel_post(CHANNEL, "/stop")
        await table.people[0].send_as_channel(group, CHANNEL, "/stop")
        await table.settle()
        game = await table.app.service.active_game(group.id)
        assert game is not None and game.status is GameStatus.LOBBY
        assert game.host_user_id == table.host.id
        assert len(await table.app.service.repos.lobby.players(game.game_id)) == 10
        table.sandbox.assert_no_bot_errors()


@pytest.mark.rule("D10")
async def test_a_running_game_is_not_stopped_on_behalf_of_a_chat(table: Table) -> None:
    group = table.group
    stop = await table.host.send_as_group(group, "/stop")
    forwarded = group.linked_channel_post(CHANNEL, "/stop")
    await table.settle()
    game = await table.app.service.active_game(group.id)
    assert game is not None and game.status is GameStatus.RUNNING
    assert stop.deleted and forwarded.deleted  # nobody speaks out of turn (D10)
    assert AS_YOURSELF in group.visible_messages()[-1].content


def test_the_refusal_is_written_in_russian_first() -> None:
    text = Texts("ru")("ru", "common.on_behalf")
    assert "от своего имени" in text and "анонимн" in text
