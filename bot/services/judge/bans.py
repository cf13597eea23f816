"""Who is out of the tournament (RULES V, T5): the sanctions that put a player out, the
Host's V4 ban the Judge confirms or declines, and the Judge's /unban."""

from __future__ import annotations

import json

from bot.rules.codec import to_json
from bot.rules.sanctions import Penalty, disqualifies
from bot.rules.state import GameState
from bot.services.judge.desk import Desk
from bot.services.judge.refusals import TournamentError
from bot.tournament.record import TournamentOffence, offences_in_game
from bot.views.callbacks import BanCb
from bot.views.i18n import escape
from bot.views.render import Button, Post, named
from storage.games import Game
from storage.tournaments import PlayerStatus
from storage.users import BanRequest


class OutOfTournament:
    """Who is out and why, read from the protocol, the players' status and the bans."""

    def __init__(self, desk: Desk) -> None:
        self.desk = desk
        self.games = desk.games
        self.repos = desk.repos

    async def out_players(self, tournament_id: int) -> dict[int, str]:
        """Everyone out of the tournament, and why: "disqualified", "removed" (V4, V6),
        "banned" (a confirmed ban, here or in another tournament) or "withdrawn".

        Read from the games' sanctions (the protocol, so a replay gives the same answer),
        the players' stored status and the bans: none of them is proposed, seated nor
        substituted in, and none is placed (T5). A V4 ban the Judge declined removed the
        player from that game only.
        """
        declined = await self.repos.ban_requests.declined(tournament_id)
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
        await self.desk.leave_unplayed_groups(tid, user_id)
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
        self.desk.check_judge(judge_id)
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
        self.desk.check_judge(judge_id)
        mine = await self.repos.tournaments.of_judge(judge_id)
        user_id = int(who) if who.isascii() and who.isdecimal() and len(who) <= 15 else None
        if user_id is None:
            for tournament in mine:
                nicks = await self.desk.nicks(tournament.tournament_id)
                user_id = next((u for u, n in nicks.items() if n.lower() == who.lower()), None)
                if user_id is not None:
                    break
        confirmed = (
            await self.repos.ban_requests.confirmed_by(user_id) if user_id is not None else []
        )
        ours = any(judge == judge_id for judge, _ in confirmed)
        if user_id is None or not ours or await self.repos.bans.get(user_id) is None:
            raise TournamentError("unban.unknown", who=escape(who))
        others = [name for judge, name in confirmed if judge != judge_id]
        if others:
            names = ", ".join(f"<b>{escape(name)}</b>" for name in dict.fromkeys(others))
            raise TournamentError("unban.also_confirmed", who=escape(who), tournaments=names)
        await self.repos.bans.unban(user_id)
        return user_id

    async def offences(self, tournament_id: int) -> list[TournamentOffence]:
        found: list[TournamentOffence] = []
        for game in await self.repos.games.of_tournament(tournament_id):
            state = await self.games.state(game.game_id)
            if state is not None:
                seats = {s: st.user_id for s, st in state.seats.items()}
                found += offences_in_game(game.game_id, seats, state.sanctions)
        return found
