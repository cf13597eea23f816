"""The pinned table message as a pure function of the state, through a whole game."""

from __future__ import annotations

import re
from dataclasses import replace

import pytest

from bot.delivery.longtext import fits
from bot.rules.actions import Pause, Sanction, Vote
from bot.rules.events import LotDrawn, Phase
from bot.rules.roles import Role
from bot.rules.sanctions import Penalty, VCode
from bot.views.board import board_text
from bot.views.i18n import LANGUAGES, Texts
from bot.views.render import Audience, Post, render
from tests.rules.helpers import GAME_ID, Game, of_type

TEXTS = Texts()
ROLE_NAMES = {lang: [TEXTS(lang, f"role.{r.value}") for r in Role] for lang in LANGUAGES}


def line_of(text: str, seat: int) -> str:
    return next(line for line in text.splitlines() if line.startswith(f"{seat} · "))


def hides_everything(game: Game, lang: str) -> None:
    text = board_text(game.state, lang, TEXTS)
    assert not any(name in text for name in ROLE_NAMES[lang]), text
    assert not re.search(r"\bV[1-7]\b", text), text  # violations in words, never codes


def test_the_deal_posts_the_table_pinned_and_remembered() -> None:
    game = Game()
    out = render(game.events, game.state, Audience(GAME_ID, -1001, "ru"), TEXTS)
    (pinned,) = [o for o in out if isinstance(o, Post) and o.pin]
    assert pinned.remember == "board" and pinned.essential
    assert pinned.text == board_text(game.state, "ru", TEXTS)
    assert game.state.commitment in pinned.text  # S3: still published at the deal
    for seat in game.state.seats.values():
        assert line_of(pinned.text, seat.seat) == f"{seat.seat} · {seat.nick} ✅"
    first, second = game.state.speaker, game.state.queue[0]
    assert first is not None  # Day 0 has begun: somebody speaks
    speaker = f"№{first} ({game.state.seats[first].nick})"
    following = f"№{second} ({game.state.seats[second].nick})"
    assert f"🎙 Говорит игрок {speaker}, следом — {following}" in pinned.text
    assert "<b>День 0</b>: знакомство" in pinned.text


@pytest.mark.rule("D3")
@pytest.mark.rule("D7")
@pytest.mark.rule("D8")
@pytest.mark.rule("N3")
def test_a_whole_game_on_the_table_each_departure_warning_and_nomination() -> None:
    game = Game()
    for lang in LANGUAGES:
        hides_everything(game, lang)
    # V7 twice and V2 once: warnings, counted and named in words.
    game.act(Sanction(3, Penalty.WARNING, VCode.V7))
    game.act(Sanction(3, Penalty.WARNING, VCode.V2))
    text = board_text(game.state, "en", TEXTS)
    assert line_of(text, 3).endswith("✅ ⚠️2 (arguing with the Host, insult)")
    ru = board_text(game.state, "ru", TEXTS)
    assert line_of(ru, 3).endswith("✅ ⚠️2 (спор с Ведущим, оскорбление)")

    # D3: the day's nominations, in the order made, and who speaks with who is next.
    game.advance_to(Phase.ROUND_2, 1)
    speaker = game.state.speaker
    assert speaker is not None
    nominee = next(s for s in game.state.living() if s != speaker)
    game.speak_round({speaker: nominee})
    nick = game.state.seats[nominee].nick
    assert f"🗳 Выставлены: №{nominee} ({nick})" in board_text(game.state, "ru", TEXTS)
    assert f"🗳 Nominated: #{nominee} ({nick})" in board_text(game.state, "en", TEXTS)
    game.pass_all(Phase.DEFENCE)
    for voter in game.state.living():
        game.act(Vote(voter, nominee))
    # D7: voted out on day 1; the last word is theirs.
    ru = board_text(game.state, "ru", TEXTS)
    assert line_of(ru, nominee) == f"{nominee} · <s>{nick}</s> — Д1, голосование"
    assert f"🎙 Говорит игрок №{nominee} ({nick})" in ru
    en = board_text(game.state, "en", TEXTS)
    assert line_of(en, nominee) == f"{nominee} · <s>{nick}</s> — day 1, voted out"
    for lang in LANGUAGES:
        hides_everything(game, lang)

    # N3: shot in night 1; the table says nothing of who shot or checked.
    game.advance_to(Phase.NIGHT, 1)
    assert "Выставлены" not in board_text(game.state, "ru", TEXTS)  # the day is over
    victim = next(s for s in game.state.living() if game.state.roles[s] is Role.CIVILIAN)
    game.night(kills=dict.fromkeys(game.mafia(), victim))
    ru = board_text(game.state, "ru", TEXTS)
    assert line_of(ru, victim).endswith("— Н1, отстрел")
    assert "<b>День 2</b>: последнее слово" in ru  # the morning opens day 2
    for lang in LANGUAGES:
        hides_everything(game, lang)

    # V: a removal says what for, in words, with the day it happened.
    removed = next(s for s in game.state.living() if game.state.roles[s] is Role.CIVILIAN)
    game.act(Sanction(removed, Penalty.DISQUALIFICATION, VCode.V1))
    ru = board_text(game.state, "ru", TEXTS)
    assert line_of(ru, removed).endswith("— Д2, дисквалификация (раскрытие карты)")
    en = board_text(game.state, "en", TEXTS)
    assert line_of(en, removed).endswith("— day 2, disqualified (revealing a card)")
    plain = next(s for s in game.state.living() if game.state.roles[s] is Role.CIVILIAN)
    game.remove(plain)
    assert line_of(board_text(game.state, "ru", TEXTS), plain).endswith("— Д2, снятие")

    # D8: nobody nominated, the lot decides.
    game.advance_to(Phase.NIGHT, 2)
    (lot,) = of_type(game.events, LotDrawn)
    assert line_of(board_text(game.state, "ru", TEXTS), lot.seat).endswith("— Д2, жребий")
    assert line_of(board_text(game.state, "en", TEXTS), lot.seat).endswith("— day 2, by lot")
    for lang in LANGUAGES:
        hides_everything(game, lang)

    # The end: the winner, and every seat's card (the protocol is public now).
    while not game.state.finished:
        game.step()
    for lang in LANGUAGES:
        text = board_text(game.state, lang, TEXTS)
        assert TEXTS(lang, f"board.over.{game.state.winner}") in text
        for seat, role in game.state.roles.items():
            assert line_of(text, seat).endswith(f" · <b>{TEXTS(lang, f'role.{role.value}')}</b>")
        assert "🎙" not in text


def test_nicks_are_escaped_and_a_pause_is_shown() -> None:
    game = Game()
    seat = game.state.speaker
    assert seat is not None
    game.state.seats[seat] = replace(game.state.seats[seat], nick="<b>Лёша</b>")
    text = board_text(game.state, "ru", TEXTS)
    assert "&lt;b&gt;Лёша&lt;/b&gt;" in text and "<b>Лёша" not in text
    game.act(Pause())
    assert "⏸ пауза" in board_text(game.state, "ru", TEXTS)


def test_sixteen_seats_fit_one_message() -> None:
    """The longest table: 16 seats, Telegram's longest first names (64 characters), every
    seat warned twice, everybody nominated."""
    game = Game(16)
    for seat in game.state.seats.values():
        game.state.seats[seat.seat] = replace(seat, nick="Ж" * 64)
    for number in range(1, 17):
        game.act(Sanction(number, Penalty.WARNING, VCode.V7))
        game.act(Sanction(number, Penalty.WARNING, VCode.V5))
    game.advance_to(Phase.ROUND_2, 1)
    game.state.nominations = {s: s % 16 + 1 for s in range(1, 17)}
    for lang in LANGUAGES:
        text = board_text(game.state, lang, TEXTS)
        assert fits(text), len(text)
        assert "⚠️2" in line_of(text, 16)
