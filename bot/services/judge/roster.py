"""A table's roster and chat (T1): binding a chat to a group, its invite links, a
substitute in a missing player's place, and the lobby the Host opens there."""

from __future__ import annotations

import contextlib
import json
from dataclasses import replace

from bot.delivery.papers import revoke_invite
from bot.rules.codec import to_json
from bot.services.judge.bans import OutOfTournament
from bot.services.judge.desk import Desk
from bot.services.judge.refusals import TournamentError
from bot.tournament.scoring import Scheme
from bot.tournament.tables import table_number
from bot.views.i18n import escape
from bot.views.render import Post
from storage.games import Game, GameStatus
from storage.tournaments import TournamentPlayer
from storage.tours import TourGroup


class Roster:
    """One table's people and chat; it asks `out` before seating a substitute."""

    def __init__(self, desk: Desk, out: OutOfTournament) -> None:
        self.desk = desk
        self.out = out
        self.games = desk.games
        self.repos = desk.repos

    async def bind(self, code: str, chat_id: int, judge_id: int, host_id: int) -> TourGroup:
        self.desk.check_judge(judge_id)
        group = await self.repos.tours.group(code)
        if group is None:
            raise TournamentError("bind.unknown", code=escape(code))
        tournament = await self.repos.tournaments.get(group.tournament_id)
        assert tournament is not None
        if tournament.judge_user_id != judge_id:
            raise TournamentError("tournament.judge_only")
        await self.repos.tours.bind(code, chat_id, host_id)
        bound = await self.repos.tours.group(code)
        assert bound is not None
        return bound

    async def unbind(self, group: TourGroup) -> None:
        """The chat is no longer the group's table: the invitations to it are revoked too."""
        await self.repos.tours.unbind(group.code)
        await self.revoke_invites([group.code])

    async def keep_invite(self, code: str, chat_id: int, link: str) -> None:
        """Keep an invite link made to table `code`'s chat, to revoke it with a void tour."""
        await self.repos.tours.add_invite(code, chat_id, link, now=self.games.clock.now())

    async def revoke_invites(self, codes: list[str]) -> None:
        """Revoke every invite link kept for the tables `codes` (revokeChatInviteLink).

        A link Telegram no longer knows, or a chat the bot has lost (it can no longer
        invite anyone there either), is forgotten all the same; any other failure keeps
        the link, to be revoked with the next void tour of that table.
        """
        for chat_id, link in await self.repos.tours.invites(codes):
            if await revoke_invite(self.games.sender.bot, chat_id, link):
                await self.repos.tours.drop_invite(link)

    async def invite(self, group: TourGroup, link: str, title: str) -> None:
        """Send each player of the group the invite link to its game chat."""
        posts = []
        for user_id in group.players:
            lang = await self.games.user_lang(user_id)
            text = self.games.t(
                lang,
                "bind.invite",
                link=link,
                title=escape(title),
                tour=group.tour,
                table=table_number(group.code),
            )
            posts.append(Post(user_id, text))
        await self.games.sender.deliver(0, posts)

    async def check_substitute(self, group: TourGroup, sub: TournamentPlayer) -> None:
        """`/replace`: refused for a player out of the tournament (RULES V, T5) or seated
        at another table of the same tour (T1: one table a tour)."""
        tid = group.tournament_id
        if sub.user_id in await self.out.out_players(tid):
            raise TournamentError("replace.out_of_tournament", nick=escape(sub.nick))
        for other in await self.repos.tours.groups(tid, group.tour):
            if other.code != group.code and sub.user_id in other.players:
                raise TournamentError("replace.elsewhere", nick=escape(sub.nick), code=other.code)

    async def tell_replaced(
        self, group: TourGroup, out: int, sub: int, link: str | None, title: str
    ) -> None:
        """The replaced player hears they no longer play there; the substitute hears where
        they play, with the chat's invite link when the table has its chat."""
        values = {"tour": group.tour, "table": table_number(group.code)}
        out_lang, sub_lang = await self.games.user_lang(out), await self.games.user_lang(sub)
        told_in = (
            self.games.t(sub_lang, "replace.told_in_link", link=link, title=escape(title), **values)
            if link
            else self.games.t(sub_lang, "replace.told_in", **values)
        )
        posts = [
            Post(out, self.games.t(out_lang, "replace.told_out", **values)),
            Post(sub, told_in),
        ]
        await self.games.sender.deliver(0, posts)

    async def open_table(
        self, group: TourGroup, chat_id: int, thread_id: int | None = None
    ) -> Game:
        """The Host's /newgame in a bound chat: a lobby whose roster is the group (T1); in
        a forum, in the topic it was sent in (`thread_id`), where the game then lives."""
        tournament = await self.repos.tournaments.get(group.tournament_id)
        assert tournament is not None
        settings = self.desk.settings(tournament)
        scheme = Scheme.of(settings)  # T3, T4: the scheme it is played under
        size = len(group.players)
        # T1: the table begins with any count its group bounds allow, a no-show or two
        # short of its roster; the game scheme has a roles entry for each such count.
        low = min(size, max(settings.group_min, settings.game.min_players))
        game_settings = replace(settings.game, min_players=low, max_players=size)
        async with self.repos.database.transaction():  # no lobby without its group
            game = await self.repos.games.create(
                chat_id=chat_id,
                host_user_id=group.host_user_id or tournament.judge_user_id,
                settings_json=json.dumps(to_json(game_settings)),
                now=self.games.clock.now(),
                tournament_id=group.tournament_id,
                scoring_json=json.dumps(scheme.to_json()),
                thread_id=thread_id,
            )
            await self.repos.tours.set_game(group.code, game.game_id)
        self.games.sender.place(game.game_id, game.chat_id, game.thread_id)
        return game

    async def replace(self, group: TourGroup, out: int, sub: int) -> Game | None:
        """`/replace`: `sub` takes `out`'s place in the group (T1); the open lobby, which it
        returns to be shown anew, loses `out` with it.

        Refused once the table's game is dealt: the seats and roles are the protocol's (S1,
        S3, T3), whoever drops out of a running game is the Host's to /remove, and the sheet
        keeps the table as dealt.
        """
        game = await self.repos.games.get(group.game_id) if group.game_id is not None else None
        if game is not None and game.status in (GameStatus.RUNNING, GameStatus.OVER):
            raise TournamentError("replace.begun", code=group.code, game=game.game_id)
        lobby = game if game is not None and game.status is GameStatus.LOBBY else None
        # The roster and the lobby change together, under the game's lock: the missing
        # player is never left waiting at a table whose roster no longer names them.
        held = self.games.lock(lobby.game_id) if lobby else contextlib.nullcontext()
        async with held:
            if lobby is not None:
                current = await self.repos.games.get(lobby.game_id)
                if current is None or current.status is not GameStatus.LOBBY:  # dealt meanwhile
                    raise TournamentError("replace.begun", code=group.code, game=lobby.game_id)
            async with self.repos.database.transaction():
                await self.repos.tours.replace_player(group.code, out, sub)
                if lobby is not None:
                    await self.repos.lobby.leave(lobby.game_id, out)
        return lobby
