"""The tournament service: registration, tours and groups, sheets, standings (T1-T7).

Like the game service, it is the one door the Judge's handlers go through. The
arithmetic (splits, points, places) is the pure `bot.tournament` core; the parts here
store, look up and tell people, each one section of the Judge's work:

- `desk`: who may judge, creating a tournament, its settings (T6), shared look-ups;
- `registration`: the deep link, nicks, withdrawing, players found by nick;
- `bans`: who is out (RULES V, T5), the V4 ban the Judge decides, /unban;
- `seating`: tours and groups, the lot, the tables as the Judge sees them (T1);
- `roster`: a table's chat, invite links, substitutes, its lobby (T1);
- `sheets`: the protocol sheets, signed, corrected, rescored (T3, T4);
- `results`: standings, exports, statistics, finishing and reopening (T4, T5).

`TournamentService` is the facade the handlers, the page and the tests hold: its methods
are the parts' own, so a call lands where the work is done.
"""

from __future__ import annotations

from bot.services.game import GameService
from bot.services.judge.bans import OutOfTournament
from bot.services.judge.desk import OPEN_TOURNAMENTS, Desk
from bot.services.judge.refusals import SignedSheet, TablesUnfinished, TournamentError
from bot.services.judge.registration import Registration, words_of
from bot.services.judge.results import Results
from bot.services.judge.roster import Roster
from bot.services.judge.seating import Seating
from bot.services.judge.sheets import Sheets

__all__ = [
    "OPEN_TOURNAMENTS",
    "SignedSheet",
    "TablesUnfinished",
    "TournamentError",
    "TournamentService",
    "words_of",
]


class TournamentService:
    def __init__(
        self,
        games: GameService,
        judges: frozenset[int] = frozenset(),
        open_tournaments: int = OPEN_TOURNAMENTS,
    ) -> None:
        self.games = games
        self.repos = games.repos
        self.desk = desk = Desk(games, judges, open_tournaments)
        self.out = out = OutOfTournament(desk)
        self.registration = registration = Registration(desk)
        self.roster = roster = Roster(desk, out)
        self.seating = seating = Seating(desk, out, roster)
        self.sheets = sheets = Sheets(desk)
        self.results = results = Results(desk, out, sheets, seating)

        self.may_judge = desk.may_judge
        self.create = desk.create
        self.judged_by = desk.judged_by
        self.settings = desk.settings
        self.change_setting = desk.change_setting
        self.check_open = desk.check_open
        self.nicks = desk.nicks

        self.register = registration.register
        self.tournament_of_player = registration.tournament_of_player
        self.set_registration = registration.set_registration
        self.player_by_nick = registration.player_by_nick
        self.players_by_nicks = registration.players_by_nicks
        self.unregister = registration.unregister
        self.set_nick = registration.set_nick

        self.out_players = out.out_players
        self.offences = out.offences
        self.put_out = out.put_out
        self.ask_judge_to_ban = out.ask_judge_to_ban
        self.send_queued = out.send_queued
        self.decide_ban = out.decide_ban
        self.unban = out.unban

        self.propose = seating.propose
        self.tables = seating.tables
        self.tables_text = seating.tables_text
        self.confirm = seating.confirm
        self.cancel = seating.cancel
        self.redraw = seating.redraw

        self.bind = roster.bind
        self.unbind = roster.unbind
        self.keep_invite = roster.keep_invite
        self.revoke_invites = roster.revoke_invites
        self.invite = roster.invite
        self.check_substitute = roster.check_substitute
        self.replace = roster.replace
        self.tell_replaced = roster.tell_replaced
        self.open_table = roster.open_table

        self.game_state = sheets.game_state
        self.played_scheme = sheets.played_scheme
        self.signed_sheets = sheets.signed_sheets
        self.may_see_sheet = sheets.may_see_sheet
        self.sheet_for = sheets.sheet_for
        self.sheet_doc = sheets.sheet_doc
        self.sheet_views = sheets.sheet_views
        self.sheet_text = sheets.sheet_text
        self.send_sheet_to_judge = sheets.send_sheet_to_judge
        self.change_sheet = sheets.change_sheet
        self.rescore = sheets.rescore

        self.standings = results.standings
        self.lot = results.lot
        self.lot_line = results.lot_line
        self.exports = results.exports
        self.tournament_stats = results.tournament_stats
        self.stats_of = results.stats_of
        self.protocol_json = results.protocol_json
        self.check_finishable = results.check_finishable
        self.finish = results.finish
        self.reopen = results.reopen

    # The allow-list lives on the desk, which every part asks; changing it here (the
    # config reloaded, a test) changes it for all of them.
    @property
    def judges(self) -> frozenset[int]:
        return self.desk.judges

    @judges.setter
    def judges(self, judges: frozenset[int]) -> None:
        self.desk.judges = judges

    @property
    def open_tournaments(self) -> int:
        return self.desk.open_tournaments
