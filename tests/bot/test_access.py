"""The README's "Who may do what" is bot.rules.access's table (issue 24 §4).

Every row of the game's table, in both languages, is read against `may`: its glyphs
(✅ ❌ —) and its qualifiers ("in round 2 only", "once"...), so the documentation and the
code cannot drift apart. Then `positions_of` on small states built with the rules core.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path

import pytest

from bot.rules.access import (
    COLUMNS,
    COMMANDS,
    TABLE,
    Answer,
    Asked,
    Position,
    Qualifier,
    may,
    may_any,
    positions_of,
)
from bot.rules.actions import Pause
from bot.rules.events import Phase
from bot.rules.roles import Role
from bot.rules.state import GameState
from handlers.commands import HOST_ONLY
from handlers.guard import answered_in_private, may_speak
from storage.games import Game as StoredGame
from storage.games import GameStatus
from tests.rules.helpers import Game

ROOT = Path(__file__).resolve().parents[2]
GLYPHS = frozenset(a.value for a in Answer if a.value)

# Each README's heading of the section, and its game table's header (the columns).
READMES = {
    "README.md": (
        "#### Who may do what",
        (
            "Host",
            "the speaker",
            "a living player",
            "the Commissioner or a mafioso, at night",
            "anyone else",
        ),
    ),
    "README.ru.md": (
        "#### Кто что может",
        ("Ведущий", "говорящий", "живой игрок", "комиссар или мафия ночью", "все остальные"),
    ),
}

# How each README words a qualifier (a cell that has it says so, in its own language).
WORDS: dict[Qualifier, tuple[str, str]] = {
    Qualifier.BECOMES_HOST: ("becomes the Host", "становится Ведущим"),
    Qualifier.AN_ADMINISTRATOR_OF_THE_CHAT: ("an administrator of the chat", "администратор чата"),
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
    Qualifier.ANSWERED_THERE: ("answered there", "ответ там же"),
    Qualifier.ANSWERED_IN_PRIVATE: ("answered in private", "ответ в личку"),
}


def cells(line: str) -> list[str]:
    return [c.strip() for c in line.strip().strip("|").split("|")]


def game_table(readme: str) -> tuple[list[str], list[list[str]]]:
    """The header and the rows of the section's first table."""
    heading, _ = READMES[readme]
    text = (ROOT / readme).read_text(encoding="utf-8")
    section = text.split(heading + "\n", 1)[1]
    lines = section.split("\n| ", 1)[1].split("\n\n", 1)[0].splitlines()
    header, _rule, *rows = ["| " + lines[0], *lines[1:]]
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


@pytest.mark.parametrize("readme", sorted(READMES))
def test_the_readme_table_has_the_columns_and_rows_of_the_code(readme: str) -> None:
    header, rows = game_table(readme)
    assert tuple(header[1:]) == READMES[readme][1]
    assert len(header) - 1 == len(COLUMNS)
    assert len(rows) == len(Asked), [row[0] for row in rows]
    for asked, row in zip(Asked, rows, strict=True):
        assert commands_named(row[0]) == COMMANDS.get(asked, ()), (asked, row[0])


@pytest.mark.parametrize("readme", sorted(READMES))
def test_every_cell_of_the_readme_is_what_may_says(readme: str) -> None:
    language = 0 if readme == "README.md" else 1
    _, rows = game_table(readme)
    wrong = []
    for asked, row in zip(Asked, rows, strict=True):
        for position, cell in zip(COLUMNS, row[1:], strict=True):
            verdict = may(asked, position)
            if glyphs_of(cell) != verdict.glyphs:
                wrong.append(f"{asked} / {position}: {cell!r} shows {verdict.glyphs}")
            missing = [q for q in verdict.qualifiers if WORDS[q][language] not in cell]
            if missing:
                wrong.append(f"{asked} / {position}: {cell!r} does not say {missing}")
            if bool(words_of(cell)) != bool(verdict.qualifiers):
                wrong.append(f"{asked} / {position}: {cell!r} vs {sorted(verdict.qualifiers)}")
    assert not wrong, "\n".join(wrong)


def test_every_row_has_a_cell_for_every_position() -> None:
    assert set(TABLE) == set(Asked)
    assert all(len(row) == len(COLUMNS) for row in TABLE.values())


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
