"""The lobby through the handlers: open, join, leave, who may begin (T1, S2)."""

from __future__ import annotations

import json

from bot.rules.events import Phase
from handlers.lobby import refresh_lobby
from storage.games import GameStatus
from tests.middle.harness import Desk


async def test_newgame_posts_the_lobby_with_its_join_link(desk: Desk) -> None:
    mark = desk.mark()
    await desk.send(desk.host, "/newgame")

    game = await desk.app.service.active_game(desk.group.id)
    assert game is not None and game.status is GameStatus.LOBBY
    assert game.host_user_id == desk.host.id
    posts = desk.sent("sendMessage", chat=desk.group.id, since=mark)
    lobby = next(post for post in posts if f"Game #{game.game_id}" in post.text)
    link = f"start=join_{game.join_token}"
    assert link in json.loads(lobby.params["reply_markup"])["inline_keyboard"][0][0]["url"]
    # The post the group sees is the one the lobby remembers (it is edited at each join).
    assert game.lobby_message_id == lobby.result["message_id"]


async def test_joining_by_the_link_seats_the_player_and_edits_the_lobby(desk: Desk) -> None:
    await desk.send(desk.host, "/newgame")
    game = await desk.app.service.active_game(desk.group.id)
    assert game is not None
    anna = desk.people[0]
    mark = desk.mark()

    await desk.join(anna)

    told = desk.sent("sendMessage", chat=anna.id, since=mark)
    assert [post.text for post in told] == [
        desk.t("lobby.joined", game=game.game_id, title="Mafia Club")
    ]
    edits = desk.sent("editMessageText", chat=desk.group.id, since=mark)
    assert len(edits) == 1 and anna.first_name in edits[0].text
    assert edits[0].params["message_id"] == str(game.lobby_message_id)
    players = await desk.app.service.repos.lobby.players(game.game_id)
    assert [player.user_id for player in players] == [anna.id]


async def test_leave_takes_the_player_out_and_a_second_leave_is_refused(lobby: Desk) -> None:
    assert lobby.game_id is not None
    boris = lobby.people[1]
    mark = lobby.mark()

    await lobby.send(boris, "/leave")

    players = await lobby.app.service.repos.lobby.players(lobby.game_id)
    assert boris.id not in {player.user_id for player in players}
    assert len(players) == len(lobby.people) - 1
    edits = lobby.sent("editMessageText", chat=lobby.group.id, since=mark)
    assert edits and boris.first_name not in edits[-1].text
    mark = lobby.mark()
    await lobby.send(boris, "/leave")
    said = [post.text for post in lobby.sent("sendMessage", since=mark)]
    assert said == [lobby.t("lobby.not_in")]


async def test_begin_by_a_player_is_refused_and_the_lobby_stays(lobby: Desk) -> None:
    assert lobby.game_id is not None
    mark = lobby.mark()

    await lobby.send(lobby.people[2], "/begin")

    said = [post.text for post in lobby.sent("sendMessage", since=mark)]
    assert said == [lobby.t("host.only_host")]
    game = await lobby.app.service.repos.games.get(lobby.game_id)
    assert game is not None and game.status is GameStatus.LOBBY
    assert lobby.state is None  # no game state: nothing was dealt
    assert lobby.sent("pinChatMessage", since=mark) == []


async def test_begin_by_the_host_deals_the_cards_and_pins_the_table(lobby: Desk) -> None:
    mark = lobby.mark()

    state = await lobby.begin()

    assert state.phase is Phase.INTRODUCTION and state.day == 0
    cards = [post for post in lobby.sent("sendMessage", since=mark) if "Your card" in post.text]
    assert sorted(post.chat_id or 0 for post in cards) == sorted(p.id for p in lobby.people)
    assert len(lobby.sent("pinChatMessage", chat=lobby.group.id, since=mark)) == 1


async def test_status_in_the_lobby_and_without_a_game(desk: Desk) -> None:
    mark = desk.mark()
    await desk.send(desk.people[0], "/status")
    await desk.send(desk.host, "/newgame")
    between = desk.mark()
    await desk.send(desk.people[0], "/status")

    assert desk.sent("sendMessage", since=mark)[0].text == desk.t("status.none")
    assert desk.sent("sendMessage", since=between)[-1].text == desk.t("status.lobby")


async def test_a_second_newgame_is_refused_while_the_lobby_is_open(lobby: Desk) -> None:
    assert lobby.game_id is not None
    mark = lobby.mark()

    await lobby.send(lobby.host, "/newgame")

    said = [post.text for post in lobby.sent("sendMessage", since=mark)]
    assert said == [lobby.t("lobby.exists")]
    game = await lobby.app.service.active_game(lobby.group.id)
    assert game is not None and game.game_id == lobby.game_id


async def test_two_joins_shown_by_one_edit_make_no_second_edit(desk: Desk) -> None:
    """Both seats are taken before the first refresh reads the lobby (two Join presses a
    moment apart): its edit shows both, and the second refresh, finding the post showing
    what it would, sends nothing (Telegram would refuse it: "message is not modified")."""
    await desk.send(desk.host, "/newgame")
    game = await desk.app.service.active_game(desk.group.id)
    assert game is not None
    anna, boris = desk.people[:2]
    for person in (anna, boris):
        seated = await desk.app.service.join(game, person.id, person.first_name)
        assert seated.joined
    mark = desk.mark()

    t = desk.app.dispatcher["t"]
    for _ in range(2):  # each join's refresh, one after the other
        await desk.call(refresh_lobby(desk.app.service, t, game, desk.bot))

    (edit,) = desk.sent("editMessageText", chat=desk.group.id, since=mark)
    assert anna.first_name in edit.text and boris.first_name in edit.text
    assert not desk.refused()
