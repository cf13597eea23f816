"""Every command's arguments, declared once: their kinds, bounds and usage text.

A handler says what it takes with `@takes("host.extend_usage", Arg("seconds", SECONDS))`;
the words after the command are parsed and bounded here before it runs, and the typed
values reach it as keyword arguments. Anything else (a word too many, a negative or huge
number, "nan", "²", markup) is answered with the command's usage text and changes nothing.
Checking who may use the command comes first, in the router's filters.
"""

from __future__ import annotations

import inspect
import re
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from typing import Any, TypeVar

from aiogram.enums import ContentType
from aiogram.filters import CommandObject
from aiogram.types import Message, User

from bot.rules.settings import KillRule
from bot.services.game import GameService
from bot.tournament.errors import BadPoints
from bot.tournament.scoring import parse_tenths
from bot.tournament.settings import JUDGE_RANGES
from bot.views.i18n import Texts
from storage.nicks import clean_nick


class BadArguments(ValueError):
    """The words after a command are not what it takes."""


class Kind:
    """What one argument may be. `parse` returns the value or raises `BadArguments`."""

    def parse(self, text: str, before: Mapping[str, Any]) -> Any:
        raise NotImplementedError


@dataclass(frozen=True)
class Number(Kind):
    """A whole number from `low` to `high`, in ASCII digits only."""

    low: int
    high: int

    def parse(self, text: str, before: Mapping[str, Any]) -> int:
        # isascii: "²", "１２" and "١٢" are decimal to Python, not to a player; the length
        # check comes before int(), so 10^100 is never even converted.
        if not (text.isascii() and text.isdecimal()) or len(text) > len(str(self.high)):
            raise BadArguments(text)
        value = int(text)
        if not self.low <= value <= self.high:
            raise BadArguments(text)
        return value


@dataclass(frozen=True)
class Points(Kind):
    """Points as a Judge types them ("-0.5", "+1", "1,2"), in tenths, within ±`limit` tenths."""

    limit: int

    def parse(self, text: str, before: Mapping[str, Any]) -> int:
        if len(text) > 8:
            raise BadArguments(text)
        try:
            tenths = parse_tenths(text)
        except BadPoints as error:
            raise BadArguments(text) from error
        if abs(tenths) > self.limit:
            raise BadArguments(text)
        return tenths


@dataclass(frozen=True)
class Word(Kind):
    """One of `choices`, in any case; the value is the choice as declared."""

    choices: tuple[str, ...]

    def parse(self, text: str, before: Mapping[str, Any]) -> str:
        for choice in self.choices:
            if text.casefold() == choice.casefold():
                return choice
        raise BadArguments(text)


@dataclass(frozen=True)
class Pattern(Kind):
    """A word matching `regex` (whole), at most `longest` characters."""

    regex: str
    longest: int
    upper: bool = False

    def parse(self, text: str, before: Mapping[str, Any]) -> str:
        if len(text) > self.longest or re.fullmatch(self.regex, text, re.ASCII) is None:
            raise BadArguments(text)
        return text.upper() if self.upper else text


@dataclass(frozen=True)
class Token(Kind):
    """Any one word of at most `longest` characters (a nick; looked up by the handler)."""

    longest: int

    def parse(self, text: str, before: Mapping[str, Any]) -> str:
        if len(text) > self.longest:
            raise BadArguments(text)
        return text


@dataclass(frozen=True)
class Rest(Kind):
    """Every remaining word, as typed between them (a reason, a name): 1..`longest` chars."""

    longest: int

    def finish(self, text: str) -> str:
        return text


@dataclass(frozen=True)
class NickWords(Rest):
    """Every remaining word as a nick: one line of printable text (storage.nicks), the
    spacing and the invisible characters gone; nothing printable left is a mismatch."""

    def finish(self, text: str) -> str:
        nick = clean_nick(text)
        if not nick:
            raise BadArguments(text)
        return nick


@dataclass(frozen=True)
class Depends(Kind):
    """A value whose kind is chosen by an earlier argument (`/settings NAME VALUE`)."""

    on: str
    kinds: Mapping[str, Kind]

    def parse(self, text: str, before: Mapping[str, Any]) -> Any:
        kind = self.kinds.get(before.get(self.on, ""))
        if kind is None:
            raise BadArguments(text)
        return kind.parse(text, before)


@dataclass(frozen=True)
class Arg:
    name: str
    kind: Kind
    optional: bool = False  # only at the end of a form; missing, the handler's default


Form = tuple[Arg, ...]

# The kinds the commands share.
SEAT = Number(1, 16)  # S2: a table has at most 16 seats
SECONDS = Number(1, 600)  # /extend: ten minutes at most in one go
GAME = Number(1, 999_999_999)  # a game's number, as SQLite keeps it
POINTS = Points(1000)  # T5: an adjustment of at most 100 points either way
NICK = Token(32)
NEW_NICK = NickWords(200)  # /nick: what is typed, made one line and cut to a nick's length
REASON = Rest(200)
NAME = Rest(100)
GROUP_CODE = Pattern(r"[Tt][0-9]{1,9}[Rr][0-9]{1,9}[Gg][0-9]{1,9}", 32, upper=True)
USERNAME = Pattern(r"@[A-Za-z0-9_]{1,32}", 33)
USER = Token(32)  # a nick, or a user id in digits
# Nicks (a nick may have spaces, or be quoted) and what follows them: the handler reads
# them against the tournament's list (TournamentService.players_by_nicks).
NICK_AND_MORE = Rest(400)

# T6: what each setting the Judge may change can be: the ranges of
# bot.tournament.settings.JUDGE_RANGES (timers in whole seconds up to an hour, groups of
# 12 to 16, the bonus up to x3), and the kill rule by name. A table's own player bounds
# (game.min_players, game.max_players) follow the groups' range.
_PLAYERS = Number(*(int(bound) for bound in JUDGE_RANGES["group_min"]))
SETTINGS: Mapping[str, Kind] = {
    **{name: Number(int(low), int(high)) for name, (low, high) in JUDGE_RANGES.items()},
    **{
        f"game.{name}": kind
        for name, kind in (
            ("kill_rule", Word(tuple(rule.value for rule in KillRule))),
            ("min_players", _PLAYERS),
            ("max_players", _PLAYERS),
        )
    },
    # T5: criteria by name, comma-separated, no spaces: wins,head_to_head,lot; or none
    "tie_break": Pattern(r"[a-z_]+(,[a-z_]+)*", 120),
}


# What a person posts as themselves; a reply to anything else (a service message such as
# a forum topic's first one, which every message of the topic replies to) names nobody.
POSTED = frozenset(
    {
        *(ContentType.TEXT, ContentType.PHOTO, ContentType.VIDEO, ContentType.ANIMATION),
        *(ContentType.AUDIO, ContentType.DOCUMENT, ContentType.VOICE, ContentType.VIDEO_NOTE),
        *(ContentType.STICKER, ContentType.STORY, ContentType.DICE, ContentType.POLL),
        *(ContentType.CONTACT, ContentType.LOCATION, ContentType.VENUE),
        *(ContentType.LIVE_PHOTO, ContentType.PAID_MEDIA, ContentType.CHECKLIST),
    }
)
SERVICE_ACCOUNT_ID = 777000  # "Telegram": forwards a linked channel's posts to its group


def replied_member(message: Message) -> User | None:
    """The person a command replies to, if it replies to a real message of theirs: not a
    topic's first message or another service message, not a post Telegram forwarded from
    a channel, not a message sent on behalf of a chat, not a bot's."""
    reply = message.reply_to_message
    if reply is None or reply.from_user is None:
        return None
    if message.is_topic_message and reply.message_id == message.message_thread_id:
        return None  # the topic itself, not a reply
    who = reply.from_user
    if (
        reply.content_type not in POSTED
        or reply.sender_chat is not None
        or reply.is_automatic_forward
        or who.is_bot
        or who.id == SERVICE_ACCOUNT_ID
    ):
        return None
    return who


def fits(kind: Kind, text: str) -> bool:
    """Whether `text` is a value of `kind` (to tell apart the readings of spaced nicks)."""
    try:
        kind.parse(text, {})
    except BadArguments:
        return False
    return True


def parse(forms: tuple[Form, ...], text: str | None) -> dict[str, Any]:
    """The values of the first form the words fit; `BadArguments` if none does."""
    words = (text or "").split()
    for form in forms:
        try:
            return _parse_form(form, words)
        except BadArguments:
            continue
    raise BadArguments(text or "")


def _parse_form(form: Form, words: list[str]) -> dict[str, Any]:
    values: dict[str, Any] = {}
    for index, arg in enumerate(form):
        if index >= len(words):
            if arg.optional:
                return values
            raise BadArguments("too few words")
        if isinstance(arg.kind, Rest):
            rest = " ".join(words[index:])
            if len(rest) > arg.kind.longest:
                raise BadArguments(rest)
            values[arg.name] = arg.kind.finish(rest)
            return values
        values[arg.name] = arg.kind.parse(words[index], values)
    if len(words) > len(form):
        raise BadArguments("too many words")
    return values


Handler = TypeVar("Handler", bound=Callable[..., Awaitable[Any]])


def takes(
    usage: str, *shape: Arg | Form, usage_values: Mapping[str, object] | None = None
) -> Callable[[Handler], Handler]:
    """Parse the command's words before `handler` runs: `shape` is its arguments, or its
    alternative forms (tuples of arguments), tried in order. On a mismatch the sender gets
    the `usage` text (with `usage_values`) and the handler does not run."""
    forms: tuple[Form, ...] = (
        tuple(f for f in shape if isinstance(f, tuple))
        if shape and isinstance(shape[0], tuple)
        else (tuple(a for a in shape if isinstance(a, Arg)),)
    )
    names = {a.name for form in forms for a in form}

    def decorate(handler: Handler) -> Handler:
        wanted = inspect.signature(handler).parameters
        unknown = names - set(wanted)
        assert not unknown, f"{handler.__name__} takes no {unknown}"

        async def run(
            message: Message,
            command: CommandObject,
            service: GameService,
            t: Texts,
            lang: str,
            **data: Any,
        ) -> Any:
            try:
                values = parse(forms, command.args)
            except BadArguments:
                await message.answer(t(lang, usage, **(usage_values or {})))
                return None
            data.update(message=message, command=command, service=service, t=t, lang=lang)
            given = {k: v for k, v in data.items() if k in wanted and k not in names}
            return await handler(**given, **values)

        # aiogram passes a handler the data its signature names: the wrapper names what
        # the handler needs, less the parsed arguments, plus what parsing needs.
        keyword = inspect.Parameter.KEYWORD_ONLY
        params = [inspect.Parameter("message", inspect.Parameter.POSITIONAL_OR_KEYWORD)]
        params += [inspect.Parameter(n, keyword) for n in ("command", "service", "t", "lang")]
        params += [
            p.replace(kind=keyword)
            for n, p in wanted.items()
            if n not in names and n not in ("message", "command", "service", "t", "lang")
        ]
        run.__signature__ = inspect.Signature(params)  # type: ignore[attr-defined]
        run.__name__ = handler.__name__
        run.__doc__ = handler.__doc__
        run.spec = forms  # type: ignore[attr-defined]
        return run  # type: ignore[return-value]

    return decorate
