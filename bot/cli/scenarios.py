"""Demo scenarios: what a Host does, and the day's rarer endings, played in the sandbox.

`python -m bot demo --scenario NAME` plays a whole game like the plain demo, with the
Host or the table doing one thing on purpose:

- `host`: the Host pauses and resumes the clock, gives a speaker 20 s more, warns a
  player for excessive gesturing (V5) and, on Day 2, removes a player (no last word).
- `lot`: nobody is nominated on Day 1, so a lot decides who leaves (D8).
- `tie`: two players are nominated on Day 1 and the vote splits evenly between them:
  both leave (D7).
- `sanction`: one player is warned twice for V5 (a warning, then removal from the game),
  another once for V2 (a warning): the ladder of rules V.
- `tournament`: a tournament of one tour, from the Judge's `/tournament` to the final
  standings (`play_tournament`).

Each is deterministic for a seed, like the plain demo.
"""

from __future__ import annotations

import asyncio
import random
import re
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import TextIO

from aiohttp import web

from bot.cli.demo import RIGHTS, SPEECHES, Crowd, Table, open_table, play
from bot.config import Config
from bot.rules.events import Phase
from bot.rules.roles import Role
from bot.rules.sanctions import VCode
from bot.rules.state import GameState
from bot.tournament.settings import TournamentSettings
from bot.web.page import PageLinks, TournamentPages, serve_pages
from sandbox import PrivateChat, SimGroup, SimUser
from storage.secrets import PAGE_KEY
from storage.tournaments import TournamentStatus

SCENARIOS = ("game", "host", "lot", "tie", "sanction", "tournament")


@dataclass
class Scripted(Crowd):
    """The crowd of the plain demo, and the Host (or the table) following a script."""

    scenario: str = "game"
    steps: set[str] = field(default_factory=set)

    def first(self, name: str) -> bool:
        """True once per name: each scripted step happens once."""
        if name in self.steps:
            return False
        self.steps.add(name)
        return True

    async def act(self) -> bool:
        state = self.table.state
        if state is None or state.finished:
            return False
        if await self._host(state):
            return True
        day_one_round_two = state.day == 1 and state.phase is Phase.ROUND_2
        if self.scenario == "lot" and day_one_round_two and state.speaker is not None:
            return await self._speech(state, state.speaker, None)  # nobody nominates
        if self.scenario == "tie" and state.day == 1 and not state.paused:
            if state.phase is Phase.ROUND_2 and state.speaker is not None:
                first, second, one, other = self._tie_pair(state)
                nominee = {first: one, second: other}.get(state.speaker)
                return await self._speech(state, state.speaker, nominee)
            if state.phase is Phase.VOTE:
                return await self._tie_vote(state)
        return await super().act()

    async def _command(self, text: str) -> None:
        await self.table.host.send(self.table.group, text)
        await self.table.settle()

    async def _confirm(self) -> None:
        """The Host confirms the sanction the bot proposed (its first button): in the
        Host's private chat if they pressed Start, else in the group."""
        table = self.table
        found = (table.latest(chat, "s:") for chat in (table.group.messages(), table.host.inbox()))
        proposal = max((m for m in found if m is not None), key=lambda m: m.seq, default=None)
        assert proposal is not None, "no sanction was proposed"
        await self.table.host.press(proposal, 0)
        await self.table.settle()

    def _civilians(self, state: GameState) -> list[int]:
        return [s for s in state.living() if state.roles[s] is Role.CIVILIAN]

    async def _host(self, state: GameState) -> bool:
        if self.scenario == "host":
            if state.day == 1 and state.phase is Phase.ROUND_1 and self.first("pause"):
                await self._command("/pause")
                await self._command("/status")
                await self._command("/resume")
                await self._command("/extend 20")
                return True
            if state.day == 1 and state.phase is Phase.ROUND_2 and self.first("warn"):
                await self._command(f"/warn {state.living()[-1]} V5")
                await self._confirm()
                return True
            if state.day == 2 and state.phase is Phase.ROUND_1 and self.first("remove"):
                civilians = self._civilians(state)
                if civilians:
                    await self._command(f"/remove {civilians[0]}")
                    return True
        if self.scenario == "sanction":
            civilians = self._civilians(state)
            if state.day == 1 and state.phase is Phase.ROUND_1 and self.first("V5 once"):
                await self._command(f"/warn {civilians[-1]} V5")
                await self._confirm()
                await self._command(f"/warn {civilians[0]} V2")
                await self._confirm()
                return True
            if state.day == 1 and state.phase is Phase.ROUND_2 and self.first("V5 twice"):
                target = next((s.seat for s in state.sanctions if s.code is VCode.V5), None)
                if target is not None and state.is_alive(target):
                    await self._command(f"/warn {target} V5")
                    await self._confirm()
                    return True
        return False

    def _tie_pair(self, state: GameState) -> tuple[int, int, int, int]:
        """The two nominators (the first two speakers of round 2) and their two nominees."""
        order = state.living()
        start = order.index(state.first_speaker) if state.first_speaker in order else 0
        order = order[start:] + order[:start]
        nominators = order[0], order[1]
        nominees = [s for s in reversed(order) if s not in nominators]
        return nominators[0], nominators[1], nominees[0], nominees[1]

    async def _speech(self, state: GameState, seat: int, nominee: int | None) -> bool:
        """A round-2 speech that nominates `nominee` (or nobody), then ends."""
        if state.paused:
            return False
        person = self.table.person(seat)
        turn = self.table.latest(self.table.group.messages(), f"t:{state.game_id}:{state.step}:")
        if turn is None or not self._once(person.id, state.step, "speak"):
            return False
        await person.send(self.table.group, self.rng.choice(SPEECHES[self.lang]))
        await self.table.settle()
        if nominee is not None:
            await person.press(turn, str(nominee))
            await self.table.settle()
        fresh = self.table.latest(self.table.group.messages(), "t:")
        now = self.table.state
        if fresh is not None and now is not None and now.step == state.step:
            await person.press(fresh, 0)
            await self.table.settle()
        return True

    async def _tie_vote(self, state: GameState) -> bool:
        ballot = self.table.latest(self.table.group.messages(), "v:")
        if ballot is None or len(state.leaders) != 2:
            return await super().act()
        voters = state.living()
        if len(voters) % 2:
            voters = voters[:-1]  # the last one does not vote: an abstention (D6)
        acted = False
        for index, seat in enumerate(voters):
            person = self.table.person(seat)
            if not self._once(person.id, state.step, "vote"):
                continue
            leader = state.leaders[index % 2]
            await person.press(ballot, f"{leader} · {state.seats[leader].nick}")
            await self.table.settle()
            acted = True
        return acted


# --- the tournament ----------------------------------------------------------------

TOURNAMENT_NAME = {"ru": "Осенний кубок", "en": "Autumn Cup"}
TABLE_TITLE = {"ru": "Стол {code}", "en": "Table {code}"}
ANNOUNCEMENT = {
    "ru": "{name} — в субботу в 12:00. Регистрация по ссылке: {link}",
    "en": "The {name} is on Saturday at noon. Register here: {link}",
}
SMALLEST_TOURNAMENT = TournamentSettings().group_min  # one table: the fewest T1 seats
REGISTRATION = re.compile(r"https://t\.me/\S+\?start=reg_[\w-]+")
INVITE = re.compile(r"https://t\.me/\+[\w-]+")


async def _say(table: Table, who: SimUser, chat: SimGroup | PrivateChat, text: str) -> None:
    await who.send(chat, text)
    await table.settle()


async def play_tournament(
    config: Config,
    players: int,
    seed: int,
    lang: str,
    out: TextIO,
    *,
    web: bool = False,
    linger: Callable[[str], Awaitable[object]] | None = None,
) -> int:
    """A tournament of one tour, as a club runs it (PRODUCT, "A tournament").

    The Judge (a server's only `[access] judges`) creates it and shares the registration
    link; everybody registers; the Judge confirms the split (T1), makes a chat per table
    and binds it with the Host named; the players come in by their invitations. The Host
    opens each table, the crowd plays it, the Host signs the sheet (T3); the Judge looks
    at the standings and finishes the tournament (T4, T5). Tables are played one after
    another, so the transcript is the same for the same seed.
    """
    async with open_table(
        players,
        seed=seed,
        lang=lang,
        settings=config.casual_settings(),
        warning_seconds=config.game.warning_seconds,
        judge=True,
    ) as table:
        judge, host = table.judge, table.host
        assert judge is not None
        page = None
        if web:
            page = await _serve_the_page(table, config)
        await judge.start_bot()
        await host.start_bot()  # so the bot knows the Host's @username, and can write to the Host
        await table.settle()
        await _say(table, judge, judge.private, f"/tournament {TOURNAMENT_NAME[lang]}")
        link = REGISTRATION.search(judge.inbox()[-1].content)
        assert link is not None, "no registration link"
        # The Judge shares it in the club's chat, and everybody follows it from there.
        table.group.add_member(judge)
        shared = ANNOUNCEMENT[lang].format(name=TOURNAMENT_NAME[lang], link=link.group(0))
        await _say(table, judge, table.group, shared)
        for person in table.people:
            await person.open_link(link.group(0))
            await table.settle()
        await _say(table, judge, judge.private, "/groups")
        await _say(table, judge, judge.private, "/groups confirm")
        tournaments = table.app.dispatcher["tournaments"]
        tournament = await tournaments.judged_by(judge.id)
        address = ""
        if page is not None:
            address = page.links.url(tournament)
            print(table.texts(lang, "demo.web", url=address), file=out, flush=True)
        groups = await table.app.service.repos.tours.groups(tournament.tournament_id, 1)
        for number, group in enumerate(groups):
            await _play_table(table, group.code, random.Random(f"{seed}:{number}"), lang)
        await _say(table, judge, judge.private, "/standings")
        await _say(table, judge, judge.private, "/finish")
        tournament = await tournaments.judged_by(judge.id)
        if tournament.status is not TournamentStatus.FINISHED:
            # Shared places in the top three (T5): the Judge ends with them shared.
            await _say(table, judge, judge.private, "/finish confirm")
        out.write(table.transcript() + "\n\n")
        table.sandbox.assert_no_bot_errors()
        out.write(
            table.texts(
                lang,
                "demo.tournament_over",
                name=TOURNAMENT_NAME[lang],
                seed=seed,
                players=players,
            )
            + "\n"
        )
        if page is not None:
            out.write(table.texts(lang, "demo.web_stays", url=address) + "\n")
            out.flush()
            try:
                await (linger or _until_interrupted)(address)
            finally:
                await page.runner.cleanup()
    return 0


@dataclass
class _Page:
    links: PageLinks
    runner: web.AppRunner


async def _serve_the_page(table: Table, config: Config) -> _Page:
    """The live page of the demo's tournament, on `[web]`'s host and port (8081 by default),
    as a club would see it before it has a token (issue 23)."""
    key = await table.app.service.repos.secrets.get_or_make(PAGE_KEY)
    host, port = config.web.host, config.web.port
    links = PageLinks(f"http://{host}:{port}", key)
    table.pages = links
    await table.restart()  # the bot gives the page's address in /standings from now on
    pages = TournamentPages(
        table.app.dispatcher["tournaments"], links, table.sandbox.token, table.texts
    )
    runner = await serve_pages(pages, host, port)
    return _Page(links, runner)


async def _until_interrupted(address: str) -> None:
    await asyncio.Event().wait()  # Ctrl-C ends it


async def _play_table(table: Table, code: str, rng: random.Random, lang: str) -> None:
    """One table of the tour: its chat bound, its players in, a game played and signed."""
    judge, host = table.judge, table.host
    assert judge is not None
    chat = table.sandbox.add_supergroup(TABLE_TITLE[lang].format(code=code), owner=judge)
    chat.promote_bot(by=judge, **RIGHTS)
    chat.add_member(host, added_by=judge)
    await table.settle()
    await _say(table, judge, chat, f"/bind {code} @{host.username}")
    for person in table.people:
        invite = next((m for m in reversed(person.inbox()) if code in m.content), None)
        found = INVITE.search(invite.content) if invite is not None else None
        if found is not None:  # a reserve has no invitation
            await person.join_by_link(found.group(0))
            await table.settle()
    await _say(table, host, chat, "/newgame")
    game = await table.app.service.active_game(chat.id)
    assert game is not None, "the table did not open"
    lobby = table.latest(chat.messages(), "p:")
    assert lobby is not None
    roster = await table.app.service.repos.tours.group(code)
    assert roster is not None
    for person in table.people:
        if person.id in roster.players:
            await person.press(lobby, 0)  # "I'm here"
            await table.settle()
    await _say(table, host, chat, "/begin")
    table.group, table.game_id = chat, game.game_id
    state = await play(table, Crowd(table, rng, lang))
    assert state.finished
    await table.let_room_come()
    sheet = table.latest(chat.messages(), "g:")
    assert sheet is not None, "no sheet to sign"
    await host.press(sheet, 0)  # the Host signs; the sheet goes to the Judge (T3)
    await table.settle()
