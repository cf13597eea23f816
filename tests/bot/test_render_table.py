"""What the table sees, rendered without Telegram: the vote's count, the keyboards."""

from __future__ import annotations

import pytest

from bot.i18n import Texts, plural_form
from bot.render import Audience, Post, render
from bot.rules.events import Event, Phase
from tests.rules.helpers import GAME_ID, Game

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
        f"Ничья: поровну голосов у игроков №9 ({nick(game, 9)}) и №10 ({nick(game, 10)})"
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
