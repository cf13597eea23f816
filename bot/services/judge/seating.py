"""Tours and groups (T1): proposing the split, confirming, cancelling and redrawing a
tour, the tournament's lot (T5, S3), and the tables as the Judge sees them."""

from __future__ import annotations

import asyncio

from bot.rules.draws import commitment
from bot.services.judge.bans import OutOfTournament
from bot.services.judge.desk import Desk
from bot.services.judge.refusals import TablesUnfinished, TournamentError
from bot.services.judge.roster import Roster
from bot.tournament.groups import Split, split
from bot.tournament.tables import table_code, table_number
from bot.tournament.tours import Table, TableState, begun, redraw_seed, table_state, unfinished
from bot.views.i18n import escape
from bot.views.render import Post
from storage.tournaments import Tournament, TournamentLot, TournamentStatus
from storage.tours import TourGroup


class Seating:
    """The tours: `out` keeps who may not be seated, `roster` takes a void tour's links back."""

    def __init__(self, desk: Desk, out: OutOfTournament, roster: Roster) -> None:
        self.desk = desk
        self.out = out
        self.roster = roster
        self.games = desk.games
        self.repos = desk.repos

    async def propose(self, tournament: Tournament) -> tuple[int, Split]:
        tid = tournament.tournament_id
        tour = await self.repos.tours.last_tour(tid) + 1
        out = await self.out.out_players(tid)
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
        settings = self.desk.settings(tournament)
        return tour, await asyncio.to_thread(split, players, settings, history, seed, seatings)

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
        nicks = await self.desk.nicks(tournament_id)
        lines = []
        for table in tables:
            chat = await self.repos.chats.get(table.chat_id) if table.chat_id else None
            where = escape(chat.title or "") if chat and chat.title else t(lang, "tours.no_chat")
            host = (
                escape(await self.desk.name_of(tournament_id, table.host_user_id))
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
        self.desk.check_open(tournament)
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
        self.desk.check_open(tournament)
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
        await self.roster.revoke_invites([t.code for t in tables])
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
