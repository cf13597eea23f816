"""Texts longer than one Telegram message: sent as several, cut where a reader expects.

Telegram refuses a message over 4096 characters, counted in UTF-16 code units (an emoji
is two) in the text as shown, after the HTML tags are parsed away. Standings of a
hundred players, a tour's groups, a sheet, three relays of emoji folded into one: the bot
cannot know in advance which of its texts grow that long, so every message passes
`LongMessages`, a request middleware on the bot's session (the outermost, so that each
part is then paced by the `Limiter` like any message), and a text that is too long goes
out as consecutive messages. The cut falls at the last line break that fits; a single
line longer than a message is cut inside, between words where it can, never inside a
tag or an entity, and the tags open at the cut are closed there and opened again in the
next part, so that each part parses on its own and reads as the whole did.
"""

from __future__ import annotations

import html
import re
from collections import deque
from dataclasses import dataclass
from typing import cast

from aiogram import Bot
from aiogram.client.default import Default
from aiogram.client.session.middlewares.base import (
    BaseRequestMiddleware,
    NextRequestMiddlewareType,
)
from aiogram.methods import Response, SendMessage, TelegramMethod
from aiogram.methods.base import TelegramType

TEXT_LIMIT = 4096  # Telegram's longest message, in UTF-16 code units as shown

_HTML_TOKEN = re.compile(
    r"<[^<>]*>|&(?:#[0-9]{1,7}|#[xX][0-9a-fA-F]{1,6}|[a-zA-Z][a-zA-Z0-9]{0,31});|\n|[^<&\n]+|[<&]"
)
_PLAIN_TOKEN = re.compile(r"\n|[^\n]+")
_TAG_NAME = re.compile(r"</?\s*([a-zA-Z][a-zA-Z0-9-]*)")


def utf16_length(text: str) -> int:
    """Telegram's measure of text: UTF-16 code units."""
    return len(text.encode("utf-16-le")) // 2


@dataclass(frozen=True)
class _Atom:
    """A piece of the text that is never cut, but for plain text (`tag` None, not `entity`)."""

    raw: str
    width: int  # UTF-16 code units it shows as
    tag: str | None = None  # the tag's name, for an opening or closing tag
    closing: bool = False
    entity: bool = False


def _atoms(text: str, is_html: bool) -> list[_Atom]:
    atoms = []
    for match in (_HTML_TOKEN if is_html else _PLAIN_TOKEN).finditer(text):
        raw = match.group()
        if is_html and raw.startswith("<") and len(raw) > 1:
            name = _TAG_NAME.match(raw)
            if name is not None:
                tag = name.group(1).lower()
                atoms.append(_Atom(raw, 0, tag, closing=raw.startswith("</")))
                continue
        if is_html and raw.startswith("&") and len(raw) > 1:
            atoms.append(_Atom(raw, utf16_length(html.unescape(raw)), entity=True))
            continue
        atoms.append(_Atom(raw, utf16_length(raw)))
    return atoms


def shown_length(text: str, is_html: bool = True) -> int:
    """How long Telegram counts the text: UTF-16 code units once HTML is parsed."""
    return sum(atom.width for atom in _atoms(text, is_html))


def fits(text: str, limit: int = TEXT_LIMIT, is_html: bool = True) -> bool:
    """Whether Telegram takes the text as one message; cheap for the usual short text."""
    if 2 * len(text) <= limit or utf16_length(text) <= limit:
        return True  # parsing only ever shortens a text: no need to look closer
    return is_html and shown_length(text) <= limit


def _cut(atom: _Atom, room: int) -> tuple[str, str]:
    """Plain text cut to at most `room` code units: between words if it can."""
    taken, width = 0, 0
    for char in atom.raw:
        step = 2 if ord(char) > 0xFFFF else 1
        if width + step > room:
            break
        taken, width = taken + 1, width + step
    space = atom.raw.rfind(" ", 0, taken)
    if taken < len(atom.raw) and space > taken // 2:
        taken = space + 1  # the word that did not fit starts the next part
    return atom.raw[:taken], atom.raw[taken:]


def split_text(text: str, limit: int = TEXT_LIMIT, is_html: bool = True) -> list[str]:
    """The text as messages of at most `limit` units each; one if it fits."""
    if fits(text, limit, is_html):
        return [text]
    parts: list[str] = []

    def close(pieces: list[_Atom], still_open: list[_Atom]) -> None:
        body = "".join(a.raw for a in pieces)
        body += "".join(f"</{a.tag}>" for a in reversed(still_open))
        shown = html.unescape(re.sub(r"<[^<>]*>", "", body)) if is_html else body
        if shown.strip():  # Telegram refuses an empty message
            parts.append(body)

    atoms = deque(_atoms(text, is_html))
    opened: list[_Atom] = []  # the tags open at this point, outermost first
    part: list[_Atom] = []
    width = 0
    newline: tuple[int, list[_Atom]] | None = None  # the part's last line break so far
    while atoms:
        atom = atoms.popleft()
        if atom.tag is None and width + atom.width > limit:
            if newline is not None:  # the part ends at its last line break
                index, open_then = newline
                close(part[:index], open_then)
                atoms.appendleft(atom)
                atoms.extendleft(reversed(part[index + 1 :]))
                opened = list(open_then)
            else:  # a line longer than a message: cut inside it
                if not atom.entity:
                    head, tail = _cut(atom, limit - width)
                    if head:
                        part.append(_Atom(head, utf16_length(head)))
                    atoms.appendleft(_Atom(tail, utf16_length(tail)))
                else:
                    atoms.appendleft(atom)
                close(part, opened)
            part, width, newline = list(opened), 0, None  # the open tags open again
            continue
        if atom.raw == "\n":
            newline = (len(part), list(opened))
        elif atom.tag is not None and atom.closing:
            for index in range(len(opened) - 1, -1, -1):
                if opened[index].tag == atom.tag:
                    del opened[index]
                    break
        elif atom.tag is not None:
            opened.append(atom)
        part.append(atom)
        width += atom.width
    close(part, opened)
    return parts


class LongMessages(BaseRequestMiddleware):
    """A message too long for Telegram goes out as several, the last with its keyboard.

    The caller gets the last part's answer: that is the message with the buttons, the
    one a later edit or a pin is about. A reply stays a reply in its first part.
    """

    async def __call__(
        self,
        make_request: NextRequestMiddlewareType[TelegramType],
        bot: Bot,
        method: TelegramMethod[TelegramType],
    ) -> Response[TelegramType]:
        send = method if isinstance(method, SendMessage) else None
        if send is None or send.entities:
            return await make_request(bot, method)
        parse_mode = send.parse_mode
        if isinstance(parse_mode, Default):
            parse_mode = bot.default[parse_mode.name]
        if parse_mode not in (None, "HTML"):
            return await make_request(bot, method)  # not a mode the bot writes in
        parts = split_text(send.text, is_html=parse_mode == "HTML")
        if len(parts) == 1:
            return await make_request(bot, method)
        answer: Response[TelegramType] | None = None
        for index, part in enumerate(parts):
            first, last = index == 0, index == len(parts) - 1
            piece = send.model_copy(
                update={
                    "text": part,
                    "reply_markup": send.reply_markup if last else None,
                    "reply_parameters": send.reply_parameters if first else None,
                    "reply_to_message_id": send.reply_to_message_id if first else None,
                }
            )
            answer = await make_request(bot, cast(TelegramMethod[TelegramType], piece))
        assert answer is not None
        return answer
