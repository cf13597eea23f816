"""The tournament service: registration, tours and groups, sheets, standings (T1-T7).

Like the game service, it is the one door the Judge's handlers go through. The
arithmetic (splits, points, places) is the pure `bot.tournament` core; this module
stores, looks up and tells people.
"""

from __future__ import annotations

import asyncio
import json
import logging
import re
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, fields, replace
from typing import Any

from aiogram.exceptions import TelegramAPIError, TelegramBadRequest, TelegramForbiddenError
from aiogram.types import BufferedInputFile

from bot.rules.codec import to_json
from bot.rules.draws import commitment
from bot.rules.errors import BadSettings
from bot.rules.protocol import entry_from_json, public_entries
from bot.rules.sanctions import Penalty, disqualifies
from bot.rules.sheet import SheetRow, sheet
from bot.rules.state import GameState
from bot.services.game import GameService
from bot.tournament.groups import Split, split
from bot.tournament.natural import natural_key
from bot.tournament.protocol_sheet import (
    Correction,
    ProtocolSheet,
    corrected,
    protocol_sheet,
    scheme_change,
)
from bot.tournament.record import TournamentOffence, offences_in_game
from bot.tournament.scoring import Scheme, win_tenths
from bot.tournament.settings import (
    SettingChange,
    TournamentSettings,
    check_judge_value,
    diff_settings,
    parse_tie_break,
    settings_from_json,
    settings_to_json,
)
from bot.tournament.standings import Adjustment, StandingsRow, sheets_csv, standings, standings_csv
from bot.tournament.stats import PlayerStats, everyone, player_stats, scored_rows, stats_csv
from bot.tournament.tables import table_code, table_number
from bot.tournament.tiebreak import break_ties, records
from bot.tournament.tours import (
    Table,
    TableState,
    absent,
    begun,
    redraw_seed,
    table_state,
    unfinished,
)
from bot.views.callbacks import BanCb
from bot.views.i18n import escape
from bot.views.render import Button, Post, named
from bot.views.settings import change_lines
from bot.views.sheet import sheet_html, sheet_message
from storage.games import Game, GameStatus
from storage.nicks import clean_nick, looks_like, nick_key
from storage.tournaments import (
    PlayerStatus,
    Tournament,
    TournamentLot,
    TournamentPlayer,
    TournamentStatus,
)
from storage.tours import TourGroup
from storage.users import BanRequest

log = logging.getLogger(__name__)

# Tournaments one person may have open at once, unless `[access]` says otherwise.
OPEN_TOURNAMENTS = 3


class TournamentError(Exception):
    """A Judge's request that cannot be done; `key` names the text that says why."""

    def __init__(self, key: str, **values: object) -> None:
        super().__init__(key)
        self.key = key
        self.values = values


class TablesUnfinished(TournamentError):
    """A tour (or the tournament) cannot go on: `tables` are what keeps it, by state."""

    def __init__(self, key: str, tables: list[Table], **values: object) -> None:
        super().__init__(key, **values)
        self.tables = tables


@dataclass(frozen=True)
class SignedSheet:
    game: Game
    rows: list[SheetRow]
    changes: list[str]
    scheme: Scheme  # T3, T4: what it is scored by (as played, or as the Judge rescored it)


class TournamentService:
    def __init__(
        self,
        games: GameService,
        judges: frozenset[int] = frozenset(),
        open_tournaments: int = OPEN_TOURNAMENTS,
    ) -> None:
        self.games = games
        self.repos = games.repos
        self.judges = judges  # the config's allow-list; empty: anyone may be a Judge
        # How many tournaments one person may have open at once (`[access]`).
        self.open_tournaments = open_tournaments

    # --- creating and registering -------------------------------------------------

    def may_judge(self, user_id: int) -> bool:
        """The config's `[access] judges` names the user, or names nobody."""
        return not self.judges or user_id in self.judges

    def _check_judge(self, user_id: int) -> None:
        # Every Judge command, not only /tournament: someone taken off the list loses
        # the commands of the tournaments they created.
        if not self.may_judge(user_id):
            raise TournamentError("tournament.not_allowed")

    async def create(self, name: str, judge_id: int) -> Tournament:
        self._check_judge(judge_id)
        if not name.strip():
            raise TournamentError("tournament.usage")
        # Counted and created in one transaction: two /tournament at once make one.
        async with self.repos.database.transaction():
            mine = await self.repos.tournaments.of_judge(judge_id)
            open_now = [t for t in mine if t.status is not TournamentStatus.FINISHED]
            if len(open_now) >= self.open_tournaments:
                raise TournamentError("tournament.too_many", limit=self.open_tournaments)
            return await self.repos.tournaments.create(
                name=name.strip()[:100],
                judge_user_id=judge_id,
                settings_json=settings_to_json(TournamentSettings()),
                now=self.games.clock.now(),
            )

    async def judged_by(self, user_id: int) -> Tournament:
        """The Judge's current tournament: the newest they created."""
        self._check_judge(user_id)
        mine = await self.repos.tournaments.of_judge(user_id)
        if not mine:
            raise TournamentError("tournament.none")
        return mine[0]

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
        row = await self.repos.database.fetch_one(
            "SELECT t.tournament_id FROM tournament_players p JOIN tournaments t "
            "USING (tournament_id) WHERE p.user_id = ? "
            "ORDER BY t.status = 'finished', t.tournament_id DESC LIMIT 1",
            (user_id,),
        )
        return None if row is None else await self.repos.tournaments.get(row["tournament_id"])

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
            await self._leave_unplayed_groups(tid, player.user_id)
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
            rows = await self.repos.database.fetch_all(
                "SELECT tournament_id FROM tournament_players WHERE user_id = ?", (user_id,)
            )
            for row in rows:
                try:
                    await self.repos.tournaments.set_player_nick(
                        row["tournament_id"], user_id, nick
                    )
                except Exception as error:  # the nick is taken in that tournament
                    raise TournamentError("tournament.nick_taken", nick=escape(nick)) from error
                count += 1
            await self.repos.users.set_nick(user_id, nick)
        return count

    # --- who is out (RULES V, T5) ----------------------------------------------------

    async def out_players(self, tournament_id: int) -> dict[int, str]:
        """Everyone out of the tournament, and why: "disqualified", "removed" (V4, V6),
        "banned" (a confirmed ban, here or in another tournament) or "withdrawn".

        Read from the games' sanctions (the protocol, so a replay gives the same answer),
        the players' stored status and the bans: none of them is proposed, seated nor
        substituted in, and none is placed (T5). A V4 ban the Judge declined removed the
        player from that game only.
        """
        declined = {
            (row["game_id"], row["user_id"])
            for row in await self.repos.database.fetch_all(
                "SELECT game_id, user_id FROM ban_requests "
                "WHERE tournament_id = ? AND status = 'declined'",
                (tournament_id,),
            )
        }
        why: dict[int, str] = {}
        for offence in await self.offences(tournament_id):
            if not disqualifies(offence.penalty):
                continue
            if offence.penalty is Penalty.BAN and (offence.game_id, offence.user_id) in declined:
                continue
            reason = "disqualified" if offence.penalty is Penalty.DISQUALIFICATION else "removed"
            if why.get(offence.user_id) != "disqualified":
                why[offence.user_id] = reason
        for player in await self.repos.tournaments.players(tournament_id):
            uid = player.user_id
            if await self.repos.bans.get(uid) is not None:
                why[uid] = "banned"
            elif player.status is PlayerStatus.DISQUALIFIED:
                why.setdefault(uid, "disqualified")
            elif player.status is PlayerStatus.WITHDRAWN:
                why.setdefault(uid, "withdrawn")
        return why

    async def _leave_unplayed_groups(self, tournament_id: int, user_id: int) -> list[int]:
        """Take the player off every group whose game has not begun; the lobbies they left."""
        lobbies = []
        for group in await self.repos.tours.groups(tournament_id):
            if user_id not in group.players:
                continue
            game = await self.repos.games.get(group.game_id) if group.game_id else None
            if game is not None and game.status is not GameStatus.LOBBY:
                continue  # begun or over: the game's sheet keeps them
            await self.repos.tours.remove_player(group.code, user_id)
            if game is not None:
                await self.repos.lobby.leave(game.game_id, user_id)
                lobbies.append(game.game_id)
        return lobbies

    async def put_out(
        self, game: Game, state: GameState, seat: int, penalty: Penalty
    ) -> tuple[Post, int] | None:
        """A sanction that ends the player's tournament (RULES V), in its transaction: the
        status is stored, later unplayed tables lose them, and the Judge's message is
        queued (sent by `send_queued` after the commit). A ban's own request tells the
        Judge (`ask_judge_to_ban`): then None."""
        assert game.tournament_id is not None and disqualifies(penalty)
        tid = game.tournament_id
        user_id = state.seats[seat].user_id
        if await self.repos.tournaments.player(tid, user_id) is not None:
            await self.repos.tournaments.set_player_status(tid, user_id, PlayerStatus.DISQUALIFIED)
        await self._leave_unplayed_groups(tid, user_id)
        if penalty is Penalty.BAN:
            return None
        tournament = await self.repos.tournaments.get(tid)
        assert tournament is not None
        judge = tournament.judge_user_id
        lang = await self.games.user_lang(judge)
        t = self.games.t
        key = "out.disqualified" if penalty is Penalty.DISQUALIFICATION else "out.removed"
        text = t(
            lang,
            key,
            game=game.game_id,
            tournament=escape(tournament.name),
            player=named(state, seat, t, lang),
        )
        post = Post(judge, text, essential=True)
        queued = await self.repos.outbox.enqueue(
            game_id=game.game_id,
            chat_id=judge,
            kind="post",
            payload_json=json.dumps(to_json(post)),
            now=self.games.clock.now(),
        )
        return post, queued.outbox_id

    # --- settings (T6) --------------------------------------------------------------

    def settings(self, tournament: Tournament) -> TournamentSettings:
        return settings_from_json(tournament.settings_json)

    async def change_setting(
        self, tournament: Tournament, name: str, value: str, override: bool
    ) -> list[SettingChange]:
        """Change one setting; returns what changed, already announced to every player."""
        self.check_open(tournament)
        old = self.settings(tournament)
        started = await self.repos.tours.last_tour(tournament.tournament_id) > 0
        if started and not override:
            raise TournamentError("settings.locked")
        try:
            check_judge_value(name, value)
            new = _with_setting(old, name, value)
        except BadSettings as error:
            if "low" not in error.values:
                raise TournamentError("settings.bad", name=escape(name)) from error
            bounds = {"low": error.values["low"], "high": error.values["high"]}
            raise TournamentError("settings.range", name=escape(name), **bounds) from error
        except (KeyError, ValueError, TypeError, OverflowError) as error:
            raise TournamentError("settings.bad", name=escape(name)) from error
        changes = diff_settings(old, new)
        if not changes:
            return []
        await self.repos.tournaments.set_settings(tournament.tournament_id, settings_to_json(new))
        key = "settings.override_announce" if started else "settings.announce"
        # Each player reads the change in their language, in words and units (T6).
        posts = []
        for player in await self.repos.tournaments.players(tournament.tournament_id):
            lang = await self.games.user_lang(player.user_id)
            lines = change_lines(self.games.t, lang, changes, new)
            text = self.games.t(lang, key, name=escape(tournament.name), changes="\n".join(lines))
            posts.append(Post(player.user_id, text))
        await self.games.sender.deliver(0, posts)
        return changes

    async def _tell_players(self, tournament: Tournament, key: str, **values: object) -> None:
        posts = []
        for player in await self.repos.tournaments.players(tournament.tournament_id):
            lang = await self.games.user_lang(player.user_id)
            posts.append(Post(player.user_id, self.games.t(lang, key, **values)))
        await self.games.sender.deliver(0, posts)

    # --- tours and groups (T1) -------------------------------------------------------

    async def propose(self, tournament: Tournament) -> tuple[int, Split]:
        tid = tournament.tournament_id
        tour = await self.repos.tours.last_tour(tid) + 1
        out = await self.out_players(tid)
        players = [
            p.user_id for p in await self.repos.tournaments.players(tid) if p.user_id not in out
        ]
        earlier = await self.repos.tours.groups(tid)
        history = [frozenset(g.players) for g in earlier]
        # Balanced tours (T1): the seats each earlier game gave, else its group's order.
        seatings = []
        for group in earlier:
            state = await self.games.state(group.game_id) if group.game_id else None
            if state is not None and state.seats:
                seatings.append({st.user_id: seat for seat, st in state.seats.items()})
            else:
                seatings.append({p: i + 1 for i, p in enumerate(group.players)})
        # The draw behind the split is made from the tournament and tour, so the Judge
        # sees the same proposal when confirming it; a redrawn tour is drawn anew.
        draws = sum(
            e.tour == tour and e.kind in ("cancelled", "redrawn")
            for e in await self.repos.tours.journal(tid)
        )
        seed = redraw_seed(tid, tour, draws)
        # Pure and CPU-bound (half a second for 200 players): off the event loop.
        settings = self.settings(tournament)
        return tour, await asyncio.to_thread(split, players, settings, history, seed, seatings)

    def check_open(self, tournament: Tournament) -> None:
        """T5: a finished tournament's final table stays as announced until it is reopened."""
        if tournament.status is TournamentStatus.FINISHED:
            raise TournamentError("tournament.finished", name=escape(tournament.name))

    async def tables(self, tournament_id: int, tour: int | None = None) -> list[Table]:
        """The tables of a tour (all tours: None), each with its state and who is in."""
        found = []
        for group in await self.repos.tours.groups(tournament_id, tour):
            game = await self.repos.games.get(group.game_id) if group.game_id else None
            status = None if game is None else game.status.value
            signed = game is not None and game.signed_by is not None
            state = table_state(group.chat_id is not None, status, signed)
            present: frozenset[int] = frozenset()
            if game is not None and state is TableState.LOBBY:
                present = frozenset(p.user_id for p in await self.repos.lobby.players(game.game_id))
            elif game is not None and state is not TableState.STOPPED:
                dealt = await self.games.state(game.game_id)
                seats = dealt.seats.values() if dealt is not None else ()
                present = frozenset(st.user_id for st in seats)
            found.append(
                Table(
                    code=group.code,
                    tour=group.tour,
                    players=group.players,
                    state=state,
                    chat_id=group.chat_id,
                    host_user_id=group.host_user_id,
                    game_id=group.game_id,
                    present=present,
                )
            )
        return found

    async def tables_text(self, tournament_id: int, tables: list[Table], lang: str) -> str:
        """The tables for the Judge, a line each: code, chat, Host, state, who is missing."""
        t = self.games.t
        nicks = await self.nicks(tournament_id)
        lines = []
        for table in tables:
            chat = await self.repos.chats.get(table.chat_id) if table.chat_id else None
            where = escape(chat.title or "") if chat and chat.title else t(lang, "tours.no_chat")
            host = (
                escape(await self._name(tournament_id, table.host_user_id))
                if table.host_user_id is not None
                else t(lang, "tours.no_host")
            )
            state = t(
                lang,
                f"tours.state_{table.state.value}",
                game=table.game_id or "—",
                present=len(table.present),
                total=len(table.players),
            )
            line = t(lang, "tours.table", code=table.code, chat=where, host=host, state=state)
            lines.append(line)
            missing = table.not_joined
            if missing:
                key = {
                    TableState.LOBBY: "tours.not_marked",
                    TableState.BOUND: "tours.not_in_chat",
                }.get(table.state, "tours.absent")
                names = ", ".join(escape(nicks.get(u, str(u))) for u in missing)
                lines.append(t(lang, key, names=names))
        return "\n".join(lines)

    async def confirm(
        self, tournament: Tournament, judge_id: int, override: bool = False
    ) -> tuple[int, list[TourGroup]]:
        """`/groups confirm`: the next tour, once the current one is complete (T1, T3).

        A tour is confirmed once: while a table of the current tour is unplayed or its sheet
        unsigned, the next is refused with those tables, unless the Judge overrides it
        (which the journal keeps, with the tables left open).
        """
        self.check_open(tournament)
        tid = tournament.tournament_id
        current = await self.repos.tours.last_tour(tid)
        open_tables = unfinished(await self.tables(tid, current)) if current else []
        if open_tables and not override:
            raise TablesUnfinished("groups.open", open_tables, tour=current)
        made = await self._confirm(tournament)
        if open_tables:
            detail = ", ".join(f"{t.code}: {t.state.value}" for t in open_tables)
            await self.repos.tours.note(
                tid, made[0], "forced", judge_id, detail=detail, now=self.games.clock.now()
            )
        return made

    async def cancel(self, tournament: Tournament, judge_id: int, redraw: bool) -> int:
        """`/groups cancel|redraw`: the current tour's seating is void while no game of it
        has been dealt; an open lobby closes, and whoever was told of a table hears it is
        no more. Returns the tour."""
        self.check_open(tournament)
        tid = tournament.tournament_id
        tour = await self.repos.tours.last_tour(tid)
        if tour == 0:
            raise TournamentError("groups.no_tour")
        tables = await self.tables(tid, tour)
        if begun(tables):
            raise TablesUnfinished("groups.begun", tables, tour=tour)
        for table in tables:
            if table.state is TableState.LOBBY and table.game_id is not None:
                lobby = await self.repos.games.get(table.game_id)
                if lobby is not None and not await self.games.stop_lobby(lobby):
                    # Dealt in the meantime: the tour has begun after all.
                    raise TablesUnfinished("groups.begun", await self.tables(tid, tour), tour=tour)
        async with self.repos.database.transaction():
            await self.repos.tours.drop_tour(tid, tour)
            kind = "redrawn" if redraw else "cancelled"
            await self.repos.tours.note(tid, tour, kind, judge_id, now=self.games.clock.now())
        # The invitations of the void draw are taken back (T1): its links join no one now.
        await self.revoke_invites([t.code for t in tables])
        posts = []
        for table in tables:
            if table.chat_id is None:
                continue  # nobody was invited to it yet
            lang = await self.games.chat_lang(table.chat_id)
            text = self.games.t(lang, "groups.void_chat", tour=tour, table=table_number(table.code))
            posts.append(Post(table.chat_id, text))
            for user_id in table.players:
                lang = await self.games.user_lang(user_id)
                text = self.games.t(
                    lang, "groups.void_player", tour=tour, name=escape(tournament.name)
                )
                posts.append(Post(user_id, text))
        await self.games.sender.deliver(0, posts)
        return tour

    async def redraw(self, tournament: Tournament, judge_id: int) -> tuple[int, list[TourGroup]]:
        """The current tour cancelled and drawn anew from its next seed."""
        await self.cancel(tournament, judge_id, redraw=True)
        return await self._confirm(tournament)

    async def _confirm(self, tournament: Tournament) -> tuple[int, list[TourGroup]]:
        tour, proposal = await self.propose(tournament)
        if not proposal.groups:
            raise TournamentError("groups.none")
        now = self.games.clock.now()
        async with self.repos.database.transaction():
            for index, players in enumerate(proposal.groups, 1):
                code = table_code(tournament.tournament_id, tour, index)
                await self.repos.tours.add_group(
                    code, tournament.tournament_id, tour, players, now=now
                )
            if tournament.status is TournamentStatus.REGISTRATION:
                await self.repos.tournaments.set_status(
                    tournament.tournament_id, TournamentStatus.RUNNING
                )
            # T5, S3: the tournament's lot is drawn and committed with its first tour,
            # before any game of it is dealt; a tour cancelled or redrawn keeps it.
            lot, committed = await self._commit_lot(tournament, now)
        if committed:
            await self._announce_lot(tournament, lot)
        return tour, await self.repos.tours.groups(tournament.tournament_id, tour)

    async def _commit_lot(self, tournament: Tournament, now: float) -> tuple[TournamentLot, bool]:
        tid = tournament.tournament_id
        found = await self.repos.tournaments.lot(tid)
        if found is not None:
            return found, False
        seed = self.games.new_seed()  # the injected randomness, as each game's seed
        return await self.repos.tournaments.commit_lot(tid, seed, commitment(seed), now)

    async def _announce_lot(self, tournament: Tournament, lot: TournamentLot) -> None:
        """The lot's commitment to the Judge and to every player, under a spoiler, as a
        game posts its seed's hash at the deal (S3)."""
        judge = tournament.judge_user_id
        people = [judge] + [
            p.user_id
            for p in await self.repos.tournaments.players(tournament.tournament_id)
            if p.user_id != judge
        ]
        posts = []
        for user_id in people:
            lang = await self.games.user_lang(user_id)
            text = self.games.t(
                lang,
                "tournament_lot.committed",
                name=escape(tournament.name),
                commitment=lot.commitment,
            )
            posts.append(Post(user_id, text))
        await self.games.sender.deliver(0, posts)

    async def bind(self, code: str, chat_id: int, judge_id: int, host_id: int) -> TourGroup:
        self._check_judge(judge_id)
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
        bot = self.games.sender.bot
        for chat_id, link in await self.repos.tours.invites(codes):
            try:
                await bot.revoke_chat_invite_link(chat_id, link)
            except (TelegramBadRequest, TelegramForbiddenError):
                log.warning("the invite link to chat %s could not be revoked", chat_id)
            except TelegramAPIError:
                log.warning("the invite link to chat %s is kept to revoke later", chat_id)
                continue
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
        if sub.user_id in await self.out_players(tid):
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

    async def nicks(self, tournament_id: int) -> dict[int, str]:
        return {p.user_id: p.nick for p in await self.repos.tournaments.players(tournament_id)}

    async def open_table(
        self, group: TourGroup, chat_id: int, thread_id: int | None = None
    ) -> Game:
        """The Host's /newgame in a bound chat: a lobby whose roster is the group (T1); in
        a forum, in the topic it was sent in (`thread_id`), where the game then lives."""
        tournament = await self.repos.tournaments.get(group.tournament_id)
        assert tournament is not None
        settings = self.settings(tournament)
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

    # --- sheets (T3) ------------------------------------------------------------------

    async def game_state(self, game: Game) -> GameState | None:
        return await self.games.state(game.game_id)

    def played_scheme(self, game: Game, settings: TournamentSettings) -> Scheme:
        """T3, T4: the scheme a game was played under; a game opened before schemes were
        kept with it is scored by the tournament's `settings`."""
        if game.scoring_json is None:
            return Scheme.of(settings)
        return Scheme.from_json(json.loads(game.scoring_json))

    async def signed_sheets(self, tournament_id: int) -> dict[int, SignedSheet]:
        result: dict[int, SignedSheet] = {}
        tournament = await self.repos.tournaments.get(tournament_id)
        assert tournament is not None
        settings = self.settings(tournament)
        for game in await self.repos.games.of_tournament(tournament_id):
            if game.status is not GameStatus.OVER or game.signed_by is None:
                continue
            state = await self.games.state(game.game_id)
            assert state is not None
            changes = await self.repos.tours.sheet_changes(game.game_id)
            rows, scheme = corrected(
                sheet(state),
                [Correction(c.change, c.reason, c.at) for c in changes],
                self.played_scheme(game, settings),
            )
            assert scheme is not None
            notes = [f"{_describe(c.change)}: {c.reason}" for c in changes]
            result[game.game_id] = SignedSheet(game, rows, notes, scheme)
        return result

    async def may_see_sheet(self, user_id: int, game: Game) -> bool:
        """A game's sheet is for its Host, its players and its tournament's Judge (T3)."""
        if user_id == game.host_user_id:
            return True
        state = await self.games.state(game.game_id)
        if state is not None and any(st.user_id == user_id for st in state.seats.values()):
            return True
        if game.tournament_id is None:
            return False
        tournament = await self.repos.tournaments.get(game.tournament_id)
        return (
            tournament is not None
            and tournament.judge_user_id == user_id
            and self.may_judge(user_id)
        )

    async def sheet_for(self, user_id: int, game_id: int) -> ProtocolSheet:
        """`/sheet GAME`: the sheet, if `user_id` may see it; else the same refusal whether
        the game exists or not (a guessed number tells a stranger nothing)."""
        game = await self.repos.games.get(game_id)
        if game is None or not await self.may_see_sheet(user_id, game):
            raise TournamentError("sheet.not_allowed", game=game_id)
        if game.status is not GameStatus.OVER:
            raise TournamentError("sheet.not_over", game=game_id)
        if game.tournament_id is not None and game.signed_by is None:
            raise TournamentError("sheet.unsigned", game=game_id)  # T3: the Judge's are signed
        return await self.sheet_doc(game)

    async def sheet_doc(self, game: Game) -> ProtocolSheet:
        """The protocol sheet of an ended game, from its protocol (T3)."""
        stored = await self.repos.protocol.read(game.game_id)
        entries = [entry_from_json(json.loads(e.payload_json)) for e in stored]
        host = await self._name(game.tournament_id, game.host_user_id)
        signer = (
            await self._name(game.tournament_id, game.signed_by)
            if game.signed_by is not None
            else None
        )
        corrections = [
            Correction(c.change, c.reason, c.at)
            for c in await self.repos.tours.sheet_changes(game.game_id)
        ]
        if game.tournament_id is None:
            return protocol_sheet(entries, host=host, signed_by=signer, signed_at=game.signed_at)
        tournament = await self.repos.tournaments.get(game.tournament_id)
        assert tournament is not None
        group = await self.repos.tours.group_of_game(game.game_id)
        dealt = await self.games.state(game.game_id)
        seated = {st.user_id for st in dealt.seats.values()} if dealt is not None else set()
        missing = absent(group.players, seated) if group is not None else []
        return protocol_sheet(
            entries,
            host=host,
            settings=self.played_scheme(game, self.settings(tournament)),
            tournament=tournament.name,
            tour=group.tour if group else None,
            table=group.code if group else None,
            signed_by=signer,
            signed_at=game.signed_at,
            corrections=corrections,
            absent=[await self._name(game.tournament_id, u) for u in missing],
        )

    async def _name(self, tournament_id: int | None, user_id: int) -> str:
        """A person as the sheet names them: their tournament nick, else their name."""
        if tournament_id is not None:
            player = await self.repos.tournaments.player(tournament_id, user_id)
            if player is not None:
                return player.nick
        user = await self.repos.users.get(user_id)
        if user is None:
            return str(user_id)
        return user.nick or user.first_name

    def sheet_views(self, doc: ProtocolSheet, lang: str) -> tuple[str, BufferedInputFile]:
        """The sheet as a message and as a printable HTML document."""
        t, zone = self.games.t, self.games.timezone
        page = sheet_html(t, lang, doc, zone).encode()
        return sheet_message(t, lang, doc, zone), BufferedInputFile(
            page, f"sheet-{doc.game_id}.html"
        )

    async def sheet_text(self, game_id: int, lang: str) -> str:
        game = await self.repos.games.get(game_id)
        if game is None or game.tournament_id is None:
            raise TournamentError("sheet.unknown", game=game_id)
        if game.status is not GameStatus.OVER or game.signed_by is None:
            raise TournamentError("sheet.unsigned", game=game_id)
        return sheet_message(self.games.t, lang, await self.sheet_doc(game), self.games.timezone)

    async def send_sheet_to_judge(self, game: Game) -> None:
        """T3: the signed sheet goes to the Judge, as a message and a printable page."""
        if game.tournament_id is None:
            return
        tournament = await self.repos.tournaments.get(game.tournament_id)
        assert tournament is not None
        judge = tournament.judge_user_id
        lang = await self.games.user_lang(judge)
        text, page = self.sheet_views(await self.sheet_doc(game), lang)
        await self.games.sender.deliver(game.game_id, [Post(judge, text)])
        try:
            await self.games.sender.bot.send_document(judge, page)
        except TelegramAPIError:
            # The message above is the sheet; the page is a copy /sheet sends again.
            log.warning("the sheet page of game %s did not reach the Judge", game.game_id)

    async def change_sheet(
        self, judge_id: int, game_id: int, change: dict[str, object], reason: str
    ) -> None:
        self._check_judge(judge_id)
        game = await self.repos.games.get(game_id)
        if game is None or game.tournament_id is None or game.signed_by is None:
            raise TournamentError("sheet.unsigned", game=game_id)
        tournament = await self.repos.tournaments.get(game.tournament_id)
        assert tournament is not None
        if tournament.judge_user_id != judge_id:
            raise TournamentError("tournament.judge_only")
        self.check_open(tournament)
        await self.repos.tours.change_sheet(
            game_id, judge_id, change, reason, now=self.games.clock.now()
        )

    async def rescore(self, judge_id: int, game_id: int | None, reason: str) -> list[int]:
        """T3, T4: the Judge's explicit rescore of signed sheets under the current scheme
        (`game_id` None: every signed sheet of their tournament). Each sheet whose points
        it changes gets a correction with the reason; the games changed, by id."""
        tournament = await self.judged_by(judge_id)
        if game_id is not None:
            game = await self.repos.games.get(game_id)
            if game is None or game.tournament_id != tournament.tournament_id:
                raise TournamentError("tournament.judge_only")
            if game.signed_by is None:
                raise TournamentError("sheet.unsigned", game=game_id)
        current = Scheme.of(self.settings(tournament))
        changed = [
            gid
            for gid, signed in sorted((await self.signed_sheets(tournament.tournament_id)).items())
            if game_id in (None, gid)
            # A sheet whose points stay as they are is left unchanged.
            and win_tenths(len(signed.rows), signed.scheme) != win_tenths(len(signed.rows), current)
        ]
        now = self.games.clock.now()
        async with self.repos.database.transaction():  # every sheet or none
            for gid in changed:
                await self.repos.tours.change_sheet(
                    gid, judge_id, scheme_change(current), reason, now=now
                )
        return changed

    # --- bans (V4) ------------------------------------------------------------------

    async def ask_judge_to_ban(
        self, game: Game, state: GameState, seat: int, reason: str
    ) -> tuple[Post, int]:
        """V4: record the ban the Host's sanction asks for, and queue the Judge's Confirm the
        ban / Decline. Called in the sanction's transaction: the request and its message
        stand or fall with it; `send_queued` sends the message after the commit."""
        assert game.tournament_id is not None
        now = self.games.clock.now()
        request = await self.repos.ban_requests.ask(
            tournament_id=game.tournament_id,
            game_id=game.game_id,
            user_id=state.seats[seat].user_id,
            reason=reason,
            now=now,
        )
        tournament = await self.repos.tournaments.get(game.tournament_id)
        assert tournament is not None
        judge = tournament.judge_user_id
        lang = await self.games.user_lang(judge)
        t = self.games.t
        text = t(
            lang,
            "ban.ask",
            game=game.game_id,
            tournament=escape(tournament.name),
            player=named(state, seat, t, lang),
        )
        confirm = BanCb(request=request.request_id, confirm=True).pack()
        decline = BanCb(request=request.request_id, confirm=False).pack()
        keyboard = (
            (
                Button(t(lang, "button.ban_confirm"), confirm),
                Button(t(lang, "button.ban_decline"), decline),
            ),
        )
        post = Post(judge, text, keyboard, essential=True)
        queued = await self.repos.outbox.enqueue(
            game_id=game.game_id,
            chat_id=judge,
            kind="post",
            payload_json=json.dumps(to_json(post)),
            now=now,
        )
        return post, queued.outbox_id

    async def send_queued(self, game_id: int, post: Post, outbox_id: int) -> None:
        """Send a message queued in a transaction; one a crash keeps from going out is sent
        again at start-up (`GameService.resend_unsent`)."""
        delivery = await self.games.sender.deliver(game_id, [post])
        if 0 in delivery.sent:
            await self.repos.outbox.mark_sent(
                outbox_id, message_id=delivery.sent[0], now=self.games.clock.now()
            )

    async def decide_ban(self, judge_id: int, request_id: int, confirm: bool) -> BanRequest:
        """The tournament's Judge confirms (the ban is written) or declines a Host's V4."""
        request = await self.repos.ban_requests.get(request_id)
        tournament = await self.repos.tournaments.get(request.tournament_id) if request else None
        if request is None or tournament is None or tournament.judge_user_id != judge_id:
            raise TournamentError("tournament.judge_only")
        self._check_judge(judge_id)
        decided = await self.repos.ban_requests.decide(
            request_id, confirm=confirm, now=self.games.clock.now()
        )
        if decided is None:
            raise TournamentError("ban.decided")
        if not confirm:
            # Removed from that game only: back in the tournament, unless something else
            # keeps them out (the sanctions are read again without this ban).
            player = await self.repos.tournaments.player(decided.tournament_id, decided.user_id)
            if player is not None and player.status is PlayerStatus.DISQUALIFIED:
                offences = await self.offences(decided.tournament_id)
                others = [
                    o
                    for o in offences
                    if o.user_id == decided.user_id
                    and disqualifies(o.penalty)
                    and not (o.penalty is Penalty.BAN and o.game_id == decided.game_id)
                ]
                if not others:
                    await self.repos.tournaments.set_player_status(
                        decided.tournament_id, decided.user_id, PlayerStatus.REGISTERED
                    )
        return decided

    async def unban(self, judge_id: int, who: str) -> int:
        """`/unban NICK` or `/unban USER_ID`: a Judge lifts a ban confirmed in one of their
        tournaments (another Judge's bans are theirs to lift). A ban is the same in every
        tournament, so one that another Judge also confirmed stays: no Judge lifts what
        another decided (issue 25 §5)."""
        self._check_judge(judge_id)
        mine = await self.repos.tournaments.of_judge(judge_id)
        user_id = int(who) if who.isascii() and who.isdecimal() and len(who) <= 15 else None
        if user_id is None:
            for tournament in mine:
                nicks = await self.nicks(tournament.tournament_id)
                user_id = next((u for u, n in nicks.items() if n.lower() == who.lower()), None)
                if user_id is not None:
                    break
        confirmed = (
            await self.repos.database.fetch_all(
                "SELECT DISTINCT t.judge_user_id, t.name FROM ban_requests r "
                "JOIN tournaments t USING (tournament_id) "
                "WHERE r.user_id = ? AND r.status = 'confirmed' ORDER BY t.tournament_id",
                (user_id,),
            )
            if user_id is not None
            else []
        )
        ours = any(row["judge_user_id"] == judge_id for row in confirmed)
        if user_id is None or not ours or await self.repos.bans.get(user_id) is None:
            raise TournamentError("unban.unknown", who=escape(who))
        others = [row["name"] for row in confirmed if row["judge_user_id"] != judge_id]
        if others:
            names = ", ".join(f"<b>{escape(name)}</b>" for name in dict.fromkeys(others))
            raise TournamentError("unban.also_confirmed", who=escape(who), tournaments=names)
        await self.repos.bans.unban(user_id)
        return user_id

    # --- standings (T4, T5) -----------------------------------------------------------

    async def offences(self, tournament_id: int) -> list[TournamentOffence]:
        found: list[TournamentOffence] = []
        for game in await self.repos.games.of_tournament(tournament_id):
            state = await self.games.state(game.game_id)
            if state is not None:
                seats = {s: st.user_id for s, st in state.seats.items()}
                found += offences_in_game(game.game_id, seats, state.sanctions)
        return found

    async def standings(self, tournament: Tournament) -> list[StandingsRow]:
        tid = tournament.tournament_id
        signed = await self.signed_sheets(tid)
        sheets = {g: s.rows for g, s in signed.items()}
        schemes = {g: s.scheme for g, s in signed.items()}
        adjustments = [
            Adjustment(a.user_id, a.tenths, a.reason, a.at)
            for a in await self.repos.tours.adjustments(tid)
        ]
        offences = await self.offences(tid)
        out = await self.out_players(tid)
        nicks = await self.nicks(tid)
        settings = self.settings(tournament)
        rows = standings(sheets, settings, adjustments, out, nicks, schemes)
        # T5: where shared places reach the prize places, the Judge's tie-break order.
        sanctions = Counter(o.user_id for o in offences)
        record, games = records(sheets, schemes, sanctions)
        lot = await self.repos.tournaments.lot(tid)
        seed = None if lot is None else lot.seed
        return break_ties(rows, parse_tie_break(settings.tie_break), record, games, seed)

    async def lot(self, tournament: Tournament) -> TournamentLot | None:
        """T5, S3: the tournament's own lot, the tie-break's last criterion: its seed is
        drawn and committed at the first confirmed tour and revealed at /finish
        (docs/fairness.md); the sheets signed meanwhile do not change it. None before."""
        return await self.repos.tournaments.lot(tournament.tournament_id)

    async def exports(self, tournament: Tournament) -> dict[str, str]:
        tid = tournament.tournament_id
        signed = await self.signed_sheets(tid)
        sheets = {g: s.rows for g, s in signed.items()}
        schemes = {g: s.scheme for g, s in signed.items()}
        return {
            "standings.csv": standings_csv(await self.standings(tournament)),
            "sheets.csv": sheets_csv(sheets, self.settings(tournament), schemes),
            "stats.csv": stats_csv(await self.tournament_stats(tournament), await self.nicks(tid)),
        }

    # --- statistics (issue 12) --------------------------------------------------------

    async def tournament_stats(self, tournament: Tournament) -> dict[int, PlayerStats]:
        """Everyone's games, wins and points in the tournament, as its signed sheets read."""
        signed = (await self.signed_sheets(tournament.tournament_id)).values()
        return everyone(row for s in signed for row in scored_rows([s.rows], s.scheme))

    async def stats_of(
        self, user_id: int
    ) -> tuple[list[tuple[Tournament, PlayerStats]], PlayerStats]:
        """A player's own: each tournament they are registered in, and overall.

        Overall adds the casual games they played to the end, scored by the default T4
        scheme (bot.tournament.stats).
        """
        per_tournament = []
        mine: list[tuple[SheetRow, int]] = []
        for tournament in await self.repos.tournaments.of_player(user_id):
            signed = await self.signed_sheets(tournament.tournament_id)
            scored = [
                (row, tenths)
                for s in signed.values()
                for row, tenths in scored_rows([s.rows], s.scheme)
                if row.user_id == user_id
            ]
            per_tournament.append((tournament, player_stats(user_id, scored)))
            mine += scored
        casual = []
        for game in await self.repos.games.casual_over_of(user_id):
            state = await self.games.state(game.game_id)
            if state is not None and state.winner is not None:
                casual.append(sheet(state))
        mine += scored_rows(casual, TournamentSettings())
        return per_tournament, player_stats(user_id, mine)

    async def protocol_json(self, game_id: int) -> str:
        game = await self.repos.games.get(game_id)
        if game is None:
            raise TournamentError("sheet.unknown", game=game_id)
        stored = await self.repos.protocol.read(game_id)
        entries = [entry_from_json(json.loads(e.payload_json)) for e in stored]
        over = game.status in (GameStatus.OVER, GameStatus.ABORTED)
        return json.dumps(public_entries(entries, game_over=over), ensure_ascii=False, indent=1)

    async def check_finishable(self, tournament: Tournament) -> None:
        """T5: `/finish` waits for every table of every confirmed tour, played and signed."""
        if tournament.status is TournamentStatus.FINISHED:
            raise TournamentError("finish.already", name=escape(tournament.name))
        open_tables = unfinished(await self.tables(tournament.tournament_id))
        if open_tables:
            raise TablesUnfinished("finish.unfinished", open_tables)

    async def finish(self, tournament: Tournament, judge_id: int) -> list[StandingsRow]:
        """The final table; the tournament is closed once, so it is announced once."""
        await self.check_finishable(tournament)
        rows = await self.standings(tournament)
        tid = tournament.tournament_id
        async with self.repos.database.transaction():
            if not await self.repos.tournaments.move_status(tid, TournamentStatus.FINISHED):
                raise TournamentError("finish.already", name=escape(tournament.name))
            await self.repos.tours.note(tid, None, "finished", judge_id, now=self.games.clock.now())
            # T5, S3: the lot's seed is revealed with the final table.
            await self.repos.tournaments.reveal_lot(tid, now=self.games.clock.now())
        return rows

    def lot_line(self, lang: str, lot: TournamentLot | None) -> str:
        """The revealed lot for the final table: its seed and hash, to check and recompute."""
        if lot is None:
            return ""
        return "\n\n" + self.games.t(
            lang, "tournament_lot.revealed", seed=lot.seed, commitment=lot.commitment
        )

    async def reopen(self, tournament: Tournament, judge_id: int) -> None:
        """The Judge reopens a finished tournament: recorded, and every player is told."""
        tid = tournament.tournament_id
        async with self.repos.database.transaction():
            others = await self.repos.tournaments.of_judge(tournament.judge_user_id)
            open_now = [
                t
                for t in others
                if t.status is not TournamentStatus.FINISHED and t.tournament_id != tid
            ]
            if len(open_now) >= self.open_tournaments:
                raise TournamentError("tournament.too_many", limit=self.open_tournaments)
            if not await self.repos.tournaments.move_status(tid, TournamentStatus.RUNNING):
                raise TournamentError("finish.not_finished", name=escape(tournament.name))
            await self.repos.tours.note(tid, None, "reopened", judge_id, now=self.games.clock.now())
        await self._tell_players(tournament, "finish.reopened_told", name=escape(tournament.name))


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


def _with_setting(settings: TournamentSettings, name: str, value: str) -> TournamentSettings:
    """A copy with one setting changed; `game.` names reach the game scheme."""
    if name.startswith("game."):
        inner = name[5:]
        game = settings.game
        if inner not in {f.name for f in fields(game)} or inner == "mafia_by_players":
            raise KeyError(inner)
        current = getattr(game, inner)
        changed: dict[str, Any] = {inner: type(current)(value)}
        return replace(settings, game=replace(game, **changed))
    if name not in {f.name for f in fields(settings)} - {"game"}:
        raise KeyError(name)
    if isinstance(getattr(settings, name), str):  # the tie-break order (T5)
        order: dict[str, Any] = {name: ",".join(parse_tie_break(value)) or "none"}
        return replace(settings, **order)
    number: dict[str, Any] = {name: int(value)}
    if isinstance(getattr(settings, name), bool):
        number[name] = bool(number[name])  # 1 or 0, as /settings takes it
    return replace(settings, **number)


def _describe(change: dict[str, object]) -> str:
    if change.get("field") == "winner":
        return f"winner → {change['value']}"
    if change.get("field") == "scheme":
        coefficient, threshold = change.get("bonus_coefficient"), change.get("bonus_threshold")
        return f"scheme: x{coefficient}/10 above {threshold}"
    return f"seat {change.get('seat')}: point {'yes' if change.get('value') else 'no'}"
