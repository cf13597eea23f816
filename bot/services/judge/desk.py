"""The Judge's desk: who may judge, creating a tournament, its settings (T6), and what
every other part of the tournament service looks up (the nicks, a person's name, the
tables a player leaves)."""

from __future__ import annotations

from dataclasses import fields, replace
from typing import Any

from bot.rules.errors import BadSettings
from bot.services.game import GameService
from bot.services.judge.refusals import TournamentError
from bot.tournament.settings import (
    SettingChange,
    TournamentSettings,
    check_judge_value,
    diff_settings,
    parse_tie_break,
    settings_from_json,
    settings_to_json,
)
from bot.views.i18n import escape
from bot.views.render import Post
from bot.views.settings import change_lines
from storage.games import GameStatus
from storage.tournaments import Tournament, TournamentStatus

# Tournaments one person may have open at once, unless `[access]` says otherwise.
OPEN_TOURNAMENTS = 3


class Desk:
    """What every part asks: the allow-list, the tournament a Judge means, its settings."""

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

    def may_judge(self, user_id: int) -> bool:
        """The config's `[access] judges` names the user, or names nobody."""
        return not self.judges or user_id in self.judges

    def check_judge(self, user_id: int) -> None:
        # Every Judge command, not only /tournament: someone taken off the list loses
        # the commands of the tournaments they created.
        if not self.may_judge(user_id):
            raise TournamentError("tournament.not_allowed")

    async def create(self, name: str, judge_id: int) -> Tournament:
        self.check_judge(judge_id)
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
        self.check_judge(user_id)
        mine = await self.repos.tournaments.of_judge(user_id)
        if not mine:
            raise TournamentError("tournament.none")
        return mine[0]

    async def leave_unplayed_groups(self, tournament_id: int, user_id: int) -> list[int]:
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

    async def tell_players(self, tournament: Tournament, key: str, **values: object) -> None:
        posts = []
        for player in await self.repos.tournaments.players(tournament.tournament_id):
            lang = await self.games.user_lang(player.user_id)
            posts.append(Post(player.user_id, self.games.t(lang, key, **values)))
        await self.games.sender.deliver(0, posts)

    def check_open(self, tournament: Tournament) -> None:
        """T5: a finished tournament's final table stays as announced until it is reopened."""
        if tournament.status is TournamentStatus.FINISHED:
            raise TournamentError("tournament.finished", name=escape(tournament.name))

    async def nicks(self, tournament_id: int) -> dict[int, str]:
        return {p.user_id: p.nick for p in await self.repos.tournaments.players(tournament_id)}

    async def name_of(self, tournament_id: int | None, user_id: int) -> str:
        """A person as the sheet names them: their tournament nick, else their name."""
        if tournament_id is not None:
            player = await self.repos.tournaments.player(tournament_id, user_id)
            if player is not None:
                return player.nick
        user = await self.repos.users.get(user_id)
        if user is None:
            return str(user_id)
        return user.nick or user.first_name


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
