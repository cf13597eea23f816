"""Rendering: events in, messages out. A pure function, tested without Telegram.

All events of one action become at most one new group message (plus the pinned table
message at the deal, `bot.views.board`), which keeps a game well inside Telegram's 20 messages
a minute per group. Private messages go to the players the event concerns.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Protocol
from zoneinfo import ZoneInfo

from bot.rules.events import (
    CardsDealt,
    Cause,
    CheckMade,
    DayStarted,
    Event,
    Extended,
    GameAborted,
    GameOver,
    KillPicked,
    LeadersChosen,
    LotDrawn,
    NightEnded,
    NightStarted,
    NominationMade,
    Paused,
    Phase,
    PlayerLeft,
    Resumed,
    SanctionGiven,
    SeatsDrawn,
    SpeechEnded,
    SpeechStarted,
    VoteClosed,
    VoteOpened,
)
from bot.rules.sanctions import Penalty, VCode
from bot.rules.settings import GameSettings, KillRule
from bot.rules.sheet import sheet
from bot.rules.state import GameState
from bot.views.board import board_text
from bot.views.callbacks import NightCb, SignCb, TurnCb, VoteCb
from bot.views.i18n import Texts, escape
from bot.views.keys import BOARD, SHEET, TURN, VOTE, MessageKey, kill_key


@dataclass(frozen=True)
class Button:
    text: str
    callback: str | None = None
    url: str | None = None


Keyboard = tuple[tuple[Button, ...], ...]


@dataclass(frozen=True)
class Countdown:
    """The end time a turn message shows. The turn's clock starts when the table sees
    it, so a message that goes out late shows the later end its clock will have."""

    deadline: float
    seconds: float
    timezone: str
    # The settings' `late_announcement_seconds`, as the engine has it (the default: a turn
    # post stored before the figure travelled with it).
    late: float = GameSettings.late_announcement_seconds

    def shown(self, text: str, now: float) -> str:
        """`text` as sent at `now`: its end time moved on if it went out late (as the
        engine then restarts its clock, `Announced`)."""
        end = now + self.seconds
        if end <= self.deadline + self.late:
            return text
        before, found, after = text.rpartition(_clock_time(self.deadline, self.timezone))
        if not found:
            return text
        return before + _clock_time(end, self.timezone) + after


@dataclass(frozen=True)
class Post:
    """A new message. `remember` keeps its id under a key, for a later Edit."""

    chat_id: int
    text: str
    keyboard: Keyboard | None = None
    protect: bool = False
    pin: bool = False
    remember: MessageKey | None = None
    # The game depends on it (a role card, a night keyboard, the seating): stored in the
    # outbox with the action, sent before the rest and waited for.
    essential: bool = False
    countdown: Countdown | None = None  # the end time of the turn it announces
    # The line of `text` that tells when the turn ends ("До 19:42:30 МСК."), for a later
    # `Retime` to put the end time that holds then in its place.
    clock: str | None = None
    # Sent without a sound (disable_notification): an ordinary turn's post, which the
    # speaker was told of privately the turn before (D2, D3).
    silent: bool = False


@dataclass(frozen=True)
class Edit:
    """Append a line to a remembered message and replace its keyboard.

    A message sent before a restart is not remembered: the edit is then dropped, or, with
    `or_post`, its line is posted (protected) on its own, for a line a player needs.
    """

    chat_id: int
    key: MessageKey
    append: str
    keyboard: Keyboard | None = None
    or_post: bool = False


@dataclass(frozen=True)
class Unkey:
    """The moment of a remembered message's buttons has passed: take them off (its text
    stays). Cosmetic: a press on them is refused by step anyway, so it may wait."""

    chat_id: int
    key: MessageKey


@dataclass(frozen=True)
class Retime:
    """The turn's end time changed (a pause, a resume, an extension, a player out of the
    queue): the remembered message shows `clock` in place of its clock line, keeping its
    buttons (unless they went meanwhile: `keeps_keyboard`). A message sent before a
    restart is not remembered: the edit is dropped (/status and the panel tell the time).
    """

    chat_id: int
    key: MessageKey
    clock: str
    keeps_keyboard: bool = True


Outgoing = Post | Edit | Unkey | Retime


@dataclass(frozen=True)
class Audience:
    game_id: int
    group_id: int
    group_lang: str
    user_langs: Mapping[int, str] = field(default_factory=dict)
    timezone: str = "Europe/Moscow"  # of the clock times in the group's messages

    def lang_of(self, user_id: int) -> str:
        return self.user_langs.get(user_id, self.group_lang)


def label(state: GameState, seat: int) -> str:
    """How a player is named everywhere: `5 · Anna` (PRODUCT)."""
    return f"{seat} · {escape(state.seats[seat].nick)}"


def named(state: GameState, seat: int, t: Texts, lang: str, *, html: bool = True) -> str:
    """How a sentence names a player: `№5 (Анна)`, `#5 (Anna)`. The sentence puts "игрок"
    before it and declines that word, not the nick, so it reads right whatever the nick's
    gender; buttons and lists keep the shorter `5 · Anna`. A callback answer is plain
    text: there the nick goes unescaped (`html=False`)."""
    nick = state.seats[seat].nick
    return t(lang, "vote.seat", seat=seat, nick=escape(nick) if html else nick)


def violation(t: Texts, lang: str, code: VCode | None) -> str:
    """A violation in words (V1-V7), as a club says it; a plain removal has none."""
    return t(lang, f"violation.{code.value}") if code is not None else t(lang, "violation.none")


def sanction_words(t: Texts, lang: str, state: GameState, index: int) -> str:
    """The `index`-th sanction of the game in words: "warning #2 (insult)"."""
    record = state.sanctions[index]
    what = violation(t, lang, record.code)
    if record.penalty is Penalty.WARNING:
        number = sum(
            1
            for s in state.sanctions[: index + 1]
            if s.seat == record.seat and s.penalty is Penalty.WARNING
        )
        return t(lang, "sanction.warning_words", number=number, violation=what)
    penalty = t(lang, f"penalty.{record.penalty.value}")
    return t(lang, "sanction.penalty_words", penalty=penalty, violation=what)


def mention(state: GameState, seat: int, text: str) -> str:
    return f'<a href="tg://user?id={state.seats[seat].user_id}">{text}</a>'


def seat_buttons(state: GameState, seats: Sequence[int], make: CallbackMaker) -> list[Button]:
    return [Button(f"{s} · {state.seats[s].nick}", make(s)) for s in seats]


class CallbackMaker:
    def __init__(self, kind: type[TurnCb] | type[VoteCb] | type[NightCb], game: int, step: int):
        self.kind, self.game, self.step = kind, game, step

    def __call__(self, target: int) -> str:
        return self.kind(game=self.game, step=self.step, target=target).pack()


def rows(buttons: Sequence[Button], width: int = 2) -> Keyboard:
    return tuple(tuple(buttons[i : i + width]) for i in range(0, len(buttons), width))


def number_rows(buttons: Sequence[Button]) -> Keyboard:
    """Seat-number keys, 4 or 5 to a row, whichever leaves the rows most even."""
    if not buttons:
        return ()

    def shape(width: int) -> tuple[int, int]:
        count = -(-len(buttons) // width)
        return count, width * count - len(buttons)  # rows, then the last row's gap

    return rows(buttons, min((5, 4), key=shape))


def render(
    events: Sequence[Event], state: GameState, audience: Audience, t: Texts
) -> list[Outgoing]:
    """The messages that tell everybody what `events` did; `state` is the state after them."""
    out: list[Outgoing] = []
    lines: list[str] = []
    keyboard: Keyboard | None = None
    remember: MessageKey | None = None
    countdown: Countdown | None = None
    clock: str | None = None
    turn_lines = 0  # how many of `lines` the last turn's start left: its own line alone?
    g = audience.group_lang
    gid = audience.game_id
    # Where this action's sanctions begin in the game's record (`state` is after them).
    sanction_index = len(state.sanctions) - sum(isinstance(e, SanctionGiven) for e in events)

    def private(
        seat: int,
        key: str,
        kb: Keyboard | None = None,
        remember: MessageKey | None = None,
        **values: object,
    ) -> None:
        user = state.seats[seat].user_id
        text = t(audience.lang_of(user), key, **values)
        out.append(Post(user, text, kb, protect=True, remember=remember, essential=True))

    for event in events:
        match event:
            case SeatsDrawn():
                # The table message: the seating and the seed's commitment (S3), pinned,
                # then edited as the game goes. Essential: they are what the deal must
                # deliver, whatever happens to the bot meanwhile.
                text = board_text(state, g, t)
                out.append(Post(audience.group_id, text, pin=True, remember=BOARD, essential=True))
            case CardsDealt(roles=roles):
                for seat, role in sorted(roles.items()):
                    user = state.seats[seat].user_id
                    lang = audience.lang_of(user)
                    role_name = t(lang, f"role.{role.value}")
                    text = t(lang, "role.card", seat=seat, role=role_name, game=gid)
                    out.append(Post(user, text, protect=True, essential=True))
            case DayStarted(day=day, first_speaker=first):
                key = "day.zero" if day == 0 else "day.start"
                lines.append(t(g, key, day=day, first=named(state, first, t, g)))
            case SpeechStarted(step=step, phase=phase, seat=seat, queue=queue, deadline=deadline):
                seconds = _seconds(state, phase)
                lines.append(
                    t(
                        g,
                        f"turn.{phase.value}",
                        speaker=mention(state, seat, named(state, seat, t, g)),
                        seconds=seconds,
                    )
                )
                # A paused turn's end is not known yet (T2): its line says so instead.
                ends = None if state.paused else deadline
                clock = turn_clock(state, audience, t, ends, queue[0] if queue else None)
                lines[-1] += "\n" + clock
                if ends is not None:
                    countdown = Countdown(
                        deadline,
                        seconds_of(state, phase),
                        audience.timezone,
                        state.settings.late_announcement_seconds,
                    )
                make = CallbackMaker(TurnCb, gid, step)
                # Finish speech stands alone, so that no tap near it puts a player up.
                keyboard = ((Button(t(g, "button.pass"), make(0)),),)
                if phase is Phase.ROUND_2:
                    targets = [s for s in state.living() if s != seat]
                    # Said once, as round 2 begins; the buttons stay on every turn (D3).
                    if _opens_round(state, seat, queue):
                        lines.append(t(g, "turn.nominate_hint"))
                    keyboard += number_rows([Button(str(s), make(s)) for s in targets])
                remember = TURN
                turn_lines = len(lines)
                following = _speaks_next(state, phase, queue)
                if following is not None:
                    # One private word to whoever speaks after this turn: the group's
                    # post of their own turn then goes silently (D2).
                    user = state.seats[following].user_id
                    lang = audience.lang_of(user)
                    after = named(state, seat, t, lang)
                    out.append(Post(user, t(lang, "turn.next", speaker=after)))
            case SpeechEnded():
                out.append(Unkey(audience.group_id, TURN))
            case NominationMade(by=by, nominee=nominee):
                make = CallbackMaker(TurnCb, gid, state.step)
                line = t(
                    g,
                    "nomination.made",
                    by=named(state, by, t, g),
                    nominee=named(state, nominee, t, g),
                )
                pass_only = rows([Button(t(g, "button.pass"), make(0))])
                out.append(Edit(audience.group_id, TURN, line, pass_only))
            case LeadersChosen(leaders=leaders, tally=tally):
                counts = ", ".join(f"{named(state, s, t, g)} — {n}" for s, n in tally.items())
                names = t.listing(g, [named(state, s, t, g) for s in leaders])
                lines.append(t(g, "vote.leaders", tally=counts, leaders=names))
            case LotDrawn(seat=seat):
                lines.append(t(g, "lot.drawn", player=named(state, seat, t, g)))
            case VoteOpened(step=step, leaders=leaders):
                make = CallbackMaker(VoteCb, gid, step)
                # Abstaining has a row of its own, away from every leader's button.
                abstain = ((Button(t(g, "button.abstain"), make(0)),),)
                lines.append(t(g, "vote.open", seconds=_fmt(state.settings.vote_seconds)))
                keyboard = rows(seat_buttons(state, leaders, make)) + abstain
                remember = VOTE
            case VoteClosed(votes=votes, leaving=leaving):
                out.append(Unkey(audience.group_id, VOTE))
                lines.append(_vote_closed(state, g, t, votes, leaving))
            case PlayerLeft(seat=seat, cause=cause) if not cause.gives_last_word:
                key = "left.disqualified" if cause is Cause.DISQUALIFICATION else "left.removed"
                lines.append(t(g, key, player=named(state, seat, t, g)))
                # The one told they speak next is gone: whoever speaks after them now is
                # told instead, their turn's post being silent (D2).
                following = _next_after_leaving(state, seat)
                if following is not None and state.speaker is not None:
                    user = state.seats[following].user_id
                    lang = audience.lang_of(user)
                    after = named(state, state.speaker, t, lang)
                    out.append(Post(user, t(lang, "turn.next", speaker=after)))
            case NightStarted(step=step, night=night, phase=phase):
                _night(state, audience, t, step, night, phase, lines, private)
            case CheckMade(by=by, target=target, is_mafia=is_mafia):
                verdict = "night.check.mafia" if is_mafia else "night.check.civilian"
                lang = audience.lang_of(state.seats[by].user_id)
                private(by, verdict, player=named(state, target, t, lang))
            case KillPicked(by=by, target=target):
                # A partner's pick is added to the kill keyboard's message rather than sent
                # as a message of its own: the mafioso is looking at that message anyway,
                # and an edit does not count against the bot's 30 messages a second.
                # The night may have ended with this very pick: then no buttons are left.
                goes_on = state.phase is Phase.NIGHT
                keyboard = _kill_keyboard(state, gid, state.step) if goes_on else None
                for partner in state.living_mafia():
                    if partner == by:
                        continue
                    user = state.seats[partner].user_id
                    lang = audience.lang_of(user)
                    line = t(
                        lang,
                        "night.kill.partner",
                        by=named(state, by, t, lang),
                        target=named(state, target, t, lang),
                    )
                    out.append(Edit(user, kill_key(partner), line, keyboard, or_post=True))
            case NightEnded(victim=victim):
                if victim is None:
                    lines.append(t(g, "morning.miss"))
                else:
                    lines.append(t(g, "morning.victim", player=named(state, victim, t, g)))
            case Paused(remaining=remaining):
                lines.append(t(g, "host.paused", seconds=_fmt(remaining)))
            case Resumed(deadline=deadline, remaining=remaining):
                until = _until(deadline, audience)
                if state.speaker is not None and remaining > 0:
                    who = named(state, state.speaker, t, g)
                    seconds = _fmt(round(remaining, 1))
                    lines.append(
                        t(g, "host.resumed_turn", speaker=who, seconds=seconds, until=until)
                    )
                else:
                    lines.append(t(g, "host.resumed"))
            case Extended(seconds=seconds):
                lines.append(t(g, "host.extended", seconds=_fmt(seconds)))
            case SanctionGiven(seat=seat):
                # In words, never as a bare code: "warning #2 (insult)" (V).
                words = sanction_words(t, g, state, sanction_index)
                lines.append(
                    t(g, "sanction.given", player=named(state, seat, t, g), sanction=words)
                )
                sanction_index += 1
            case GameOver(winner=winner, seed=seed):
                out += [Unkey(audience.group_id, TURN), Unkey(audience.group_id, VOTE)]
                lines.append(_result(state, g, t, winner.value, seed))
                sign = SignCb(game=gid).pack()
                keyboard, remember = ((Button(t(g, "button.sign"), sign),),), SHEET
            case GameAborted():
                out += [Unkey(audience.group_id, TURN), Unkey(audience.group_id, VOTE)]
                lines.append(t(g, "over.aborted"))
            case _:
                pass  # nothing to say: the next event's text covers it
    if lines:
        # After the private messages: a role card is in hand before the first turn is called.
        text = "\n\n".join(lines)
        out.append(
            Post(
                audience.group_id,
                text,
                keyboard,
                remember=remember,
                countdown=countdown,
                clock=clock if remember == TURN else None,
                # Only a turn's line, with nothing else to tell the table: silent.
                silent=remember == TURN and turn_lines == len(lines) == 1,
            )
        )
    out += _retimed(events, state, audience, t)
    return out


def _opens_round(state: GameState, seat: int, queue: Sequence[int]) -> bool:
    """Whether the turn of `seat`, with `queue` after it, is its round's first (D2)."""
    assert state.first_speaker is not None
    order = state.clockwise_from(state.first_speaker, state.living())
    return bool(order) and order[0] == seat and list(queue) == order[1:]


def _speaks_next(state: GameState, phase: Phase, queue: Sequence[int]) -> int | None:
    """Who has the floor after this turn, if it is known now: the next in the round, or
    after round 1, the first of round 2 (D2, D3)."""
    if queue:
        return queue[0]
    if phase is Phase.ROUND_1 and state.first_speaker is not None:
        order = state.clockwise_from(state.first_speaker, state.living())
        return order[0] if order else None
    return None


def _next_after_leaving(state: GameState, seat: int) -> int | None:
    """Who speaks next now that `seat`, who was to speak next, left; None if `seat` was
    not the next speaker or nobody follows in this run."""
    if not state.in_speech or state.speaker is None or state.speaker == seat:
        return None
    waiting = [s for s in state.queue if state.is_alive(s) or s == seat]
    if not waiting or waiting[0] != seat:
        return None
    return waiting[1] if len(waiting) > 1 else None


# What changes when a turn ends, or who speaks next, without a new turn (T2).
_RETIMING = (Paused, Resumed, Extended, PlayerLeft)


def _retimed(
    events: Sequence[Event], state: GameState, audience: Audience, t: Texts
) -> list[Outgoing]:
    """The turn message's clock line, as it holds after `events`, if they changed it: a
    pause, a resume or an extension moved the end, or the next speaker left (T2)."""
    if not state.in_speech or state.speaker is None or state.finished:
        return []
    if any(isinstance(e, SpeechStarted) for e in events):
        return []  # the new turn's message says it already
    if not any(isinstance(e, _RETIMING) for e in events):
        return []
    until = None if state.paused else state.deadline
    following = next((s for s in state.queue if state.is_alive(s)), None)  # the dead are passed
    return [Retime(audience.group_id, TURN, turn_clock(state, audience, t, until, following))]


def turn_clock(
    state: GameState, audience: Audience, t: Texts, until: float | None, following: int | None
) -> str:
    """A turn message's clock line: when the turn ends, in the chat's time zone, or that
    the game is paused and how much the turn has left; and who speaks next."""
    g = audience.group_lang
    after = {} if following is None else {"next": named(state, following, t, g)}
    suffix = "" if following is None else "_next"
    if until is None:
        left = state.paused_remaining or 0.0
        return t(g, f"turn.paused{suffix}", seconds=_fmt(round(left, 1)), **after)
    return t(g, f"turn.until{suffix}", until=_until(until, audience), **after)


def _until(moment: float, audience: Audience) -> str:
    """An end time as the chat reads it, with its zone: 19:42:30 МСК."""
    zone = _zone_name(moment, audience.timezone, audience.group_lang)
    return f"{_clock_time(moment, audience.timezone)} {zone}"


def _vote_closed(
    state: GameState, lang: str, t: Texts, votes: Mapping[int, int | None], leaving: list[int]
) -> str:
    """D6-D7: the open vote, leader by leader with the seats that voted for them, then the
    abstentions, then who leaves and why, in words a player checks against the count."""

    def seat(s: int) -> str:
        return t(lang, "vote.seat", seat=s, nick=escape(state.seats[s].nick))

    def seats(group: Sequence[int]) -> str:
        return ", ".join(str(s) for s in sorted(group))

    # The leaders who could still be voted for when the vote closed: those who leave by
    # it have died only now; one removed during the vote gets no votes (S).
    counted = [
        s for s in state.leaders if state.is_alive(s) or state.seats[s].left is Cause.VOTE
    ] or sorted(leaving)
    lines = [t(lang, "vote.closed")]
    for leader in counted:
        voters = [v for v, c in votes.items() if c == leader]
        count = t.count(lang, "votes", len(voters))
        if voters:
            lines.append(
                t(lang, "vote.for_leader", leader=seat(leader), count=count, voters=seats(voters))
            )
        else:
            lines.append(t(lang, "vote.for_leader_none", leader=seat(leader), count=count))
    abstained = [v for v, c in votes.items() if c is None]
    if abstained:
        lines.append(t(lang, "vote.abstained", seats=seats(abstained)))
    void = [v for v, c in votes.items() if c is not None and c not in counted]
    if void:
        lines.append(t(lang, "vote.void", seats=seats(void)))
    living = len(votes)
    if len(leaving) > 1:
        named = t.listing(lang, [seat(s) for s in sorted(leaving)])
        outcome = t(lang, "vote.tie", leaders=named)
    elif leaving:
        (gone,) = leaving
        key = "vote.majority" if len(counted) == 1 else "vote.most"
        votes_for = sum(1 for c in votes.values() if c == gone)
        outcome = t(lang, key, leader=seat(gone), seat=gone, votes=votes_for, living=living)
    elif len(counted) == 1 and any(c == counted[0] for c in votes.values()):
        votes_for = sum(1 for c in votes.values() if c == counted[0])
        outcome = t(
            lang, "vote.no_majority", leader=seat(counted[0]), votes=votes_for, living=living
        )
    else:
        outcome = t(lang, "vote.no_votes")
    return "\n".join(lines) + "\n\n" + outcome


def _night(
    state: GameState,
    audience: Audience,
    t: Texts,
    step: int,
    night: int,
    phase: Phase,
    lines: list[str],
    private: _Private,
) -> None:
    """The night's posts. Every living player gets a private message, in seat order, the
    civilians one that says there is nothing to do: a phone that buzzes (or a player who
    shows "online") at night tells nobody a role, and neither does the order or the
    moment the messages go out (N2, N3)."""
    g = audience.group_lang
    mafia = state.living_mafia()
    commissioner = state.commissioner()
    living = state.living()
    if phase is Phase.ACQUAINTANCE:
        # N1: the mafiosi learn each other's numbers; the Commissioner meets the Host.
        lines.append(t(g, "night.zero", seconds=_fmt(state.settings.acquaintance_seconds)))
        for seat in living:
            if seat in mafia:
                lang = audience.lang_of(state.seats[seat].user_id)
                partners = t.listing(lang, [named(state, p, t, lang) for p in mafia])
                private(seat, "night.zero.mafia", partners=partners)
            elif seat == commissioner:
                private(seat, "night.zero.commissioner")
            else:
                private(seat, "night.zero.civilian")
        return
    lines.append(t(g, "night.start", night=night, seconds=_fmt(state.settings.night_seconds)))
    for seat in living:
        if seat == commissioner:
            make = CallbackMaker(NightCb, audience.game_id, step)
            targets = [s for s in living if s != commissioner]
            private(seat, "night.check.ask", rows(seat_buttons(state, targets, make), 3))
        elif seat in mafia:
            kill = _kill_keyboard(state, audience.game_id, step)
            private(seat, _KILL_ASK[state.settings.kill_rule], kill, kill_key(seat))
        else:
            private(seat, "night.sleep", night=night)


# N3: the mafia's prompt says how their picks become one shot, by the table's kill rule.
_KILL_ASK = {
    KillRule.UNANIMOUS: "night.kill.ask",
    KillRule.MAJORITY: "night.kill.ask_majority",
}


def _kill_keyboard(state: GameState, game_id: int, step: int) -> Keyboard:
    return rows(seat_buttons(state, state.living(), CallbackMaker(NightCb, game_id, step)), 3)


class _Private(Protocol):
    def __call__(
        self,
        seat: int,
        key: str,
        kb: Keyboard | None = None,
        remember: MessageKey | None = None,
        **values: object,
    ) -> None: ...


def _result(state: GameState, lang: str, t: Texts, winner: str, seed: str) -> str:
    rows = []
    for row in sheet(state):
        # T3: who left and how, and any warnings, so a removal never reads as a plain line.
        notes = []
        taken_out = [p for p in row.penalties if p is not Penalty.WARNING]
        if taken_out:
            notes.append(t(lang, f"penalty.{taken_out[-1].value}"))
        elif row.left is not None:
            notes.append(t(lang, f"over.left_{row.left.value}"))
        warnings = len(row.penalties) - len(taken_out)
        if warnings:
            notes.append(f"⚠️ {warnings}")
        values = {
            "player": label(state, row.seat),
            "role": t(lang, f"role.{row.role.value}"),
            "mark": "🏆" if row.won else "·",
        }
        if notes:
            rows.append(t(lang, "over.row_note", note=" · ".join(notes), **values))
        else:
            rows.append(t(lang, "over.row", **values))
    table = "\n".join(rows)
    return t(lang, f"over.{winner}", sheet=table, seed=seed, commitment=state.commitment)


def _seconds(state: GameState, phase: Phase) -> str:
    return _fmt(seconds_of(state, phase))


def seconds_of(state: GameState, phase: Phase) -> float:
    """A speech's full time in `phase`."""
    s = state.settings
    return {
        Phase.INTRODUCTION: s.introduction_seconds,
        Phase.ROUND_1: s.round1_seconds,
        Phase.ROUND_2: s.round2_seconds,
        Phase.DEFENCE: s.defence_seconds,
        Phase.LAST_WORDS: s.last_word_seconds,
    }[phase]


def _clock_time(moment: float, timezone: str) -> str:
    """A moment as the chat's wall clock shows it: 19:42:30."""
    return datetime.fromtimestamp(moment, ZoneInfo(timezone)).strftime("%H:%M:%S")


def _zone_name(moment: float, timezone: str, lang: str) -> str:
    """The zone's short name as the chat reads it: МСК for Moscow in Russian, else its own."""
    if timezone == "Europe/Moscow" and lang == "ru":
        return "МСК"
    return datetime.fromtimestamp(moment, ZoneInfo(timezone)).tzname() or timezone


def _fmt(seconds: float) -> str:
    """Whole seconds without a trailing .0; scaled-down timers keep one decimal."""
    return str(int(seconds)) if float(seconds).is_integer() else f"{seconds:.1f}"
