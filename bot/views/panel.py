"""The Host's private panel: one message per game that shows the Host the whole table.

PRODUCT: the Host knows the roles; a Host who holds a seat is a player and gets no
panel. The panel is posted at the deal and edited as the game goes: the seats with their
roles and sanctions, each night's check and picks as they come, who has not voted yet.
Its buttons do what the Host's commands do, through the same service calls: pause or
resume, +30 s, end the turn, and a sanction picker (a seat, then the violation in words,
then the sanction the rules give, to confirm).

`panel_view` is pure; `HostPanels` keeps the message up to date. Only the newest view is
ever sent: views that pile up while the private chat's window is shut fold into one.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import logging
import sqlite3
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass

from aiogram.exceptions import TelegramForbiddenError
from aiogram.types import Message

from bot.delivery.limiter import COSMETIC, PRIORITY
from bot.delivery.sender import Sender, markup
from bot.delivery.slot import Shown, put
from bot.rules.events import (
    CheckMade,
    Event,
    KillPicked,
    NightEnded,
    NightStarted,
    Phase,
)
from bot.rules.protocol import event_from_json
from bot.rules.sanctions import Penalty, VCode
from bot.rules.state import GameState
from bot.views.callbacks import PanelCb, SanctionCb
from bot.views.i18n import Texts, escape
from bot.views.render import Button, Keyboard, number_rows, sanction_words, violation
from storage.games import Game
from storage.panels import PanelMessage
from storage.repositories import Repositories

log = logging.getLogger(__name__)

EXTEND_SECONDS = 30  # the panel's "+30 s" (the Host's prerogative, as /extend)


@dataclass(frozen=True)
class Picking:
    """Where the Host is in the sanction picker: choosing a seat (`seat` None), then the
    violation, then confirming the sanction the ladder proposed for it."""

    seat: int | None = None
    code: VCode | None = None
    penalty: Penalty | None = None
    given: int = 0  # the seat's sanctions in this game when it was proposed


def night_events(events: Sequence[Event]) -> list[Event]:
    """What the panel's night lines are made of."""
    kinds = (NightStarted, CheckMade, KillPicked, NightEnded)
    return [e for e in events if isinstance(e, kinds)]


def panel_view(
    state: GameState,
    game_id: int,
    lang: str,
    t: Texts,
    nights: Sequence[Event] = (),
    picking: Picking | None = None,
) -> tuple[str, Keyboard | None]:
    """The panel's text and buttons for `state`; `nights` are the game's night events."""

    def who(seat: int) -> str:
        return f"{seat} · {escape(state.seats[seat].nick)}"

    lines = [t(lang, "panel.title", game=game_id)]
    if state.finished:
        lines.append(t(lang, "panel.over"))
    elif state.phase in (Phase.NIGHT, Phase.ACQUAINTANCE):
        lines.append(t(lang, "panel.night", night=state.day))
    else:
        phase = t(lang, f"phase.{state.phase.value}")
        lines.append(t(lang, "panel.day", day=state.day, phase=phase))
    if state.speaker is not None and not state.finished:
        lines.append(t(lang, "panel.speaker", speaker=who(state.speaker)))
    if state.paused_remaining is not None:
        lines.append(t(lang, "panel.paused", seconds=round(state.paused_remaining)))
    lines.append("")
    for seat, seated in sorted(state.seats.items()):
        role = state.roles.get(seat)
        head = who(seat)
        if role is not None:
            head += f" — {t(lang, f'role.{role.value}')}"
        if seated.left is not None:
            cause = t(lang, f"panel.cause.{seated.left.value}")
            head = f"<s>{head}</s> · {t(lang, 'panel.left', cause=cause)}"
        lines.append(head)
        lines += [
            "    " + sanction_words(t, lang, state, index)
            for index, record in enumerate(state.sanctions)
            if record.seat == seat
        ]
    night_lines = _nights(state, lang, t, nights, who)
    if night_lines:
        lines += ["", *night_lines]
    if state.phase is Phase.VOTE and not state.finished:
        waiting = [s for s in state.living() if s not in state.votes]
        lines.append("")
        if waiting:
            seats = ", ".join(str(s) for s in waiting)
            lines.append(t(lang, "panel.not_voted", seats=seats))
        else:
            lines.append(t(lang, "panel.all_voted"))
    if state.finished:
        return "\n".join(lines), None
    keyboard = _keyboard(state, game_id, lang, t, picking, lines)
    return "\n".join(lines), keyboard


def _nights(
    state: GameState, lang: str, t: Texts, nights: Sequence[Event], who: Callable[[int], str]
) -> list[str]:
    """One line per night so far: the check, the mafia's picks, the outcome."""
    out: list[str] = []
    night = -1
    check: str | None = None
    picks: dict[int, int] = {}
    ended: str | None = None

    def flush() -> None:
        if night <= 0:
            return  # Night 0 has no check and no shot (N1)
        parts = [check or t(lang, "panel.no_check")]
        if picks:
            shots = ", ".join(f"{by} → {target}" for by, target in sorted(picks.items()))
            parts.append(t(lang, "panel.picks", picks=shots))
        else:
            parts.append(t(lang, "panel.no_picks"))
        if ended is not None:
            parts.append(ended)
        out.append(t(lang, "panel.night_line", night=night, what="; ".join(parts)))

    for event in nights:
        match event:
            case NightStarted(night=n, phase=phase):
                flush()
                night = n if phase is Phase.NIGHT else 0
                check, picks, ended = None, {}, None
            case CheckMade(target=target, is_mafia=is_mafia):
                verdict = t(lang, "panel.mafia" if is_mafia else "panel.civilian")
                check = t(lang, "panel.check", player=who(target), verdict=verdict)
            case KillPicked(by=by, target=target):
                picks[by] = target
            case NightEnded(victim=victim):
                ended = (
                    t(lang, "panel.victim", player=who(victim))
                    if victim is not None
                    else t(lang, "panel.miss")
                )
    flush()
    return out


def _keyboard(
    state: GameState,
    game_id: int,
    lang: str,
    t: Texts,
    picking: Picking | None,
    lines: list[str],
) -> Keyboard:
    def button(key: str, do: str) -> Button:
        return Button(t(lang, key), PanelCb(game=game_id, step=state.step, do=do).pack())

    back = (button("panel.back", "back"),)
    if picking is None:
        hold = button("panel.resume", "resume") if state.paused else button("panel.pause", "pause")
        extend = Button(
            t(lang, "panel.extend", seconds=EXTEND_SECONDS),
            PanelCb(game=game_id, step=state.step, do="extend").pack(),
        )
        return (
            (hold, extend, button("panel.skip", "skip")),
            (button("panel.sanction", "warn"),),
        )
    lines.append("")
    if picking.seat is None or picking.seat not in state.seats:
        lines.append(t(lang, "panel.pick_seat"))
        seats = [
            Button(str(s), PanelCb(game=game_id, step=state.step, do="seat", seat=s).pack())
            for s in state.living()
        ]
        return (*number_rows(seats), back)
    seat = picking.seat
    player = t(lang, "panel.player", seat=seat, nick=escape(state.seats[seat].nick))
    if picking.code is None or picking.penalty is None:
        lines.append(t(lang, "panel.pick_violation", player=player))
        codes = tuple(
            (
                Button(
                    violation(t, lang, code),
                    PanelCb(
                        game=game_id, step=state.step, do="code", seat=seat, code=code.value
                    ).pack(),
                ),
            )
            for code in VCode
        )
        return (*codes, back)
    lines.append(
        t(
            lang,
            "panel.proposal",
            player=player,
            violation=violation(t, lang, picking.code),
            penalty=t(lang, f"penalty.{picking.penalty.value}"),
        )
    )
    made = SanctionCb(
        game=game_id,
        seat=seat,
        code=picking.code.value,
        penalty=picking.penalty.value,
        given=picking.given,
    )
    confirm = Button(t(lang, "button.confirm"), made.pack())
    cancel = Button(t(lang, "button.cancel"), made.model_copy(update={"penalty": ""}).pack())
    return ((confirm, cancel),)


def _digest(chat_id: int, text: str, keyboard: Keyboard | None) -> str:
    shape = [[(b.text, b.callback, b.url) for b in row] for row in keyboard or ()]
    data = json.dumps([chat_id, text, shape], ensure_ascii=False).encode()
    return hashlib.sha256(data).hexdigest()[:32]


@dataclass(frozen=True)
class _View:
    chat_id: int
    text: str
    keyboard: Keyboard | None

    @property
    def digest(self) -> str:
        return _digest(self.chat_id, self.text, self.keyboard)


class HostPanels:
    """Keeps each game's panel message showing the newest view, within the flood limits.

    The message id and what it shows are stored, so that a restarted bot edits the same
    message; one that is gone (the Host deleted it) is posted anew.
    """

    def __init__(
        self,
        repos: Repositories,
        sender: Sender,
        texts: Texts,
        user_lang: Callable[[int], Awaitable[str]],
    ) -> None:
        self.repos = repos
        self.sender = sender
        self.t = texts
        self.user_lang = user_lang
        self._wanted: dict[int, _View] = {}
        self._shown: dict[int, PanelMessage | None] = {}
        self._nights: dict[int, list[Event]] = {}
        self._picking: dict[int, Picking] = {}
        self._workers: dict[int, asyncio.Task[None]] = {}
        self._over: set[int] = set()
        self._unreachable: dict[int, int] = {}  # game -> its Host, who never pressed Start

    def picking(self, game_id: int) -> Picking | None:
        return self._picking.get(game_id)

    def pick(self, game_id: int, picking: Picking | None) -> None:
        """Open, move or close the game's sanction picker (shown at the next `show`)."""
        if picking is None:
            self._picking.pop(game_id, None)
        else:
            self._picking[game_id] = picking

    def reachable(self, user_id: int) -> list[int]:
        """The user pressed Start: the games whose panel could not reach them before."""
        games = [g for g, host in self._unreachable.items() if host == user_id]
        for game_id in games:
            del self._unreachable[game_id]
        return games

    def _forget(self, game_id: int) -> None:
        for memory in (self._shown, self._nights, self._picking, self._unreachable):
            memory.pop(game_id, None)

    async def show(self, game: Game, state: GameState, events: Sequence[Event] = ()) -> None:
        """The panel of `game` shows `state` (after `events`, which are already stored)."""
        game_id = game.game_id
        host = game.host_user_id
        if state.seat_of(host) is not None or self._unreachable.get(game_id) == host:
            # A Host who holds a seat is a player: no roles for them. One who never
            # pressed Start gets theirs when they do.
            if state.finished and game_id not in self._workers:
                self._forget(game_id)
            else:
                self._nights.pop(game_id, None)  # the protocol has them, if ever needed
            return
        if game_id not in self._shown:
            self._shown[game_id] = await self.repos.panels.get(game_id)
        shown = self._shown[game_id]
        if shown is None or shown.chat_id != host:
            user = await self.repos.users.get(host)
            if user is None or not user.started or user.blocked:
                self._unreachable[game_id] = host
                self._nights.pop(game_id, None)
                if state.finished:
                    self._forget(game_id)
                return
        if game_id not in self._nights:
            # The first view since the bot started: the nights so far are in the protocol.
            stored = await self.repos.protocol.read(game_id)
            self._nights[game_id] = night_events(
                [event_from_json(json.loads(e.payload_json)) for e in stored]
            )
        else:
            self._nights[game_id] += night_events(events)
        lang = await self.user_lang(host)
        text, keyboard = panel_view(
            state, game_id, lang, self.t, self._nights[game_id], self._picking.get(game_id)
        )
        self._wanted[game_id] = _View(host, text, keyboard)
        if state.finished:
            self._over.add(game_id)
        if game_id not in self._workers:
            task = self.sender.workers.spawn(self._work(game_id), "panel")
            self._workers[game_id] = task
            self.sender.track(task)

    async def _work(self, game_id: int) -> None:
        token = PRIORITY.set(COSMETIC)  # the game's own messages go first
        try:
            while (view := self._wanted.get(game_id)) is not None:
                shown = self._shown.get(game_id)
                if shown is not None and shown.digest == view.digest:
                    break
                if not await self._put(game_id, view, shown) and self._wanted.get(game_id) is view:
                    break  # the next view tries again
        finally:
            PRIORITY.reset(token)
            del self._workers[game_id]
            self._wanted.pop(game_id, None)
            if game_id in self._over:  # nothing will be shown on it again
                self._over.discard(game_id)
                self._forget(game_id)

    async def _put(self, game_id: int, view: _View, shown: PanelMessage | None) -> bool:
        """Show `view`: edit the panel message, or post one. False if it did not go."""
        bot = self.sender.bot
        reply_markup = markup(view.keyboard)
        # A panel in another chat (the game has a new Host) is left; theirs is posted.
        here = shown is not None and shown.chat_id == view.chat_id
        slot = Shown(shown.chat_id, shown.message_id, shown.digest) if shown and here else None

        async def post() -> Message:
            return await bot.send_message(
                chat_id=view.chat_id,
                text=view.text,
                reply_markup=reply_markup,
                protect_content=True,  # it shows every role
            )

        try:
            _, now = await put(bot, slot, view.digest, view.text, reply_markup, post)
        except TelegramForbiddenError:
            # The Host blocked the bot: the panel waits for their Start.
            self._unreachable[game_id] = view.chat_id
            return False
        except Exception:  # the panel is a convenience: the game goes on without it
            log.exception("game %s: the panel could not be shown", game_id)
            return False
        assert now is not None  # with a repost, the panel is always somewhere
        done = PanelMessage(game_id, now.chat_id, now.message_id, view.digest)
        self._shown[game_id] = done
        try:
            await self.repos.panels.save(done)
        except sqlite3.Error:
            log.exception("game %s: the panel's message could not be stored", game_id)
        return True
