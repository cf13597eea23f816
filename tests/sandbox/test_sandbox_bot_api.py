"""The sandbox answers an aiogram Bot the way Telegram does: state, rights and refusals."""

from __future__ import annotations

import asyncio

import pytest
from aiogram import Bot
from aiogram.exceptions import (
    TelegramBadRequest,
    TelegramConflictError,
    TelegramForbiddenError,
    TelegramRetryAfter,
)
from aiogram.types import (
    BotCommand,
    BotCommandScopeAllGroupChats,
    BotCommandScopeChat,
    BufferedInputFile,
    InlineKeyboardButton,
    InlineKeyboardMarkup,
    ReplyParameters,
    WebAppInfo,
)

from sandbox import ManualClock, RateLimits, Sandbox, SimulationError, Window


def keyboard(*labels: str) -> InlineKeyboardMarkup:
    return InlineKeyboardMarkup(
        inline_keyboard=[
            [InlineKeyboardButton(text=label, callback_data=label) for label in labels]
        ]
    )


async def test_get_me_describes_the_bot(bot: Bot, sandbox: Sandbox) -> None:
    me = await bot.get_me()

    assert me.id == sandbox.bot.id == bot.id
    assert me.is_bot
    assert me.username == "mafia_table_bot"
    assert me.can_read_all_group_messages is False


async def test_the_bot_may_write_only_after_start_and_until_blocked(
    bot: Bot, sandbox: Sandbox
) -> None:
    anna = sandbox.add_user("Anna")

    with pytest.raises(TelegramForbiddenError, match="can't initiate conversation"):
        await bot.send_message(anna.id, "Your card")
    await anna.start_bot()
    await bot.send_message(anna.id, "Your card")
    await anna.block_bot()
    with pytest.raises(TelegramForbiddenError, match="bot was blocked by the user"):
        await bot.send_message(anna.id, "Still there?")

    assert [m.text for m in anna.inbox()] == ["Your card"]


async def test_a_message_sent_without_notification_is_marked_silent(
    bot: Bot, sandbox: Sandbox
) -> None:
    """sendMessage's disable_notification (api.json): the message arrives without a sound,
    and a test can tell which did (issue 22 §3)."""
    anna = sandbox.add_user("Anna")
    await anna.start_bot()

    await bot.send_message(anna.id, "Your turn is next", disable_notification=True)
    await bot.send_message(anna.id, "Day 1")

    assert [(m.text, m.silent) for m in anna.inbox()] == [
        ("Your turn is next", True),
        ("Day 1", False),
    ]


async def test_text_length_is_counted_after_entity_parsing(bot: Bot, sandbox: Sandbox) -> None:
    anna = sandbox.add_user("Anna")
    await anna.start_bot()

    await bot.send_message(anna.id, "<b>" + "x" * 4096 + "</b>", parse_mode="HTML")
    with pytest.raises(TelegramBadRequest, match="message is too long"):
        await bot.send_message(anna.id, "x" * 4097)
    with pytest.raises(TelegramBadRequest, match="message text is empty"):
        await bot.send_message(anna.id, " \n ")
    with pytest.raises(TelegramBadRequest, match="can't parse entities: Unmatched end tag"):
        await bot.send_message(anna.id, "<b>bold</i>", parse_mode="HTML")

    assert len(anna.inbox()) == 1


async def test_callback_data_is_limited_to_64_bytes(bot: Bot, sandbox: Sandbox) -> None:
    anna = sandbox.add_user("Anna")
    await anna.start_bot()

    await bot.send_message(anna.id, "fits", reply_markup=keyboard("я" * 32))
    with pytest.raises(TelegramBadRequest, match="BUTTON_DATA_INVALID"):
        await bot.send_message(anna.id, "too long", reply_markup=keyboard("я" * 32 + "x"))

    assert [m.text for m in anna.inbox()] == ["fits"]


def mini_app(url: str) -> InlineKeyboardMarkup:
    button = InlineKeyboardButton(text="Open", web_app=WebAppInfo(url=url))
    return InlineKeyboardMarkup(inline_keyboard=[[button]])


async def test_a_mini_app_button_goes_to_private_chats_only_and_over_https(
    bot: Bot, sandbox: Sandbox
) -> None:
    anna = sandbox.add_user("Anna")
    await anna.start_bot()
    group = sandbox.add_supergroup("Club", owner=anna)
    group.add_bot(added_by=anna)

    sent = await bot.send_message(anna.id, "page", reply_markup=mini_app("https://x.example/t/1"))
    # The Bot API: web_app buttons are "available only in private chats".
    with pytest.raises(TelegramBadRequest, match="BUTTON_TYPE_INVALID"):
        await bot.send_message(group.id, "page", reply_markup=mini_app("https://x.example/t/1"))
    with pytest.raises(TelegramBadRequest, match="Only HTTPS links are allowed"):
        await bot.send_message(anna.id, "page", reply_markup=mini_app("http://x.example/t/1"))

    [message] = [m for m in anna.inbox() if m.message_id == sent.message_id]
    opened = anna.open_web_app(message, "Open")
    assert opened.startswith("https://x.example/t/1#tgWebAppData=")


async def test_an_unknown_parameter_is_refused(bot: Bot, sandbox: Sandbox) -> None:
    anna = sandbox.add_user("Anna")
    await anna.start_bot()

    # Deprecated since Bot API 7.0 and absent from the method table.
    with pytest.raises(TelegramBadRequest, match='unknown parameter "disable_web_page_preview"'):
        await bot.send_message(anna.id, "hi", disable_web_page_preview=True)

    [refusal] = sandbox.bot_errors()
    assert refusal.method == "sendMessage"
    assert refusal.chat_id == anna.id


async def test_the_bot_cannot_delete_others_messages_without_the_right(
    bot: Bot, sandbox: Sandbox
) -> None:
    anna = sandbox.add_user("Anna")
    club = sandbox.add_supergroup("Club", owner=anna)
    club.add_bot()
    chatter = await anna.send(club, "hello everyone")
    own = await bot.send_message(club.id, "Lobby")

    with pytest.raises(TelegramBadRequest, match="message can't be deleted"):
        await bot.delete_message(club.id, chatter.message_id)
    await bot.delete_message(club.id, own.message_id)
    club.promote_bot(can_delete_messages=True)
    await bot.delete_message(club.id, chatter.message_id)
    with pytest.raises(TelegramBadRequest, match="message to delete not found"):
        await bot.delete_message(club.id, chatter.message_id)

    assert chatter.deleted
    assert chatter not in club.visible_messages()
    assert chatter in club.messages()


async def test_edits_follow_telegrams_rules(bot: Bot, sandbox: Sandbox) -> None:
    anna = sandbox.add_user("Anna")
    club = sandbox.add_supergroup("Club", owner=anna)
    club.add_bot()
    lobby = await bot.send_message(club.id, "Lobby: nobody", reply_markup=keyboard("Join"))
    theirs = await anna.send(club, "mine")

    await bot.edit_message_text(
        "Lobby: Anna", chat_id=club.id, message_id=lobby.message_id, reply_markup=keyboard("Join")
    )
    with pytest.raises(TelegramBadRequest, match="message is not modified"):
        await bot.edit_message_text(
            "Lobby: Anna  ",
            chat_id=club.id,
            message_id=lobby.message_id,
            reply_markup=keyboard("Join"),
        )
    # Without reply_markup the keyboard goes away, as in Telegram.
    edited = await bot.edit_message_text(
        "Lobby: closed", chat_id=club.id, message_id=lobby.message_id
    )
    with pytest.raises(TelegramBadRequest, match="message can't be edited"):
        await bot.edit_message_text("hacked", chat_id=club.id, message_id=theirs.message_id)

    assert isinstance(edited, type(lobby))
    assert edited.edit_date is not None
    [shown] = [m for m in club.visible_messages() if m.message_id == lobby.message_id]
    assert shown.text == "Lobby: closed"
    assert shown.buttons() == []


async def test_pins_need_the_right(bot: Bot, sandbox: Sandbox) -> None:
    anna = sandbox.add_user("Anna")
    club = sandbox.add_supergroup("Club", owner=anna)
    club.add_bot()
    seating = await bot.send_message(club.id, "Seating: 1 · Anna")

    with pytest.raises(TelegramBadRequest, match="not enough rights to manage pinned messages"):
        await bot.pin_chat_message(club.id, seating.message_id)
    club.promote_bot(can_pin_messages=True)
    await bot.pin_chat_message(club.id, seating.message_id, disable_notification=True)
    chat = await bot.get_chat(club.id)
    assert club.pinned is not None
    assert club.pinned.message_id == seating.message_id
    assert chat.pinned_message is not None
    assert chat.pinned_message.message_id == seating.message_id

    await bot.unpin_all_chat_messages(club.id)
    assert club.pinned is None


async def test_get_updates_honours_offset_and_limit(bot: Bot, sandbox: Sandbox) -> None:
    anna = sandbox.add_user("Anna")
    await anna.start_bot()
    await anna.send(anna.private, "one")
    await anna.send(anna.private, "two")

    first = await bot.get_updates(limit=2)
    again = await bot.get_updates(limit=2)
    rest = await bot.get_updates(offset=first[-1].update_id + 1)
    done = await bot.get_updates(offset=rest[-1].update_id + 1)

    assert [u.message.text for u in first if u.message] == ["/start", "one"]
    assert [u.update_id for u in again] == [u.update_id for u in first]
    assert [u.message.text for u in rest if u.message] == ["two"]
    assert done == []
    assert sandbox.pending_updates == []


async def test_a_long_poll_returns_as_soon_as_an_update_arrives(bot: Bot, sandbox: Sandbox) -> None:
    anna = sandbox.add_user("Anna")
    loop = asyncio.get_running_loop()

    started = loop.time()
    assert await bot.get_updates(timeout=1) == []
    waited = loop.time() - started
    poll = asyncio.create_task(bot.get_updates(timeout=30))
    await sandbox.wait_polling()
    await anna.start_bot("lobby-7")
    updates = await asyncio.wait_for(poll, 2)

    assert 0.9 < waited < 2
    assert [u.message.text for u in updates if u.message] == ["/start lobby-7"]


async def test_a_second_poll_ends_the_first_with_a_conflict(bot: Bot, sandbox: Sandbox) -> None:
    first = asyncio.create_task(bot.get_updates(timeout=30))
    await sandbox.wait_polling()
    second = asyncio.create_task(bot.get_updates(timeout=0))

    with pytest.raises(TelegramConflictError, match="terminated by other getUpdates request"):
        await first
    assert await second == []


async def test_a_press_reaches_the_bot_and_its_alert_the_person(bot: Bot, sandbox: Sandbox) -> None:
    anna = sandbox.add_user("Anna")
    club = sandbox.add_supergroup("Club", owner=anna)
    club.add_bot()
    vote = await bot.send_message(club.id, "Vote", reply_markup=keyboard("3 · Boris", "Abstain"))
    await bot.get_updates(offset=-1)
    [shown] = [m for m in club.visible_messages() if m.message_id == vote.message_id]

    press = await anna.press(shown, "Abstain")
    [update] = await bot.get_updates(offset=-1)
    query = update.callback_query
    assert query is not None
    await bot.answer_callback_query(query.id, text="Not your turn", show_alert=True)

    assert query.data == "Abstain"
    assert query.from_user.id == anna.id
    assert query.message is not None
    assert query.message.message_id == vote.message_id
    assert query.chat_instance
    answer = await press.wait_answer(within=1)
    assert (answer.text, answer.show_alert) == ("Not your turn", True)
    assert anna.answers() == [answer]
    with pytest.raises(TelegramBadRequest, match="query is too old"):
        await bot.answer_callback_query(query.id)


async def test_demoting_the_bot_tells_it_by_my_chat_member(bot: Bot, sandbox: Sandbox) -> None:
    anna = sandbox.add_user("Anna")
    club = sandbox.add_supergroup("Club", owner=anna)
    club.promote_bot(can_delete_messages=True, can_restrict_members=True)
    await bot.get_updates(offset=-1)
    await bot.get_updates(offset=sandbox.pending_updates[-1]["update_id"] + 1)

    club.demote_bot()
    [update] = await bot.get_updates()

    change = update.my_chat_member
    assert change is not None
    assert change.chat.id == club.id
    assert change.from_user.id == anna.id
    assert change.old_chat_member.status == "administrator"
    assert change.new_chat_member.status == "member"
    member = await bot.get_chat_member(club.id, bot.id)
    assert member.status == club.bot_status == "member"


async def test_documents_travel_as_multipart_and_keep_their_bytes(
    bot: Bot, sandbox: Sandbox
) -> None:
    anna = sandbox.add_user("Anna")
    await anna.start_bot()
    data = b"seat,nick\n1,Anna\n"

    sent = await bot.send_document(
        anna.id,
        BufferedInputFile(data, filename="sheet.csv"),
        caption="<i>Sheet</i>",
        parse_mode="HTML",
    )
    again = await bot.send_document(anna.id, sent.document.file_id if sent.document else "")

    [first, second] = anna.inbox()
    assert first.file is not None
    assert first.file.data == data
    assert first.file.filename == "sheet.csv"
    assert first.file.mime_type == "text/csv"
    assert first.caption == "Sheet"
    assert second.file is first.file
    assert again.document is not None
    assert again.document.file_name == "sheet.csv"


async def test_protected_content_cannot_be_forwarded(bot: Bot, sandbox: Sandbox) -> None:
    anna = sandbox.add_user("Anna")
    club = sandbox.add_supergroup("Club", owner=anna)
    club.add_bot()
    await anna.start_bot()
    await bot.send_message(anna.id, "You are the Commissioner", protect_content=True)
    await bot.send_message(anna.id, "Game starts at 20:00")
    [card, notice] = anna.inbox()

    with pytest.raises(SimulationError, match="protected content"):
        await anna.forward(card, club)
    forwarded = await anna.forward(notice, club)

    assert card.to_api()["has_protected_content"] is True
    assert forwarded.forward_origin == {
        "type": "user",
        "date": notice.date,
        "sender_user": sandbox.bot.to_api(),
    }


async def test_replies_point_at_existing_messages(bot: Bot, sandbox: Sandbox) -> None:
    anna = sandbox.add_user("Anna")
    await anna.start_bot()
    question = await anna.send(anna.private, "/nick")

    reply = await bot.send_message(
        anna.id, "Your nick?", reply_parameters=ReplyParameters(message_id=question.message_id)
    )
    with pytest.raises(TelegramBadRequest, match="message to be replied not found"):
        await bot.send_message(anna.id, "?", reply_parameters=ReplyParameters(message_id=999))

    assert reply.reply_to_message is not None
    assert reply.reply_to_message.text == "/nick"


async def test_commands_are_kept_per_scope_and_resolved_like_the_menu(
    bot: Bot, sandbox: Sandbox
) -> None:
    anna = sandbox.add_user("Anna", language_code="en")
    club = sandbox.add_supergroup("Club", owner=anna)
    club.add_bot()
    default = [BotCommand(command="start", description="Start")]
    group = [BotCommand(command="newgame", description="New game")]
    host = [BotCommand(command="begin", description="Begin")]

    await bot.set_my_commands(default)
    await bot.set_my_commands(group, scope=BotCommandScopeAllGroupChats())
    await bot.set_my_commands(host, scope=BotCommandScopeChat(chat_id=club.id), language_code="en")
    with pytest.raises(TelegramBadRequest, match="BOT_COMMAND_INVALID"):
        await bot.set_my_commands([BotCommand(command="Begin", description="Begin")])

    in_groups = await bot.get_my_commands(scope=BotCommandScopeAllGroupChats())
    assert [(c.command, c.description) for c in in_groups] == [("newgame", "New game")]
    assert await bot.get_my_commands(scope=BotCommandScopeChat(chat_id=club.id)) == []
    assert [c["command"] for c in sandbox.command_menu(anna, club)] == ["begin"]
    assert [c["command"] for c in sandbox.command_menu(anna)] == ["start"]
    await bot.delete_my_commands(scope=BotCommandScopeChat(chat_id=club.id), language_code="en")
    assert [c["command"] for c in sandbox.command_menu(anna, club)] == ["newgame"]


async def test_invite_links_need_the_right_and_let_people_join(bot: Bot, sandbox: Sandbox) -> None:
    anna = sandbox.add_user("Anna")
    boris = sandbox.add_user("Boris")
    club = sandbox.add_supergroup("Club", owner=anna)
    club.add_bot()

    with pytest.raises(TelegramBadRequest, match="not enough rights to manage chat invite link"):
        await bot.create_chat_invite_link(club.id)
    club.promote_bot(can_invite_users=True)
    await bot.get_updates(offset=-1, allowed_updates=["message", "chat_member", "my_chat_member"])
    await bot.get_updates(offset=sandbox.pending_updates[-1]["update_id"] + 1)
    link = await bot.create_chat_invite_link(club.id, name="Tour 1", member_limit=1)
    await boris.open_link(link.invite_link)
    updates = await bot.get_updates()

    assert club.status_of(boris) == "member"
    assert [u.event_type for u in updates] == ["chat_member", "message"]
    joined = updates[0].chat_member
    assert joined is not None
    assert joined.invite_link is not None
    assert joined.invite_link.name == "Tour 1"
    assert await bot.get_chat_member_count(club.id) == 3
    vera = sandbox.add_user("Vera")
    with pytest.raises(SimulationError, match="member limit"):
        await vera.open_link(link.invite_link)


async def test_a_member_limit_counts_who_is_in_and_a_ban_with_an_end_ends(
    bot: Bot, sandbox: Sandbox, clock: ManualClock
) -> None:
    """As the Bot API says: member_limit is how many "can be members of the chat
    simultaneously after joining via this link", and a ban with until_date lifts itself."""
    anna = sandbox.add_user("Anna")
    boris = sandbox.add_user("Boris")
    club = sandbox.add_supergroup("Club", owner=anna)
    club.promote_bot(can_invite_users=True, can_restrict_members=True)
    link = await bot.create_chat_invite_link(club.id, member_limit=1)
    await boris.open_link(link.invite_link)
    await boris.leave(club)
    await boris.open_link(link.invite_link)  # he left: the place is free again
    until = int(sandbox.world.now()) + 3600
    await bot.ban_chat_member(club.id, boris.id, until_date=until)
    fresh = await bot.create_chat_invite_link(club.id)
    with pytest.raises(SimulationError, match="banned"):
        await boris.open_link(fresh.invite_link)
    clock.advance(3601)
    await boris.open_link(fresh.invite_link)
    assert club.status_of(boris) == "member"


async def test_banning_needs_the_right_and_spares_administrators(
    bot: Bot, sandbox: Sandbox
) -> None:
    anna = sandbox.add_user("Anna")
    boris = sandbox.add_user("Boris")
    club = sandbox.add_supergroup("Club", owner=anna)
    club.add_bot()
    club.add_member(boris)

    with pytest.raises(TelegramBadRequest, match="not enough rights to restrict"):
        await bot.ban_chat_member(club.id, boris.id)
    club.promote_bot(can_restrict_members=True)
    with pytest.raises(TelegramBadRequest, match="can't remove chat owner"):
        await bot.ban_chat_member(club.id, anna.id)
    club.promote(boris, can_delete_messages=True)
    with pytest.raises(TelegramBadRequest, match="user is an administrator of the chat"):
        await bot.ban_chat_member(club.id, boris.id)
    assert club.status_of(boris) == "administrator"
    club.demote(boris)
    await bot.ban_chat_member(club.id, boris.id)
    assert club.status_of(boris) == "kicked"
    await bot.unban_chat_member(club.id, boris.id, only_if_banned=True)
    assert club.status_of(boris) == "left"


async def test_privacy_mode_hides_chatter_from_a_bot_that_is_not_admin(
    bot: Bot, sandbox: Sandbox
) -> None:
    anna = sandbox.add_user("Anna")
    club = sandbox.add_supergroup("Club", owner=anna)
    club.add_bot()
    await bot.get_updates(offset=-1)
    await bot.get_updates(offset=sandbox.pending_updates[-1]["update_id"] + 1)

    await anna.send(club, "good evening")
    await anna.send(club, "/status@other_bot")
    await anna.send_command(club, "status")
    seen_as_member = await bot.get_updates()
    club.promote_bot(can_delete_messages=True)
    await bot.get_updates(offset=seen_as_member[-1].update_id + 1)
    await anna.send(club, "good evening again")
    seen_as_admin = await bot.get_updates(offset=sandbox.pending_updates[-1]["update_id"])

    assert [u.message.text for u in seen_as_member if u.message] == ["/status@mafia_table_bot"]
    command = seen_as_member[0].message
    assert command is not None
    assert command.entities is not None
    assert (command.entities[0].type, command.entities[0].length) == ("bot_command", 23)
    assert [u.message.text for u in seen_as_admin if u.message] == ["good evening again"]


async def test_media_and_forwards_from_people_reach_the_bot(bot: Bot, sandbox: Sandbox) -> None:
    anna = sandbox.add_user("Anna")
    await anna.start_bot()
    await bot.get_updates(offset=-1)
    await bot.get_updates(offset=sandbox.pending_updates[-1]["update_id"] + 1)
    notice = await bot.send_message(anna.id, "Rules")

    for kind in ("photo", "voice", "video_note", "sticker", "document"):
        await anna.send_media(anna.private, kind, filename="file.bin")
    [shown] = anna.inbox()
    await anna.forward(shown, anna.private)
    updates = await bot.get_updates()

    messages = [u.message for u in updates if u.message]
    assert [m.content_type for m in messages] == [
        "photo", "voice", "video_note", "sticker", "document", "text",
    ]  # fmt: skip
    forwarded = messages[-1]
    assert forwarded.forward_origin is not None
    assert forwarded.text == notice.text


async def test_flood_limits_answer_429_until_the_window_passes(clock: ManualClock) -> None:
    limits = RateLimits(
        overall=Window(30, 1.0), private_chat=Window(1, 1.0), group_chat=Window(3, 60.0)
    )
    async with Sandbox(clock=clock, rate_limits=limits) as sandbox:
        bot = sandbox.make_bot()
        anna = sandbox.add_user("Anna")
        club = sandbox.add_supergroup("Club", owner=anna)
        club.add_bot()
        await anna.start_bot()
        try:
            for turn in range(3):
                await bot.send_message(club.id, f"Turn {turn}")
                clock.advance(1)  # a second apart: a burst is refused of its own
            with pytest.raises(TelegramRetryAfter) as group_limit:
                await bot.send_message(club.id, "Turn 3")
            await bot.send_message(anna.id, "card")
            with pytest.raises(TelegramRetryAfter) as private_limit:
                await bot.send_message(anna.id, "another card")
            clock.advance(60)
            await bot.send_message(club.id, "Turn 3")
            await bot.send_message(anna.id, "another card")
        finally:
            await bot.session.close()

    assert group_limit.value.retry_after == 57
    assert private_limit.value.retry_after == 1
    assert len(sandbox.calls("sendMessage", chat=club, ok=True)) == 4
    assert [r.status for r in sandbox.rejected()] == [429, 429]


async def test_a_third_post_into_a_group_within_a_second_is_refused(clock: ManualClock) -> None:
    """Telegram refuses a burst into one group far under 20 a minute; edits are not
    posts, and another group has a burst of its own."""
    async with Sandbox(clock=clock, rate_limits=True) as sandbox:
        bot = sandbox.make_bot()
        anna = sandbox.add_user("Anna")
        club, other = (sandbox.add_supergroup(name, owner=anna) for name in ("Club", "Other"))
        club.add_bot()
        other.add_bot()
        try:
            first = await bot.send_message(club.id, "Turn 1")
            await bot.send_message(club.id, "Turn 2")
            await bot.edit_message_text(
                "Turn 1, over", chat_id=club.id, message_id=first.message_id
            )
            with pytest.raises(TelegramRetryAfter) as burst:
                await bot.send_message(club.id, "Turn 3")
            await bot.send_message(other.id, "Turn 1")
            clock.advance(1)
            await bot.send_message(club.id, "Turn 3")
        finally:
            await bot.session.close()

    assert burst.value.retry_after == 1
    assert [r.status for r in sandbox.rejected()] == [429]


async def test_injected_429s_are_seeded_and_not_the_bots_fault() -> None:
    async def run(seed: int) -> tuple[list[str], int]:
        outcomes: list[str] = []
        async with Sandbox(flaky_429=0.5, seed=seed) as sandbox:
            bot = sandbox.make_bot()
            try:
                for _ in range(12):
                    try:
                        await bot.get_me()
                        outcomes.append("ok")
                    except TelegramRetryAfter as error:
                        outcomes.append(f"retry after {error.retry_after}")
            finally:
                await bot.session.close()
        return outcomes, len(sandbox.bot_errors())

    first, second = await run(seed=7), await run(seed=7)

    assert first == second
    assert set(first[0]) == {"ok", "retry after 1"}
    assert first[1] == 0


async def test_every_refusal_is_recorded_for_the_test_to_fail_on(
    bot: Bot, sandbox: Sandbox
) -> None:
    anna = sandbox.add_user("Anna")
    with pytest.raises(TelegramForbiddenError):
        await bot.send_message(anna.id, "hi")
    with pytest.raises(TelegramBadRequest):
        await bot.send_message(-100, "hi")

    sandbox.assert_no_bot_errors(allow=["chat not found"])
    with pytest.raises(AssertionError, match="1 bad request"):
        sandbox.assert_no_bot_errors()
    assert [r.status for r in sandbox.rejected()] == [403, 400]


async def test_membership_changes_and_edits_reach_the_bot(bot: Bot, sandbox: Sandbox) -> None:
    anna = sandbox.add_user("Anna")
    boris = sandbox.add_user("Boris")
    club = sandbox.add_supergroup("Club", owner=anna)
    club.promote_bot(can_delete_messages=True)
    club.add_member(boris)
    await boris.start_bot()
    await bot.get_updates(
        offset=-1, allowed_updates=["message", "edited_message", "chat_member", "my_chat_member"]
    )
    await bot.get_updates(offset=sandbox.pending_updates[-1]["update_id"] + 1)

    said = await boris.send(club, "I am a civilian")
    await boris.edit(said, "I am the Commissioner")
    club.remove_member(boris)
    await boris.block_bot()
    updates = await bot.get_updates()

    assert [u.event_type for u in updates] == [
        "message", "edited_message", "chat_member", "message", "my_chat_member",
    ]  # fmt: skip
    edited = updates[1].edited_message
    assert edited is not None
    assert (edited.text, edited.edit_date is not None) == ("I am the Commissioner", True)
    left = updates[3].message
    assert left is not None
    assert left.left_chat_member is not None
    assert left.left_chat_member.id == boris.id
    blocked = updates[4].my_chat_member
    assert blocked is not None
    assert (blocked.chat.id, blocked.new_chat_member.status) == (boris.id, "kicked")


async def test_administrators_and_rights_are_reported(bot: Bot, sandbox: Sandbox) -> None:
    anna = sandbox.add_user("Anna")
    boris = sandbox.add_user("Boris")
    club = sandbox.add_supergroup("Club", owner=anna)
    club.add_member(boris)
    club.promote(boris, can_delete_messages=True)
    club.promote_bot(can_delete_messages=True, can_invite_users=True)

    admins = await bot.get_chat_administrators(club.id)
    rights = await bot.get_chat_member(club.id, bot.id)

    assert sorted((a.user.id, a.status) for a in admins) == [
        (anna.id, "creator"), (boris.id, "administrator"), (bot.id, "administrator"),
    ]  # fmt: skip
    assert club.bot_rights is not None
    assert club.bot_rights.can_invite_users
    assert getattr(rights, "can_invite_users", None) is True
    assert getattr(rights, "can_pin_messages", None) is False
    with pytest.raises(TypeError, match="can_fly"):
        club.promote_bot(can_fly=True)


async def test_the_bot_relays_by_copy_or_forward(bot: Bot, sandbox: Sandbox) -> None:
    anna = sandbox.add_user("Anna")
    boris = sandbox.add_user("Boris")
    for person in (anna, boris):
        await person.start_bot()
    note = await anna.send(anna.private, "Kill 7 tonight")
    card = await bot.send_message(anna.id, "Mafia", protect_content=True)

    await bot.copy_message(boris.id, from_chat_id=anna.id, message_id=note.message_id)
    await bot.forward_message(boris.id, from_chat_id=anna.id, message_id=note.message_id)
    with pytest.raises(TelegramBadRequest, match="protected content"):
        await bot.forward_message(boris.id, from_chat_id=anna.id, message_id=card.message_id)
    await bot.send_chat_action(boris.id, "typing")

    copied, forwarded = boris.inbox()
    assert (copied.text, copied.forward_origin) == ("Kill 7 tonight", None)
    assert forwarded.forward_origin is not None
    assert forwarded.forward_origin["sender_user"]["id"] == anna.id


async def test_mentions_and_message_counts_are_readable_by_tests(
    bot: Bot, sandbox: Sandbox, clock: ManualClock
) -> None:
    anna = sandbox.add_user("Anna")
    club = sandbox.add_supergroup("Club", owner=anna)
    club.add_bot()
    start = clock()
    for second in (0, 10, 59, 61, 130):
        clock.now = start + second
        sent = await bot.send_message(
            club.id, f'<a href="tg://user?id={anna.id}">Anna</a>, speak', parse_mode="HTML"
        )

    turn = sandbox.message(club, sent.message_id)
    assert turn.mentioned_user_ids() == [anna.id]
    assert sandbox.peak_messages(club) == 3
    assert sandbox.peak_messages(club, window=1) == 1


async def test_a_reaction_resends_the_message_unchanged_and_a_caption_edit_is_dated(
    bot: Bot, sandbox: Sandbox
) -> None:
    """Telegram resends a message as edited_message, unchanged and with no new edit_date,
    when someone reacts to it; a real edit (of a text or a caption) carries edit_date."""
    anna = sandbox.add_user("Anna")
    boris = sandbox.add_user("Boris")
    club = sandbox.add_supergroup("Club", owner=anna)
    club.promote_bot(can_delete_messages=True)
    club.add_member(boris)
    await bot.get_updates(
        offset=-1, allowed_updates=["message", "edited_message", "message_reaction"]
    )
    await bot.get_updates(offset=sandbox.pending_updates[-1]["update_id"] + 1)

    said = await boris.send(club, "I am a civilian")
    await anna.react(said, "🔥")
    photo = await boris.send_media(club, "photo", caption="/status")
    await boris.edit(photo, "My evidence")
    await anna.react(photo)
    updates = await bot.get_updates()

    assert [u.event_type for u in updates] == [
        "message", "message_reaction", "edited_message",
        "message", "edited_message", "message_reaction", "edited_message",
    ]  # fmt: skip
    reaction = updates[1].message_reaction
    assert reaction is not None and reaction.user is not None and reaction.user.id == anna.id
    phantom = updates[2].edited_message
    assert phantom is not None
    assert (phantom.text, phantom.edit_date) == ("I am a civilian", None)
    command = updates[3].message
    assert command is not None and command.caption_entities is not None
    assert [(e.type, e.offset, e.length) for e in command.caption_entities] == [
        ("bot_command", 0, 7)
    ]
    edited, again = updates[4].edited_message, updates[6].edited_message
    assert edited is not None and again is not None
    assert edited.caption == "My evidence" and edited.edit_date is not None
    assert (again.caption, again.edit_date) == (edited.caption, edited.edit_date)


async def test_a_revoked_invite_link_lets_nobody_join(bot: Bot, sandbox: Sandbox) -> None:
    """revokeChatInviteLink as the Bot API gives it: the right is needed, the link comes back
    revoked and joins no one; a revoked primary link is replaced by a new one."""
    anna = sandbox.add_user("Anna")
    boris = sandbox.add_user("Boris")
    club = sandbox.add_supergroup("Club", owner=anna)
    club.add_bot()
    club.promote_bot(can_invite_users=True)
    link = await bot.create_chat_invite_link(club.id, name="Tour 1")
    club.demote_bot()
    club.promote_bot(can_delete_messages=True)
    with pytest.raises(TelegramBadRequest, match="not enough rights to manage chat invite link"):
        await bot.revoke_chat_invite_link(club.id, link.invite_link)
    club.promote_bot(can_invite_users=True)
    revoked = await bot.revoke_chat_invite_link(club.id, link.invite_link)
    assert revoked.is_revoked and revoked.invite_link == link.invite_link
    with pytest.raises(SimulationError, match="expired"):
        await boris.open_link(link.invite_link)
    assert club.status_of(boris) == "left"
    with pytest.raises(TelegramBadRequest, match="INVITE_HASH_EXPIRED"):
        await bot.revoke_chat_invite_link(club.id, "https://t.me/+nosuchlink")
    primary = await bot.export_chat_invite_link(club.id)
    await bot.revoke_chat_invite_link(club.id, primary)
    fresh = (await bot.get_chat(club.id)).invite_link
    assert fresh is not None and fresh != primary
    await boris.open_link(fresh)
    assert club.status_of(boris) == "member"
