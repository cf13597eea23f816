"""From what the bot sends to what a chat shows: text, entities, limits.

Telegram does more to a message text than store it. It parses the parse mode (or takes
explicit entities), turns tabs and other control characters into spaces, drops carriage
returns, trims leading and trailing blank space, refuses a text that ends up empty, and
finds commands, mentions, hashtags and links on its own. A test that compares what a
person sees, or a bot that edits a message to "the same text", depends on all of that
("message is not modified" compares the text after this treatment), so the sandbox does
the same, following TDLib's rules.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from sandbox.api_errors import ApiError
from sandbox.parse_modes import (
    PARSE_MODES,
    Entity,
    EntityParseError,
    checked_link,
    parse,
    utf16_length,
)

TEXT_LIMIT = 4096
CAPTION_LIMIT = 1024

# Entities a sender may set; the rest (mentions, commands, links in plain text) Telegram
# finds by itself and ignores when sent.
_SETTABLE = frozenset(
    {
        "bold", "italic", "underline", "strikethrough", "spoiler", "code", "pre",
        "text_link", "text_mention", "custom_emoji", "blockquote", "expandable_blockquote",
        "date_time",
    }
)  # fmt: skip
_DETECTED = frozenset(
    {"mention", "hashtag", "cashtag", "bot_command", "url", "email", "phone_number"}
)
# Formatting that may overlap anything; every other entity excludes detected ones.
_SPLITTABLE = frozenset(
    {"bold", "italic", "underline", "strikethrough", "spoiler", "blockquote",
     "expandable_blockquote"}
)  # fmt: skip
# Entities that stand for something beyond their text survive being all blank.
_HIDDEN_DATA = frozenset({"text_link", "text_mention", "custom_emoji", "date_time"})
_BLANK = " \n"

_COMMAND = r"(?<![\w/<>])/[A-Za-z0-9_]{1,64}(?:@[A-Za-z0-9_]{3,32})?(?![\w/<>@])"
_DETECTORS: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("bot_command", re.compile(_COMMAND)),
    ("mention", re.compile(r"(?<!\w)@[A-Za-z0-9_]{5,32}(?!\w)")),
    ("hashtag", re.compile(r"(?<!\w)#\w*[^\W\d_]\w*(?![\w#])")),
    ("url", re.compile(r"(?<![\w/])(?:https?://|t\.me/)[^\s<>\"]*[^\s<>\".,:;!?)\]'»]")),
)  # fmt: skip

UserLookup = Callable[[int], "dict[str, Any] | None"]


@dataclass(frozen=True)
class FormattedText:
    """A text as Telegram stores it, with its entities in Bot API form."""

    text: str
    entities: tuple[dict[str, Any], ...] = ()

    @classmethod
    def plain(cls, text: str) -> FormattedText:
        """What a person's typed text becomes: trimmed, with detected entities."""
        return _finish(text, [], lambda _: None, allow_empty=False)


def format_text(
    text: str,
    *,
    parse_mode: str | None,
    entities: Iterable[Mapping[str, Any]] | None,
    find_user: UserLookup,
    allow_empty: bool,
) -> FormattedText:
    """The text a message will show, or the 400 the Bot API gives for it."""
    if entities is not None:
        spans = _given_entities(text, entities)
    elif parse_mode:
        if parse_mode not in PARSE_MODES:
            raise ApiError.bad_request("unsupported parse_mode")
        try:
            text, spans = parse(parse_mode, text)
        except EntityParseError as error:
            raise ApiError.bad_request(f"can't parse entities: {error}") from None
    else:
        spans = []
    return _finish(text, spans, find_user, allow_empty=allow_empty)


def check_length(formatted: FormattedText, *, caption: bool) -> None:
    length = utf16_length(formatted.text)
    if caption and length > CAPTION_LIMIT:
        raise ApiError.bad_request("message caption is too long")
    if not caption and length > TEXT_LIMIT:
        raise ApiError.bad_request("message is too long")


def _given_entities(text: str, given: Iterable[Mapping[str, Any]]) -> list[Entity]:
    size = utf16_length(text)
    spans: list[Entity] = []
    for item in given:
        kind, offset, length = item["type"], item["offset"], item["length"]
        if kind in _DETECTED:
            continue
        if kind not in _SETTABLE:
            raise ApiError.bad_request(f'unsupported entity type "{kind}"')
        if offset < 0 or length < 0:
            raise ApiError.bad_request(f"Receive an entity with incorrect offset {offset}")
        if offset > size:
            raise ApiError.bad_request(
                f"Entity begins after the end of the text at UTF-16 offset {offset}"
            )
        if offset + length > size:
            raise ApiError.bad_request(
                f"Entity beginning at UTF-16 offset {offset} ends after the end of the text "
                f"at UTF-16 offset {offset + length}"
            )
        extra: dict[str, Any] = {}
        if kind == "text_link":
            url = checked_link(item.get("url", ""))
            if not url:
                raise ApiError.bad_request("wrong HTTP URL specified")
            extra["url"] = url
        elif kind == "text_mention":
            if "user" not in item:
                raise ApiError.bad_request("text_mention entity must have a user")
            extra["user_id"] = item["user"]["id"]
        elif kind == "custom_emoji":
            if not str(item.get("custom_emoji_id", "")).isdigit():
                raise ApiError.bad_request("Invalid custom emoji identifier specified")
            extra["custom_emoji_id"] = item["custom_emoji_id"]
        elif kind == "date_time":
            if "unix_time" not in item:
                raise ApiError.bad_request("date_time entity must have a unix_time")
            extra = {k: item[k] for k in ("unix_time", "date_time_format") if k in item}
        elif kind == "pre" and item.get("language"):
            extra["language"] = item["language"]
        spans.append(Entity(kind, offset, length, extra))
    return spans


def _utf16_starts(text: str) -> list[int]:
    """UTF-16 offset of every code point of `text`, and of its end."""
    starts = [0]
    for character in text:
        starts.append(starts[-1] + (2 if ord(character) > 0xFFFF else 1))
    return starts


def _slice16(text: str, starts: list[int], begin: int, end: int) -> str:
    return text[_index(starts, begin) : _index(starts, end)]


def _index(starts: list[int], offset: int) -> int:
    """The code point index at a UTF-16 offset (rounded down inside a surrogate pair)."""
    low, high = 0, len(starts) - 1
    while low < high:
        middle = (low + high + 1) // 2
        if starts[middle] <= offset:
            low = middle
        else:
            high = middle - 1
    return low


def _clean(text: str, spans: list[Entity]) -> str:
    """Carriage returns dropped, other control characters made spaces; spans follow."""
    if not any(ord(c) < 32 and c != "\n" for c in text):
        return text
    kept: list[str] = []
    shift_at: list[int] = []  # UTF-16 offsets of the removed carriage returns
    offset = 0
    for character in text:
        if character == "\r":
            shift_at.append(offset)
        elif ord(character) < 32 and character != "\n":
            kept.append(" ")
        else:
            kept.append(character)
        offset += 2 if ord(character) > 0xFFFF else 1
    for span in spans:
        end = span.offset + span.length
        span.offset -= sum(1 for at in shift_at if at < span.offset)
        span.length = end - sum(1 for at in shift_at if at < end) - span.offset
    return "".join(kept)


def _finish(
    text: str, spans: list[Entity], find_user: UserLookup, *, allow_empty: bool
) -> FormattedText:
    text = _clean(text, spans)
    starts = _utf16_starts(text)
    spans = [
        span
        for span in spans
        if span.length > 0
        and (
            span.type in _HIDDEN_DATA
            or _slice16(text, starts, span.offset, span.offset + span.length).strip(_BLANK)
        )
    ]
    stripped_end = len(text.rstrip(_BLANK))
    if stripped_end == 0:
        if allow_empty:
            return FormattedText("")
        raise ApiError.bad_request("message text is empty")
    end16 = starts[stripped_end]
    text = text[:stripped_end]
    for span in spans:
        span.length = min(span.offset + span.length, end16) - span.offset
    spans = [span for span in spans if span.length > 0]
    first_entity = min((span.offset for span in spans), default=end16)
    lead = 0
    while lead < len(text) and starts[lead] < first_entity and text[lead] in _BLANK:
        lead += 1
    text = text[lead:]
    for span in spans:
        span.offset -= lead
    spans.extend(_detect(text, spans))
    spans.sort(key=lambda span: (span.offset, -span.length))
    return FormattedText(text, tuple(_to_api(span, find_user) for span in spans))


def _detect(text: str, spans: list[Entity]) -> list[Entity]:
    """Commands, mentions, hashtags and links outside code, links and mentions."""
    starts = _utf16_starts(text)
    taken = [(s.offset, s.offset + s.length) for s in spans if s.type not in _SPLITTABLE]
    found: list[Entity] = []
    for kind, pattern in _DETECTORS:
        for match in pattern.finditer(text):
            begin, end = starts[match.start()], starts[match.end()]
            if any(begin < stop and start < end for start, stop in taken):
                continue
            taken.append((begin, end))
            found.append(Entity(kind, begin, end - begin))
    return found


def _to_api(span: Entity, find_user: UserLookup) -> dict[str, Any]:
    entity: dict[str, Any] = {"type": span.type, "offset": span.offset, "length": span.length}
    extra = dict(span.extra)
    if span.type == "text_mention":
        user = find_user(extra.pop("user_id"))
        if user is None:
            raise ApiError.bad_request("can't parse entities: user not found")
        extra["user"] = user
    entity.update(extra)
    return entity
