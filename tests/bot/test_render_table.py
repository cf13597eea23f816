"""What the table sees, rendered without Telegram: the vote's count, the keyboards."""

from __future__ import annotations

import time
from collections.abc import Sequence
from pathlib import Path

import pytest

from bot.rules.events import Event, NightStarted, Phase
from bot.views.i18n import Texts, plural_form
from bot.views.keys import TURN, VOTE
from bot.views.render import Audience, Post, render
from tests.rules.helpers import GAME_ID, Game, to_night

TEXTS = Texts()


def group_text(game: Game, events: list[Event], lang: str = "ru") -> str:
    out = render(events, game.state, Audience(GAME_ID, -1001, lang), TEXTS)
    posts = [o for o in out if isinstance(o, Post) and o.chat_id == -1001]
    assert len(posts) == 1
    return posts[0].text


def voted(leaders_by: dict[int, int], votes: dict[int, int | None]) -> tuple[Game, list[Event]]:
    """A day with these nominations and these votes; the rest abstain by the clock."""
    game = Game()
    game.nominate(leaders_by)
    game.pass_all(Phase.DEFENCE)
    mark = len(game.events)
    game.cast(votes)
    return game, game.since(mark)


def nick(game: Game, seat: int) -> str:
    return game.state.seats[seat].nick


@pytest.mark.parametrize(
    ("n", "ru", "en"),
    [
        (0, "0 голосов", "0 votes"),
        (1, "1 голос", "1 vote"),
        (2, "2 голоса", "2 votes"),
        (4, "4 голоса", "4 votes"),
        (5, "5 голосов", "5 votes"),
        (11, "11 голосов", "11 votes"),
        (12, "12 голосов", "12 votes"),
        (14, "14 голосов", "14 votes"),
        (21, "21 голос", "21 votes"),
        (22, "22 голоса", "22 votes"),
        (111, "111 голосов", "111 votes"),
    ],
)
def test_counts_take_the_grammatical_form_of_the_number(n: int, ru: str, en: str) -> None:
    assert TEXTS.count("ru", "votes", n) == ru
    assert TEXTS.count("en", "votes", n) == en
    assert plural_form("en", 1) == "one" and plural_form("ru", 101) == "one"


@pytest.mark.rule("D6")
def test_D6_D7_the_result_gives_each_leader_count_and_voting_seats() -> None:
    votes: dict[int, int | None] = dict.fromkeys((1, 2, 3, 5, 8, 11, 12), 9)
    votes |= {7: 10, 10: 10}
    game, events = voted({1: 9, 2: 10}, votes)
    text = group_text(game, events)
    assert f"№9 ({nick(game, 9)}) — 7 голосов: 1, 2, 3, 5, 8, 11, 12" in text
    assert f"№10 ({nick(game, 10)}) — 2 голоса: 7, 10" in text
    assert "Воздержались: 4, 6, 9" in text
    assert f"Больше всех голосов у игрока №9 ({nick(game, 9)}): игрок №9 покидает игру." in text
    english = group_text(game, events, "en")
    assert f"#9 ({nick(game, 9)}) — 7 votes: 1, 2, 3, 5, 8, 11, 12" in english
    assert "Abstained: 4, 6, 9" in english
    assert "player #9 leaves the game" in english
    assert "→" not in text  # the count, not a list of arrows


@pytest.mark.rule("D7")
def test_D7_a_tie_says_all_tied_leaders_leave() -> None:
    game, events = voted({1: 9, 2: 10}, {1: 9, 2: 9, 3: 10, 4: 10, 5: None})
    text = group_text(game, events)
    assert "№9 (" in text and "— 2 голоса: 1, 2" in text and "— 2 голоса: 3, 4" in text
    assert (
        f"Голоса разделились поровну между игроками №9 ({nick(game, 9)}) и №10 ({nick(game, 10)})"
        " — все они покидают игру." in text
    )


@pytest.mark.rule("D7")
def test_D7_a_sole_leader_without_a_majority_stays_and_the_text_says_why() -> None:
    game, events = voted({1: 9}, dict.fromkeys(range(1, 7), 9))
    text = group_text(game, events)
    assert f"№9 ({nick(game, 9)}) — 6 голосов: 1, 2, 3, 4, 5, 6" in text
    assert "Нет большинства" in text and "6 из 12" in text
    assert "никто не покидает игру" in text
    assert game.state.is_alive(9)


@pytest.mark.rule("D7")
def test_D7_a_sole_leader_with_a_majority_leaves() -> None:
    game, events = voted({1: 9}, dict.fromkeys(range(1, 8), 9))
    text = group_text(game, events)
    assert "больше половины живых (7 из 12): игрок №9 покидает игру." in text


@pytest.mark.rule("D7")
def test_D7_no_votes_at_all_means_nobody_leaves() -> None:
    game, events = voted({1: 9, 2: 10}, {})
    text = group_text(game, events)
    assert "№9 (" in text and "— 0 голосов" in text
    assert "Воздержались: 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12" in text
    assert "Ни один лидер не получил голосов — никто не покидает игру." in text
    english = group_text(game, events, "en")
    assert "No leader got a vote — nobody leaves the game." in english


# --- keyboards ---------------------------------------------------------------------------


@pytest.mark.rule("D3")
@pytest.mark.parametrize("players", [16, 14, 12, 10])
def test_D3_finish_speech_stands_alone_above_rows_of_seat_numbers(players: int) -> None:
    game = Game(n=players)
    game.advance_to(Phase.ROUND_2)
    game.step()  # a round-2 turn that began after another one ended
    out = render(game.last, game.state, Audience(GAME_ID, -1001, "ru"), TEXTS)
    (turn,) = [o for o in out if isinstance(o, Post) and o.remember == "turn"]
    assert turn.keyboard is not None
    first, *numbers = turn.keyboard
    assert [b.text for b in first] == ["Закончить речь"]
    speaker = game.state.speaker
    targets = [s for s in game.state.living() if s != speaker]
    assert [b.text for row in numbers for b in row] == [str(s) for s in targets]
    widths = [len(row) for row in numbers]
    assert all(4 <= w <= 5 for w in widths[:-1]) and max(widths) - min(widths) <= 2


@pytest.mark.parametrize(
    ("targets", "widths"),
    [(15, [5, 5, 5]), (13, [5, 5, 3]), (11, [4, 4, 3]), (9, [5, 4]), (8, [4, 4]), (3, [3])],
)
def test_seat_numbers_go_four_or_five_to_a_row_as_evenly_as_they_can(
    targets: int, widths: list[int]
) -> None:
    from bot.views.render import Button, number_rows

    keys = number_rows([Button(str(i)) for i in range(targets)])
    assert [len(row) for row in keys] == widths


@pytest.mark.rule("D6")
def test_D6_abstaining_has_a_row_of_its_own_and_the_ballot_goes_when_the_vote_closes() -> None:
    from bot.views.render import Unkey

    game = Game()
    game.nominate({1: 9, 2: 10, 3: 11})
    mark = len(game.events)
    game.pass_all(Phase.DEFENCE)
    out = render(game.since(mark)[-2:], game.state, Audience(GAME_ID, -1001, "en"), TEXTS)
    (ballot,) = [o for o in out if isinstance(o, Post) and o.remember == "vote"]
    assert ballot.keyboard is not None
    assert [b.text for b in ballot.keyboard[-1]] == ["Abstain"]
    assert all("Abstain" not in b.text for row in ballot.keyboard[:-1] for b in row)
    mark = len(game.events)
    game.timeout()
    out = render(game.since(mark), game.state, Audience(GAME_ID, -1001, "en"), TEXTS)
    assert Unkey(-1001, VOTE) in out


@pytest.mark.rule("D2")
def test_D2_an_ended_turn_takes_its_buttons_off() -> None:
    from bot.views.render import Unkey

    game = Game()
    game.advance_to(Phase.ROUND_1)
    mark = len(game.events)
    game.step()
    out = render(game.since(mark), game.state, Audience(GAME_ID, -1001, "en"), TEXTS)
    assert out[0] == Unkey(-1001, TURN) and isinstance(out[-1], Post)


# --- time you can follow -----------------------------------------------------------------


def test_a_turn_says_until_when_by_the_chats_clock_and_who_speaks_next() -> None:
    game = Game(now=1_767_225_600.0)  # 2026-01-01 00:00 UTC, 03:00 in Moscow
    game.advance_to(Phase.ROUND_1)
    state, speaker = game.state, game.state.speaker
    assert speaker is not None and state.deadline is not None
    moscow = render(game.last, state, Audience(GAME_ID, -1001, "ru"), TEXTS)[-1]
    utc = render(game.last, state, Audience(GAME_ID, -1001, "en", timezone="UTC"), TEXTS)[-1]
    assert isinstance(moscow, Post) and isinstance(utc, Post)
    hms = time.strftime("%H:%M:%S", time.gmtime(state.deadline))
    moscow_hms = time.strftime("%H:%M:%S", time.gmtime(state.deadline + 3 * 3600))
    after = f"{state.queue[0]} ({nick(game, state.queue[0])})"
    # Issue 22 §2: the end time names its zone.
    assert f"До {moscow_hms} МСК. Следующий — игрок №{after}." in moscow.text
    assert f"Until {hms} UTC. Next: player #{after}." in utc.text


def test_the_last_turn_of_a_round_names_nobody_next() -> None:
    game = Game(now=1_767_225_600.0)
    game.advance_to(Phase.ROUND_1)
    while game.state.queue:
        game.step()
    out = render(game.last, game.state, Audience(GAME_ID, -1001, "en", timezone="UTC"), TEXTS)
    post = out[-1]
    assert isinstance(post, Post) and "Until " in post.text and "Next:" not in post.text


def test_an_unknown_time_zone_is_refused(tmp_path: Path) -> None:
    from bot.config import load_config

    path = tmp_path / "config.toml"
    path.write_text('[bot]\ntimezone = "Mars/Olympus"\n')
    with pytest.raises(ValueError, match="Mars/Olympus"):
        load_config(path, env={})


def _night_privates(game: Game, events: list[Event]) -> dict[int, list[Post]]:
    # From the night's start: the day's turns before it tell their next speakers privately.
    night = next(i for i, e in enumerate(events) if isinstance(e, NightStarted))
    out = render(events[night:], game.state, Audience(GAME_ID, -1001, "ru"), TEXTS)
    by_user: dict[int, list[Post]] = {}
    for o in out:
        if isinstance(o, Post) and o.chat_id != -1001:
            by_user.setdefault(o.chat_id, []).append(o)
    return by_user


def test_every_living_player_gets_one_night_message_whatever_the_role() -> None:
    """N2, N3: at night a phone that buzzes tells nothing. Every living player, civilians
    too, gets one private message at the night's start, sent as essential like the
    Commissioner's and the mafia's, in seat order; the dead get none."""
    game = Game()
    gone = game.civilians()[0]
    game.advance_to(Phase.ROUND_1)
    game.remove(gone)
    mark = len(game.events)
    to_night(game)
    privates = _night_privates(game, game.since(mark))
    living_users = [game.state.seats[s].user_id for s in game.state.living()]
    assert sorted(privates) == sorted(living_users)
    assert game.state.seats[gone].user_id not in privates
    assert all(len(posts) == 1 and posts[0].essential for posts in privates.values())
    # Sent in seat order, not the Commissioner and the mafia first.
    assert list(privates) == living_users
    civilian = game.state.seats[game.civilians()[1]].user_id
    assert "хода нет" in privates[civilian][0].text


def test_night_zero_greets_every_player_privately() -> None:
    """N1: the acquaintance night sends each player one message beside the role card."""
    game = Game()
    game.advance_to(Phase.INTRODUCTION)
    while game.phase is Phase.INTRODUCTION:
        mark = len(game.events)
        game.step()
    assert game.phase is Phase.ACQUAINTANCE
    privates = _night_privates(game, game.since(mark))
    assert list(privates) == [s.user_id for _, s in sorted(game.state.seats.items())]
    assert all(len(posts) == 1 and posts[0].essential for posts in privates.values())


# --- what a turn costs the group (issue 22 §3) ------------------------------------------


def _told_next(out: Sequence[object], game: Game, seat: int) -> list[Post]:
    user = game.state.seats[seat].user_id
    return [o for o in out if isinstance(o, Post) and o.chat_id == user and "следующим" in o.text]


def test_D2_an_ordinary_turn_goes_silently_and_the_next_speaker_is_told_privately() -> None:
    game = Game()
    game.advance_to(Phase.ROUND_1)
    mark = len(game.events)
    game.step()  # the second turn of the round
    state = game.state
    out = render(game.since(mark), state, Audience(GAME_ID, -1001, "ru"), TEXTS)
    group = [o for o in out if isinstance(o, Post) and o.chat_id == -1001]
    assert len(group) == 1 and group[0].silent
    assert state.speaker is not None and state.queue
    told = _told_next(out, game, state.queue[0])
    assert [p.text for p in told] == [
        f"🔔 Вы говорите следующим, после игрока №{state.speaker} ({nick(game, state.speaker)})."
    ]
    assert not told[0].essential  # it never holds up the turn's own post


def test_D2_a_day_s_first_turn_rings_the_group() -> None:
    game = Game()
    mark = len(game.events)
    game.advance_to(Phase.ROUND_1)
    out = render(game.since(mark)[-3:], game.state, Audience(GAME_ID, -1001, "ru"), TEXTS)
    group = [o for o in out if isinstance(o, Post) and o.chat_id == -1001]
    assert group and not group[-1].silent


def test_D2_when_the_next_speaker_is_removed_the_one_after_them_is_told() -> None:
    game = Game()
    game.advance_to(Phase.ROUND_1)
    state = game.state
    gone, after = state.queue[0], state.queue[1]
    events = game.remove(gone)
    out = render(events, game.state, Audience(GAME_ID, -1001, "ru"), TEXTS)
    assert len(_told_next(out, game, after)) == 1
    assert _told_next(out, game, gone) == []
    # Removing one who already spoke or speaks later tells nobody anything new.
    later = game.state.queue[-1]
    out = render(game.remove(later), game.state, Audience(GAME_ID, -1001, "ru"), TEXTS)
    assert not any(isinstance(o, Post) and "следующим" in o.text for o in out)


def test_D3_the_nomination_hint_opens_round_2_and_its_buttons_stay() -> None:
    game = Game()
    game.advance_to(Phase.ROUND_2)
    hint = TEXTS("ru", "turn.nominate_hint")
    first = render(game.last, game.state, Audience(GAME_ID, -1001, "ru"), TEXTS)[-1]
    game.step()
    second = render(game.last, game.state, Audience(GAME_ID, -1001, "ru"), TEXTS)[-1]
    assert isinstance(first, Post) and isinstance(second, Post)
    assert hint in first.text and not first.silent
    assert hint not in second.text and second.silent
    assert second.keyboard is not None and len(second.keyboard) > 1  # the seat buttons
