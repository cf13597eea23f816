"""Who may do what at a tournament: the README's second table ("Who may do what") as data.

The game's table is bot.rules.access; this one has its own columns (the Judge, an
administrator of the chat, the table's Host, a player of the table, anyone else) and its
own rows, the Judge's commands and the table's. Cells are the same Verdicts, with this
table's qualifiers. A test reads both READMEs' rows against `may_at_tournament`.

Who is an administrator of the chat is Telegram's to say, asked when it matters; the
handlers bring the answer here as data.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable
from enum import StrEnum

from bot.rules.access import Answer, Verdict


class TournamentPosition(StrEnum):
    """The columns of the tournament's table, in the README's order."""

    # The tournament's creator, while the config's `[access] judges` names them or is empty.
    JUDGE = "judge"
    CHAT_ADMINISTRATOR = "chat_administrator"  # of the table's chat, as Telegram says
    TABLE_HOST = "table_host"
    TABLE_PLAYER = "table_player"  # on the table's roster
    ANYONE_ELSE = "anyone_else"


class TournamentAsked(StrEnum):
    """The rows of the tournament's table, in the README's order."""

    CREATE = "create"  # /tournament
    JUDGE_COMMAND = "judge_command"  # /settings, /groups, /tour, /fix, /adjust, ...
    UNBAN = "unban"
    STANDINGS = "standings"
    SHEET = "sheet"  # /sheet GAME
    OWN_STATS = "own_stats"  # /stats
    PLAYER_STATS = "player_stats"  # /stats NICK
    LIVE_PAGE = "live_page"
    BIND = "bind"
    UNBIND = "unbind"
    NEW_GAME = "new_game"  # /newgame in a table's chat
    BAN_DECISION = "ban_decision"  # Confirm the ban / Decline (V4)
    EXPEL_OBSERVER = "expel_observer"  # T7
    EXPEL_ADMINISTRATOR = "expel_administrator"
    EXPEL_IN_A_CASUAL_CHAT = "expel_in_a_casual_chat"


class TournamentQualifier(StrEnum):
    """The README's words that narrow or explain a cell of the tournament's table."""

    FEWER_THAN_3_OPEN = "fewer_than_3_open"  # `[access] open_tournaments_per_judge`
    THEIR_OWN_TOURNAMENT = "their_own_tournament"
    A_BAN_THEY_CONFIRMED = "a_ban_they_confirmed"
    UNLESS_ANOTHER_JUDGE_CONFIRMED_IT = "unless_another_judge_confirmed_it"
    A_REGISTERED_PLAYER = "a_registered_player"
    UNLESS_HIDDEN_UNTIL_THE_END = "unless_hidden_until_the_end"
    THEIR_TOURNAMENTS_GAMES = "their_tournaments_games"
    THE_GAMES_THEY_HOSTED = "the_games_they_hosted"
    THE_GAMES_THEY_PLAYED = "the_games_they_played"
    AS_FOR_NO_SUCH_GAME = "as_for_no_such_game"  # nothing tells a game exists
    A_PLAYER_OF_THEIR_CURRENT_TOURNAMENT = "a_player_of_their_current_tournament"
    WHOEVER_HAS_THE_ADDRESS = "whoever_has_the_address"
    ALSO_AN_ADMINISTRATOR_OF_THE_CHAT = "also_an_administrator_of_the_chat"  # asked of Telegram
    UNLESS_THE_JUDGE = "unless_the_judge"
    ONLY_THAT_TOURNAMENTS_JUDGE = "only_that_tournaments_judge"
    REFUSED_WITH_A_MESSAGE = "refused_with_a_message"


TournamentVerdict = Verdict[TournamentQualifier]
TOURNAMENT_COLUMNS = tuple(TournamentPosition)
TQ = TournamentQualifier


def _ok(*qualifiers: TournamentQualifier) -> TournamentVerdict:
    return Verdict(Answer.ALLOWED, frozenset(qualifiers))


def _no(*qualifiers: TournamentQualifier) -> TournamentVerdict:
    return Verdict(Answer.REFUSED, frozenset(qualifiers))


_NOBODY: TournamentVerdict = Verdict(Answer.NOBODY)
_YES, _NO = _ok(), _no()
_JUDGE_ONLY = (_YES, _NO, _NO, _NO, _NO)

# The Judge, an administrator of the chat, the table's Host, a player of the table, anyone else.
TOURNAMENT_TABLE: dict[TournamentAsked, tuple[TournamentVerdict, ...]] = {
    TournamentAsked.CREATE: (_ok(TQ.FEWER_THAN_3_OPEN), _NO, _NO, _NO, _NO),
    TournamentAsked.JUDGE_COMMAND: (_ok(TQ.THEIR_OWN_TOURNAMENT), _NO, _NO, _NO, _NO),
    TournamentAsked.UNBAN: (
        _ok(TQ.A_BAN_THEY_CONFIRMED, TQ.UNLESS_ANOTHER_JUDGE_CONFIRMED_IT),
        *(_NO,) * 4,
    ),
    TournamentAsked.STANDINGS: (
        _ok(TQ.THEIR_OWN_TOURNAMENT),
        _NO,
        _NO,
        _ok(TQ.A_REGISTERED_PLAYER, TQ.UNLESS_HIDDEN_UNTIL_THE_END),
        _NO,
    ),
    TournamentAsked.SHEET: (
        _ok(TQ.THEIR_TOURNAMENTS_GAMES),
        _NO,
        _ok(TQ.THE_GAMES_THEY_HOSTED),
        _ok(TQ.THE_GAMES_THEY_PLAYED),
        _no(TQ.AS_FOR_NO_SUCH_GAME),
    ),
    TournamentAsked.OWN_STATS: (_YES,) * 5,
    TournamentAsked.PLAYER_STATS: (_ok(TQ.A_PLAYER_OF_THEIR_CURRENT_TOURNAMENT), *(_NO,) * 4),
    TournamentAsked.LIVE_PAGE: (
        _YES,
        _ok(TQ.WHOEVER_HAS_THE_ADDRESS),
        _YES,
        _YES,
        _ok(TQ.WHOEVER_HAS_THE_ADDRESS),
    ),
    TournamentAsked.BIND: (
        _ok(TQ.ALSO_AN_ADMINISTRATOR_OF_THE_CHAT),
        _no(TQ.UNLESS_THE_JUDGE),
        _NO,
        _NO,
        _NO,
    ),
    TournamentAsked.UNBIND: (_YES, _YES, _NO, _NO, _NO),
    TournamentAsked.NEW_GAME: (_YES, _NO, _YES, _NO, _NO),
    TournamentAsked.BAN_DECISION: (_ok(TQ.ONLY_THAT_TOURNAMENTS_JUDGE), *(_NO,) * 4),
    TournamentAsked.EXPEL_OBSERVER: (_YES, _NOBODY, _NO, _YES, _NO),
    TournamentAsked.EXPEL_ADMINISTRATOR: (_no(TQ.REFUSED_WITH_A_MESSAGE), *(_NO,) * 4),
    TournamentAsked.EXPEL_IN_A_CASUAL_CHAT: (_no(TQ.REFUSED_WITH_A_MESSAGE), *(_NO,) * 4),
}

# The commands a row names (their declarations are in handlers/commands.py). The live
# page's button comes under the Judge's /standings.
TOURNAMENT_COMMANDS: dict[TournamentAsked, tuple[str, ...]] = {
    TournamentAsked.CREATE: ("tournament",),
    TournamentAsked.JUDGE_COMMAND: (
        "settings",
        "groups",
        "tour",
        "fix",
        "adjust",
        "replace",
        "finish",
        "export",
    ),
    TournamentAsked.UNBAN: ("unban",),
    TournamentAsked.STANDINGS: ("standings",),
    TournamentAsked.SHEET: ("sheet",),
    TournamentAsked.OWN_STATS: ("stats",),
    TournamentAsked.PLAYER_STATS: ("stats",),
    TournamentAsked.LIVE_PAGE: ("standings",),
    TournamentAsked.BIND: ("bind",),
    TournamentAsked.UNBIND: ("unbind",),
    TournamentAsked.NEW_GAME: ("newgame",),
    TournamentAsked.EXPEL_OBSERVER: ("expel",),
    TournamentAsked.EXPEL_ADMINISTRATOR: ("expel",),
    TournamentAsked.EXPEL_IN_A_CASUAL_CHAT: ("expel",),
}


def may_at_tournament(asked: TournamentAsked, position: TournamentPosition) -> TournamentVerdict:
    """The tournament table's cell: what `position` gets when it asks for `asked`."""
    return TOURNAMENT_TABLE[asked][TOURNAMENT_COLUMNS.index(position)]


def may_any_at_tournament(
    asked: TournamentAsked, positions: Iterable[TournamentPosition]
) -> TournamentVerdict:
    """For a person in several positions (a Judge who administers the chat, say): the first
    cell that allows, else the first of theirs, in the table's order."""
    held = sorted(set(positions), key=TOURNAMENT_COLUMNS.index)
    cells = [may_at_tournament(asked, p) for p in held]
    if not cells:
        return may_at_tournament(asked, TournamentPosition.ANYONE_ELSE)
    return next((c for c in cells if c.allowed), cells[0])


def is_judge(user_id: int, creator: int, judges: Collection[int]) -> bool:
    """The Judge of a tournament is its creator, while the config's `[access] judges`
    names them or names nobody (an empty list: anyone may be a Judge)."""
    return user_id == creator and (not judges or user_id in judges)


def tournament_positions_of(
    user_id: int,
    *,
    creator: int | None,
    judges: Collection[int],
    administrators: Collection[int] = (),
    host: int | None = None,
    roster: Collection[int] = (),
) -> tuple[TournamentPosition, ...]:
    """Where `user_id` stands at a tournament's table, as the table's columns, in order.

    `creator` is the tournament's (None: the chat is no table of one), `judges` the
    config's list, `administrators` the chat's as Telegram says (what was asked of it),
    `host` the table's game's Host and `roster` the table's players.
    """
    held: list[TournamentPosition] = []
    if creator is not None and is_judge(user_id, creator, judges):
        held.append(TournamentPosition.JUDGE)
    if user_id in administrators:
        held.append(TournamentPosition.CHAT_ADMINISTRATOR)
    if host is not None and user_id == host:
        held.append(TournamentPosition.TABLE_HOST)
    if user_id in roster:
        held.append(TournamentPosition.TABLE_PLAYER)
    return tuple(held) or (TournamentPosition.ANYONE_ELSE,)
