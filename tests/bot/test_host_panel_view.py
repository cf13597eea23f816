"""The Host's panel as a pure view, and sanctions in words in the group (issue 11)."""

from __future__ import annotations

import pytest

from bot.rules.actions import Check, Kill, Nominate, Sanction, Timeout, Vote
from bot.rules.engine import apply, start_game
from bot.rules.events import Event, Phase, Player
from bot.rules.roles import Role
from bot.rules.sanctions import Penalty, VCode
from bot.rules.settings import GameSettings
from bot.rules.state import GameState
from bot.views.callbacks import PanelCb, SanctionCb
from bot.views.i18n import LANGUAGES, Texts
from bot.views.panel import Picking, night_events, panel_view
from bot.views.render import Audience, Post, render

T = Texts()


def _deal() -> tuple[GameState, list[Event]]:
    players = [Player(100 + i, f"P{i}") for i in range(12)]
    state, events = start_game(7, players, GameSettings(), "seed", 0.0)
    return state, list(events)


def _until(
    state: GameState, phase: Phase, history: list[Event], now: float = 0.0
) -> tuple[GameState, float]:
    while state.phase is not phase:
        now += 1000
        state, events = apply(state, Timeout(state.step), now)
        history += events
    return state, now


def _buttons(keyboard: object) -> list[tuple[str, str]]:
    assert isinstance(keyboard, tuple)
    return [(b.text, b.callback or "") for row in keyboard for b in row]


@pytest.mark.rule("S3")
@pytest.mark.parametrize("lang", LANGUAGES)
def test_the_panel_shows_every_seat_with_its_role(lang: str) -> None:
    state, _ = _deal()
    text, keyboard = panel_view(state, 7, lang, T)
    for seat, role in state.roles.items():
        assert f"{seat} · P{state.seats[seat].user_id - 100} — {T(lang, f'role.{role.value}')}" in (
            text
        )
    pressed = [PanelCb.unpack(data) for _, data in _buttons(keyboard)]
    assert [p.do for p in pressed] == ["pause", "extend", "skip", "warn"]
    assert all(p.game == 7 and p.step == state.step for p in pressed)


@pytest.mark.rule("N2")
@pytest.mark.rule("N3")
def test_the_panel_shows_the_nights_check_and_picks_as_they_come() -> None:
    state, history = _deal()
    state, now = _until(state, Phase.NIGHT, history)
    commissioner = state.commissioner()
    mafia = state.living_mafia()
    target = next(s for s in state.living() if state.roles[s] is Role.CIVILIAN)
    text, _ = panel_view(state, 7, "en", T, night_events(history))
    assert "Night 1: no check; no shots." in text
    state, events = apply(state, Check(commissioner, mafia[0]), now)
    history += events
    text, _ = panel_view(state, 7, "en", T, night_events(history))
    assert f"check — {mafia[0]} · P{state.seats[mafia[0]].user_id - 100}, mafia; no shots" in text
    state, events = apply(state, Kill(mafia[0], target), now)
    history += events
    text, _ = panel_view(state, 7, "en", T, night_events(history))
    assert f"shots {mafia[0]} → {target}." in text
    for m in mafia[1:]:
        state, events = apply(state, Kill(m, target), now)
        history += events
    state, events = apply(state, Timeout(state.step), now + 1000)
    history += events
    text, _ = panel_view(state, 7, "en", T, night_events(history))
    assert f"{target} · P{state.seats[target].user_id - 100} is out in the morning" in text
    assert "<s>" in text and "killed at night" in text


@pytest.mark.rule("D6")
def test_the_panel_lists_who_has_not_voted_yet() -> None:
    state, history = _deal()
    state, now = _until(state, Phase.ROUND_2, history)
    while state.phase is Phase.ROUND_2:
        assert state.speaker is not None
        if len(state.nominations) < 2:
            target = next(
                s for s in state.living() if s != state.speaker and s not in state.nominations
            )
            if target not in state.nominations.values():
                state, _ = apply(state, Nominate(state.speaker, target), now)
        now += 1000
        state, _ = apply(state, Timeout(state.step), now)
    state, now = _until(state, Phase.VOTE, history, now)
    living = state.living()
    text, _ = panel_view(state, 7, "en", T)
    assert "Not voted yet: " + ", ".join(map(str, living)) + "." in text
    state, _ = apply(state, Vote(living[0], None), now)
    text, _ = panel_view(state, 7, "en", T)
    assert "Not voted yet: " + ", ".join(map(str, living[1:])) + "." in text


@pytest.mark.rule("V2")
@pytest.mark.rule("V7")
def test_warnings_read_in_words_in_the_group_and_on_the_panel() -> None:
    state, _ = _deal()
    seat = state.living()[2]
    state, _ = apply(state, Sanction(seat, Penalty.WARNING, VCode.V7), 1.0)
    state, events = apply(state, Sanction(seat, Penalty.WARNING, VCode.V2), 2.0)
    out = render(events, state, Audience(7, -1001, "ru"), T)
    group = next(o for o in out if isinstance(o, Post) and o.chat_id == -1001)
    assert "предупреждение №2 (оскорбление)" in group.text
    assert "V2" not in group.text
    text, _ = panel_view(state, 7, "ru", T)
    assert "предупреждение №1 (спор с Ведущим)" in text
    assert "предупреждение №2 (оскорбление)" in text
    state, events = apply(state, Sanction(seat, Penalty.DISQUALIFICATION, VCode.V2), 3.0)
    out = render(events, state, Audience(7, -1001, "en"), T)
    group = next(o for o in out if isinstance(o, Post) and o.chat_id == -1001)
    assert "disqualification (insult)" in group.text and "V2" not in group.text


def test_the_sanction_picker_names_the_violations_in_words() -> None:
    state, _ = _deal()
    seat = state.living()[0]
    _, keyboard = panel_view(state, 7, "en", T, picking=Picking())
    seats = [PanelCb.unpack(d) for _, d in _buttons(keyboard)]
    assert [p.seat for p in seats if p.do == "seat"] == state.living()
    assert seats[-1].do == "back"
    text, keyboard = panel_view(state, 7, "en", T, picking=Picking(seat))
    names = [name for name, _ in _buttons(keyboard)][:-1]
    assert names == [T("en", f"violation.{code.value}") for code in VCode]
    assert not any("V" + str(n) in name for name in names for n in range(1, 8))
    picking = Picking(seat, VCode.V2, Penalty.WARNING, 0)
    text, keyboard = panel_view(state, 7, "en", T, picking=picking)
    assert "insult. The rules give <b>a warning</b>" in text
    confirm, cancel = (SanctionCb.unpack(d) for _, d in _buttons(keyboard))
    assert (confirm.seat, confirm.code, confirm.penalty) == (seat, "V2", "warning")
    assert cancel.penalty == ""


def test_a_finished_game_shows_no_buttons() -> None:
    from bot.rules.actions import Stop

    state, _ = _deal()
    state, _ = apply(state, Stop(), 1.0)
    text, keyboard = panel_view(state, 7, "en", T)
    assert keyboard is None and "The game is over." in text
