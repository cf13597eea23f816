"""Registration: the deep link, nicks, withdrawing, and finding players by nick in a
Judge's command (T1, T5)."""

from __future__ import annotations

import re
from collections.abc import Callable

from bot.services.judge.desk import Desk
from bot.services.judge.refusals import TournamentError
from bot.tournament.natural import natural_key
from bot.views.i18n import escape
from bot.views.render import Post
from storage.nicks import clean_nick, looks_like, nick_key
from storage.tournaments import PlayerStatus, Tournament, TournamentPlayer, TournamentStatus


class Registration:
    """The players' side of the desk: joining, nicks, leaving."""

    def __init__(self, desk: Desk) -> None:
        self.desk = desk
        self.games = desk.games
        self.repos = desk.repos

    async def register(self, token: str, user_id: int, nick: str) -> Tournament:
        """The registration deep link: `token` names the tournament (no guessable number)."""
        tournament = await self.repos.tournaments.by_reg_token(token)
        if tournament is None:
            raise TournamentError("tournament.no_such_link")
        if tournament.status is TournamentStatus.FINISHED:
            raise TournamentError("tournament.closed")
        if not tournament.registration_open:
            raise TournamentError("tournament.registration_closed", name=escape(tournament.name))
        if await self.repos.bans.get(user_id) is not None:
            raise TournamentError("tournament.banned")  # V4
        tournament_id = tournament.tournament_id
        if await self.repos.tournaments.player(tournament_id, user_id) is not None:
            raise TournamentError("tournament.already", name=escape(tournament.name))
        # A nick that is another's, or renders like it, gets a number: "Anna 2".
        others = [p.nick for p in await self.repos.tournaments.players(tournament_id)]
        taken = {nick_key(n) for n in others} | {looks_like(n) for n in others}
        base, number = clean_nick(nick) or str(user_id), 2
        free = base
        while nick_key(free) in taken or looks_like(free) in taken:
            free, number = f"{base} {number}", number + 1
        await self.repos.tournaments.register(
            tournament_id, user_id, nick=free, now=self.games.clock.now()
        )
        return tournament

    async def tournament_of_player(self, user_id: int) -> Tournament | None:
        """The tournament a player is registered in: a running one first, then the newest."""
        return await self.repos.tournaments.current_of_player(user_id)

    async def set_registration(self, tournament: Tournament, is_open: bool) -> None:
        await self.repos.tournaments.set_registration_open(tournament.tournament_id, is_open)

    async def player_by_nick(self, tournament_id: int, nick: str) -> TournamentPlayer:
        """The one way a Judge's command finds a player: by the whole nick, any case.

        A nick that names nobody exactly is refused, with the nicks it could have meant:
        "/adjust Ann" never lands on Anna, nor on Annabel.
        """
        found = await self.repos.tournaments.by_nick(tournament_id, nick)
        if found is not None:
            return found
        key = nick_key(nick)
        candidates = sorted(
            (
                p.nick
                for p in await self.repos.tournaments.players(tournament_id)
                if key and key in nick_key(p.nick)
            ),
            key=natural_key,
        )
        if candidates:
            raise TournamentError(
                "nick.candidates",
                nick=escape(nick),
                candidates=", ".join(escape(c) for c in candidates[:10]),
            )
        raise TournamentError("nick.unknown", nick=escape(nick))

    async def players_by_nicks(
        self,
        tournament_id: int,
        words: list[str],
        count: int,
        rest: int = 0,
        fits: Callable[[list[str]], bool] = lambda after: True,
    ) -> tuple[list[TournamentPlayer], list[str]]:
        """`count` nicks (a nick may have spaces) from the start of `words`, then the rest.

        `rest` is how many words at least follow the nicks (0: none may), and `fits` says
        whether they make sense (e.g. the points of /adjust). Every way of cutting the
        words into `count` nicks is tried; exactly one must name registered players, or
        the command is refused: with the candidates for a nick that names nobody, or as
        ambiguous.
        """
        found: list[tuple[list[TournamentPlayer], list[str]]] = []
        first_error: TournamentError | None = None
        for cuts in _cuts(len(words) - rest, count):
            if rest == 0 and cuts[-1][1] != len(words):
                continue  # nothing may follow the nicks: they take every word
            if not fits(words[cuts[-1][1] :]):
                continue
            nicks = [" ".join(words[a:b]) for a, b in cuts]
            try:
                players = [await self.player_by_nick(tournament_id, n) for n in nicks]
            except TournamentError as error:
                first_error = first_error or error
                continue
            found.append((players, words[cuts[-1][1] :]))
        if len(found) == 1:
            return found[0]
        if found:
            candidates = {p.nick: None for players, _ in found for p in players}
            raise TournamentError(
                "nick.ambiguous", candidates=", ".join(escape(c) for c in candidates)
            )
        raise first_error or TournamentError("nick.unknown", nick=escape(" ".join(words)))

    async def unregister(self, tournament: Tournament, player: TournamentPlayer) -> bool:
        """The Judge's /unregister: True if the registration is gone, False if withdrawn.

        First they leave every confirmed group whose game has not begun (a lobby's roster
        too). A player who was already seated in a tour keeps their sheets and standings:
        they are withdrawn (listed, not placed, T5; no later tour seats them). Anyone else
        is simply deleted.
        """
        tid = tournament.tournament_id
        async with self.repos.database.transaction():
            await self.desk.leave_unplayed_groups(tid, player.user_id)
            played = any(player.user_id in g.players for g in await self.repos.tours.groups(tid))
        if played:
            await self.repos.tournaments.set_player_status(
                tid, player.user_id, PlayerStatus.WITHDRAWN
            )
        else:
            await self.repos.tournaments.unregister(tid, player.user_id)
        lang = await self.games.user_lang(player.user_id)
        text = self.games.t(lang, "unregister.told", name=escape(tournament.name))
        await self.games.sender.deliver(0, [Post(player.user_id, text)])
        return not played

    async def set_nick(self, user_id: int, nick: str) -> int:
        """`/nick`: the player's nick in every tournament they are registered in."""
        nick = clean_nick(nick)  # one line of printable text (issue 25)
        if not nick:
            raise TournamentError("tournament.nick_usage")
        count = 0
        # Every tournament or none: a nick taken in the third leaves the first two as they were.
        async with self.repos.database.transaction():
            for tournament_id in await self.repos.tournaments.ids_of_player(user_id):
                try:
                    await self.repos.tournaments.set_player_nick(tournament_id, user_id, nick)
                except Exception as error:  # the nick is taken in that tournament
                    raise TournamentError("tournament.nick_taken", nick=escape(nick)) from error
                count += 1
            await self.repos.users.set_nick(user_id, nick)
        return count


_WORD = re.compile(r'"([^"]*)"|«([^»]*)»|(\S+)')


def words_of(text: str) -> list[str]:
    """A command's arguments as words; a nick in quotes ("Anna 2" or «Анна 2») is one."""
    return [next(g for g in m.groups() if g is not None) for m in _WORD.finditer(text)]


def _cuts(length: int, count: int) -> list[list[tuple[int, int]]]:
    """Every way to cut words[0:n] (n <= length) into `count` non-empty runs, in order."""
    if count == 0:
        return [[]]
    found = []
    for end in range(1, length - count + 2):
        for later in _cuts(length - end, count - 1):
            found.append([(0, end), *((a + end, b + end) for a, b in later)])
    return found
