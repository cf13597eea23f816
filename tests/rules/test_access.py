"""The README's "Who may do what" is bot.rules.access's and bot.tournament.access's tables
(issue 24 §4).

Every row of both tables, in both languages, is read against `may` and
`may_at_tournament`: its glyphs (✅ ❌ —) and its qualifiers ("in round 2 only",
"once"...), so the documentation and the code cannot drift apart. Then `positions_of`
on small states built with the rules core, and the guard's silence against the table.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from enum import Enum
from pathlib import Path
from typing import Any

import pytest

from bot.rules.access import (
    COLUMNS,
    COMMANDS,
    TABLE,
    Answer,
    Asked,
    Position,
    Qualifier,
    Verdict,
    may,
    may_any,
    positions_of,
)
from bot.rules.actions import Pause
from bot.rules.events import Phase
from bot.rules.roles import Role
from bot.rules.state import GameState
from bot.tournament.access import (
    TOURNAMENT_COLUMNS,
    TOURNAMENT_COMMANDS,
    TOURNAMENT_TABLE,
    TournamentAsked,
    TournamentPosition,
    TournamentQualifier,
    may_any_at_tournament,
    may_at_tournament,
    tournament_positions_of,
)
from handlers.commands import BY_NAME, HOST_ONLY
from handlers.commands import Who as Declared
from handlers.guard import answered_in_private, may_speak, reported_to_the_host
from storage.games import Game as StoredGame
from storage.games import GameStatus
from tests.rules.helpers import Game

ROOT = Path(__file__).resolve().parents[2]
GLYPHS = frozenset(a.value for a in Answer if a.value)
HEADINGS = {"README.md": "#### Who may do what", "README.ru.md": "#### Кто что может"}
LANGUAGE = {"README.md": 0, "README.ru.md": 1}


@dataclass(frozen=True)
class Table:
    """One of the section's tables as the code states it, and as each README words it."""

    index: int  # the section's first table or its second
    header: tuple[tuple[str, ...], tuple[str, ...]]  # the columns, in English and Russian
    rows: Sequence[Enum]
    columns: Sequence[Enum]
    cell: Callable[[Any, Any], Verdict[Any]]
    commands: Mapping[Any, tuple[str, ...]]
    words: Mapping[Any, tuple[str, str]]  # a qualifier, in English and Russian


GAME = Table(
    0,
    (
        (
            "Host",
            "the speaker",
            "a living player",
            "the Commissioner or a mafioso, at night",
            "anyone else",
        ),
        ("Ведущий", "говорящий", "живой игрок", "комиссар или мафия ночью", "все остальные"),
    ),
    tuple(Asked),
    COLUMNS,
    may,
    COMMANDS,
    {
        Qualifier.BECOMES_HOST: ("becomes the Host", "становится Ведущим"),
        Qualifier.AN_ADMINISTRATOR_OF_THE_CHAT: (
            "an administrator of the chat",
            "администратор чата",
        ),
        Qualifier.TAKES_THE_LOBBY_OVER: ("takes the lobby over", "забирает лобби себе"),
        Qualifier.HOLDING_NO_OTHER_SEAT: ("holding no other seat", "нет другого места"),
        Qualifier.TABLE_ROSTER_ONLY: ("its roster only", "только его состав"),
        Qualifier.IN_THE_LOBBY: ("(in the lobby)", "(в лобби)"),
        Qualifier.WITHOUT_A_SEAT: ("without a seat", "без места за столом"),
        Qualifier.FROM_THEIR_OWN_PANEL: ("from their own panel", "со своей панели"),
        Qualifier.IN_ROUND_2_ONLY: ("in round 2 only", "только во втором круге"),
        Qualifier.ONCE: ("once", "один раз"),
        Qualifier.A_CIVILIAN: ("a civilian", "мирный"),
        Qualifier.ONCE_A_NIGHT: ("once a night", "раз за ночь"),
        Qualifier.FROM_NIGHT_1: ("from Night 1", "с первой ночи"),
        Qualifier.A_MAFIOSO: ("a mafioso", "мафия:"),
        Qualifier.TEXT_ONLY: ("a text is relayed", "текст передаётся"),
        Qualifier.THE_COMMISSIONER: ("the Commissioner", "комиссар"),
        Qualifier.DELETED: ("deleted", "удаляется"),
        Qualifier.REPORTED_V3: ("(V3)", "(V3)"),
        Qualifier.AT_NIGHT: ("at night", "ночью"),
        Qualifier.ANSWERED_THERE: ("answered there", "ответ там же"),
        Qualifier.ANSWERED_IN_PRIVATE: ("answered in private", "ответ в личку"),
    },
)

TQ = TournamentQualifier
TOURNAMENT = Table(
    1,
    (
        (
            "the Judge",
            "an administrator of the chat",
            "the table's Host",
            "a player of the table",
            "anyone else",
        ),
        ("Судья", "администратор чата", "Ведущий стола", "игрок стола", "все остальные"),
    ),
    tuple(TournamentAsked),
    TOURNAMENT_COLUMNS,
    may_at_tournament,
    TOURNAMENT_COMMANDS,
    {
        TQ.FEWER_THAN_3_OPEN: ("fewer than 3 open", "меньше трёх"),
        TQ.THEIR_OWN_TOURNAMENT: ("their own tournament", "своего турнира"),
        TQ.A_BAN_THEY_CONFIRMED: ("a ban they confirmed", "который он подтвердил"),
        TQ.UNLESS_ANOTHER_JUDGE_CONFIRMED_IT: (
            "unless the Judge of another tournament confirmed it too",
            "Судья другого турнира",
        ),
        TQ.A_REGISTERED_PLAYER: ("a registered player", "зарегистрированный игрок"),
        TQ.UNLESS_HIDDEN_UNTIL_THE_END: ("unless the Judge hides it", "если Судья не скрыл"),
        TQ.THEIR_TOURNAMENTS_GAMES: ("their tournament's games", "игры своего турнира"),
        TQ.THE_GAMES_THEY_HOSTED: ("the games they hosted", "игры, которые вёл"),
        TQ.THE_GAMES_THEY_PLAYED: ("the games they played", "игры, в которых играл"),
        TQ.AS_FOR_NO_SUCH_GAME: (
            "the same answer as for a game that does not exist",
            "тот же ответ, что на несуществующую игру",
        ),
        TQ.A_PLAYER_OF_THEIR_CURRENT_TOURNAMENT: (
            "a player of their current tournament",
            "игрока своего текущего турнира",
        ),
        TQ.WHOEVER_HAS_THE_ADDRESS: ("whoever has the address", "у кого есть адрес"),
        TQ.ALSO_AN_ADMINISTRATOR_OF_THE_CHAT: (
            "if also an administrator of that chat",
            "если он же администратор этого чата",
        ),
        TQ.UNLESS_THE_JUDGE: ("unless the Judge", "если не Судья"),
        TQ.ONLY_THAT_TOURNAMENTS_JUDGE: ("only that tournament's Judge", "только Судья этого"),
        TQ.REFUSED_WITH_A_MESSAGE: ("refused with a message", "отказ с объяснением"),
    },
)
TABLES = {"game": GAME, "tournament": TOURNAMENT}
CASES_OF_README = [(r, t) for r in sorted(HEADINGS) for t in sorted(TABLES)]


def cells(line: str) -> list[str]:
    return [c.strip() for c in line.strip().strip("|").split("|")]


def readme_table(readme: str, index: int) -> tuple[list[str], list[list[str]]]:
    """The header and the rows of the section's `index`-th table."""
    text = (ROOT / readme).read_text(encoding="utf-8")
    section = text.split(HEADINGS[readme] + "\n", 1)[1].split("\n#", 1)[0]
    tables: list[list[str]] = []
    for block in section.split("\n\n"):
        lines = [line for line in block.splitlines() if line.startswith("|")]
        if lines:
            tables.append(lines)
    header, _rule, *rows = tables[index]
    return cells(header), [cells(row) for row in rows]


def glyphs_of(cell: str) -> tuple[str, ...]:
    """The glyphs that open a cell's parts ("✅ a mafioso …; ❌ the Commissioner"): a dash
    inside the words is punctuation, not "nobody"."""
    return tuple(part[0] for part in cell.split("; ") if part and part[0] in GLYPHS)


def words_of(cell: str) -> str:
    """A cell without its glyphs: what qualifies it, if anything."""
    return "".join(ch for ch in cell if ch not in GLYPHS).strip(" ;")


def commands_named(first: str) -> tuple[str, ...]:
    return tuple(m.group(1) for m in re.finditer(r"`/([a-z]+)[^`]*`", first))


@pytest.mark.parametrize(("readme", "table"), CASES_OF_README)
def test_the_readme_table_has_the_columns_and_rows_of_the_code(readme: str, table: str) -> None:
    spec = TABLES[table]
    header, rows = readme_table(readme, spec.index)
    assert tuple(header[1:]) == spec.header[LANGUAGE[readme]]
    assert len(header) - 1 == len(spec.columns)
    assert len(rows) == len(spec.rows), [row[0] for row in rows]
    for asked, row in zip(spec.rows, rows, strict=True):
        assert commands_named(row[0]) == spec.commands.get(asked, ()), (asked, row[0])


@pytest.mark.parametrize(("readme", "table"), CASES_OF_README)
def test_every_cell_of_the_readme_is_what_the_code_says(readme: str, table: str) -> None:
    spec = TABLES[table]
    language = LANGUAGE[readme]
    _, rows = readme_table(readme, spec.index)
    wrong = []
    for asked, row in zip(spec.rows, rows, strict=True):
        for position, cell in zip(spec.columns, row[1:], strict=True):
            verdict = spec.cell(asked, position)
            where = f"{asked} / {position}: {cell!r}"
            if glyphs_of(cell) != verdict.glyphs:
                wrong.append(f"{where} shows {verdict.glyphs}")
            missing = [q for q in verdict.qualifiers if spec.words[q][language] not in cell]
            if missing:
                wrong.append(f"{where} does not say {missing}")
            if bool(words_of(cell)) != bool(verdict.qualifiers):
                wrong.append(f"{where} vs {sorted(verdict.qualifiers)}")
    assert not wrong, "\n".join(wrong)


def test_every_qualifier_is_worded_and_used() -> None:
    for spec in TABLES.values():
        used = {q for row in spec.rows for p in spec.columns for q in spec.cell(row, p).qualifiers}
        assert used == set(spec.words), set(spec.words) ^ used


def test_the_judges_rows_are_the_commands_declared_as_the_judges() -> None:
    """handlers/commands.py declares who may use each command: those the tournament's
    table gives to the Judge alone are declared as the Judge's."""
    for asked in (TournamentAsked.JUDGE_COMMAND, TournamentAsked.UNBAN):
        allowed = [p for p in TOURNAMENT_COLUMNS if may_at_tournament(asked, p).allowed]
        assert allowed == [TournamentPosition.JUDGE], asked
        assert all(BY_NAME[c].who is Declared.JUDGE for c in TOURNAMENT_COMMANDS[asked]), asked


JUDGE, ADMIN, TABLE_HOST, PLAYER, GUEST = 1, 2, 3, 4, 5


def at_table(
    user_id: int, judges: tuple[int, ...] = (), administrators: tuple[int, ...] = (ADMIN,)
) -> tuple[TournamentPosition, ...]:
    """At a table of JUDGE's tournament whose game TABLE_HOST hosts, PLAYER and the Host
    seated, ADMIN administering its chat."""
    return tournament_positions_of(
        user_id,
        creator=JUDGE,
        judges=judges,
        administrators=administrators,
        host=TABLE_HOST,
        roster=(PLAYER, TABLE_HOST),
    )


def test_tournament_positions_of() -> None:
    J, A, H, P = (
        TournamentPosition.JUDGE,
        TournamentPosition.CHAT_ADMINISTRATOR,
        TournamentPosition.TABLE_HOST,
        TournamentPosition.TABLE_PLAYER,
    )
    nobody = (TournamentPosition.ANYONE_ELSE,)
    assert at_table(JUDGE) == (J,)  # an empty list of judges: anyone may be one
    assert at_table(JUDGE, judges=(JUDGE,)) == (J,)
    assert at_table(JUDGE, judges=(ADMIN,)) == nobody  # taken off the list
    assert at_table(ADMIN) == (A,)
    assert at_table(TABLE_HOST) == (H, P)
    assert at_table(PLAYER) == (P,)
    assert at_table(GUEST) == nobody
    assert tournament_positions_of(JUDGE, creator=None, judges=()) == nobody  # no table
    # The Judge who administers the chat may /bind it; an administrator alone may not.
    both = at_table(JUDGE, administrators=(JUDGE,))
    assert both == (J, A)
    assert may_any_at_tournament(TournamentAsked.BIND, both).allowed
    assert not may_any_at_tournament(TournamentAsked.BIND, (A,)).allowed
    assert may_any_at_tournament(TournamentAsked.NEW_GAME, (H, P)).allowed


def test_every_row_has_a_cell_for_every_position() -> None:
    assert set(TABLE) == set(Asked)
    assert all(len(row) == len(COLUMNS) for row in TABLE.values())
    assert set(TOURNAMENT_TABLE) == set(TournamentAsked)
    assert all(len(row) == len(TOURNAMENT_COLUMNS) for row in TOURNAMENT_TABLE.values())


def test_the_hosts_rows_are_the_commands_declared_as_the_hosts() -> None:
    """handlers/commands.py declares who may use each command: the Host's group commands
    are the table's rows where the Host alone may (the Host's commands, /kick, /begin)."""
    hosts = {*COMMANDS[Asked.HOST_COMMAND], *COMMANDS[Asked.KICK], *COMMANDS[Asked.BEGIN]}
    assert hosts == set(HOST_ONLY)
    for asked in (Asked.HOST_COMMAND, Asked.KICK, Asked.BEGIN):
        allowed = [p for p in COLUMNS if may(asked, p).allowed]
        assert allowed == [Position.HOST], asked


def test_a_person_in_two_positions_gets_the_first_that_allows() -> None:
    both = (Position.HOST, Position.SPEAKER)
    assert may_any(Asked.PASS, both).allowed  # a seated Host in their own turn
    assert may_any(Asked.HOST_COMMAND, both).allowed
    assert not may_any(Asked.PASS, (Position.HOST,)).allowed
    assert may_any(Asked.PASS, ()) == may(Asked.PASS, Position.ANYONE_ELSE)


# --- positions_of ----------------------------------------------------------------------

HOST = 1  # a Host without a seat; seated players are 1001.. (tests.rules.helpers)
OUTSIDER = 2


def user_of(state: GameState, seat: int) -> int:
    return state.seats[seat].user_id


def speaking() -> Game:
    game = Game()
    assert game.state.phase is Phase.INTRODUCTION and game.state.speaker is not None
    return game


def paused() -> Game:
    game = speaking()
    game.act(Pause())
    return game


def acquaintance() -> Game:
    return speaking().advance_to(Phase.ACQUAINTANCE)


def round_2() -> Game:
    return speaking().advance_to(Phase.ROUND_2)


def removed() -> Game:
    game = round_2()
    assert game.state.speaker is not None
    out = next(s for s in game.state.living() if s != game.state.speaker)
    game.remove(out)
    return game


Who = Callable[[GameState], int]


def speaker(state: GameState) -> int:
    assert state.speaker is not None
    return user_of(state, state.speaker)


def listener(state: GameState) -> int:
    return user_of(state, next(s for s in state.living() if s != state.speaker))


def of_role(role: Role) -> Who:
    return lambda state: user_of(state, next(s for s in state.living_of(role)))


def gone(state: GameState) -> int:
    return user_of(state, next(s for s, seat in state.seats.items() if not seat.alive))


CASES: list[tuple[str, Callable[[], Game], Who, int | None, tuple[Position, ...]]] = [
    ("the Host", speaking, lambda _: HOST, HOST, (Position.HOST,)),
    ("a member who does not play", speaking, lambda _: OUTSIDER, HOST, (Position.ANYONE_ELSE,)),
    ("the speaker", speaking, speaker, HOST, (Position.SPEAKER,)),
    ("a player listening", speaking, listener, HOST, (Position.LIVING_PLAYER,)),
    ("the speaker of round 2", round_2, speaker, HOST, (Position.SPEAKER,)),
    ("the speaker while paused", paused, speaker, HOST, (Position.LIVING_PLAYER,)),
    ("a seated Host in their turn", speaking, speaker, None, (Position.HOST, Position.SPEAKER)),
    ("a seated Host listening", speaking, listener, None, (Position.HOST, Position.LIVING_PLAYER)),
    ("a mafioso at Night 0", acquaintance, of_role(Role.MAFIA), HOST, (Position.NIGHT_ACTOR,)),
    (
        "the Commissioner at Night 0",
        acquaintance,
        of_role(Role.COMMISSIONER),
        HOST,
        (Position.NIGHT_ACTOR,),
    ),
    ("a civilian at night", acquaintance, of_role(Role.CIVILIAN), HOST, (Position.LIVING_PLAYER,)),
    ("a mafioso by day", speaking, of_role(Role.MAFIA), HOST, (Position.LIVING_PLAYER,)),
    ("a player who has left", removed, gone, HOST, (Position.ANYONE_ELSE,)),
]


@pytest.mark.parametrize(
    ("case", "build", "who", "host", "expected"), CASES, ids=[c[0] for c in CASES]
)
def test_positions_of(
    case: str,
    build: Callable[[], Game],
    who: Who,
    host: int | None,
    expected: tuple[Position, ...],
) -> None:
    state = build().state
    user = who(state)
    # None here: the Host is the person asked about (a Host who holds that seat).
    host_user_id = user if host is None else host
    if user in (HOST, OUTSIDER):
        assert state.seat_of(user) is None  # they hold no seat of this game
    assert positions_of(state, host_user_id, user) == expected, case


def test_before_the_deal_and_without_a_game() -> None:
    assert positions_of(None, HOST, HOST) == (Position.HOST,)
    assert positions_of(None, HOST, OUTSIDER) == (Position.ANYONE_ELSE,)
    assert positions_of(None, None, OUTSIDER) == (Position.ANYONE_ELSE,)
    assert positions_of(speaking().state, None, OUTSIDER) == (Position.ANYONE_ELSE,)


def test_the_table_agrees_with_the_engine_on_who_passes() -> None:
    """D10: whoever the table lets pass is the engine's speaker; nobody else is."""
    for build in (speaking, round_2, paused, acquaintance):
        state = build().state
        for seat in state.seats:
            user = user_of(state, seat)
            allowed = may_any(Asked.PASS, positions_of(state, HOST, user)).allowed
            assert allowed == (state.in_speech and not state.paused and seat == state.speaker)


def stored(host_user_id: int) -> StoredGame:
    return StoredGame(
        game_id=7,
        chat_id=-100,
        host_user_id=host_user_id,
        status=GameStatus.RUNNING,
        tournament_id=None,
        settings_json="{}",
        state_json=None,
        deadline=None,
        lobby_message_id=None,
        created_at=0.0,
        updated_at=0.0,
    )


@pytest.mark.parametrize("build", [speaking, round_2, paused, acquaintance, removed])
def test_the_guard_lets_speak_whom_the_table_lets(build: Callable[[], Game]) -> None:
    """D10, N5: in the group the Host speaks whenever they need to, a player only in their
    turn while the clock runs; anyone else's command is deleted and answered in private."""
    state = build().state
    for host in (HOST, user_of(state, 1)):  # a Host without a seat, and a seated one
        game = stored(host)
        for user in (HOST, OUTSIDER, *(s.user_id for s in state.seats.values())):
            seat = state.seat_of(user)
            turn = state.in_speech and not state.paused and seat == state.speaker
            speaks = user == host or (seat is not None and turn)
            assert may_speak(game, state, user) == speaks, (host, user)
            assert answered_in_private(game, state, user) == (not speaks), (host, user)
            if not speaks:  # N5: silenced, and at night a living player is reported (V3)
                night = state.phase in (Phase.ACQUAINTANCE, Phase.NIGHT)
                eyes_open = night and seat is not None and state.is_alive(seat)
                assert reported_to_the_host(game, state, user) == eyes_open, (host, user)
