"""Forum topics and messages on behalf of a chat, as the Bot API documents them (issue 21)."""

from __future__ import annotations

import pytest
from aiogram import Bot
from aiogram.exceptions import TelegramBadRequest
from aiogram.types import Update

from sandbox import Sandbox, SimulationError

CHANNEL = {"id": -1_002_000_000_001, "type": "channel", "title": "Club news"}


def last_update(sandbox: Sandbox) -> Update:
    return Update.model_validate(sandbox.pending_updates[-1])


async def test_a_message_in_a_topic_replies_to_the_topic_and_carries_its_thread(
    bot: Bot, sandbox: Sandbox
) -> None:
    anna = sandbox.add_user("Anna")
    club = sandbox.add_supergroup("Club", owner=anna)
    club.promote_bot(by=anna, can_manage_topics=True)
    club.make_forum()
    topic = club.create_topic("Game night", by=anna)
    created = last_update(sandbox).message
    assert created is not None and created.forum_topic_created is not None
    assert created.message_thread_id == topic and created.chat.is_forum

    said = await anna.send(club, "/host", topic=topic)
    message = last_update(sandbox).message
    assert message is not None and message.message_id == said.message_id
    assert message.is_topic_message and message.message_thread_id == topic
    # Telegram's shape: an answer to nothing in a topic answers the topic's first message.
    assert message.reply_to_message is not None
    assert message.reply_to_message.forum_topic_created is not None

    sent = await bot.send_message(club.id, "Lobby", message_thread_id=topic)
    assert sent.message_thread_id == topic and sent.is_topic_message
    with pytest.raises(TelegramBadRequest, match="message thread not found"):
        await bot.send_message(club.id, "Lobby", message_thread_id=topic + 100)
    general = await bot.send_message(club.id, "In General")
    assert general.message_thread_id is None
    with pytest.raises(SimulationError):
        await anna.send(club, "no such topic", topic=topic + 100)


async def test_a_plain_group_has_no_topics(bot: Bot, sandbox: Sandbox) -> None:
    anna = sandbox.add_user("Anna")
    club = sandbox.add_supergroup("Club", owner=anna)
    club.add_bot(added_by=anna)
    with pytest.raises(TelegramBadRequest, match="message thread not found"):
        await bot.send_message(club.id, "Lobby", message_thread_id=1)
    await anna.start_bot()
    with pytest.raises(TelegramBadRequest, match="message thread not found"):
        await bot.send_message(anna.id, "hi", message_thread_id=1)


async def test_messages_on_behalf_of_a_chat(sandbox: Sandbox) -> None:
    anna = sandbox.add_user("Anna")
    boris = sandbox.add_user("Boris")
    club = sandbox.add_supergroup("Club", owner=anna)
    club.promote_bot(by=anna, can_delete_messages=True)
    club.add_member(boris)

    await anna.send_as_group(club, "/newgame")
    anonymous = last_update(sandbox).message
    assert anonymous is not None and anonymous.from_user is not None
    assert anonymous.from_user.id == 1087968824 and anonymous.from_user.is_bot
    assert anonymous.sender_chat is not None and anonymous.sender_chat.id == club.id
    with pytest.raises(SimulationError):
        await boris.send_as_group(club, "/newgame")  # only an administrator is anonymous

    await boris.send_as_channel(club, CHANNEL, "/stop")
    channel = last_update(sandbox).message
    assert channel is not None and channel.sender_chat is not None
    assert channel.sender_chat.type == "channel" and not channel.is_automatic_forward

    club.linked_channel_post(CHANNEL, "/newgame")
    forward = last_update(sandbox).message
    assert forward is not None and forward.from_user is not None
    assert forward.from_user.id == 777000 and forward.is_automatic_forward
    assert forward.sender_chat is not None and forward.sender_chat.id == CHANNEL["id"]


async def test_a_deleted_topic_takes_its_messages_and_refuses_new_ones(
    bot: Bot, sandbox: Sandbox
) -> None:
    anna = sandbox.add_user("Anna")
    boris = sandbox.add_user("Boris")
    club = sandbox.add_supergroup("Club", owner=anna)
    club.promote_bot(by=anna, can_pin_messages=True)
    club.add_member(boris)
    club.make_forum()
    topic = club.create_topic("Game night", by=anna)
    said = await boris.send(club, "hello", topic=topic)
    sent = await bot.send_message(club.id, "Lobby", message_thread_id=topic)
    await bot.pin_chat_message(club.id, sent.message_id)
    with pytest.raises(SimulationError):
        club.delete_topic(topic, by=boris)  # no right to manage topics
    club.delete_topic(topic, by=anna)
    assert said.deleted and club.message(sent.message_id) is None
    assert club.pinned is None
    with pytest.raises(TelegramBadRequest, match="message thread not found"):
        await bot.send_message(club.id, "Turn", message_thread_id=topic)
    general = await bot.send_message(club.id, "Turn")
    assert general.message_thread_id is None
