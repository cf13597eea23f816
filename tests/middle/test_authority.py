"""Bans, bindings and expulsions only by whom the rules give them to (issue 10).

A V4 ban is written only for a tournament game, once its Judge confirms it; `/bind`
needs an administrator of the chat; the config's Judges list holds for every Judge
command; `/expel` works at a tournament table and never on an administrator.
"""

from __future__ import annotations

import pytest

from bot.cli.demo import RIGHTS, Table
from sandbox import SimMessage, SimUser
from tests.middle.games import open_game
from tests.steps import REGISTRATION, forge, register_all, say, tournament_table, warn_and_confirm

NOT_A_JUDGE = "Only the Judges named in the bot's config"


async def registers(table: Table, person: SimUser, name: str) -> str:
    """A new tournament by the Judge; what the person hears opening its link."""
    before = len(table.host.inbox())
    await say(table, table.host, table.host.private, f"/tournament {name}")
    # The Host's panel may come in the same moment: the link is in one of the new messages.
    created = "\n".join(m.content for m in table.host.inbox()[before:])
    link = REGISTRATION.search(created)
    assert link is not None, created
    await person.open_link(link.group(0))
    await table.settle()
    return str(person.inbox()[-1].content)


@pytest.mark.rule("V4")
async def test_V4_in_a_casual_game_removes_the_player_and_bans_nobody(table: Table) -> None:
    offender = table.people[4]
    proposal = await warn_and_confirm(table, table.group, offender)
    assert "removal from the game" in proposal and "ban" not in proposal
    assert await table.app.service.repos.bans.all() == []
    await table.host.start_bot()
    assert "You are registered" in await registers(table, offender, "Spring Cup")


@pytest.mark.rule("V4")
async def test_V4_a_tournament_ban_waits_for_the_judge_and_only_the_judge() -> None:
    async with open_game(12, seed=8, lang="en") as table:
        chat = await tournament_table(table)
        offender = table.people[5]
        await offender.send(offender.private, "/nick Culprit")
        await table.settle()
        assert "ban" in await warn_and_confirm(table, chat, offender)
        repos = table.app.service.repos
        assert await repos.bans.all() == []  # the Host's confirmation bans nobody
        ask = table.host.inbox()[-1]
        assert "deliberate disruption" in ask.content and offender.first_name in ask.content
        # Nobody but the tournament's Judge decides, whatever the button says.
        stranger = table.people[0]
        press = forge(table, stranger, ask, "b:1:1")
        await table.settle()
        assert press.answer is not None and press.answer.show_alert
        assert await repos.bans.all() == []
        await table.host.press(ask, "Confirm the ban")
        await table.settle()
        assert "Ban confirmed" in table.host.inbox()[-1].content
        [ban] = await repos.bans.all()
        assert ban.user_id == offender.id
        again = await table.host.press(ask, "Decline")  # decided once
        await table.settle()
        assert again.answer is not None and "already been decided" in (again.answer.text or "")
        assert "banned" in await registers(table, offender, "Winter Cup")
        # The Judge lifts it, by nick; the player registers again.
        lifted = await say(table, table.host, table.host.private, "/unban Culprit")
        assert "lifted" in lifted
        assert await repos.bans.all() == []
        assert "You are registered" in await registers(table, offender, "Summer Cup")
        table.sandbox.assert_no_bot_errors()


@pytest.mark.rule("V4")
async def test_V4_the_judge_declines_a_ban_and_another_judge_cannot_lift_one() -> None:
    async with open_game(12, seed=8, lang="en") as table:
        chat = await tournament_table(table)
        offender = table.people[5]
        await warn_and_confirm(table, chat, offender)
        await table.host.press(table.host.inbox()[-1], "Decline")
        await table.settle()
        assert "Ban declined" in table.host.inbox()[-1].content
        assert await table.app.service.repos.bans.all() == []
        # A ban confirmed elsewhere is not a stranger's to lift, not even a Judge's.
        await table.app.service.repos.bans.ban(offender.id, reason="V4", now=0)
        other = table.people[0]
        await say(table, other, other.private, "/tournament Other Cup")
        refused = await say(table, other, other.private, f"/unban {offender.id}")
        assert "no ban of yours" in refused
        assert len(await table.app.service.repos.bans.all()) == 1


async def test_bind_needs_an_administrator_of_the_chat() -> None:
    """A member who made herself a Judge cannot take a club's group as her table."""
    async with open_game(12, seed=2, lang="en") as table:
        # T1: a group seats 12 at least, so Mallory brings eleven friends.
        mallory, *friends = table.people[:12]
        for person in (mallory, *friends):
            await person.start_bot()
        created = await say(table, mallory, mallory.private, "/tournament Takeover")
        link = REGISTRATION.search(created)
        assert link is not None
        for person in (mallory, *friends):
            await person.open_link(link.group(0))
            await table.settle()
        confirmed = await say(table, mallory, mallory.private, "/groups confirm")
        assert "T1R1G1" in confirmed
        refused = await say(table, mallory, table.group, "/bind T1R1G1")
        assert "Only an administrator of this chat" in refused
        assert await table.app.service.repos.tours.group_of_chat(table.group.id) is None
        # The club's owner still opens an ordinary game there.
        await table.host.send(table.group, "/newgame")
        await table.settle()
        game = await table.app.service.active_game(table.group.id)
        assert game is not None and game.host_user_id == table.host.id
        assert game.tournament_id is None


async def test_the_judges_list_holds_for_every_judge_command() -> None:
    async with open_game(12, seed=5, lang="en") as table:
        tournaments = table.app.dispatcher["tournaments"]
        tournaments.judges = frozenset({table.host.id})
        await register_all(table, table.people)
        await say(table, table.host, table.host.private, "/groups confirm")
        # Taken off the list: the tournaments she created are no longer hers to run.
        tournaments.judges = frozenset({table.people[0].id})
        judge = table.host
        for command in (
            "/standings",
            "/groups",
            "/groups confirm",
            "/settings",
            "/settings group_max 15",
            "/finish",
            "/export",
            "/adjust Anna 1 bonus",
            "/replace T1R1G1 Anna Boris",
            "/fix 1 winner mafia recount",
            "/unban 42",
        ):
            answer = await say(table, judge, judge.private, command)
            assert answer.startswith(NOT_A_JUDGE), (command, answer)
        chat = table.sandbox.add_supergroup("Table", owner=judge)
        chat.add_bot(added_by=judge)
        chat.promote_bot(by=judge, **RIGHTS)
        assert (await say(table, judge, chat, "/bind T1R1G1")).startswith(NOT_A_JUDGE)
        assert await table.app.service.repos.tours.group_of_chat(chat.id) is None
        # An empty list: anyone.
        tournaments.judges = frozenset()
        host = table.people[0]
        assert "table T1R1G1" in await say(table, judge, chat, f"/bind T1R1G1 @{host.username}")
        # Off the list again: the table's Host opens it, no longer its Judge.
        tournaments.judges = frozenset({host.id})
        assert "Only the Host" in await say(table, judge, chat, "/newgame")
        assert await table.app.service.active_game(chat.id) is None


async def test_unbind_frees_the_chat_unless_a_game_is_open() -> None:
    async with open_game(24, seed=8, lang="en") as table:
        running = await tournament_table(table)  # a game is running at table 1
        judge, player = table.host, table.people[0]
        assert "A game is open" in await say(table, judge, running, "/unbind")
        chat = table.sandbox.add_supergroup("Table 2", owner=judge)
        chat.promote_bot(by=judge, **RIGHTS)
        chat.add_member(player)
        assert "table T1R1G2" in await say(table, judge, chat, "/bind T1R1G2")
        assert "Only the tournament's Judge" in await say(table, player, chat, "/unbind")
        assert "no longer table 2." in await say(table, judge, chat, "/unbind")
        assert await table.app.service.repos.tours.group_of_chat(chat.id) is None
        assert "not a tournament table" in await say(table, judge, chat, "/unbind")
        await judge.send(chat, "/newgame")  # an ordinary game now
        await table.settle()
        game = await table.app.service.active_game(chat.id)
        assert game is not None and game.tournament_id is None


@pytest.mark.rule("T7")
async def test_T7_expel_works_only_at_a_tournament_table(table: Table) -> None:
    observer = table.sandbox.add_user("Onlooker", language_code="en")
    table.group.add_member(observer)
    said = await observer.send(table.group, "…")
    state = table.state
    assert state is not None
    # Not the speaker: the command goes (D10), and the refusal comes in private.
    player = table.person(next(s for s in state.living() if s != state.speaker))
    expel = await player.send(table.group, "/expel", reply_to=said)
    await table.settle()
    assert table.group.status_of(observer) == "member"
    assert expel.deleted and "tournament table" in player.inbox()[-1].content


@pytest.mark.rule("T7")
async def test_T7_an_observer_is_expelled_but_an_administrator_is_not() -> None:
    async with open_game(12, seed=8, lang="en") as table:
        chat = await tournament_table(table)
        observer = table.sandbox.add_user("Onlooker", language_code="en")
        moderator = table.sandbox.add_user("Moderator", language_code="en")
        chat.add_member(observer)
        chat.add_member(moderator)
        chat.promote(moderator, can_delete_messages=True)
        game = await table.app.service.active_game(chat.id)
        assert game is not None

        async def expel(said: SimMessage, nth: int) -> str:
            """The nth player not speaking now replies /expel; the answer, in private (D10)."""
            state = await table.app.service.state(game.game_id)
            assert state is not None
            seat = [s for s in state.living() if s != state.speaker][nth]
            player = next(p for p in table.people if p.id == state.seats[seat].user_id)
            command = await player.send(chat, "/expel", reply_to=said)
            await table.settle()
            assert command.deleted
            return player.inbox()[-1].content

        said = await moderator.send(chat, "Keep it civil, please.")
        assert "administrator of this chat" in await expel(said, 0)
        assert chat.status_of(moderator) == "administrator"
        said = await observer.send(chat, "…")
        assert "removed from the chat" in await expel(said, 1)
        assert chat.status_of(observer) == "kicked"  # kept out (issue 25 §5)
        table.sandbox.assert_no_bot_errors()
        # The bot lost the right to ban: the player hears which right, not silence.
        chat.promote_bot(by=table.host, **{**RIGHTS, "can_restrict_members": False})
        second = table.sandbox.add_user("Second onlooker", language_code="en")
        chat.add_member(second)
        said = await second.send(chat, "…")
        assert "ban users" in await expel(said, 2)
        assert chat.status_of(second) == "member"


async def test_a_nick_changes_in_every_tournament_or_in_none() -> None:
    async with open_game(12, seed=5, lang="en") as table:
        await register_all(table, table.people)  # tournament 1
        anna = table.people[0]
        created = await say(table, table.host, table.host.private, "/tournament Second")
        link = REGISTRATION.search(created)
        assert link is not None
        await anna.open_link(link.group(0))
        await table.settle()
        carol = table.sandbox.add_user("Carol", language_code="en")
        await carol.open_link(link.group(0))
        await table.settle()
        await say(table, carol, carol.private, "/nick Ace")  # Ace in the second only
        taken = await say(table, anna, anna.private, "/nick Ace")
        assert "taken" in taken
        repos = table.app.service.repos
        for tournament in (1, 2):
            player = await repos.tournaments.player(tournament, anna.id)
            assert player is not None and player.nick == anna.first_name


ABSURD = ("-5", "0", "601", "1e3", "inf", "nan", "NaN", "1" + "0" * 100, "²", "5 6", "0x10")


@pytest.mark.parametrize("value", ABSURD)
async def test_absurd_extend_gets_the_usage_and_changes_nothing(table: Table, value: str) -> None:
    before = table.state
    assert before is not None
    answer = await say(table, table.host, table.group, f"/extend {value}")
    assert answer.startswith("Usage: /extend N")
    after = table.state
    assert after is not None and (after.step, after.deadline) == (before.step, before.deadline)


@pytest.mark.parametrize(
    "command",
    [
        "/settings game.night_seconds inf",
        "/settings game.night_seconds nan",
        "/settings game.night_seconds 1e300",
        "/settings game.night_seconds -60",
        "/settings group_max 99999999999999999999",
        "/settings game.kill_rule anyone",
        "/settings group_min 12 override please",
        "/adjust Anna 99999 too much",
        "/adjust Anna nan x",
        "/adjust Anna inf x",
        "/adjust Anna 1",
        "/fix 1 seat 99999999999 1 x",
        "/fix 1 winner nobody x",
        "/fix " + "9" * 100 + " winner mafia x",
        "/sheet -1",
        "/protocol 1e3",
        "/groups confirm now",
        "/replace T1R1G1 Anna",
    ],
)
async def test_absurd_judge_arguments_get_the_usage_and_change_nothing(command: str) -> None:
    async with open_game(12, seed=5, lang="en") as table:
        judge = table.host
        await judge.start_bot()
        await table.settle()
        created = await say(table, judge, judge.private, "/tournament Cup")
        link = REGISTRATION.search(created)
        assert link is not None
        await table.people[0].open_link(link.group(0))  # Anna, whom /adjust names
        await table.settle()
        tournaments = table.app.dispatcher["tournaments"]
        before = await tournaments.judged_by(judge.id)
        answer = await say(table, judge, judge.private, command)
        assert answer.startswith("Usage: /"), answer
        after = await tournaments.judged_by(judge.id)
        assert after == before
        assert await table.app.service.repos.tours.adjustments(before.tournament_id) == []
        assert await table.app.service.repos.tours.groups(before.tournament_id) == []


def test_commands_menus_name_unban_and_unbind() -> None:
    from bot.views.i18n import Texts
    from handlers.commands import help_text, menus

    shown = {menu.scope: menu.commands for menu in menus()}
    assert "unban" in shown["all_private_chats"]
    assert "unbind" in shown["all_chat_administrators"]
    texts = Texts()
    for lang in ("ru", "en"):
        assert "/unban" in help_text(texts, lang, private=True)
        assert "/unbind" in help_text(texts, lang, private=False)


@pytest.mark.rule("T1")
async def test_T1_a_replacement_changes_the_roster_and_the_lobby_together(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    async with open_game(17, seed=9, lang="en") as table:
        await register_all(table, table.people)
        await say(table, table.host, table.host.private, "/groups confirm")
        [group] = await table.app.service.repos.tours.groups(1, 1)
        judge = table.host
        chat = table.sandbox.add_supergroup("Table", owner=judge)
        chat.promote_bot(by=judge, **RIGHTS)
        await say(table, judge, chat, f"/bind {group.code}")
        await say(table, judge, chat, "/newgame")  # the lobby is open
        reserve = next(p for p in table.people if p.id not in group.players)
        missing = next(p for p in table.people if p.id == group.players[0])
        await say(table, reserve, reserve.private, "/nick Reserve")

        async def broken(game_id: int, user_id: int) -> bool:
            raise RuntimeError("the disk is full")

        monkeypatch.setattr(table.app.service.repos.lobby, "leave", broken)
        await judge.send(judge.private, f"/replace {group.code} {missing.first_name} Reserve")
        await table.settle()
        kept = await table.app.service.repos.tours.group(group.code)
        assert kept is not None and kept.players == group.players  # nothing half-done


@pytest.mark.rule("V4")
async def test_V4_the_judges_question_waits_in_the_outbox_until_it_can_be_sent() -> None:
    """A Judge who cannot be written to at the sanction gets the question on Start."""
    async with open_game(12, seed=8, lang="en") as table:
        chat = await tournament_table(table)
        await table.host.block_bot()
        await table.settle()
        await warn_and_confirm(table, chat, table.people[5])
        assert not any("deliberate disruption" in m.content for m in table.host.inbox())
        [request] = await table.app.service.repos.database.fetch_all(
            "SELECT status FROM ban_requests"
        )
        assert request["status"] == "pending"
        await table.host.start_bot()
        await table.settle()
        ask = next(m for m in table.host.inbox() if "deliberate disruption" in m.content)
        await table.host.press(ask, "Confirm the ban")
        await table.settle()
        assert len(await table.app.service.repos.bans.all()) == 1
