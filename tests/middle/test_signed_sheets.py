"""Signed sheets stay what was signed (issue 20 §3, T3, T4, T6): a late scheme change
reaches earlier games only by the Judge's explicit rescore, and corrections compose."""

from __future__ import annotations

import pytest

from bot.rules.sheet import sheet
from tests.middle.games import open_game
from tests.steps import play_tour, register_all, say


@pytest.mark.rule("T3")
@pytest.mark.rule("T4")
@pytest.mark.rule("T6")
async def test_T3_a_late_scheme_change_leaves_a_signed_sheet_until_the_judge_rescores() -> None:
    async with open_game(15, seed=4, lang="en") as table:
        await register_all(table, table.people)
        [game_id] = await play_tour(table, table.people, seed=4)
        service = table.app.dispatcher["tournaments"]
        tournament = await service.judged_by(table.host.id)
        state = await table.app.service.state(game_id)
        assert state is not None and len(state.seats) == 15
        winners = {r.user_id for r in sheet(state) if r.earns_point}
        signed = {r.user_id: r.total_tenths for r in await service.standings(tournament)}
        assert {signed[u] for u in winners} == {12}

        judge = table.host
        changed = await say(table, judge, judge.private, "/settings bonus_threshold 15 override")
        assert "15" in changed
        assert "/fix all scheme" in changed  # the Judge is told how to rescore, if meant
        tournament = await service.judged_by(judge.id)
        after = {r.user_id: r.total_tenths for r in await service.standings(tournament)}
        assert after == signed  # the signed sheet keeps the scheme it was played under
        text = await service.sheet_text(game_id, "en")
        assert "A win is worth 1.2 here" in text and "The Judge's corrections:\nnone" in text

        done = await say(table, judge, judge.private, "/fix all scheme threshold raised to 15")
        assert f"#{game_id}" in done or str(game_id) in done
        rescored = {r.user_id: r.total_tenths for r in await service.standings(tournament)}
        assert {rescored[u] for u in winners} == {10}
        text = await service.sheet_text(game_id, "en")
        assert "A win is worth 1.0 here" in text
        assert "rescored under the new scheme" in text and "threshold raised to 15" in text
        again = await say(table, judge, judge.private, "/fix all scheme once more")
        assert "Nothing to rescore" in again


@pytest.mark.rule("T3")
async def test_T3_a_later_winner_fix_keeps_an_earlier_seat_fix() -> None:
    async with open_game(12, seed=5, lang="en") as table:
        await register_all(table, table.people)
        [game_id] = await play_tour(table, table.people, seed=5)
        service = table.app.dispatcher["tournaments"]
        tournament = await service.judged_by(table.host.id)
        state = await table.app.service.state(game_id)
        assert state is not None and state.winner is not None
        row = next(r for r in sheet(state) if r.earns_point)
        judge = table.host
        await say(table, judge, judge.private, f"/fix {game_id} seat {row.seat} 0 a hint")
        await say(
            table, judge, judge.private, f"/fix {game_id} winner {state.winner.value} checked"
        )
        totals = {r.user_id: r.total_tenths for r in await service.standings(tournament)}
        assert totals[row.user_id] == 0  # the earlier seat correction still stands
        others = {r.user_id for r in sheet(state) if r.earns_point} - {row.user_id}
        assert {totals[u] for u in others} == {10}
