"""What an outsider cannot do at a tournament (issue 25 §5): create tournaments without
end, lift another Judge's ban, or come back to a table's chat once expelled (T7, V4)."""

from __future__ import annotations

import pytest

from bot.services.judge import OPEN_TOURNAMENTS, TournamentError
from storage.chats import ChatType
from storage.tournaments import TournamentStatus
from tests.middle.games import open_game
from tests.steps import INVITE, REGISTRATION, say, tournament_table, warn_and_confirm


@pytest.mark.rule("T1")
async def test_one_person_has_at_most_so_many_tournaments_open() -> None:
    """With `[access] judges` empty anyone may create a tournament, but not without end:
    the next one is refused in words until one is finished, and nothing is created."""
    assert 1 <= OPEN_TOURNAMENTS <= 10
    async with open_game(12, seed=2, lang="ru") as table:
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


@pytest.mark.rule("V4")
async def test_a_ban_another_judge_also_confirmed_is_not_lifted_by_one_of_them() -> None:
    """Issue 25 §5: a ban is one for every tournament; when two Judges each confirmed it,
    neither's /unban lifts the other's decision, and the reply says why."""

    async with open_game(12, seed=8, lang="en") as table:
        chat = await tournament_table(table)
        offender = table.people[5]
        await offender.send(offender.private, "/nick Culprit")
        await table.settle()
        await warn_and_confirm(table, chat, offender)
        await table.host.press(table.host.inbox()[-1], "Confirm the ban")
        await table.settle()
        repos = table.app.service.repos
        [ban] = await repos.bans.all()
        assert ban.user_id == offender.id
        # Another Judge's tournament, where the same player's ban was asked and confirmed.
        other = table.people[0]
        await other.start_bot()
        await table.settle()
        await say(table, other, other.private, "/tournament Their Cup")
        theirs = await table.app.dispatcher["tournaments"].judged_by(other.id)
        await repos.chats.upsert(-10_777, type=ChatType.SUPERGROUP, title="Their table")
        game = await repos.games.create(
            chat_id=-10_777, host_user_id=other.id, settings_json="{}", now=0.0,
            tournament_id=theirs.tournament_id,
        )  # fmt: skip
        asked = await repos.ban_requests.ask(
            tournament_id=theirs.tournament_id, game_id=game.game_id, user_id=offender.id,
            reason="V4", now=1.0,
        )  # fmt: skip
        assert await repos.ban_requests.decide(asked.request_id, confirm=True, now=2.0)

        for judge, nick in ((table.host, "Culprit"), (other, str(offender.id))):
            refused = await say(table, judge, judge.private, f"/unban {nick}")
            assert "so it stays" in refused and "is lifted" not in refused, refused
            assert len(await repos.bans.all()) == 1
        mine = await table.app.dispatcher["tournaments"].judged_by(table.host.id)
        assert mine.name in (await say(table, other, other.private, f"/unban {offender.id}"))
        lifting = await say(table, table.host, table.host.private, "/unban Culprit")
        assert "Their Cup" in lifting
        # A stranger with no confirmation of their own still hears "no ban of yours".
        third = table.people[1]
        await third.start_bot()
        await table.settle()
        await say(table, third, third.private, "/tournament Третий")
        assert "no ban of yours" in await say(table, third, third.private, f"/unban {offender.id}")
        assert len(await repos.bans.all()) == 1
        table.sandbox.assert_no_bot_errors()


@pytest.mark.rule("T7")
async def test_an_expelled_observer_stays_out_and_a_tables_link_seats_only_its_roster() -> None:
    """Issue 25 §5: /expel used to unban at once, and the table's invite link had no member
    limit, so the observer came back by the same link. The link now lets in as many as the
    table seats, and the expelled observer is kept out by Telegram for a week."""
    from handlers.judge import EXPELLED_DAYS
    from sandbox.api_errors import SimulationError

    async with open_game(12, seed=8, lang="en") as table:
        chat = await tournament_table(table)
        [made] = table.sandbox.calls("createChatInviteLink", ok=True)
        assert made.params["member_limit"] == 12  # the roster, every one of them in now
        links = [INVITE.search(m.content) for m in table.people[3].inbox()]
        link = next(found for found in reversed(links) if found is not None)
        observer = table.sandbox.add_user("Onlooker", language_code="en")
        with pytest.raises(SimulationError, match="member limit"):
            await observer.join_by_link(link.group(0))  # a player handed it on: no room

        chat.add_member(observer)
        said = await observer.send(chat, "I know who the mafia is")
        game = await table.app.service.active_game(chat.id)
        assert game is not None
        state = await table.app.service.state(game.game_id)
        assert state is not None
        seat = next(s for s in state.living() if s != state.speaker)
        player = next(p for p in table.people if p.id == state.seats[seat].user_id)
        await player.send(chat, "/expel", reply_to=said)
        await table.settle()
        assert "cannot come back for 7 days" in player.inbox()[-1].content
        assert chat.status_of(observer) == "kicked"
        [ban] = table.sandbox.calls("banChatMember", ok=True)
        assert ban.params["until_date"] - table.clock.now() >= EXPELLED_DAYS * 86400 - 60
        assert table.sandbox.calls("unbanChatMember") == []
        # Any link, even a fresh one without a limit, is refused to them by Telegram.
        fresh = await table.bot.create_chat_invite_link(chat.id)
        with pytest.raises(SimulationError, match="banned"):
            await observer.join_by_link(fresh.invite_link)
        # The ban ends by itself a week on.
        table.clock.set(table.clock.now() + EXPELLED_DAYS * 86400 + 1)
        await observer.join_by_link(fresh.invite_link)
        assert chat.status_of(observer) == "member"
        table.sandbox.assert_no_bot_errors()
