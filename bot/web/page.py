"""The live tournament page, served by the bot itself (issue 12, `[web]` in the config).

Read-only: the standings, each tour's groups and every table as the players in its chat
see it (seats, who is still in, the phase, the speaker, warnings). Nothing hidden while
a game runs ever reaches it: no role, no seed, no night choice, no vote in progress;
`table_view` copies out only what the chat was told. A page is addressed by the
tournament's number and a token derived from the bot's secret, so nobody finds a
tournament's page by counting; `PageLinks` makes the addresses, `serve_pages` answers.
The token is checked before the database is asked anything, each source address has a
budget of requests, a half-sent request is dropped after a few seconds (bot.web.httpguard),
and what is kept between readings is bounded.

The page is one HTML shell with a script that asks `live.json` every few seconds and
writes every nick as text (never as markup). Opened as a Telegram Mini App, it sends
Telegram's signed launch data to `me`, and the viewer's own line is marked.
"""

from __future__ import annotations

import asyncio
import base64
import hashlib
import hmac
import re
import socket
import time
from collections import Counter
from dataclasses import dataclass
from importlib import resources
from typing import Any

from aiohttp import web

from bot.lru import LRU
from bot.rules.events import Phase
from bot.rules.sanctions import Penalty
from bot.services.game import GameService
from bot.services.judge import TournamentService
from bot.tournament.natural import natural_key
from bot.tournament.scoring import format_tenths
from bot.tournament.standings import StandingsRow
from bot.views.i18n import LANGUAGES, Texts
from bot.views.render import _clock_time, _zone_name
from bot.web.httpguard import HEADER_SECONDS, AddressLimit
from bot.web.webapp import MAX_AGE_SECONDS, MAX_INIT_DATA, viewer_of
from storage.games import GameStatus
from storage.tournaments import Tournament
from storage.tours import TourGroup

# How long one answer of live.json is reused: many viewers polling cost one reading.
FRESH_SECONDS = 1.0
# Answers kept for reuse: (tournament, language) pairs, the least recently read forgotten.
PAGES_KEPT = 256
# Requests per source address: a page asks every 2 s, and a hall's hundred phones behind
# one address ask 50 a second; a script asking thousands a second is answered 429.
PAGE_BURST, PAGE_EVERY = 300, 0.01
_NUMBER = re.compile(r"[0-9]{1,9}")

# Headers on every answer: nothing from elsewhere runs or loads, the token in the
# address is sent to nobody, and no browser guesses a type.
_HEADERS = {
    "Content-Security-Policy": (
        "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; "
        "img-src 'self'; base-uri 'none'; form-action 'none'"
    ),
    "Referrer-Policy": "no-referrer",
    "X-Content-Type-Options": "nosniff",
    "Cache-Control": "no-store",
}


@dataclass(frozen=True)
class PageLinks:
    """The page's addresses. `base_url`: where people reach the server (the reverse
    proxy's HTTPS address, or the bare listener); `secret`: what tokens are made from."""

    base_url: str
    secret: str

    def token(self, tournament: Tournament) -> str:
        return self.token_of(tournament.tournament_id)

    def token_of(self, tournament_id: int) -> str:
        """The token of a tournament's page: from its number and the secret alone, so an
        address is checked before the database is asked anything (issue 25 §5)."""
        message = f"tournament-page:{tournament_id}"
        digest = hmac.new(self.secret.encode(), message.encode(), hashlib.sha256).digest()
        return base64.urlsafe_b64encode(digest[:18]).decode()  # 144 bits, 24 characters

    def url(self, tournament: Tournament) -> str:
        return f"{self.base_url}/t/{tournament.tournament_id}/{self.token(tournament)}/"

    @property
    def opens_in_telegram(self) -> bool:
        """A Mini App button takes only an HTTPS address (Bot API, WebAppInfo)."""
        return self.base_url.startswith("https://")


def _asset(name: str) -> str:
    return resources.files("bot.web").joinpath("static", name).read_text(encoding="utf-8")


class TournamentPages:
    def __init__(
        self,
        tournaments: TournamentService,
        links: PageLinks,
        bot_token: str,
        texts: Texts,
        *,
        launch_max_age: float = MAX_AGE_SECONDS,
        kept: int = PAGES_KEPT,
    ) -> None:
        self.tournaments = tournaments
        self.links = links
        self.bot_token = bot_token
        self.texts = texts
        # How old the Mini App's signed launch data may be: older is a replayed copy.
        self.launch_max_age = launch_max_age
        self._fresh: LRU[tuple[int, str], tuple[float, dict[str, Any]]] = LRU(kept)
        self._standings: LRU[int, tuple[float, list[StandingsRow]]] = LRU(kept)
        self.limit = AddressLimit(PAGE_BURST, PAGE_EVERY)

    @property
    def games(self) -> GameService:
        return self.tournaments.games

    def application(self) -> web.Application:
        app = web.Application(
            client_max_size=MAX_INIT_DATA * 2, middlewares=[self.limit.middleware()]
        )
        app.router.add_get("/t/{tournament}/{token}/", self._page)
        app.router.add_get("/t/{tournament}/{token}/live.json", self._live)
        app.router.add_post("/t/{tournament}/{token}/me", self._me)
        app.router.add_get("/page.js", self._file("page.js", "text/javascript"))
        app.router.add_get("/page.css", self._file("page.css", "text/css"))
        app.on_response_prepare.append(_secure)
        return app

    # --- answers ---------------------------------------------------------------------

    async def _tournament(self, request: web.Request) -> Tournament:
        """The tournament the address names, or 404 for any address that is not one."""
        number, token = request.match_info["tournament"], request.match_info["token"]
        if not _NUMBER.fullmatch(number) or not hmac.compare_digest(
            self.links.token_of(int(number)).encode(), token.encode()
        ):
            raise web.HTTPNotFound()  # a wrong address never reaches the database
        tournament = await self.games.repos.tournaments.get(int(number))
        if tournament is None:
            raise web.HTTPNotFound()
        return tournament

    def _lang(self, request: web.Request) -> str:
        wanted = request.query.get("lang", "")
        return wanted if wanted in LANGUAGES else self.texts.default

    async def _page(self, request: web.Request) -> web.Response:
        await self._tournament(request)
        lang = self._lang(request)
        html = _asset("page.html").replace("{lang}", lang)
        return web.Response(text=html, content_type="text/html")

    def _file(self, name: str, kind: str) -> Any:
        async def answer(request: web.Request) -> web.Response:
            return web.Response(text=_asset(name), content_type=kind)

        return answer

    async def _live(self, request: web.Request) -> web.Response:
        tournament = await self._tournament(request)
        lang = self._lang(request)
        now = time.monotonic()  # the server's load is in real seconds, whatever the game clock
        key = (tournament.tournament_id, lang)
        kept = self._fresh.get(key)
        if kept is None or not 0 <= now - kept[0] < FRESH_SECONDS:
            kept = (now, await self.live_view(tournament, lang))
            self._fresh[key] = kept
        return web.json_response(kept[1])

    async def _me(self, request: web.Request) -> web.Response:
        """The viewer's line, if Telegram signed who they are and they play here."""
        tournament = await self._tournament(request)
        try:
            # The headers came in time; the body gets as long (a slow one is not waited on).
            async with asyncio.timeout(HEADER_SECONDS):
                init_data = (await request.text())[: MAX_INIT_DATA + 1]
        except TimeoutError:
            raise web.HTTPRequestTimeout() from None
        viewer = viewer_of(init_data, self.bot_token, self.games.clock.now(), self.launch_max_age)
        if viewer is None:
            raise web.HTTPForbidden()
        # Many viewers opening at once cost one reading of the standings.
        now = time.monotonic()
        kept = self._standings.get(tournament.tournament_id)
        if kept is None or not 0 <= now - kept[0] < FRESH_SECONDS:
            kept = (now, await self._visible_standings(tournament))
            self._standings[tournament.tournament_id] = kept
        rows = kept[1]
        index = next((i for i, r in enumerate(rows) if r.user_id == viewer.user_id), None)
        nick = rows[index].nick if index is not None else None
        return web.json_response({"row": index, "nick": nick})

    # --- what the page shows ---------------------------------------------------------

    async def _visible_standings(self, tournament: Tournament) -> list[StandingsRow]:
        """The standings, unless the Judge hides them until the end (T5, standings_visible)."""
        hidden = not self.tournaments.settings(tournament).standings_visible
        if hidden and tournament.status.value != "finished":
            return []
        return await self.tournaments.standings(tournament)

    async def live_view(self, tournament: Tournament, lang: str) -> dict[str, Any]:
        t = self.texts
        tid = tournament.tournament_id
        rows = await self._visible_standings(tournament)
        why = await self.tournaments.out_players(tid) if rows else {}
        nicks = await self.tournaments.nicks(tid)
        tours: dict[int, list[dict[str, Any]]] = {}
        for group in await self.games.repos.tours.groups(tid):
            tours.setdefault(group.tour, []).append(await self.table_view(group, nicks, lang))
        shared = Counter(r.place for r in rows if r.place is not None)
        finished = tournament.status.value == "finished"
        return {
            "name": tournament.name,
            "finished": finished,
            # The page's own clock line, in the tournament's time zone and the page's
            # language, not the browser's (a projector's laptop may be set to anything).
            "updated": self._clock_line(lang),
            "labels": {key: t(lang, f"web.{key}") for key in _LABELS},
            # T5: the prize places once the Judge has finished the tournament.
            "podium": [
                {"place": shown_place(r.place, shared[r.place]), "nick": r.nick}
                for r in rows
                if finished and r.place is not None and r.place <= 3
            ],
            "standings": [
                {
                    "place": r.place,
                    # A shared place as people write it: "1–6".
                    "shown": shown_place(r.place, shared[r.place]) if r.place else None,
                    "nick": r.nick,
                    "points": points(r.total_tenths, lang),
                    "games": r.games,
                    "wins": r.wins,
                    # T5: the tie-break that decided the place, in /standings' words.
                    "decided": t(
                        lang, "tie_break.decided", criterion=t(lang, f"tie_break.{r.decided_by}")
                    )
                    if r.decided_by is not None
                    else None,
                    # Why an unplaced player is out (RULES V, T5); None for the placed.
                    "out": t(lang, f"out.why_{why[r.user_id]}")
                    if r.place is None and r.user_id in why
                    else None,
                }
                for r in rows
            ],
            "tours": [
                {"tour": number, "title": t(lang, "web.tour", tour=number), "tables": tables}
                for number, tables in sorted(tours.items())
            ],
        }

    async def table_view(
        self, group: TourGroup, nicks: dict[int, str], lang: str
    ) -> dict[str, Any]:
        """One table as its chat knows it. Copied field by field: a new field of the game
        state reaches the page only when someone decides it is public."""
        t = self.texts
        view: dict[str, Any] = {
            "code": group.code,
            "players": sorted((nicks.get(u, "") for u in group.players), key=natural_key),
            "game": None,
        }
        game = await self.games.repos.games.get(group.game_id) if group.game_id else None
        if game is None:
            return view
        if game.status is GameStatus.LOBBY:
            joined = {p.user_id for p in await self.games.repos.lobby.players(game.game_id)}
            view["game"] = {
                "number": game.game_id,
                "phase": t(lang, "web.lobby"),
                "seats": [
                    # Not yet come is waiting, not out: nobody has left a game not begun.
                    {
                        "seat": None,
                        "nick": nicks.get(u, ""),
                        "in": u in joined,
                        "waiting": u not in joined,
                        "warnings": 0,
                    }
                    for u in sorted(group.players, key=lambda u: natural_key(nicks.get(u, "")))
                ],
            }
            return view
        state = await self.games.state(game.game_id)
        if state is None:
            return view
        warnings = {
            seat: sum(1 for s in state.sanctions if s.seat == seat and s.penalty is Penalty.WARNING)
            for seat in state.seats
        }
        now = self.games.clock.now()
        seconds = None
        if state.paused_remaining is not None:
            seconds = state.paused_remaining
        elif state.deadline is not None:
            seconds = max(0.0, state.deadline - now)
        result = None
        if state.winner is not None and state.finished:
            # Not at GameWon: the deciding player's last word comes first, and the group
            # reads the result only at GameOver (issue 25).
            result = t(lang, f"web.won_{state.winner.value}")
        elif state.phase.value == "aborted":
            result = t(lang, "phase.aborted")
        view["game"] = {
            "number": game.game_id,
            "day": state.day,
            "phase": t(lang, f"phase.{state.phase.value}"),
            "paused": state.paused,
            "speaker": state.speaker if state.in_speech else None,
            # Who is nominated, as the group was told at each nomination (D4), and the
            # leaders in their defence and the vote; never a vote before it closes.
            "nominated": list(dict.fromkeys(state.nominations.values()))
            if state.phase in _NOMINATING
            else [],
            "leaders": list(state.leaders) if state.phase in _DEFENDING else [],
            "seconds": None if seconds is None else round(seconds),
            "result": result,
            "seats": [
                {
                    "seat": seat,
                    "nick": st.nick,
                    "in": st.alive,
                    "left": t(lang, f"web.left_{st.left.value}") if st.left else "",
                    "warnings": warnings[seat],
                }
                for seat, st in sorted(state.seats.items())
            ],
        }
        return view

    def _clock_line(self, lang: str) -> str:
        now = self.games.clock.now()
        zone = self.games.timezone
        return f"{_clock_time(now, zone)} {_zone_name(now, zone, lang)}"


def shown_place(place: int, sharing: int) -> str:
    """A place as a standings sheet writes it: 3, or "1–6" when six share it (T5)."""
    return str(place) if sharing <= 1 else f"{place}–{place + sharing - 1}"


def points(tenths: int, lang: str) -> str:
    """Points with the decimal mark of the page's language: 2,4 in Russian, 2.4 in English."""
    shown = format_tenths(tenths)
    return shown.replace(".", ",") if lang == "ru" else shown


# The phases in which the table's nominations are news, and those with leaders.
_NOMINATING = frozenset({Phase.ROUND_2, Phase.DEFENCE, Phase.VOTE})
_DEFENDING = frozenset({Phase.DEFENCE, Phase.VOTE})

# The page's words, each `web.<key>` in the locales.
_LABELS = (
    "title",
    "standings",
    "place",
    "player",
    "points",
    "games",
    "wins",
    "out",
    "tables",
    "no_tables",
    "seat",
    "warnings",
    "day",
    "speaker",
    "paused",
    "seconds",
    "waiting",
    "joined",
    "you",
    "updated",
    "offline",
    "nominated",
    "leaders",
    "podium",
    "waiting_seat",
)


async def _secure(request: web.Request, response: web.StreamResponse) -> None:
    response.headers.update(_HEADERS)


async def serve_pages(
    pages: TournamentPages, host: str, port: int, sock: socket.socket | None = None
) -> web.AppRunner:
    """Listen for the page's readers (behind a reverse proxy in production)."""
    runner = web.AppRunner(
        pages.application(),
        access_log=None,
        # A half-sent request is dropped after this long (bot.web.httpguard).
        keepalive_timeout=HEADER_SECONDS,
    )
    await runner.setup()
    site: web.BaseSite = (
        web.SockSite(runner, sock) if sock is not None else web.TCPSite(runner, host, port)
    )
    await site.start()
    return runner
