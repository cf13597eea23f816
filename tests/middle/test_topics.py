"""Forum supergroups: a game opened in a topic lives in that topic (issue 21 §2).

Every post of the game (the lobby, the pinned table, turns, votes, the nights' group
posts, the result, the Host's group replies) carries the topic's message_thread_id, as
the sandbox checks Telegram would. What is said in the forum's other topics, and in its
General, is not the game's: the silence guard neither deletes nor reports it (D10, N5),
a game command there is answered with a link to the game's topic and changes nothing,
and a second /newgame there is refused, naming where the game is.
"""

from __future__ import annotations

import random

import pytest

from bot.cli.demo import Crowd, Table, play
from bot.rules.events import Phase
from bot.rules.state import GameState
from sandbox import SimGroup, SimMessage
from tests.middle.games import open_game

EYES_OPEN = "wrote in the group at night"  # the Host's V3 report (N5)
POINTER = "is played in"  # the answer to a game command outside the game's topic
SECOND_GAME = "This group already has a game"


def forum(group: SimGroup) -> tuple[int, int]:
    """The group made a forum with two topics: the game's and the club's chat."""
    group.make_forum()
    game = group.create_topic("Game night")
    chat = group.create_topic("Chat")
    return game, chat


def bot_posts(group: SimGroup, since: int = 0) -> list[SimMessage]:
    """What the bot posted in the group (deleted or not), Telegram's service lines aside."""
    return [m for m in group.messages()[since:] if m.from_bot and not m.service]


def links(message: SimMessage) -> list[str]:
    return [e["url"] for e in message.entities if e.get("type") == "text_link"]


def at_night(state: GameState) -> bool:
    return state.phase in (Phase.ACQUAINTANCE, Phase.NIGHT)


async def topic_table(table: Table) -> tuple[int, int]:
    game, chat = forum(table.group)
    table.topic = game
    await table.settle()
    await table.gather()
    await table.begin()
    return game, chat


@pytest.mark.rule("D10")
async def test_a_game_opened_in_a_topic_posts_everything_in_that_topic() -> None:
    """A whole game of twelve, its Host never having pressed Start (so that the Host's
    replies, the night's V3 report among them, go to the group): every post in the
    topic, nothing in General or the other topic."""
    async with open_game(12, seed=13, lang="en") as table:
        game_topic, chat_topic = forum(table.group)
        table.topic = game_topic
        await table.settle()
        general_talk = await table.people[0].send(table.group, "Who is coming tonight?")
        await table.gather()
        await table.begin()
        # The Host's command in the topic is answered there.
        await table.host.send(table.group, "/status", topic=game_topic)
        await table.settle()
        assert "Day 0" in bot_posts(table.group)[-1].content
        # A player writing in the game's topic at night: deleted, and the Host (who never
        # pressed Start) hears of it in the group, in the topic.
        state = await table.wait_for(at_night)
        seat = state.living()[0]
        said = await table.person(seat).send(table.group, "I am sure of 7", topic=game_topic)
        await table.settle()
        assert said.deleted
        assert any(EYES_OPEN in m.content for m in bot_posts(table.group))
        state = await play(table, Crowd(table, random.Random(13), "en"))
        assert state.finished
        posts = bot_posts(table.group)
        assert len(posts) > 30
        assert state.seed in posts[-1].content  # the result, with the seed (S3)
        # The lobby, the pinned table, turns, votes, nights, the result: all in the topic.
        misplaced = [(m.thread_id, m.content[:40]) for m in posts if m.thread_id != game_topic]
        assert misplaced == []
        pinned = table.group.pinned_messages
        assert pinned and all(m.thread_id == game_topic for m in pinned)
        assert not general_talk.deleted
        assert all(m.thread_id in (game_topic, None) for m in posts)
        assert chat_topic not in {m.thread_id for m in table.group.messages() if m.from_bot}
        stored = await table.app.service.repos.games.get(state.game_id)
        assert stored is not None and stored.thread_id == game_topic  # kept with the game
        table.sandbox.assert_no_bot_errors()


@pytest.mark.rule("N5")
async def test_N5_speech_in_another_topic_at_night_is_neither_deleted_nor_reported() -> None:
    async with open_game(12, seed=5, lang="en") as table:
        await table.host.start_bot()
        game_topic, chat_topic = await topic_table(table)
        state = await table.wait_for(at_night)
        before = (state.step, state.phase, state.deadline)
        reports = len(table.host.inbox())
        seen = len(table.group.messages())
        player = table.person(state.living()[0])
        elsewhere = await player.send(table.group, "Anyone for pizza after?", topic=chat_topic)
        in_general = await player.send(table.group, "Photos from last week are up")
        await table.settle()
        assert not elsewhere.deleted and not in_general.deleted
        edited = await player.edit(elsewhere, "Anyone for pizza after the game?")
        await table.settle()
        assert not elsewhere.deleted and not in_general.deleted and not edited.deleted
        assert not [m for m in table.host.inbox()[reports:] if EYES_OPEN in m.content]
        assert bot_posts(table.group, seen) == []  # nothing said about it in the group
        # The same words in the game's topic are speech at night: deleted, reported.
        said = await player.send(table.group, "Anyone for pizza after?", topic=game_topic)
        await table.settle()
        assert said.deleted
        assert [m for m in table.host.inbox()[reports:] if EYES_OPEN in m.content]
        later = table.state
        assert later is not None and (later.step, later.phase, later.deadline) == before
        table.sandbox.assert_no_bot_errors()


@pytest.mark.rule("D10")
async def test_D10_a_game_command_in_another_topic_points_to_the_game_and_changes_nothing() -> None:
    async with open_game(12, seed=5, lang="en") as table:
        game_topic, chat_topic = await topic_table(table)
        state = table.state
        assert state is not None
        before = (state.step, state.paused, state.deadline)
        player = table.person(state.living()[-1])  # not the speaker
        command = await table.host.send(table.group, "/pause", topic=chat_topic)
        asked = await player.send(table.group, "/pass", topic=chat_topic)
        await table.settle()
        assert not command.deleted and not asked.deleted
        pointers = [m for m in bot_posts(table.group) if POINTER in m.content]
        assert len(pointers) == 2
        for pointer in pointers:
            assert pointer.thread_id == chat_topic  # answered where it was asked
            assert [u for u in links(pointer) if u.endswith(f"/{game_topic}")]  # t.me link
        state = table.state
        assert state is not None and (state.step, state.paused, state.deadline) == before
        table.sandbox.assert_no_bot_errors()


@pytest.mark.rule("S1")
async def test_a_second_newgame_in_another_topic_is_refused_naming_where_the_game_is() -> None:
    async with open_game(12, seed=5, lang="en") as table:
        game_topic, chat_topic = forum(table.group)
        table.topic = game_topic
        await table.settle()
        await table.gather()  # a lobby, still open
        first = await table.app.service.active_game(table.group.id)
        assert first is not None
        seen = len(table.group.messages())
        # An administrator's /newgame would take a casual lobby over in its own topic:
        # elsewhere it is refused like anyone's.
        admin = table.people[0]
        table.group.promote(admin, can_delete_messages=True)
        await admin.send(table.group, "/newgame", topic=chat_topic)
        await table.people[1].send(table.group, "/newgame")  # General
        await table.settle()
        refusals = bot_posts(table.group, seen)
        assert [m.thread_id for m in refusals] == [chat_topic, None]
        for refusal in refusals:
            assert SECOND_GAME in refusal.content and f"#{first.game_id}" in refusal.content
            assert [u for u in links(refusal) if u.endswith(f"/{game_topic}")]
        game = await table.app.service.active_game(table.group.id)
        assert game == first  # the same lobby, the same Host, in the same topic
        await table.begin()
        assert table.state is not None and table.state.game_id == first.game_id
        table.sandbox.assert_no_bot_errors()


@pytest.mark.rule("D10")
async def test_D10_a_game_whose_topic_is_deleted_goes_on_in_general() -> None:
    async with open_game(12, seed=5, lang="en") as table:
        game_topic, _ = await topic_table(table)
        await table.wait_for(at_night)
        table.group.delete_topic(game_topic)
        seen = len(table.group.messages())
        state = await table.wait_for(lambda s: s.phase is Phase.ROUND_1)
        posts = bot_posts(table.group, seen)
        assert posts and all(m.thread_id is None for m in posts)
        assert any(m.buttons() for m in posts)  # the day's turns, in General
        game = await table.app.service.active_game(table.group.id)
        assert game is not None and game.thread_id is None
        # General is now the game's: speech out of turn there is silenced (D10).
        speaker = state.speaker
        other = next(s for s in state.living() if s != speaker)
        said = await table.person(other).send(table.group, "Not my turn, but")
        await table.settle()
        assert said.deleted
        assert table.state is not None and not table.state.finished


@pytest.mark.rule("D10")
async def test_D10_after_a_restart_the_game_goes_on_in_its_topic() -> None:
    """What a restarted bot posts (the notice that it is back, the next turns, the table
    posted anew) finds the game's topic in the database."""
    async with open_game(12, seed=5, lang="en") as table:
        game_topic, chat_topic = await topic_table(table)
        await table.wait_for(at_night)
        seen = len(table.group.messages())
        await table.restart()
        await table.wait_for(lambda s: s.phase is Phase.ROUND_1)
        posts = bot_posts(table.group, seen)
        assert len(posts) >= 2 and all(m.thread_id == game_topic for m in posts)
        said = await table.people[0].send(table.group, "brb", topic=chat_topic)
        await table.settle()
        assert not said.deleted
        table.sandbox.assert_no_bot_errors()
