"""T5, S3: the tournament's own lot through the sandbox (issue 20 §4). Its seed is drawn
and committed at the first `/groups confirm` (the hash to the Judge and every player),
the sheets signed after it do not change it, and `/finish` reveals it with the final
table, so that anyone can check the hash and recompute the lot from docs/fairness.md."""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterator

import pytest

from bot.cli.demo import Table
from bot.tournament.standings import StandingsRow
from sandbox import SimUser
from tests.middle.games import open_game
from tests.rules.test_fairness_document import shuffle
from tests.steps import play_tour, register_all, say

HASH = re.compile(r"\b[0-9a-f]{64}\b")
SEED = re.compile(r"\bseed ([0-9a-f]{32})\b")


def distinct_seeds() -> Iterator[str]:
    """Every seed the bot draws different from the one before, each game its own."""
    n = 0
    while True:
        yield hashlib.sha256(f"lot-test:{n}".encode()).hexdigest()[:32]
        n += 1


def lot_places(rows: list[StandingsRow], seed: str) -> dict[int, int]:
    """The lot as docs/fairness.md describes it, with the order "lot" alone: equal totals
    whose first place is a prize place are shuffled by `tiebreak:P` over their ids in
    increasing order; position 0 takes P, and so on to 3rd; the rest share the next."""
    ranked = sorted((r for r in rows if r.place is not None), key=lambda r: -r.total_tenths)
    places: dict[int, int] = {}
    place = 1
    for total in sorted({r.total_tenths for r in ranked}, reverse=True):
        tied = sorted(r.user_id for r in ranked if r.total_tenths == total)
        if len(tied) == 1 or place > 3:
            places.update((uid, place) for uid in tied)
        else:
            drawn = shuffle(seed, f"tiebreak:{place}", tied)
            places.update((uid, min(place + i, max(place, 4))) for i, uid in enumerate(drawn))
        place += len(tied)
    return places


def posted_hash(person: SimUser, name: str) -> str:
    """The lot's commitment in the person's private chat: one message, under a spoiler."""
    told = [m for m in person.inbox() if "a lot decides them" in m.content and name in m.content]
    assert len(told) == 1, [m.content for m in person.inbox()]
    assert "docs/fairness.md" in told[0].content
    spoiler = [e for e in told[0].entities if e.get("type") == "spoiler"]
    assert spoiler, told[0].entities
    commitment: str
    [commitment] = HASH.findall(told[0].content)
    return commitment


async def standings_of(table: Table) -> list[StandingsRow]:
    service = table.app.dispatcher["tournaments"]
    return list(await service.standings(await service.judged_by(table.host.id)))


@pytest.mark.rule("T5")
@pytest.mark.rule("S3")
async def test_T5_the_lot_is_committed_at_the_first_tour_and_revealed_at_finish() -> None:
    async with open_game(12, seed=7, lang="en") as table:
        judge = table.host
        seeds = distinct_seeds()
        table.app.service.lobby.new_seed = lambda: next(seeds)
        await register_all(table, table.people, name="Lot Cup")
        # The lot alone decides equal totals at the prize places.
        await say(table, judge, judge.private, "/settings tie_break lot")

        [first] = await play_tour(table, table.people, seed=7)
        # Committed at the first confirm, before any game was dealt: the Judge and every
        # player got the same hash, once.
        commitment = posted_hash(judge, "Lot Cup")
        for person in table.people:
            assert posted_hash(person, "Lot Cup") == commitment
        after_one = await standings_of(table)
        assert any(r.decided_by == "lot" for r in after_one)

        [second] = await play_tour(table, table.people, seed=8)
        for person in [judge, *table.people]:  # the second tour commits nothing anew
            assert posted_hash(person, "Lot Cup") == commitment
        after_two = await standings_of(table)
        game_seeds = set()
        for game_id in (first, second):
            state = await table.app.service.state(game_id)
            assert state is not None
            game_seeds.add(state.seed)
        assert len(game_seeds) == 2

        final = await say(table, judge, judge.private, "/finish confirm")
        assert "Top three" in final
        [seed] = SEED.findall(final)
        # The seed revealed is the one whose hash was posted at the first confirm, and
        # it is no game's seed: the sheets signed after the confirm did not choose it.
        assert hashlib.sha256(seed.encode()).hexdigest() == commitment
        assert commitment in final
        assert seed not in game_seeds
        for person in table.people:
            told = person.inbox()[-1].content
            assert "is over" in told and seed in told and commitment in told

        # Anyone recomputes the lot from the revealed seed and docs/fairness.md, at
        # either point of the tournament: the same seed decided both.
        for rows in (after_one, after_two):
            expected = lot_places(rows, seed)
            assert {r.user_id: r.place for r in rows} == expected
            for r in rows:
                shared = sum(1 for o in rows if o.total_tenths == r.total_tenths)
                if shared > 1 and r.place is not None and r.place <= 3:
                    assert r.decided_by == "lot"


@pytest.mark.rule("T5")
@pytest.mark.rule("S3")
async def test_T5_a_redrawn_first_tour_keeps_the_committed_lot() -> None:
    async with open_game(12, seed=3, lang="en") as table:
        judge = table.host
        seeds = distinct_seeds()
        table.app.service.lobby.new_seed = lambda: next(seeds)
        await register_all(table, table.people, name="Redraw Cup")
        service = table.app.dispatcher["tournaments"]
        tournament = await service.judged_by(judge.id)
        assert await service.lot(tournament) is None  # nothing committed before a tour
        await say(table, judge, judge.private, "/groups confirm")
        lot = await service.lot(tournament)
        assert lot is not None
        assert posted_hash(judge, "Redraw Cup") == lot.commitment
        redrawn = await say(table, judge, judge.private, "/groups redraw")
        assert "drawn anew" in redrawn
        await say(table, judge, judge.private, "/groups cancel")
        await say(table, judge, judge.private, "/groups confirm")
        assert await service.lot(tournament) == lot
        # Still one announcement: the seed committed first is the lot's, for good.
        assert posted_hash(judge, "Redraw Cup") == lot.commitment
        assert lot.revealed_at is None
