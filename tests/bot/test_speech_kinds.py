"""D10, N5: silence decides by "anything a person posts" (issue 21). Every kind of
message aiogram knows is either a person's post or one of Telegram's service messages,
and a kind it does not know yet is a person's post."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from aiogram.enums import ContentType

from handlers.guard import SERVICE

# What a person posts (or forwards): the guard deletes these out of turn.
POSTS = {
    *("text", "animation", "audio", "document", "live_photo", "paid_media", "photo"),
    *("sticker", "story", "video", "video_note", "voice", "checklist", "contact", "dice"),
    *("game", "poll", "venue", "location", "invoice", "giveaway", "giveaway_winners"),
    "rich_message",
}
API = Path(__file__).parents[2] / "sandbox" / "api_table.json"  # the Bot API's


@pytest.mark.rule("D10")
def test_D10_every_kind_aiogram_knows_is_a_post_or_a_service_message() -> None:
    kinds = {kind.value for kind in ContentType} - {"any", "unknown"}
    service = {kind.value for kind in SERVICE}
    assert not service & POSTS
    assert kinds - service - POSTS == set(), "a new kind: is it a post or Telegram's own?"
    assert ContentType.UNKNOWN not in SERVICE  # a kind not known yet is a post


@pytest.mark.rule("D10")
def test_D10_every_kind_of_message_in_the_bot_api_is_classified() -> None:
    fields = json.loads(API.read_text(encoding="utf-8"))["types"]["Message"]["fields"]
    kinds = {kind.value for kind in ContentType}
    service = {kind.value for kind in SERVICE}
    assert {f for f in fields if f in kinds} <= service | POSTS
