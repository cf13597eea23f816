"""The protocol sheets (T3): who may see one, the signed sheets as scored (T4), the
Judge's corrections and rescores."""

from __future__ import annotations

import json
import logging

from bot.delivery.papers import Page, send_page
from bot.rules.protocol import entry_from_json
from bot.rules.sheet import sheet
from bot.rules.state import GameState
from bot.services.judge.desk import Desk
from bot.services.judge.refusals import SignedSheet, TournamentError
from bot.tournament.protocol_sheet import (
    Correction,
    ProtocolSheet,
    corrected,
    hosts_of,
    protocol_sheet,
    scheme_change,
)
from bot.tournament.scoring import Scheme, win_tenths
from bot.tournament.settings import TournamentSettings
from bot.tournament.tours import absent
from bot.views.render import Post
from bot.views.sheet import sheet_html, sheet_message
from storage.games import Game, GameStatus

log = logging.getLogger(__name__)


class Sheets:
    """The signed sheets and who may read them; the results score what it hands them."""

    def __init__(self, desk: Desk) -> None:
        self.desk = desk
        self.games = desk.games
        self.repos = desk.repos

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
        settings = self.desk.settings(tournament)
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
            and self.desk.may_judge(user_id)
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
        # Every Host who ran it, as the protocol has them: a hand-over is on the sheet.
        hosts = hosts_of(entries, game.host_user_id)
        host = " → ".join([await self.desk.name_of(game.tournament_id, h) for h in hosts])
        signer = (
            await self.desk.name_of(game.tournament_id, game.signed_by)
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
            settings=self.played_scheme(game, self.desk.settings(tournament)),
            tournament=tournament.name,
            tour=group.tour if group else None,
            table=group.code if group else None,
            signed_by=signer,
            signed_at=game.signed_at,
            corrections=corrections,
            absent=[await self.desk.name_of(game.tournament_id, u) for u in missing],
        )

    def sheet_views(self, doc: ProtocolSheet, lang: str) -> tuple[str, Page]:
        """The sheet as a message and as a printable HTML document."""
        t, zone = self.games.t, self.games.timezone
        page = sheet_html(t, lang, doc, zone).encode()
        return sheet_message(t, lang, doc, zone), Page(f"sheet-{doc.game_id}.html", page)

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
        if not await send_page(self.games.sender.bot, judge, page):
            # The message above is the sheet; the page is a copy /sheet sends again.
            log.warning("the sheet page of game %s did not reach the Judge", game.game_id)

    async def change_sheet(
        self, judge_id: int, game_id: int, change: dict[str, object], reason: str
    ) -> None:
        self.desk.check_judge(judge_id)
        game = await self.repos.games.get(game_id)
        if game is None or game.tournament_id is None or game.signed_by is None:
            raise TournamentError("sheet.unsigned", game=game_id)
        tournament = await self.repos.tournaments.get(game.tournament_id)
        assert tournament is not None
        if tournament.judge_user_id != judge_id:
            raise TournamentError("tournament.judge_only")
        self.desk.check_open(tournament)
        await self.repos.tours.change_sheet(
            game_id, judge_id, change, reason, now=self.games.clock.now()
        )

    async def rescore(self, judge_id: int, game_id: int | None, reason: str) -> list[int]:
        """T3, T4: the Judge's explicit rescore of signed sheets under the current scheme
        (`game_id` None: every signed sheet of their tournament). Each sheet whose points
        it changes gets a correction with the reason; the games changed, by id."""
        tournament = await self.desk.judged_by(judge_id)
        if game_id is not None:
            game = await self.repos.games.get(game_id)
            if game is None or game.tournament_id != tournament.tournament_id:
                raise TournamentError("tournament.judge_only")
            if game.signed_by is None:
                raise TournamentError("sheet.unsigned", game=game_id)
        current = Scheme.of(self.desk.settings(tournament))
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


def _describe(change: dict[str, object]) -> str:
    if change.get("field") == "winner":
        return f"winner → {change['value']}"
    if change.get("field") == "scheme":
        coefficient, threshold = change.get("bonus_coefficient"), change.get("bonus_threshold")
        return f"scheme: x{coefficient}/10 above {threshold}"
    return f"seat {change.get('seat')}: point {'yes' if change.get('value') else 'no'}"
