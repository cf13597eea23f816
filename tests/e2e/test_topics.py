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

from bot.demo import Crowd, Table, open_table, play
from bot.rules.events import Phase
from bot.rules.state import GameState
from bot.sandbox import SimGroup, SimMessage

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
    async with open_table(12, seed=13, lang="en") as table:
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
