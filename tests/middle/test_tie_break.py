"""T5: the tie-break order through the sandbox (issue 20 §4): chosen in /settings before
the first tour and announced (T6), shown in /standings, a lot from the committed seed."""

from __future__ import annotations

import pytest

from bot.rules.draws import shuffled
from bot.rules.sheet import sheet
from bot.web.page import PageLinks, TournamentPages
from tests.middle.games import open_game
from tests.steps import play_tour, register_all, say


@pytest.mark.rule("T5")
@pytest.mark.rule("T6")
@pytest.mark.rule("S3")
async def test_T5_the_judges_tie_break_order_settles_the_prize_places() -> None:
    async with open_game(12, seed=5, lang="en") as table:
        await register_all(table, table.people)
        judge = table.host
        refused = await say(table, judge, judge.private, "/settings tie_break lot,wins")
        assert "Changed" not in refused
        shown = await say(table, judge, judge.private, "/settings")
        assert "more wins; more wins at tables with the bonus" in shown  # the default
        changed = await say(table, judge, judge.private, "/settings tie_break head_to_head")
        assert "more games won against each other; a lot" in changed
        told = table.people[0].inbox()[-1].content  # T6: every player is told
        assert "more games won against each other; a lot" in told

        [game_id] = await play_tour(table, table.people, seed=5)
        state = await table.app.service.state(game_id)
        assert state is not None
        winners = sorted(r.user_id for r in sheet(state) if r.earns_point)
        service = table.app.dispatcher["tournaments"]
        tournament = await service.judged_by(judge.id)
        rows = {r.user_id: r for r in await service.standings(tournament)}
        # All winners share 1.0 and beat none of each other: the lot, from the
        # tournament's seed (committed at the first tour, revealed at /finish), settles
        # 1st to 3rd.
        lot = await service.lot(tournament)
        assert lot is not None
        drawn = shuffled(lot.seed, "tiebreak:1", winners)
        assert len(winners) >= 3
        expected = [1, 2, 3] + [4] * (len(winners) - 3)  # below 3rd: one shared place
        assert [rows[u].place for u in drawn] == expected
        assert {rows[u].decided_by for u in winners} == {"lot"}
        text = await say(table, judge, judge.private, "/standings")
        assert "(decided by: a lot)" in text
        final = await say(table, judge, judge.private, "/finish")
        assert "Top three" in final  # nothing shared at the top is left to stop it
        assert f"seed {lot.seed}, hash {lot.commitment}" in final


@pytest.mark.rule("T5")
async def test_T5_the_live_page_says_which_tie_break_decided_a_place_as_standings_does() -> None:
    async with open_game(12, seed=6, lang="en") as table:
        await register_all(table, table.people)
        judge = table.host
        await say(table, judge, judge.private, "/settings tie_break lot")
        await play_tour(table, table.people, seed=6)
        service = table.app.dispatcher["tournaments"]
        tournament = await service.judged_by(judge.id)
        rows = {r.user_id: r for r in await service.standings(tournament)}
        settled = [r for r in rows.values() if r.decided_by is not None]
        assert len(settled) >= 3 and {r.decided_by for r in settled} == {"lot"}
        text = await say(table, judge, judge.private, "/standings")
        assert "(decided by: a lot)" in text, text
        pages = TournamentPages(service, PageLinks("https://x.example", "x"), "x", table.texts)
        for lang, words in (("en", "decided by: a lot"), ("ru", "решено: жребий")):
            live = await pages.live_view(tournament, lang)
            decided = {r["nick"]: r["decided"] for r in live["standings"]}
            for row in rows.values():
                assert decided[row.nick] == (words if row.decided_by else None), row
