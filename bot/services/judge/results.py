"""The results (T4, T5): standings and their tie-breaks, exports, statistics (issue
12), finishing and reopening a tournament."""

from __future__ import annotations

import json
from collections import Counter

from bot.rules.protocol import entry_from_json, public_entries
from bot.rules.sheet import SheetRow, sheet
from bot.services.judge.bans import OutOfTournament
from bot.services.judge.desk import Desk
from bot.services.judge.refusals import TablesUnfinished, TournamentError
from bot.services.judge.seating import Seating
from bot.services.judge.sheets import Sheets
from bot.tournament.settings import TournamentSettings, parse_tie_break
from bot.tournament.standings import Adjustment, StandingsRow, sheets_csv, standings, standings_csv
from bot.tournament.stats import PlayerStats, everyone, player_stats, scored_rows, stats_csv
from bot.tournament.tiebreak import break_ties, records
from bot.tournament.tours import unfinished
from bot.views.i18n import escape
from storage.games import GameStatus
from storage.tournaments import Tournament, TournamentLot, TournamentStatus


class Results:
    """What the sheets add up to, read from `sheets`, `out` and the tables of `seating`."""

    def __init__(self, desk: Desk, out: OutOfTournament, sheets: Sheets, seating: Seating) -> None:
        self.desk = desk
        self.out = out
        self.sheets = sheets
        self.seating = seating
        self.games = desk.games
        self.repos = desk.repos

    async def standings(self, tournament: Tournament) -> list[StandingsRow]:
        tid = tournament.tournament_id
        signed = await self.sheets.signed_sheets(tid)
        sheets = {g: s.rows for g, s in signed.items()}
        schemes = {g: s.scheme for g, s in signed.items()}
        adjustments = [
            Adjustment(a.user_id, a.tenths, a.reason, a.at)
            for a in await self.repos.tours.adjustments(tid)
        ]
        offences = await self.out.offences(tid)
        out = await self.out.out_players(tid)
        nicks = await self.desk.nicks(tid)
        settings = self.desk.settings(tournament)
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
        signed = await self.sheets.signed_sheets(tid)
        sheets = {g: s.rows for g, s in signed.items()}
        schemes = {g: s.scheme for g, s in signed.items()}
        return {
            "standings.csv": standings_csv(await self.standings(tournament)),
            "sheets.csv": sheets_csv(sheets, self.desk.settings(tournament), schemes),
            "stats.csv": stats_csv(
                await self.tournament_stats(tournament), await self.desk.nicks(tid)
            ),
        }

    # --- statistics (issue 12) --------------------------------------------------------

    async def tournament_stats(self, tournament: Tournament) -> dict[int, PlayerStats]:
        """Everyone's games, wins and points in the tournament, as its signed sheets read."""
        signed = (await self.sheets.signed_sheets(tournament.tournament_id)).values()
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
            signed = await self.sheets.signed_sheets(tournament.tournament_id)
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
        open_tables = unfinished(await self.seating.tables(tournament.tournament_id))
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
            if len(open_now) >= self.desk.open_tournaments:
                raise TournamentError("tournament.too_many", limit=self.desk.open_tournaments)
            if not await self.repos.tournaments.move_status(tid, TournamentStatus.RUNNING):
                raise TournamentError("finish.not_finished", name=escape(tournament.name))
            await self.repos.tours.note(tid, None, "reopened", judge_id, now=self.games.clock.now())
        await self.desk.tell_players(
            tournament, "finish.reopened_told", name=escape(tournament.name)
        )
