"""Who may do what in a game: the README's table ("Who may do what") as data.

A row is what a person asks of the bot (a command, a button, a message), grouped as the
README groups them; a column is the position the person holds in the chat's game at that
moment. A cell is a Verdict: allowed, refused, or nobody holds that position then, with
the README's qualifiers where they matter ("in round 2 only", "once", "an administrator
of the chat").

The table says who; the engine still says whether. An action out of turn is refused by
bot.rules.engine with a RuleError, and that error's code is what the person reads: the
table agrees with the engine and does not replace it. A test reads both READMEs' rows
against `may`, so the documentation and the code cannot drift apart.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from enum import Enum, StrEnum
from typing import Generic, TypeVar

from bot.rules.events import Phase
from bot.rules.roles import Role
from bot.rules.state import GameState


class Answer(Enum):
    """What a cell says, by the README's glyph."""

    ALLOWED = "✅"
    REFUSED = "❌"
    NOBODY = "—"  # nobody holds that position then
    # Neither: a command in the group out of turn is deleted and answered in private,
    # where it is answered or refused as its own row says (D10, N5).
    IN_PRIVATE = ""


Q = TypeVar("Q", bound=Enum)


@dataclass(frozen=True)
class Verdict(Generic[Q]):
    """One cell: the answer, what qualifies it, and the answer for whoever in that
    position the qualifiers leave out (the README's "✅ …; ❌ anyone else")."""

    answer: Answer
    qualifiers: frozenset[Q] = field(default_factory=frozenset)
    otherwise: Answer | None = None

    @property
    def allowed(self) -> bool:
        return self.answer is Answer.ALLOWED

    @property
    def glyphs(self) -> tuple[str, ...]:
        """The glyphs the README's cell shows, in order."""
        answers = (self.answer,) if self.otherwise is None else (self.answer, self.otherwise)
        return tuple(a.value for a in answers if a.value)


class Position(StrEnum):
    """The columns of the game's table, in the README's order."""

    HOST = "host"
    # Whose turn it is (in last words, the player who has just left), while the clock runs.
    SPEAKER = "speaker"
    LIVING_PLAYER = "living_player"
    NIGHT_ACTOR = "night_actor"  # the Commissioner or a living mafioso, at night
    ANYONE_ELSE = "anyone_else"  # a member who does not play, or a player who has left


class Asked(StrEnum):
    """The rows of the game's table, in the README's order."""

    NEW_GAME = "new_game"  # /newgame, no game in the chat
    LOBBY_TAKEN_OVER = "lobby_taken_over"  # a Host's command in someone else's casual lobby
    KICK = "kick"
    JOIN = "join"  # /join, /leave, Join
    BEGIN = "begin"
    HOST_COMMAND = "host_command"  # /pause, /resume, /skip, /extend, /warn, /remove, /stop, /host
    SANCTION_DECISION = "sanction_decision"  # Confirm / Cancel on a proposed sanction
    PANEL_BUTTON = "panel_button"
    SIGN_SHEET = "sign_sheet"
    PASS = "pass"  # /pass, Finish speech
    NOMINATE = "nominate"  # /nominate N, a seat button on the turn
    FINAL_VOTE = "final_vote"
    NIGHT_BUTTON = "night_button"
    NIGHT_MESSAGE = "night_message"  # writing to the bot at night
    GROUP_MESSAGE = "group_message"  # writing (or editing) in the group during a game
    EVERYONE_COMMAND = "everyone_command"  # /status, /rules, /help, /lang; /start in private
    GROUP_COMMAND = "group_command"  # any command in the group during a game


class Qualifier(StrEnum):
    """The README's words that narrow or explain a cell."""

    BECOMES_HOST = "becomes_host"
    AN_ADMINISTRATOR_OF_THE_CHAT = "an_administrator_of_the_chat"  # as Telegram says now
    TAKES_THE_LOBBY_OVER = "takes_the_lobby_over"  # issue 25
    HOLDING_NO_OTHER_SEAT = "holding_no_other_seat"
    TABLE_ROSTER_ONLY = "table_roster_only"  # a tournament table
    IN_THE_LOBBY = "in_the_lobby"
    WITHOUT_A_SEAT = "without_a_seat"  # a seated Host has no panel
    FROM_THEIR_OWN_PANEL = "from_their_own_panel"  # in their private chat
    IN_ROUND_2_ONLY = "in_round_2_only"  # D3
    ONCE = "once"  # D6: a cast vote is final
    A_CIVILIAN = "a_civilian"
    ONCE_A_NIGHT = "once_a_night"  # N2, N3
    FROM_NIGHT_1 = "from_night_1"  # Night 0 (N1) is acquaintance only
    A_MAFIOSO = "a_mafioso"  # N1, N3: the relay
    TEXT_ONLY = "text_only"  # the relay passes text, not a photo or a voice note
    THE_COMMISSIONER = "the_commissioner"
    DELETED = "deleted"  # D10, N5
    REPORTED_V3 = "reported_v3"  # N5: opening one's eyes at night
    AT_NIGHT = "at_night"  # a living player's word is V3 only at night (N5)
    ANSWERED_THERE = "answered_there"
    ANSWERED_IN_PRIVATE = "answered_in_private"


GameVerdict = Verdict[Qualifier]
COLUMNS = tuple(Position)


def _cell(answer: Answer, *qualifiers: Qualifier, otherwise: Answer | None = None) -> GameVerdict:
    return Verdict(answer, frozenset(qualifiers), otherwise)


def _ok(*qualifiers: Qualifier, otherwise: Answer | None = None) -> GameVerdict:
    return _cell(Answer.ALLOWED, *qualifiers, otherwise=otherwise)


def _no(*qualifiers: Qualifier) -> GameVerdict:
    return _cell(Answer.REFUSED, *qualifiers)


_NOBODY: GameVerdict = Verdict(Answer.NOBODY)
_YES, _NO = _ok(), _no()
_Q = Qualifier

# Host, the speaker, a living player, the Commissioner or a mafioso at night, anyone else.
TABLE: dict[Asked, tuple[GameVerdict, ...]] = {
    Asked.NEW_GAME: (_NOBODY, _NOBODY, _NOBODY, _NOBODY, _ok(_Q.BECOMES_HOST)),
    Asked.LOBBY_TAKEN_OVER: (
        *(_NOBODY,) * 4,
        _ok(_Q.AN_ADMINISTRATOR_OF_THE_CHAT, _Q.TAKES_THE_LOBBY_OVER, otherwise=Answer.REFUSED),
    ),
    Asked.KICK: (_YES, _NOBODY, _NOBODY, _NOBODY, _NO),
    Asked.JOIN: (*(_NOBODY,) * 4, _ok(_Q.HOLDING_NO_OTHER_SEAT, _Q.TABLE_ROSTER_ONLY)),
    Asked.BEGIN: (_YES, _NOBODY, _no(_Q.IN_THE_LOBBY), _NOBODY, _NO),
    Asked.HOST_COMMAND: (_YES, _NO, _NO, _NO, _NO),
    Asked.SANCTION_DECISION: (_YES, _NO, _NO, _NO, _NO),
    Asked.PANEL_BUTTON: (_ok(_Q.WITHOUT_A_SEAT, _Q.FROM_THEIR_OWN_PANEL), _NO, _NO, _NO, _NO),
    Asked.SIGN_SHEET: (_YES, _NOBODY, _NO, _NOBODY, _NO),
    Asked.PASS: (_NO, _YES, _NO, _NO, _NO),
    Asked.NOMINATE: (_NO, _ok(_Q.IN_ROUND_2_ONLY), _NO, _NO, _NO),
    Asked.FINAL_VOTE: (_NO, _NOBODY, _ok(_Q.ONCE), _NOBODY, _NO),
    Asked.NIGHT_BUTTON: (
        _NO,
        _NOBODY,
        _no(_Q.A_CIVILIAN),
        _ok(_Q.ONCE_A_NIGHT, _Q.FROM_NIGHT_1),
        _NO,
    ),
    Asked.NIGHT_MESSAGE: (
        _NO,
        _NOBODY,
        _NO,
        _ok(_Q.A_MAFIOSO, _Q.TEXT_ONLY, _Q.THE_COMMISSIONER, otherwise=Answer.REFUSED),
        _NO,
    ),
    Asked.GROUP_MESSAGE: (
        _YES,
        _YES,
        _no(_Q.DELETED, _Q.REPORTED_V3, _Q.AT_NIGHT),
        _no(_Q.DELETED, _Q.REPORTED_V3),
        _no(_Q.DELETED),
    ),
    Asked.EVERYONE_COMMAND: (_YES,) * 5,
    Asked.GROUP_COMMAND: (
        _ok(_Q.ANSWERED_THERE),
        _ok(_Q.ANSWERED_THERE),
        _cell(Answer.IN_PRIVATE, _Q.DELETED, _Q.ANSWERED_IN_PRIVATE, _Q.REPORTED_V3, _Q.AT_NIGHT),
        _cell(Answer.IN_PRIVATE, _Q.DELETED, _Q.ANSWERED_IN_PRIVATE, _Q.REPORTED_V3),
        _cell(Answer.IN_PRIVATE, _Q.DELETED, _Q.ANSWERED_IN_PRIVATE),
    ),
}

# The commands a row names (their handlers are in handlers/; the declarations, with who
# may use each, in handlers/commands.py).
COMMANDS: dict[Asked, tuple[str, ...]] = {
    Asked.NEW_GAME: ("newgame",),
    Asked.LOBBY_TAKEN_OVER: ("newgame", "stop", "begin"),
    Asked.KICK: ("kick",),
    Asked.JOIN: ("join", "leave"),
    Asked.BEGIN: ("begin",),
    Asked.HOST_COMMAND: ("pause", "resume", "skip", "extend", "warn", "remove", "stop", "host"),
    Asked.PASS: ("pass",),
    Asked.NOMINATE: ("nominate",),
    Asked.EVERYONE_COMMAND: ("status", "rules", "help", "lang", "start"),
}

NIGHT_PHASES = frozenset({Phase.ACQUAINTANCE, Phase.NIGHT})  # N1-N5
NIGHT_ROLES = frozenset({Role.COMMISSIONER, Role.MAFIA})


def may(asked: Asked, position: Position) -> GameVerdict:
    """The table's cell: what `position` gets when it asks for `asked`."""
    return TABLE[asked][COLUMNS.index(position)]


def may_any(asked: Asked, positions: Iterable[Position]) -> GameVerdict:
    """The verdict for a person who holds several positions at once (a Host who holds a
    seat is also the speaker in their turn): the first cell that allows, else the first
    cell of theirs, in the table's order."""
    cells = [may(asked, p) for p in sorted(set(positions), key=COLUMNS.index)]
    if not cells:
        return may(asked, Position.ANYONE_ELSE)
    return next((c for c in cells if c.allowed), cells[0])


def reported(verdict: GameVerdict, state: GameState) -> bool:
    """N5, V3: whether what the verdict refuses is reported to the Host: a night actor's
    word always (there is one only at night), a living player's at night."""
    at_night = state.phase in NIGHT_PHASES
    qualifiers = verdict.qualifiers
    return Qualifier.REPORTED_V3 in qualifiers and (
        at_night or Qualifier.AT_NIGHT not in qualifiers
    )


def positions_of(
    state: GameState | None, host_user_id: int | None, user_id: int
) -> tuple[Position, ...]:
    """Where `user_id` stands in a game, as the table's columns: the Host (if they host
    it) and what their seat makes them, in the table's order; ANYONE_ELSE alone if neither.

    `state` is None before the deal (a lobby) or when only the Host's column matters; then
    nobody holds a seat. `host_user_id` is None when the chat has no game. The speaker is
    the seat whose turn it is while the clock runs: during a pause nobody holds the floor
    (D10; the engine refuses a pass then, GamePaused). A night actor is the Commissioner
    or a living mafioso during Night 0 or a night (N1-N5).
    """
    held: list[Position] = []
    if host_user_id is not None and user_id == host_user_id:
        held.append(Position.HOST)
    seat = state.seat_of(user_id) if state is not None else None
    if state is not None and seat is not None:
        if state.in_speech and not state.paused and seat == state.speaker:
            held.append(Position.SPEAKER)
        elif state.is_alive(seat):
            night = state.phase in NIGHT_PHASES and state.roles.get(seat) in NIGHT_ROLES
            held.append(Position.NIGHT_ACTOR if night else Position.LIVING_PLAYER)
    return tuple(held) or (Position.ANYONE_ELSE,)
