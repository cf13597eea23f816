"""Basic groups and their upgrade to a supergroup, as the Bot API documents them (issue 21 §3).

A basic group is a Chat of type "group": it has no topics and no restrictions
(restrictChatMember and unbanChatMember are for supergroups). Upgraded, it becomes a new
supergroup with a new id and the same people; the bot hears of it by a service message
in each chat (`migrate_to_chat_id` in the old, `migrate_from_chat_id` in the new), and
Telegram refuses every later request to the old id with 400 and the new id in
`parameters.migrate_to_chat_id`.
"""

from __future__ import annotations

import pytest
from aiogram import Bot
from aiogram.exceptions import TelegramBadRequest, TelegramMigrateToChat
from aiogram.types import ChatPermissions, Update
from aiohttp import ClientSession

from sandbox import Sandbox, SimulationError

UPGRADED = "Bad Request: group chat was upgraded to a supergroup chat"


def updates(sandbox: Sandbox) -> list[Update]:
    return [Update.model_validate(raw) for raw in sandbox.pending_updates]


async def test_a_basic_group_is_of_type_group_and_has_no_supergroup_methods(
    bot: Bot, sandbox: Sandbox
) -> None:
    anna, boris = sandbox.add_user("Anna"), sandbox.add_user("Boris")
    club = sandbox.add_group("Club", owner=anna)
    club.promote_bot(by=anna, can_restrict_members=True)
    club.add_member(boris)
    assert club.id < 0 and not str(club.id).startswith("-100")

    chat = await bot.get_chat(club.id)
    assert chat.type == "group"
    said = await boris.send(club, "/status")
    message = updates(sandbox)[-1].message
    assert message is not None and message.message_id == said.message_id
    assert message.chat.type == "group"

    mute = ChatPermissions(can_send_messages=False)
    with pytest.raises(TelegramBadRequest, match="for supergroup and channel chats only"):
        await bot.restrict_chat_member(club.id, boris.id, mute)
    with pytest.raises(TelegramBadRequest, match="for supergroup and channel chats only"):
        await bot.unban_chat_member(club.id, boris.id)
    with pytest.raises(SimulationError):
        club.make_forum()
    with pytest.raises(SimulationError):
        club.restrict(boris)
    assert club.status_of(boris) == "member"


async def test_restrict_chat_member_mutes_and_frees_in_a_supergroup(
    bot: Bot, sandbox: Sandbox
) -> None:
    anna, boris = sandbox.add_user("Anna"), sandbox.add_user("Boris")
    club = sandbox.add_supergroup("Club", owner=anna)
    club.add_member(boris)
    club.promote_bot(by=anna)
    mute = ChatPermissions(can_send_messages=False)
    with pytest.raises(TelegramBadRequest, match="not enough rights to restrict"):
        await bot.restrict_chat_member(club.id, boris.id, mute)
    club.promote_bot(by=anna, can_restrict_members=True)
    with pytest.raises(TelegramBadRequest, match="only for supergroups"):
        await bot.restrict_chat_member(boris.id, boris.id, mute)

    assert await bot.restrict_chat_member(club.id, boris.id, mute)
    assert club.status_of(boris) == "restricted"
    with pytest.raises(SimulationError, match="muted"):
        await boris.send(club, "hello")
    free = ChatPermissions(**dict.fromkeys(ChatPermissions.model_fields, True))
    assert await bot.restrict_chat_member(club.id, boris.id, free)
    assert club.status_of(boris) == "member"


async def test_an_upgrade_makes_a_supergroup_with_the_same_people_and_refuses_the_old_id(
    bot: Bot, sandbox: Sandbox
) -> None:
    anna, boris, vera = (sandbox.add_user(name) for name in ("Anna", "Boris", "Vera"))
    club = sandbox.add_group("Club", owner=anna)
    club.promote_bot(by=anna, can_pin_messages=True, can_delete_messages=True)
    club.add_member(boris)
    club.add_member(vera)
    club.promote(vera, can_pin_messages=True)
    posted = await bot.send_message(club.id, "The table")
    sandbox.world.updates.drop_pending()

    upgraded = club.migrate_to_supergroup()

    assert upgraded.id != club.id and str(upgraded.id).startswith("-100")
    assert upgraded.title == club.title and upgraded.type == "supergroup"
    for person in (anna, boris, vera, sandbox.bot):
        assert upgraded.status_of(person) == club.status_of(person)
    assert upgraded.member(vera).rights == club.member(vera).rights
    assert upgraded.bot_rights == club.bot_rights
    told = [u.message for u in updates(sandbox)]
    assert [(m.chat.id, m.chat.type) for m in told if m] == [
        (club.id, "group"),
        (upgraded.id, "supergroup"),
    ]
    old, new = told
    assert old is not None and old.migrate_to_chat_id == upgraded.id
    assert new is not None and new.migrate_from_chat_id == club.id
    assert old.from_user is not None and old.from_user.id == anna.id

    with pytest.raises(TelegramMigrateToChat) as refused:
        await bot.send_message(club.id, "Still there?")
    assert refused.value.migrate_to_chat_id == upgraded.id
    assert UPGRADED in refused.value.message
    for call in (
        bot.edit_message_text("Edited", chat_id=club.id, message_id=posted.message_id),
        bot.pin_chat_message(club.id, posted.message_id),
        bot.get_chat(club.id),
        bot.get_chat_member(club.id, boris.id),
    ):
        with pytest.raises(TelegramMigrateToChat):
            await call
    record = sandbox.rejected()[-1]
    assert record.status == 400 and record.description == UPGRADED

    sent = await bot.send_message(upgraded.id, "Here now")
    assert sent.chat.type == "supergroup"
    assert await bot.pin_chat_message(upgraded.id, sent.message_id)
    assert upgraded.pinned is not None and upgraded.pinned.message_id == sent.message_id
    with pytest.raises(SimulationError):
        await boris.send(club, "hello?")
    with pytest.raises(SimulationError):
        club.migrate_to_supergroup()
    with pytest.raises(SimulationError):
        upgraded.migrate_to_supergroup()


async def test_the_upgrade_through_the_control_api(sandbox: Sandbox) -> None:
    anna = sandbox.add_user("Anna")
    async with ClientSession(sandbox.base_url) as http:
        made = await http.post(
            "/_sandbox/groups", json={"title": "Club", "owner_id": anna.id, "type": "group"}
        )
        group = (await made.json())["chat"]
        assert group["type"] == "group"
        moved = await http.post(f"/_sandbox/groups/{group['id']}/migrate", json={})
        upgraded = (await moved.json())["chat"]
    assert upgraded["type"] == "supergroup" and upgraded["id"] != group["id"]
    assert sandbox.group(group["id"]).migrated_to == upgraded["id"]
