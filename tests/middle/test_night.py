"""The night in private through the handlers: the relay and the picks (N1-N3)."""

from __future__ import annotations

import pytest

from bot.rules.events import Phase
from bot.rules.roles import Role
from tests.middle.harness import Desk


@pytest.mark.rule("N1")
async def test_at_night_zero_a_civilian_is_refused_and_a_mafiosos_words_reach_the_others(
    playing: Desk,
) -> None:
    state = await playing.run_until(lambda state: state.phase is Phase.ACQUAINTANCE)
    mafia = state.living_mafia()
    civilian = next(seat for seat in state.living() if state.roles[seat] is Role.CIVILIAN)
    partners = {state.seats[seat].user_id for seat in mafia[1:]}
    mark = playing.mark()

    await playing.send_private(playing.person(civilian), "I think 5 is mafia")

    said = playing.sent("sendMessage", since=mark)
    assert [(post.chat_id, post.text) for post in said] == [
        (playing.person(civilian).id, playing.t("common.private_hint"))
    ]
    mark = playing.mark()

    await playing.send_private(playing.person(mafia[0]), "We take seat 5 tomorrow")

    relayed = playing.sent("sendMessage", since=mark)
    assert {post.chat_id for post in relayed} == partners
    for post in relayed:
        assert "We take seat 5 tomorrow" in post.text and post.params["protect_content"] == "true"
    assert playing.state == state  # words change nothing in the game


@pytest.mark.rule("N2")
async def test_a_mafiosos_pick_is_stored_and_answered_and_civilians_have_no_keyboard(
    playing: Desk,
) -> None:
    state = await playing.run_until(lambda state: state.phase is Phase.NIGHT)
    shooter = state.living_mafia()[0]
    target = next(seat for seat in state.living() if state.roles[seat] is not Role.MAFIA)
    keyboard = playing.latest(playing.person(shooter).inbox(), "n:")
    assert keyboard is not None, "the mafioso got no night keyboard"
    label = f"{target} · {state.seats[target].nick}"
    civilians = [seat for seat in state.living() if state.roles[seat] is Role.CIVILIAN]
    assert all(playing.latest(playing.person(s).inbox(), "n:") is None for s in civilians)
    stored = len(await playing.app.service.repos.protocol.read(state.game_id))

    press = await playing.press(playing.person(shooter), keyboard, label)

    picked = playing.state
    assert picked is not None and picked.kill_picks.get(shooter) == target
    assert press.answer is not None
    who = playing.t("vote.seat", seat=target, nick=state.seats[target].nick)
    assert press.answer.text == playing.t("night.kill.accepted", player=who, target=who)
    # Stored before it was told: the protocol has the pick as its newest event.
    events = await playing.app.service.repos.protocol.read(state.game_id, from_seq=stored + 1)
    assert [event.type for event in events] == ["KillPicked"]
