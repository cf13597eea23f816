"""What an outsider cannot do at a tournament (issue 25 §5): create tournaments without
end, lift another Judge's ban, or come back to a table's chat once expelled (T7, V4)."""

from __future__ import annotations

import pytest

from bot.demo import open_table
from bot.tournaments import OPEN_TOURNAMENTS, TournamentError
from storage.tournaments import TournamentStatus
from tests.e2e.test_tournament import REGISTRATION, say


@pytest.mark.rule("T1")
async def test_one_person_has_at_most_so_many_tournaments_open() -> None:
    """With `[access] judges` empty anyone may create a tournament, but not without end:
    the next one is refused in words until one is finished, and nothing is created."""
    assert 1 <= OPEN_TOURNAMENTS <= 10
    async with open_table(12, seed=2, lang="ru") as table:
        stranger = table.people[0]
        await stranger.start_bot()
        await table.settle()
        for n in range(OPEN_TOURNAMENTS):
            created = await say(table, stranger, stranger.private, f"/tournament Кубок {n}")
            assert REGISTRATION.search(created), created
        refused = await say(table, stranger, stranger.private, "/tournament Ещё один")
        assert REGISTRATION.search(refused) is None
        assert f"одновременно: {OPEN_TOURNAMENTS}" in refused and "/finish" in refused
        repository = table.app.service.repos.tournaments
        assert len(await repository.of_judge(stranger.id)) == OPEN_TOURNAMENTS
        # Another person is not held by the first one's tournaments.
        other = table.people[1]
        await other.start_bot()
        await table.settle()
        assert REGISTRATION.search(await say(table, other, other.private, "/tournament Свой"))
        # Finished, one makes room for the next; reopened, it would be one too many.
        await say(table, stranger, stranger.private, "/finish")
        assert "/finish reopen" in await say(table, stranger, stranger.private, "/finish")
        again = await say(table, stranger, stranger.private, "/tournament Новый")
        assert REGISTRATION.search(again)
        mine = await repository.of_judge(stranger.id)
        assert len(mine) == OPEN_TOURNAMENTS + 1
        [done] = [t for t in mine if t.status is TournamentStatus.FINISHED]
        with pytest.raises(TournamentError) as error:
            await table.app.dispatcher["tournaments"].reopen(done, stranger.id)
        assert error.value.key == "tournament.too_many"
        still = await repository.get(done.tournament_id)
        assert still is not None and still.status is TournamentStatus.FINISHED
        table.sandbox.assert_no_bot_errors()
