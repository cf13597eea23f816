"""T3: the protocol sheet, from the protocol, rendered as a message and a printable page.

Every kind of sheet (a peaceful win, a mafia win, a disqualification, a Judge's
correction, a casual game) is drawn from a real game's protocol and every field is
checked in both renderings and both languages.
"""

from __future__ import annotations

import html
import re
from datetime import UTC, datetime

import pytest

from bot.rules.actions import HandOver, Kill
from bot.rules.events import Cause, Phase, Player
from bot.rules.roles import Role, Side
from bot.rules.sanctions import Penalty, VCode
from bot.tournament.protocol_sheet import (
    Correction,
    ProtocolSheet,
    hosts_of,
    protocol_sheet,
    scheme_change,
)
from bot.tournament.scoring import Scheme
from bot.tournament.settings import TournamentSettings
from bot.views.i18n import Texts
from bot.views.sheet import sheet_html, sheet_message
from tests.rules import helpers
from tests.rules.helpers import Game, to_night

START = datetime(2026, 12, 1, 16, 0, tzinfo=UTC).timestamp()  # 19:00 in Moscow
ZONE = "Europe/Moscow"
T = Texts()


def peaceful_win() -> Game:
    """Day 1 votes a mafioso out, night 1 kills a civilian; on day 2 one mafioso is warned
    (V5) and then removed (V5 again), the last one disqualified (V1): the peaceful win."""
    game = Game(12, now=START)
    game.advance_to(Phase.ROUND_2, day=1)
    first, second, third = game.mafia()
    game.speak_round({game.state.living()[0]: first})
    game.cast(dict.fromkeys(game.state.living(), first))
    game.advance_to(Phase.NIGHT)
    victim = game.civilians()[0]
    game.night(kills=dict.fromkeys(game.mafia(), victim))
    game.advance_to(Phase.ROUND_1, day=2)
    game.remove(second, penalty=Penalty.WARNING, code=VCode.V5)
    game.remove(second, penalty=Penalty.REMOVAL_FROM_GAME, code=VCode.V5)
    game.remove(third, penalty=Penalty.DISQUALIFICATION, code=VCode.V1)
    assert game.state.winner is Side.PEACEFUL
    return game


def mafia_win() -> Game:
    """15 players: the Host removes players on day 1 (no V code) down to 4 against 5, and
    the night-1 kill settles it for the mafia."""
    game = Game(15, now=START)
    game.advance_to(Phase.ROUND_1, day=1)
    game.shrink(mafia=4, peaceful=5)
    to_night(game)
    victim = game.civilians()[0]
    for mafioso in game.mafia():
        game.act(Kill(mafioso, victim))
    game.timeout()
    assert game.state.winner is Side.MAFIA
    return game


def doc_of(game: Game, **context: object) -> ProtocolSheet:
    values: dict[str, object] = {
        "host": "Кирилл",
        "settings": TournamentSettings(),
        "tournament": "Осенний кубок",
        "tour": 2,
        "table": "T1R2G1",
        "signed_by": "Кирилл",
        "signed_at": game.now + 60,
    }
    values.update(context)
    return protocol_sheet(game.entries, **values)  # type: ignore[arg-type]


def flat(text: str) -> str:
    return " ".join(
        html.unescape(
            re.sub(r"<[^>]+>", "", re.sub(r"</(p|td|th|tr|li|h1|h2)>", " ", text))
        ).split()
    )


@pytest.mark.rule("T3")
@pytest.mark.rule("T4")
def test_T3_a_peaceful_win_sheet_has_every_field() -> None:
    game = peaceful_win()
    first, second, third = game.seats_of(Role.MAFIA, living=False)
    doc = doc_of(game)
    rows = {r.seat: r for r in doc.rows}
    assert doc.winner is Side.PEACEFUL and doc.per_win == 10
    assert (doc.tournament, doc.tour, doc.table, doc.game_id) == ("Осенний кубок", 2, "T1R2G1", 7)
    assert doc.started_at == START and doc.ended_at == game.entries[-1].at
    voted_out, warned_out, disqualified = rows[first].left, rows[second].left, rows[third].left
    assert voted_out is not None and voted_out.cause is Cause.VOTE
    assert (voted_out.phase, voted_out.number) == ("day", 1)
    killed = next(r for r in doc.rows if r.left is not None and r.left.cause is Cause.KILL)
    assert killed.left is not None  # as the search above picked it
    assert (killed.left.phase, killed.left.number) == ("night", 1)
    assert rows[second].warnings == 1 and warned_out is not None and warned_out.code is VCode.V5
    assert disqualified is not None and disqualified.cause is Cause.DISQUALIFICATION
    assert disqualified.penalty is Penalty.DISQUALIFICATION
    for row in doc.rows:
        assert row.tenths == (10 if row.side is Side.PEACEFUL else 0)

    ru = flat(sheet_message(T, "ru", doc, ZONE))
    page = sheet_html(T, "ru", doc, ZONE)
    for text in (ru, flat(page)):
        assert "Протокол игры №7" in text
        assert "Турнир Осенний кубок, тур 2, стол T1R2G1" in text
        assert "01.12.2026 19:00" in text  # the start, on the bot's clock
        assert "Ведущий: Кирилл" in text
        assert "🏆 Победа мирных" in text and "Победа за этим столом: 1,0" in text
        assert "✍️ Ведущий Кирилл подписал 01.12.2026" in text
        assert "Д1 голосование" in text and "Н1 отстрел" in text
        assert "Д2 снятие с игры (флуд и отвлекающие сообщения)" in text
        assert "Д2 дисквалификация (раскрытие карты)" in text
        assert "до конца" in text
        for row in doc.rows:
            assert row.nick in text
    assert ru.count("очки: 1,0") == 9 and ru.count("очки: 0,0") == 3
    assert "⚠️ 1" in ru
    en = flat(sheet_message(T, "en", doc, ZONE))
    assert "Sheet of game #7" in en and "The peaceful side won" in en
    assert "day 1 voted out" in en and "night 1 killed" in en and "points 1.0" in en
    assert "day 2 disqualification (revealing a card)" in en


@pytest.mark.rule("T3")
@pytest.mark.rule("T4")
def test_T3_a_mafia_win_at_fifteen_scores_one_point_two_and_names_the_removals() -> None:
    game = mafia_win()
    doc = doc_of(game)
    assert doc.winner is Side.MAFIA and doc.per_win == 12
    for row in doc.rows:
        assert row.tenths == (12 if row.side is Side.MAFIA else 0)
    text = flat(sheet_message(T, "ru", doc, ZONE))
    assert "🏆 Победа мафии" in text and "Победа за этим столом: 1,2" in text
    assert text.count("очки: 1,2") == 4
    assert "Д1 снятие с игры (решение Ведущего)" in text
    assert "Н1 отстрел" in text
    page = sheet_html(T, "en", doc, ZONE)
    assert "The mafia won" in page and "1.2" in page and "day 1 removal from the game" in page


@pytest.mark.rule("T3")
def test_T3_the_judges_corrections_change_the_sheet_and_are_listed_with_reasons() -> None:
    game = peaceful_win()
    at = game.now + 3600
    corrections = [
        Correction({"field": "winner", "value": "mafia"}, "пересчёт голосов", at),
        Correction({"field": "point", "seat": 1, "value": False}, "опоздание <b>", at + 60),
    ]
    doc = doc_of(game, corrections=corrections)
    assert doc.winner is Side.MAFIA
    points = {r.seat: r.tenths for r in doc.rows}
    assert points[1] == 0
    # T4: the mafioso voted out wins with the side; the removed and disqualified do not.
    voted_out, removed, disqualified = game.seats_of(Role.MAFIA, living=False)
    assert (points[voted_out], points[removed], points[disqualified]) == (10, 0, 0)
    assert all(points[r.seat] == 0 for r in doc.rows if r.side is Side.PEACEFUL)
    message = sheet_message(T, "ru", doc, ZONE)
    text = flat(message)
    assert "Исправления судьи: • 01.12.2026" in text
    assert "победа присуждена мафии: пересчёт голосов" in text
    assert "у игрока №1 очко снято: опоздание <b>" in text
    assert "опоздание &lt;b&gt;" in message  # the reason is the Judge's text, escaped
    page = sheet_html(T, "ru", doc, ZONE)
    assert "опоздание &lt;b&gt;" in page and "пересчёт голосов" in page


@pytest.mark.rule("T3")
def test_T3_a_casual_sheet_says_it_has_no_tournament_and_no_points() -> None:
    game = peaceful_win()
    doc = protocol_sheet(game.entries, host="Вера")
    assert doc.tournament is None and doc.per_win is None
    assert all(r.tenths is None for r in doc.rows)
    text = flat(sheet_message(T, "ru", doc, ZONE))
    assert "Обычная игра вне турнира: без тура, стола и очков" in text
    assert "очки:" not in text and "Ведущий ещё не подписал протокол." in text
    assert "A casual game: no tournament, tour or points" in flat(sheet_html(T, "en", doc, ZONE))


@pytest.mark.rule("T3")
def test_T3_the_page_is_self_contained_and_escapes_every_nick(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    evil = '<script>alert("x")</script>&'

    def players(n: int, base: int = 1000) -> list[Player]:
        return [Player(base + i, evil if i == 1 else f"nick{i}") for i in range(1, n + 1)]

    monkeypatch.setattr(helpers, "make_players", players)
    game = peaceful_win()
    assert any(st.nick == evil for st in game.state.seats.values())
    doc = doc_of(game, host=evil, signed_by=evil, tournament=evil)
    for lang in ("ru", "en"):
        page = sheet_html(T, lang, doc, ZONE)
        assert "<script" not in page and page.count("&lt;script&gt;") == 4
        assert "http" not in page and "<link" not in page and "src=" not in page
        assert "<style>" in page and "@media print" in page
        message = sheet_message(T, lang, doc, ZONE)
        assert "<script" not in message and "&lt;script&gt;" in message


@pytest.mark.rule("T3")
def test_T3_a_later_winner_correction_keeps_an_earlier_seat_correction() -> None:
    """Corrections compose in the order made (issue 20): a winner fixed after a seat's
    point was taken away leaves that seat without its point, as the history says."""
    game = peaceful_win()
    at = game.now + 3600
    winner = next(r.seat for r in doc_of(game).rows if r.side is Side.PEACEFUL and r.tenths)
    corrections = [
        Correction({"field": "point", "seat": winner, "value": False}, "подсказка", at),
        Correction({"field": "winner", "value": "peaceful"}, "подтверждаю победу", at + 60),
    ]
    doc = doc_of(game, corrections=corrections)
    points = {r.seat: r.tenths for r in doc.rows}
    assert points[winner] == 0
    assert sum(1 for v in points.values() if v) == 8  # the other peaceful winners


@pytest.mark.rule("T3")
@pytest.mark.rule("T4")
def test_T3_a_sheet_keeps_its_scheme_until_a_rescore_correction_changes_it() -> None:
    """A signed sheet is scored under the scheme it was played under; only a Judge's
    scheme correction (with its reason, in the history) rescores it (issue 20)."""
    game = mafia_win()  # 15 players: x1.2 under the default threshold of 14
    played = TournamentSettings()
    doc = doc_of(game, settings=played)
    assert doc.per_win == 12
    later = Scheme(bonus_threshold=15, bonus_coefficient=12)
    rescore = Correction(scheme_change(later), "порог изменён после тура", game.now + 3600)
    doc = doc_of(game, settings=played, corrections=[rescore])
    assert doc.per_win == 10
    assert {r.tenths for r in doc.rows if r.side is Side.MAFIA} == {10}
    text = flat(sheet_message(T, "ru", doc, ZONE))
    assert "Победа за этим столом: 1,0" in text
    assert "пересчёт по новой схеме: победа ×1,2 за столом, где больше 15 игроков" in text
    assert "порог изменён после тура" in text


@pytest.mark.rule("T3")
def test_T3_every_row_says_who_won_in_words_that_print_in_black_and_white() -> None:
    """The regulation's columns (seat, nick, role, which side won) on every row, in words,
    not in colour or emoji alone (issue 20)."""
    game = mafia_win()
    doc = doc_of(game)
    page = sheet_html(T, "ru", doc, ZONE)
    header = page.split("<tr>")[1].split("</tr>")[0]
    for column in ("№", "Ник", "Роль", "Кто победил", "Итог"):
        assert f">{column}</th>" in header
    body = page.split("<tbody>")[1].split("</tbody>")[0]
    rows = body.split("</tr>")[:-1]
    assert len(rows) == len(doc.rows)
    for row, cells in zip(doc.rows, rows, strict=True):
        assert '"">Мафия</td>' in cells  # who won, on every row
        assert ('"">победа</td>' if row.won else '"">поражение</td>') in cells
    message = flat(sheet_message(T, "ru", doc, ZONE))
    assert message.count("победа ·") + message.count("поражение ·") == len(doc.rows)
    en = flat(sheet_html(T, "en", doc, ZONE))
    assert "Who won" in en and "lost" in en


@pytest.mark.rule("T3")
def test_T3_the_sheet_names_every_host_in_order() -> None:
    game = Game()
    assert hosts_of(game.entries, host_now=501) == [501]  # never handed over
    game.act(HandOver(previous=501, host=502))
    game.act(HandOver(previous=502, host=503))
    assert hosts_of(game.entries, host_now=503) == [501, 502, 503]
