"""D10, N5 for every kind of message (issue 21 §1): silence does not depend on whether a
person typed a text, captioned a photo, edited, or posted something the bot has never
heard of. A command in a caption is a command; an edit is an edit only when something
changed; a service message is nobody's speech.
"""

from __future__ import annotations

from collections.abc import Callable

import pytest

from bot.cli.demo import Table
from bot.rules.events import Phase
from bot.rules.state import GameState
from sandbox import SimUser
from sandbox.schema import FUTURE_KIND
from sandbox.world import Account

NOT_YOUR_TURN = "It is not your turn."
EYES_OPEN = "wrote in the group at night"  # the Host's V3 report (N5)


def at(phase: Phase) -> Callable[[GameState], bool]:
    return lambda s: s.phase is phase


@pytest.fixture
def table(hosted_table: Table) -> Table:
    return hosted_table


def others(state: GameState) -> list[int]:
    """Living seats that may not speak now."""
    return [s for s in state.living() if s != state.speaker]


def bot_posts_since(table: Table, count: int) -> list[str]:
    return [m.content for m in table.group.messages()[count:] if m.from_bot]


def reports(table: Table) -> list[str]:
    return [m.content for m in table.host.inbox() if EYES_OPEN in m.content]


# A caption of each kind, and how the answer in private starts.
CAPTIONS = {
    ("photo", "/status"): "Day 0, introductions",
    ("video", "/help I am mafia"): "Commands",
    ("voice", "/pass"): NOT_YOUR_TURN,
}


@pytest.mark.rule("D10")
async def test_D10_a_command_in_a_caption_out_of_turn_is_deleted_and_answered_in_private(
    table: Table,
) -> None:
    state = table.state
    assert state is not None
    step = state.step
    people: list[SimUser] = [table.person(s) for s in others(state)]
    for person, ((kind, caption), answer) in zip(people, CAPTIONS.items(), strict=False):
        group, inbox = len(table.group.messages()), len(person.inbox())
        sent = await person.send_media(table.group, kind, caption=caption)
        await table.settle()
        assert sent.deleted, (kind, caption)
        assert bot_posts_since(table, group) == [], (kind, caption)
        answers = [m.content for m in person.inbox()[inbox:]]
        assert len(answers) == 1 and answers[0].startswith(answer), (kind, caption, answers)
    assert table.state is not None and table.state.step == step  # nobody's /pass counted


@pytest.mark.rule("N5")
async def test_N5_a_command_in_a_caption_at_night_is_deleted_and_reported(table: Table) -> None:
    state = await table.wait_for(at(Phase.ACQUAINTANCE))
    seats = state.living()
    for seat, (kind, caption) in zip(seats, CAPTIONS, strict=False):
        told = len(reports(table))
        group = len(table.group.messages())
        sent = await table.person(seat).send_media(table.group, kind, caption=caption)
        await table.settle()
        assert sent.deleted, (kind, caption)
        assert bot_posts_since(table, group) == [], (kind, caption)
        new = reports(table)[told:]
        assert len(new) == 1 and table.named(seat) in new[0], (kind, caption, new)


@pytest.mark.rule("D10")
async def test_D10_the_speakers_command_in_a_caption_is_a_command(table: Table) -> None:
    """The same rules as in a text: the speaker's /pass under a photo ends their speech."""
    state = table.state
    assert state is not None and state.speaker is not None
    step = state.step
    sent = await table.person(state.speaker).send_media(table.group, "photo", caption="/pass")
    await table.settle()
    assert not sent.deleted
    assert table.state is not None and table.state.step == step + 1


@pytest.mark.rule("D10")
async def test_D10_N5_a_reaction_is_no_edit_the_speech_stays_and_nobody_is_accused(
    table: Table,
) -> None:
    """Telegram resends a message as edited_message, unchanged and with no new
    edit_date, when someone reacts to it: that is no edit, by day or at night."""
    state = await table.wait_for(lambda s: s.phase is Phase.ROUND_1 and s.day == 1)
    assert state.speaker is not None
    first = state.speaker
    plain = await table.person(first).send(table.group, "I am a civilian.")
    edited = await table.person(first).send(table.group, "Seat 9 is suspicious.")
    await table.settle()
    await table.person(first).edit(edited, "Seats 9 and 4 are suspicious.")  # their turn
    await table.settle()
    reactor = table.person(state.queue[0])
    await reactor.react(plain)  # while they speak
    await table.settle()
    await table.pass_turn()
    for message in (plain, edited):  # after their turn
        await reactor.react(message, "🔥")
    await table.settle()
    assert not plain.deleted and not edited.deleted
    state = await table.wait_for(at(Phase.NIGHT))
    assert state.is_alive(first)
    told = len(reports(table))
    for message in (plain, edited):  # at night
        await table.person(state.living()[-1]).react(message, "🤔")
    await table.settle()
    assert not plain.deleted and not edited.deleted
    assert reports(table)[told:] == []


@pytest.mark.rule("N5")
async def test_N5_a_caption_changed_at_night_is_an_edit(table: Table) -> None:
    state = await table.wait_for(lambda s: s.phase is Phase.ROUND_1 and s.day == 1)
    assert state.speaker is not None
    first = state.speaker
    photo = await table.person(first).send_media(table.group, "photo", caption="My evidence")
    await table.settle()
    assert not photo.deleted
    state = await table.wait_for(at(Phase.NIGHT))
    assert state.is_alive(first)
    told = len(reports(table))
    await table.person(first).edit(photo, "Seat 9 is the mafia")
    await table.settle()
    assert photo.deleted
    new = reports(table)[told:]
    assert len(new) == 1 and table.named(first) in new[0], new


def anything(table: Table) -> list[tuple[str, object, Account | None]]:
    """Something of every kind a person may post beyond text and media, as the Bot API
    gives it: (field, object, the inline bot it came through)."""
    games = Account(7_000_001, "Games", username="gamee", is_bot=True)
    shop = Account(7_000_002, "Shop", username="shopbot", is_bot=True)
    picture = [{"file_id": "SBXG1", "file_unique_id": "UG1", "width": 64, "height": 64}]
    live = {"file_id": "SBXL1", "file_unique_id": "UL1", "width": 320, "height": 320}
    invoice = {"title": "Ticket", "description": "A vote", "start_parameter": "vote"}
    giveaway = {"chats": [table.group.to_api()], "winner_count": 1}
    return [
        ("live_photo", live | {"duration": 2}, None),
        ("game", {"title": "Mafia", "description": "Play", "photo": picture}, games),
        ("invoice", invoice | {"currency": "XTR", "total_amount": 1}, shop),
        ("paid_media", {"star_count": 5, "paid_media": [{"type": "preview"}]}, None),
        ("giveaway", giveaway | {"winners_selection_date": int(table.clock.now()) + 86_400}, None),
        ("checklist", {"title": "Mafia", "tasks": [{"id": 1, "text": "Seat 9"}]}, None),
        (FUTURE_KIND, {"id": "SBXF1", "depth": 3}, None),  # a kind Telegram adds next
    ]


@pytest.mark.rule("D10")
async def test_D10_anything_a_non_speaker_posts_is_deleted(table: Table) -> None:
    state = table.state
    assert state is not None
    step = state.step
    people = [table.person(s) for s in others(state)]
    kinds = anything(table)
    assert len(people) >= len(kinds)
    for person, (kind, payload, via) in zip(people, kinds, strict=False):
        group = len(table.group.messages())
        sent = await person.send_content(table.group, kind, payload, via_bot=via)
        await table.settle()
        assert sent.deleted, kind
        assert bot_posts_since(table, group) == [], kind
    assert table.state is not None and table.state.step == step


@pytest.mark.rule("N5")
async def test_N5_anything_posted_at_night_is_deleted_and_reported_service_messages_stay(
    table: Table,
) -> None:
    state = await table.wait_for(at(Phase.ACQUAINTANCE))
    seats = state.living()
    for seat, (kind, payload, via) in zip(seats, anything(table), strict=False):
        told = len(reports(table))
        sent = await table.person(seat).send_content(table.group, kind, payload, via_bot=via)
        await table.settle()
        assert sent.deleted, kind
        new = reports(table)[told:]
        assert len(new) == 1 and table.named(seat) in new[0], (kind, new)
    # What Telegram itself writes about a player (they added someone, pinned something)
    # is nobody's speech.
    told = len(reports(table))
    player = table.person(seats[-1])
    guest = table.sandbox.add_user("Olga", language_code="en")
    table.group.add_member(guest, added_by=player)
    pinned = table.group.messages()[0]
    table.sandbox.world.service_message(table.group, player, pinned_message=pinned)
    await table.settle()
    service = [m for m in table.group.messages() if m.service][-2:]
    assert [next(iter(m.service)) for m in service] == ["new_chat_members", "pinned_message"]
    assert not any(m.deleted for m in service)
    assert reports(table)[told:] == []


TEXT_ONLY = "Your partners will not get this: I pass on only text. Put it in words."


@pytest.mark.rule("N1")
async def test_N1_a_mafiosos_photo_or_voice_at_night_is_answered_that_only_text_is_relayed(
    table: Table,
) -> None:
    state = await table.wait_for(at(Phase.ACQUAINTANCE))
    writer, *partners = state.living_mafia()
    mafioso = table.person(writer)
    inboxes = [len(table.person(p).inbox()) for p in partners]
    for kind, caption in (("photo", "seat 3"), ("voice", None), ("video_note", None)):
        await mafioso.send_media(mafioso.private, kind, caption=caption)
        await table.settle()
        assert mafioso.inbox()[-1].content == TEXT_ONLY, kind
    await mafioso.send_content(mafioso.private, "checklist", {"title": "3", "tasks": []})
    await table.settle()
    assert mafioso.inbox()[-1].content == TEXT_ONLY
    assert [len(table.person(p).inbox()) for p in partners] == inboxes  # nothing relayed
    await mafioso.send(mafioso.private, "seat 3")  # a text is, as before
    await table.settle()
    for partner in partners:
        assert table.person(partner).inbox()[-1].content == f"💬 {table.named(writer)}: seat 3"


HINT = "Write to me at night if you are in the mafia; otherwise use the group."


async def test_a_group_command_in_a_caption_in_private_is_answered_as_in_a_text(
    table: Table,
) -> None:
    """/pass works in the group: in private, under a photo as in a text, the bot says so."""
    person = table.person(1)
    for send in (
        person.send(person.private, "/pass"),
        person.send_media(person.private, "photo", caption="/pass"),
    ):
        count = len(person.inbox())
        await send
        await table.settle()
        answers = [m.content for m in person.inbox()[count:]]
        assert len(answers) == 1 and answers[0].startswith(HINT), answers
