"""Telegram's three parse modes, parsed the way Telegram parses them.

A message the bot formats with `parse_mode="HTML"` (or MarkdownV2, or legacy Markdown)
is turned into plain text plus entities, and a malformed one is refused with Telegram's
own wording ("Unsupported start tag "br" at byte offset 5", "Character '.' is reserved
and must be escaped with the preceding '\\'"), which the Bot API reports as
`Bad Request: can't parse entities: ...`. The rules follow TDLib's parsers, which are
what the Bot API server runs; offsets are in UTF-16 code units, error positions in UTF-8
bytes, exactly as Telegram reports them.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

PARSE_MODES = ("HTML", "MarkdownV2", "Markdown")

_HTML_TAGS = frozenset(
    {
        "a", "b", "strong", "i", "em", "s", "strike", "del", "u", "ins",
        "tg-spoiler", "tg-emoji", "tg-time", "span", "pre", "code", "blockquote",
    }
)  # fmt: skip
_HTML_SIMPLE = {
    "b": "bold", "strong": "bold", "i": "italic", "em": "italic",
    "s": "strikethrough", "strike": "strikethrough", "del": "strikethrough",
    "u": "underline", "ins": "underline", "tg-spoiler": "spoiler", "span": "spoiler",
}  # fmt: skip
_NAMED_CHARACTERS = {"lt": "<", "gt": ">", "amp": "&", "quot": '"'}
_SPACES = frozenset(" \t\r\n\v\f")
_USER_LINK = re.compile(r"tg://user\?id=(\d+)", re.IGNORECASE)
_LINK_SCHEMES = ("http://", "https://", "tg://", "ton://", "ftp://")
_MARKDOWN_V2_RESERVED = frozenset("_*[]()~`>#+-=|{}.!\n")
# TDLib's names for entity types, as they appear in MarkdownV2 error messages.
_TDLIB_NAMES = {
    "bold": "Bold", "italic": "Italic", "underline": "Underline",
    "strikethrough": "Strikethrough", "spoiler": "Spoiler", "code": "Code", "pre": "Pre",
    "pre_code": "PreCode", "text_link": "TextUrl", "custom_emoji": "CustomEmoji",
    "blockquote": "BlockQuote",
}  # fmt: skip


class EntityParseError(ValueError):
    """Telegram's reason for refusing a formatted text."""


@dataclass
class Entity:
    """A message entity while it is built: Bot API type, UTF-16 span, extra fields."""

    type: str
    offset: int
    length: int
    extra: dict[str, Any] = field(default_factory=dict)


@dataclass
class _Output:
    """Plain text as it is produced, with its running length in UTF-16 code units."""

    chars: list[str] = field(default_factory=list)
    utf16: int = 0

    def add(self, text: str) -> None:
        self.chars.append(text)
        self.utf16 += utf16_length(text)

    def text(self) -> str:
        return "".join(self.chars)


def utf16_length(text: str) -> int:
    return len(text.encode("utf-16-le")) // 2


def _byte_offset(source: str, index: int) -> int:
    return len(source[:index].encode("utf-8"))


def checked_link(url: str) -> str:
    """The URL Telegram would link to, or "" for one it would silently drop."""
    url = url.strip()
    if not url or any(c in _SPACES for c in url):
        return ""
    if url.lower().startswith(_LINK_SCHEMES):
        return url
    if "://" not in url and "." in url.split("/")[0]:
        return f"http://{url}"
    return ""


def _link_entity(offset: int, length: int, url: str) -> Entity | None:
    """A link to `tg://user?id=N` mentions that user; any other checked link is a text_link."""
    user = _USER_LINK.fullmatch(url.strip())
    if user:
        return Entity("text_mention", offset, length, {"user_id": int(user.group(1))})
    link = checked_link(url)
    return Entity("text_link", offset, length, {"url": link}) if link else None


def parse(mode: str, source: str) -> tuple[str, list[Entity]]:
    if mode == "HTML":
        return parse_html(source)
    if mode == "MarkdownV2":
        return parse_markdown_v2(source)
    return parse_markdown(source)


# -- HTML ---------------------------------------------------------------------------------


def _decode_character(source: str, index: int) -> tuple[str, int] | None:
    """The character an HTML entity at `index` stands for, and where the entity ends."""
    end = index + 1
    if source.startswith("#", end):
        end += 1
        hexadecimal = source.startswith("x", end)
        if hexadecimal:
            end += 1
        digits = "0123456789abcdefABCDEF" if hexadecimal else "0123456789"
        start = end
        while end < len(source) and source[end] in digits:
            end += 1
        if end == start or end - index >= 10:
            return None
        code = int(source[start:end], 16 if hexadecimal else 10)
        if code == 0 or code >= 0x10FFFF or 0xD800 <= code <= 0xDFFF:
            return None
        character = chr(code)
    else:
        while end < len(source) and source[end].isascii() and source[end].isalpha():
            end += 1
        named = _NAMED_CHARACTERS.get(source[index + 1 : end])
        if named is None:
            return None
        character = named
    if source.startswith(";", end):
        end += 1
    return character, end


@dataclass
class _OpenTag:
    name: str
    attributes: dict[str, str]
    offset: int
    text_start: int


def parse_html(source: str) -> tuple[str, list[Entity]]:
    out = _Output()
    entities: list[Entity] = []
    stack: list[_OpenTag] = []
    size = len(source)
    i = 0
    while i < size:
        c = source[i]
        if c == "&":
            decoded = _decode_character(source, i)
            if decoded is not None:
                out.add(decoded[0])
                i = decoded[1]
                continue
        if c != "<":
            out.add(c)
            i += 1
            continue
        begin = i
        at = _byte_offset(source, begin)
        i += 1
        if i < size and source[i] == "/":
            if not stack:
                raise EntityParseError(f"Unexpected end tag at byte offset {at}")
            while i < size and source[i] not in _SPACES and source[i] != ">":
                i += 1
            end_name = source[begin + 2 : i].lower()
            while i < size and source[i] in _SPACES:
                i += 1
            if i >= size or source[i] != ">":
                raise EntityParseError(f"Unclosed end tag at byte offset {at}")
            top = stack[-1]
            if end_name and end_name != top.name:
                raise EntityParseError(
                    f'Unmatched end tag at byte offset {at}, expected "</{top.name}>", '
                    f'found "</{end_name}>"'
                )
            stack.pop()
            if out.utf16 > top.offset:
                _close_html_tag(top, out, entities)
            i += 1
            continue
        while i < size and source[i] not in _SPACES and source[i] != ">":
            i += 1
        if i >= size:
            raise EntityParseError(f"Unclosed start tag at byte offset {at}")
        name = source[begin + 1 : i].lower()
        if name not in _HTML_TAGS:
            raise EntityParseError(f'Unsupported start tag "{name}" at byte offset {at}')
        attributes, i = _html_attributes(source, i, name, at)
        if name == "span" and attributes.get("class") != "tg-spoiler":
            raise EntityParseError(f'Tag "span" must have class "tg-spoiler" at byte offset {at}')
        stack.append(_OpenTag(name, attributes, out.utf16, len(out.chars)))
        i += 1
    if stack:
        raise EntityParseError(f"Can't find end tag corresponding to start tag {stack[-1].name}")
    for entity in entities:
        if entity.type == "code":
            entity.extra.pop("language", None)
    entities.sort(key=lambda entity: (entity.offset, -entity.length))
    return out.text(), entities


def _html_attributes(source: str, i: int, tag: str, at: int) -> tuple[dict[str, str], int]:
    """The attributes of a start tag whose name ends at `i`, and the index of its `>`."""
    size = len(source)
    attributes: dict[str, str] = {}
    while i < size and source[i] != ">":
        while i < size and source[i] in _SPACES:
            i += 1
        if i >= size or source[i] == ">":
            break
        name_begin = i
        while i < size and source[i] not in _SPACES and source[i] not in "=>":
            i += 1
        name = source[name_begin:i]
        if not name:
            raise EntityParseError(f'Empty attribute name in the tag "{tag}" at byte offset {at}')
        while i < size and source[i] in _SPACES:
            i += 1
        if tag == "blockquote" and name == "expandable" and (i >= size or source[i] != "="):
            attributes[name] = ""
            continue
        if i >= size or source[i] != "=":
            raise EntityParseError(
                "Expected equal sign in declaration of an attribute of the tag "
                f'"{tag}" at byte offset {at}'
            )
        i += 1
        while i < size and source[i] in _SPACES:
            i += 1
        if i >= size:
            raise EntityParseError(f'Unclosed start tag "{tag}" at byte offset {at}')
        if source[i] not in "'\"":
            token_begin = i
            while i < size and (source[i].isalnum() or source[i] in ".-"):
                i += 1
            value = source[token_begin:i].lower()
            if i < size and source[i] not in _SPACES and source[i] != ">":
                at_token = _byte_offset(source, token_begin)
                raise EntityParseError(f"Unexpected end of name token at byte offset {at_token}")
        else:
            quote = source[i]
            i += 1
            value_chars: list[str] = []
            while i < size and source[i] != quote:
                decoded = _decode_character(source, i) if source[i] == "&" else None
                if decoded is not None:
                    value_chars.append(decoded[0])
                    i = decoded[1]
                else:
                    value_chars.append(source[i])
                    i += 1
            if i < size:
                i += 1
            value = "".join(value_chars)
        if i >= size:
            raise EntityParseError(f"Unclosed start tag at byte offset {at}")
        attributes[name] = value
    return attributes, i


def _close_html_tag(tag: _OpenTag, out: _Output, entities: list[Entity]) -> None:
    offset, length = tag.offset, out.utf16 - tag.offset
    simple = _HTML_SIMPLE.get(tag.name)
    if simple is not None:
        entities.append(Entity(simple, offset, length))
    elif tag.name == "a":
        url = tag.attributes.get("href") or "".join(out.chars[tag.text_start :])
        link = _link_entity(offset, length, url)
        if link is not None:
            entities.append(link)
    elif tag.name == "tg-emoji":
        emoji_id = tag.attributes.get("emoji-id", "")
        if not emoji_id.isdigit() or int(emoji_id) == 0:
            raise EntityParseError("Invalid custom emoji identifier specified")
        entities.append(Entity("custom_emoji", offset, length, {"custom_emoji_id": emoji_id}))
    elif tag.name == "tg-time":
        unix = tag.attributes.get("unix", "")
        if not unix.isdigit():
            raise EntityParseError("Invalid Unix time specified")
        extra: dict[str, Any] = {"unix_time": int(unix)}
        if "format" in tag.attributes:
            extra["date_time_format"] = tag.attributes["format"]
        entities.append(Entity("date_time", offset, length, extra))
    elif tag.name == "blockquote":
        kind = "expandable_blockquote" if "expandable" in tag.attributes else "blockquote"
        entities.append(Entity(kind, offset, length))
    elif tag.name == "pre":
        last = entities[-1] if entities else None
        same_span = last is not None and (last.offset, last.length) == (offset, length)
        if last is not None and same_span and last.type == "code" and "language" in last.extra:
            last.type = "pre"
            return
        entities.append(Entity("pre", offset, length))
    else:  # code
        language = tag.attributes.get("class", "")
        language = language[len("language-") :] if language.startswith("language-") else ""
        last = entities[-1] if entities else None
        if (
            last
            and last.type == "pre"
            and (last.offset, last.length) == (offset, length)
            and language
        ):
            last.extra["language"] = language
            return
        entities.append(Entity("code", offset, length, {"language": language} if language else {}))


def _pre_opening(source: str, i: int) -> tuple[str, int]:
    """After an opening ```: the block's language, if one is named, and where its text starts.

    A word right after the backticks names the language when a line break or space ends
    it; one line break after the opening is not part of the block.
    """
    end = i
    while end < len(source) and source[end] not in _SPACES and source[end] != "`":
        end += 1
    language = ""
    if end != i and end < len(source) and source[end] != "`":
        language, i = source[i:end], end
    if source.startswith(("\r\n", "\n\r"), i):
        return language, i + 2
    if source.startswith(("\n", "\r"), i):
        return language, i + 1
    return language, i


# -- MarkdownV2 ---------------------------------------------------------------------------


@dataclass
class _OpenMark:
    type: str
    offset: int
    byte_offset: int
    text_start: int
    language: str = ""


def _reserved(character: str) -> EntityParseError:
    return EntityParseError(
        f"Character '{character}' is reserved and must be escaped with the preceding '\\'"
    )


def _closes(top: _OpenMark, source: str, i: int, in_blockquote: bool) -> bool:
    c = source[i]
    following = source[i + 1 : i + 3]
    if in_blockquote and c == "\n" and not following.startswith(">"):
        return True
    if top.type == "bold":
        return c == "*"
    if top.type == "italic":
        return c == "_" and not following.startswith("_")
    if top.type == "underline":
        return c == "_" and following.startswith("_")
    if top.type == "strikethrough":
        return c == "~"
    if top.type == "spoiler":
        return c == "|" and following.startswith("|")
    if top.type == "code":
        return c == "`"
    if top.type in ("pre", "pre_code"):
        return c == "`" and following == "``"
    if top.type in ("text_link", "custom_emoji"):
        return c == "]"
    return False


def _url_until_paren(source: str, i: int) -> tuple[str, int]:
    """The escaped URL starting at `i`, up to (not including) `)`, and where it stopped."""
    chars: list[str] = []
    while i < len(source) and source[i] != ")":
        if source[i] == "\\" and i + 1 < len(source) and 0 < ord(source[i + 1]) <= 126:
            chars.append(source[i + 1])
            i += 2
            continue
        chars.append(source[i])
        i += 1
    return "".join(chars), i


def parse_markdown_v2(source: str) -> tuple[str, list[Entity]]:
    out = _Output()
    entities: list[Entity] = []
    stack: list[_OpenMark] = []
    in_blockquote = False
    size = len(source)
    i = 0
    while i < size:
        c = source[i]
        if c == "\\" and i + 1 < size and 0 < ord(source[i + 1]) <= 126:
            out.add(source[i + 1])
            i += 2
            continue
        inside_code = bool(stack) and stack[-1].type in ("code", "pre", "pre_code")
        if (c != "`") if inside_code else (c not in _MARKDOWN_V2_RESERVED):
            out.add(c)
            i += 1
            continue
        if stack and _closes(stack[-1], source, i, in_blockquote):
            closed = stack[-1].type
            i = _close_mark(source, i, stack, out, entities)
            in_blockquote = in_blockquote and closed != "blockquote"
            continue
        i, in_blockquote = _open_mark(source, i, stack, out, in_blockquote)
    if in_blockquote and stack and stack[-1].type == "blockquote":
        top = stack.pop()
        if out.utf16 > top.offset:
            entities.append(Entity("blockquote", top.offset, out.utf16 - top.offset))
    if stack:
        top = stack[-1]
        raise EntityParseError(
            f"Can't find end of {_TDLIB_NAMES[top.type]} entity at byte offset {top.byte_offset}"
        )
    entities.sort(key=lambda entity: (entity.offset, -entity.length))
    return out.text(), entities


def _open_mark(
    source: str, i: int, stack: list[_OpenMark], out: _Output, in_blockquote: bool
) -> tuple[int, bool]:
    c = source[i]
    byte_offset = _byte_offset(source, i)
    following = source[i + 1 : i + 3]
    language = ""
    if c == "_":
        kind = "underline" if following.startswith("_") else "italic"
        i += 2 if kind == "underline" else 1
    elif c == "*":
        kind, i = "bold", i + 1
    elif c == "~":
        kind, i = "strikethrough", i + 1
    elif c == "|":
        if not following.startswith("|"):
            raise _reserved(c)
        kind, i = "spoiler", i + 2
    elif c == "[":
        kind, i = "text_link", i + 1
    elif c == "`":
        if following == "``":
            language, i = _pre_opening(source, i + 3)
            kind = "pre_code" if language else "pre"
        else:
            kind, i = "code", i + 1
    elif c == "!":
        if not following.startswith("["):
            raise _reserved(c)
        kind, i = "custom_emoji", i + 2
    elif c == "\n":
        out.add("\n")
        i += 1
        if not following.startswith(">"):
            return i, in_blockquote
        i += 1
        if in_blockquote:
            return i, in_blockquote
        kind = "blockquote"
    elif c == ">" and i == 0:
        kind, i = "blockquote", i + 1
    else:
        raise _reserved(c)
    stack.append(_OpenMark(kind, out.utf16, byte_offset, len(out.chars), language))
    return i, in_blockquote or kind == "blockquote"


def _close_mark(
    source: str, i: int, stack: list[_OpenMark], out: _Output, entities: list[Entity]
) -> int:
    top = stack[-1]
    if source[i] == "\n" and top.type != "blockquote":
        raise EntityParseError(
            f"Can't find end of {_TDLIB_NAMES[top.type]} entity at byte offset {top.byte_offset}"
        )
    empty = out.utf16 == top.offset
    entity: Entity | None = None
    if top.type in ("bold", "italic", "code", "strikethrough"):
        i += 1
        entity = Entity(top.type, top.offset, out.utf16 - top.offset)
    elif top.type in ("underline", "spoiler"):
        i += 2
        entity = Entity(top.type, top.offset, out.utf16 - top.offset)
    elif top.type in ("pre", "pre_code"):
        i += 3
        extra = {"language": top.language} if top.language else {}
        entity = Entity("pre", top.offset, out.utf16 - top.offset, extra)
    elif top.type == "text_link":
        if source.startswith("(", i + 1):
            url_begin = i + 2
            url, i = _url_until_paren(source, url_begin)
            if i >= len(source):
                raise EntityParseError(
                    f"Can't find end of a URL at byte offset {_byte_offset(source, url_begin)}"
                )
        else:
            url = "".join(out.chars[top.text_start :])
        i += 1
        entity = _link_entity(top.offset, out.utf16 - top.offset, url)
    elif top.type == "custom_emoji":
        if not source.startswith("(", i + 1):
            raise EntityParseError("Custom emoji entity must contain a tg://emoji URL")
        url_begin = i + 2
        url, i = _url_until_paren(source, url_begin)
        if i >= len(source):
            raise EntityParseError(
                "Can't find end of a custom emoji URL at byte offset "
                f"{_byte_offset(source, url_begin)}"
            )
        found = re.fullmatch(r"tg://emoji\?id=(\d+)", url, re.IGNORECASE)
        if not found:
            raise EntityParseError("Invalid custom emoji identifier specified")
        i += 1
        entity = Entity(
            "custom_emoji", top.offset, out.utf16 - top.offset, {"custom_emoji_id": found.group(1)}
        )
    else:  # a quotation ends at a line that does not start with ">", and keeps the break
        out.add("\n")
        i += 1
        entity = Entity("blockquote", top.offset, out.utf16 - top.offset)
    stack.pop()
    if entity is not None and not empty:
        entities.append(entity)
    return i


# -- legacy Markdown ----------------------------------------------------------------------


def parse_markdown(source: str) -> tuple[str, list[Entity]]:
    out = _Output()
    entities: list[Entity] = []
    size = len(source)
    i = 0
    while i < size:
        c = source[i]
        if c == "\\" and source[i + 1 : i + 2] in ("_", "*", "`", "["):
            out.add(source[i + 1])
            i += 2
            continue
        if c not in "_*`[":
            out.add(c)
            i += 1
            continue
        begin = i
        end_character = "]" if c == "[" else c
        is_pre = False
        language = ""
        i += 1
        if c == "`" and source.startswith("``", i):
            is_pre = True
            language, i = _pre_opening(source, i + 2)
        start = out.utf16
        text_start = len(out.chars)
        while i < size and (
            source[i] != end_character or (is_pre and not source.startswith("``", i + 1))
        ):
            out.add(source[i])
            i += 1
        if i >= size:
            raise EntityParseError(
                "Can't find end of the entity starting at byte offset "
                f"{_byte_offset(source, begin)}"
            )
        if out.utf16 != start:
            length = out.utf16 - start
            if c == "_":
                entities.append(Entity("italic", start, length))
            elif c == "*":
                entities.append(Entity("bold", start, length))
            elif c == "[":
                if source.startswith("(", i + 1):
                    i += 2
                    url_begin = i
                    while i < size and source[i] != ")":
                        i += 1
                    url = source[url_begin:i]
                else:
                    url = "".join(out.chars[text_start:])
                link = _link_entity(start, length, url)
                if link is not None:
                    entities.append(link)
            elif is_pre:
                extra = {"language": language} if language else {}
                entities.append(Entity("pre", start, length, extra))
            else:
                entities.append(Entity("code", start, length))
        if is_pre:
            i += 2
        i += 1
    entities.sort(key=lambda entity: (entity.offset, -entity.length))
    return out.text(), entities
