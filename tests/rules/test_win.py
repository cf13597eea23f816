"""W1-W3: who wins, and when the game ends."""

from __future__ import annotations

import pytest

from bot.rules import engine
from bot.rules.actions import (
    Action,
    Check,
    Extend,
    Kill,
    Nominate,
    Pass,
    Pause,
    Resume,
    Sanction,
    Skip,
    Stop,
    Timeout,
    Vote,
)
from bot.rules.errors import GameFinished
from bot.rules.events import (
    Cause,
    DayStarted,
    GameAborted,
    GameOver,
    GameWon,
    LastWordsBegan,
    LeadersChosen,
    LotDrawn,
    NightStarted,
    Phase,
    PlayerLeft,
    VoteOpened,
)
from bot.rules.roles import Role, Side
from bot.rules.sanctions import Penalty

from .helpers import SEED, Game, first_of, of_type, to_night

AFTER_THE_END = [
    Pass(1),
    Nominate(1, 2),
    Vote(1, None),
    Check(1, 2),
    Kill(1, 2),
    Timeout(0),
    Pause(),
    Resume(),
    Skip(),
    Extend(10.0),
    Sanction(1, Penalty.WARNING),
    Stop(),
]


def endgame(mafia: int, peaceful: int, seed: str = SEED) -> Game:
    """Day 1, round 1, with only so many mafiosi and peaceful players left (by removals)."""
    game = Game(seed=seed).advance_to(Phase.ROUND_1, day=1)
    game.shrink(mafia, peaceful)
    assert not game.state.finished
    return game


def _won(game: Game) -> GameWon:
    won = of_type(game.events, GameWon)
    assert len(won) == 1, won
    return won[0]


# --- W1 ---------------------------------------------------------------------------------


@pytest.mark.rule("W1")
@pytest.mark.parametrize("cause", [Cause.VOTE, Cause.KILL, Cause.REMOVAL])
def test_W1_mafia_wins_when_peaceful_are_no_more_than_mafia(cause: Cause) -> None:
    game = endgame(mafia=2, peaceful=3)
    victim = game.civilians()[0]
    if cause is Cause.VOTE:
        game.nominate({game.mafia()[0]: victim})
        game.cast(dict.fromkeys(game.state.living(), victim))
    elif cause is Cause.KILL:
        to_night(game)
        game.night(kills=dict.fromkeys(game.mafia(), victim))
    else:
        game.remove(victim)
    assert game.state.seats[victim].left is cause
    assert _won(game) == GameWon(Side.MAFIA)
    assert (len(game.mafia()), len(game.peaceful())) == (2, 2)


@pytest.mark.rule("W1")
def test_W1_one_more_peaceful_player_keeps_the_game_going() -> None:
    game = endgame(mafia=2, peaceful=4)
    game.remove(game.civilians()[0])
    assert (len(game.mafia()), len(game.peaceful())) == (2, 3)
    assert not of_type(game.events, GameWon)
    assert not game.state.finished


# --- W2 ---------------------------------------------------------------------------------


@pytest.mark.rule("W2")
@pytest.mark.parametrize("cause", [Cause.VOTE, Cause.REMOVAL, Cause.DISQUALIFICATION])
def test_W2_peaceful_side_wins_when_no_mafioso_is_alive(cause: Cause) -> None:
    game = endgame(mafia=1, peaceful=4)
    (mafioso,) = game.mafia()
    if cause is Cause.VOTE:
        game.nominate({game.civilians()[0]: mafioso})
        game.cast(dict.fromkeys(game.state.living(), mafioso))
    else:
        penalty = Penalty.REMOVAL_FROM_TOUR if cause is Cause.REMOVAL else Penalty.BAN
        game.remove(mafioso, penalty=penalty)
    assert game.state.seats[mafioso].left is cause
    assert _won(game) == GameWon(Side.PEACEFUL)


@pytest.mark.rule("W2")
def test_W2_checked_before_W1_tie_removes_last_mafioso_and_a_civilian() -> None:
    game = Game().advance_to(Phase.ROUND_1, day=1)
    # The civilian sits before the mafioso, so the two leave in the order civilian, mafioso.
    civilian, mafioso = min(game.civilians()), max(game.mafia())
    assert civilian < mafioso
    game.shrink(mafia=1, peaceful=2, keep=[civilian, mafioso])
    assert (game.mafia(), game.civilians()) == ([mafioso], [civilian])
    commissioner = game.commissioner()
    game.nominate({civilian: mafioso, mafioso: civilian})
    assert first_of(game.last, LeadersChosen).leaders == [civilian, mafioso]
    # A 1-1 tie: both leave together (D7). Had the civilian left alone, 1 v 1 would be W1.
    game.cast({commissioner: mafioso, mafioso: civilian})
    left = of_type(game.last, PlayerLeft)
    assert [e.seat for e in left] == [civilian, mafioso]
    assert _won(game) == GameWon(Side.PEACEFUL)
    assert game.state.living() == [commissioner]
    game.pass_all(Phase.LAST_WORDS)
    assert game.last[-1] == GameOver(Side.PEACEFUL, SEED)


@pytest.mark.rule("W2")
def test_W2_checked_before_W1_when_nobody_is_left() -> None:
    game = endgame(mafia=1, peaceful=2)
    (mafioso,) = game.mafia()
    (civilian,) = game.civilians()
    commissioner = game.commissioner()
    game.nominate({mafioso: civilian, civilian: commissioner, commissioner: mafioso})
    game.cast({mafioso: civilian, civilian: commissioner, commissioner: mafioso})
    assert game.state.living() == []  # 0 peaceful <= 0 mafia, yet no mafioso is alive
    assert _won(game) == GameWon(Side.PEACEFUL)
    game.pass_all(Phase.LAST_WORDS)
    assert game.state.winner is Side.PEACEFUL


# --- W3 ---------------------------------------------------------------------------------


@pytest.mark.rule("W3")
@pytest.mark.parametrize("cause", [Cause.VOTE, Cause.KILL, Cause.LOT])
def test_W3_game_ends_at_once_after_the_last_word(cause: Cause) -> None:
    game = endgame(mafia=1, peaceful=2)
    mark = len(game.events)
    if cause is Cause.VOTE:
        victim = game.civilians()[0]
        game.nominate({game.mafia()[0]: victim})
        game.cast(dict.fromkeys(game.state.living(), victim))
    elif cause is Cause.KILL:
        victim = game.civilians()[0]
        to_night(game)
        game.night(kills=dict.fromkeys(game.mafia(), victim))
    else:
        game.nominate({})
        victim = first_of(game.since(mark), LotDrawn).seat
    # The departure decides the game (1 v 1 is W1; the last mafioso drawn is W2).
    side = Side.MAFIA if game.state.roles[victim] is not Role.MAFIA else Side.PEACEFUL
    events = game.since(mark)
    left = events.index(PlayerLeft(victim, cause))
    assert events[left + 1] == GameWon(side)
    assert events[left + 2] == LastWordsBegan([victim], Phase.OVER)
    assert game.state.speaker == victim
    assert not game.state.finished
    game.act(Pass(victim))
    assert [type(e).__name__ for e in game.last] == ["SpeechEnded", "GameOver"]
    assert game.last[-1] == GameOver(side, SEED)
    assert game.state.phase is Phase.OVER
    assert game.state.winner is side
    # Nothing of a new day or night after the deciding departure.
    after = game.events[game.events.index(GameWon(side)) :]
    assert not of_type(after, DayStarted)
    assert not of_type(after, NightStarted)
    assert not of_type(after, VoteOpened)


@pytest.mark.rule("W3")
def test_W3_a_removal_that_decides_ends_the_game_without_a_last_word() -> None:
    game = endgame(mafia=1, peaceful=3)
    (mafioso,) = game.mafia()
    events = game.remove(mafioso, penalty=Penalty.DISQUALIFICATION)
    names = [type(e).__name__ for e in events]
    assert names == ["SanctionGiven", "PlayerLeft", "GameWon", "GameOver"]
    assert game.state.phase is Phase.OVER
    assert game.state.speaker is None
    assert game.state.deadline is None


@pytest.mark.rule("W3")
def test_W3_a_removal_during_a_last_word_that_decides_waits_for_it() -> None:
    game = endgame(mafia=2, peaceful=4)
    victim = game.civilians()[0]
    game.nominate({game.mafia()[0]: victim})
    game.cast(dict.fromkeys(game.state.living(), victim))
    assert game.phase is Phase.LAST_WORDS
    assert not of_type(game.events, GameWon)  # 2 v 3
    game.remove(game.civilians()[0])  # 2 v 2: W1 while the last word runs
    assert game.last[-1] == GameWon(Side.MAFIA)
    assert game.state.speaker == victim
    assert not game.state.finished
    game.remove(game.mafia()[0])  # the game is decided already: no second verdict
    assert not of_type(game.last, GameWon)
    assert _won(game) == GameWon(Side.MAFIA)
    assert game.state.speaker == victim
    ended = game.act(Pass(victim))
    assert ended[-1] == GameOver(Side.MAFIA, SEED)


@pytest.mark.rule("W3")
@pytest.mark.parametrize("action", AFTER_THE_END, ids=lambda a: type(a).__name__)
def test_W3_nothing_is_accepted_after_the_game_ended(action: Action) -> None:
    game = endgame(mafia=1, peaceful=3)
    game.remove(game.mafia()[0])
    assert game.state.finished
    game.refused(action, GameFinished)


@pytest.mark.rule("W3")
@pytest.mark.parametrize("action", AFTER_THE_END, ids=lambda a: type(a).__name__)
def test_W3_nothing_is_accepted_after_the_game_was_stopped(action: Action) -> None:
    game = Game()
    events = game.act(Stop())
    assert events == [GameAborted()]
    assert game.state.phase is Phase.ABORTED
    assert game.state.winner is None
    assert game.state.deadline is None
    game.refused(action, GameFinished)


def test_engine_apply_is_pure() -> None:
    game = Game()
    before = game.state
    snapshot = game.replayed()
    engine.apply(before, Pass(before.speaker or 0), 1.0)
    assert before == snapshot
