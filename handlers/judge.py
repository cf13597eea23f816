"""The tournament: the Judge's commands in private, binding tables, registration (T1-T7)."""

from __future__ import annotations

import contextlib
import re
from collections.abc import Iterable, Mapping
from dataclasses import replace

from aiogram import Bot, F, Router
from aiogram.exceptions import TelegramAPIError, TelegramBadRequest
from aiogram.filters import Command, CommandObject, CommandStart
from aiogram.types import (
    BufferedInputFile,
    CallbackQuery,
    ChatMemberAdministrator,
    ChatMemberOwner,
    InlineKeyboardButton,
    InlineKeyboardMarkup,
    Message,
    WebAppInfo,
)

from bot.rules.roles import Role, Side
from bot.services.game import GameService
from bot.services.judge import TablesUnfinished, TournamentError, TournamentService, words_of
from bot.tournament.natural import natural_key
from bot.tournament.scoring import format_tenths
from bot.tournament.standings import StandingsRow, top_three
from bot.tournament.stats import PlayerStats, Tally
from bot.tournament.tables import table_number
from bot.tournament.tours import TableState, begun, unfinished
from bot.views.callbacks import BanCb
from bot.views.i18n import escape
from bot.views.render import Post
from bot.views.settings import change_lines, settings_lines
from bot.views.sheet import points as as_points
from bot.web.page import PageLinks
from handlers.args import (
    GAME,
    GROUP_CODE,
    NAME,
    NEW_NICK,
    NICK_AND_MORE,
    POINTS,
    REASON,
    SEAT,
    SETTINGS,
    USER,
    USERNAME,
    Arg,
    Depends,
    Word,
    fits,
    replied_member,
    takes,
)
from handlers.filters import IN_GROUP, IN_PRIVATE
from handlers.lobby import is_member, missing_rights, refresh_lobby
from storage.games import GameStatus
from storage.tournaments import Tournament, TournamentPlayer, TournamentStatus

PRIVATE = IN_PRIVATE
# How long an expelled observer stays out of the table's chat (T7).
EXPELLED_DAYS = 7
OLD_REGISTRATION = re.compile(r"reg_[0-9]{1,9}")
SIDES = {side.value for side in Side}
GROUP = IN_GROUP


async def _refuse(
    message: Message, service: GameService, lang: str, error: TournamentError
) -> None:
    await message.answer(service.t(lang, error.key, **error.values))


@takes("tournament.usage", Arg("name", NAME))
async def create(
    message: Message,
    bot: Bot,
    service: GameService,
    tournaments: TournamentService,
    lang: str,
    name: str,
) -> None:
    assert message.from_user is not None
    try:
        tournament = await tournaments.create(name, message.from_user.id)
    except TournamentError as error:
        await _refuse(message, service, lang, error)
        return
    me = await bot.me()
    link = f"https://t.me/{me.username}?start=reg_{tournament.reg_token}"
    await message.answer(
        service.t(lang, "tournament.created", name=escape(tournament.name), link=link)
    )


async def register(
    message: Message,
    command: CommandObject,
    service: GameService,
    tournaments: TournamentService,
    lang: str,
) -> None:
    """The registration deep link: `/start reg_<token>`."""
    assert message.from_user is not None and command.args is not None
    await service.repos.users.set_started(message.from_user.id, True)
    if OLD_REGISTRATION.fullmatch(command.args):
        # Links of before the tokens named the tournament by its number: anyone could guess it.
        await message.answer(service.t(lang, "tournament.old_link"))
        return
    try:
        tournament = await tournaments.register(
            command.args[4:], message.from_user.id, message.from_user.first_name
        )
    except TournamentError as error:
        await _refuse(message, service, lang, error)
        return
    player = await service.repos.tournaments.player(tournament.tournament_id, message.from_user.id)
    assert player is not None
    await message.answer(
        service.t(
            lang, "tournament.registered", name=escape(tournament.name), nick=escape(player.nick)
        )
    )


@takes("tournament.nick_usage", Arg("new", NEW_NICK))
async def nick(
    message: Message,
    command: CommandObject,
    service: GameService,
    tournaments: TournamentService,
    lang: str,
    new: str,
) -> None:
    """`/nick NEW`: one line of printable text; what was taken out is shown (issue 25)."""
    assert message.from_user is not None
    try:
        await tournaments.set_nick(message.from_user.id, new)
    except TournamentError as error:
        await _refuse(message, service, lang, error)
        return
    typed = (command.args or "").strip()
    key = "tournament.nick_set" if typed == new else "tournament.nick_cleaned"
    await message.answer(service.t(lang, key, nick=escape(new)))


@takes(
    "settings.usage",
    (),
    (
        Arg("name", Word(tuple(SETTINGS))),
        Arg("value", Depends("name", SETTINGS)),
        Arg("override", Word(("override",)), optional=True),
    ),
)
async def settings(
    message: Message,
    service: GameService,
    tournaments: TournamentService,
    lang: str,
    name: str | None = None,
    value: object = None,
    override: str | None = None,
) -> None:
    """`/settings` shows the scheme; `/settings <name> <value> [override]` changes it (T6)."""
    assert message.from_user is not None
    try:
        tournament = await tournaments.judged_by(message.from_user.id)
        if name is not None:
            changes = await tournaments.change_setting(
                tournament, name, str(value), override=override is not None
            )
            lines = change_lines(service.t, lang, changes, tournaments.settings(tournament))
            key = "settings.changed" if changes else "settings.unchanged"
            text = service.t(lang, key, changes="\n".join(lines))
            if override is not None and any(c.name.startswith("bonus_") for c in changes):
                # T3: signed sheets keep their scheme; rescoring them is the Judge's own act.
                text += "\n\n" + service.t(lang, "settings.signed_keep_scheme")
            await message.answer(text)
            return
    except TournamentError as error:
        await _refuse(message, service, lang, error)
        return
    # T6: each setting in words and units, with the key /settings changes it by.
    lines = settings_lines(service.t, lang, tournaments.settings(tournament), keys=True)
    shown = "\n".join(lines)
    await message.answer(
        service.t(lang, "settings.in_words", name=escape(tournament.name), settings=shown)
    )


@takes(
    "groups.usage",
    (),
    (
        Arg("action", Word(("confirm", "cancel", "redraw"))),
        Arg("override", Word(("override",)), optional=True),
    ),
)
async def groups(
    message: Message,
    service: GameService,
    tournaments: TournamentService,
    lang: str,
    action: str | None = None,
    override: str | None = None,
) -> None:
    """`/groups` proposes the next tour's split (T1); `/groups confirm` makes it so, once
    the current tour is complete (`override`: anyway); `/groups cancel|redraw` undoes a
    tour none of whose games has begun."""
    assert message.from_user is not None
    judge = message.from_user.id
    try:
        tournament = await tournaments.judged_by(judge)
        tournaments.check_open(tournament)
        nicks = await tournaments.nicks(tournament.tournament_id)
        if action == "cancel":
            tour = await tournaments.cancel(tournament, judge, redraw=False)
            await message.answer(service.t(lang, "groups.cancelled", tour=tour))
            return
        if action is not None:
            if action == "redraw":
                tour, made = await tournaments.redraw(tournament, judge)
                key = "groups.redrawn"
            else:
                tour, made = await tournaments.confirm(tournament, judge, override is not None)
                key = "groups.confirmed"
            listing = "\n\n".join(
                f"<b>{g.code}</b> ({len(g.players)}): " + _listed(nicks, g.players) for g in made
            )
            await message.answer(service.t(lang, key, tour=tour, groups=listing))
            return
        tour, proposal = await tournaments.propose(tournament)
    except TablesUnfinished as error:
        await _refuse_tables(message, service, tournaments, lang, error, judge)
        return
    except TournamentError as error:
        await _refuse(message, service, lang, error)
        return
    listing = "\n\n".join(
        f"<b>{i}</b> ({len(g)}): " + _listed(nicks, g) for i, g in enumerate(proposal.groups, 1)
    )
    reserves = _listed(nicks, proposal.reserves) or "—"
    key = "groups.proposal" if proposal.legal else "groups.impossible"
    await message.answer(
        service.t(
            lang,
            key,
            tour=tour,
            groups=listing or "—",
            reserves=reserves,
            repeats=proposal.repeated_pairs,
            seating=(
                "\n" + service.t(lang, "groups.seating", again=proposal.repeated_seats)
                if proposal.seated
                else ""
            ),
            count=len(proposal.groups) and sum(proposal.sizes),
            total=sum(proposal.sizes) + len(proposal.reserves),
        )
    )


async def _refuse_tables(
    message: Message,
    service: GameService,
    tournaments: TournamentService,
    lang: str,
    error: TablesUnfinished,
    judge: int,
) -> None:
    """A refusal that names the tables in the way, each with its state."""
    tournament = await tournaments.judged_by(judge)
    tables = await tournaments.tables_text(tournament.tournament_id, error.tables, lang)
    await message.answer(service.t(lang, error.key, tables=tables, **error.values))


async def tour(
    message: Message, bot: Bot, service: GameService, tournaments: TournamentService, lang: str
) -> None:
    """`/tour`: the current tour at a glance, for its Judge: each table's code, chat, Host
    and state, and who has not come."""
    assert message.from_user is not None
    try:
        tournament = await tournaments.judged_by(message.from_user.id)
    except TournamentError as error:
        await _refuse(message, service, lang, error)
        return
    tid = tournament.tournament_id
    current = await service.repos.tours.last_tour(tid)
    if current == 0:
        await message.answer(service.t(lang, "tours.none", name=escape(tournament.name)))
        return
    tables = await tournaments.tables(tid, current)
    for i, table in enumerate(tables):
        if table.state is TableState.BOUND and table.chat_id is not None:
            # Who came into the chat by the invitation: Telegram's word, asked per player.
            chat_id = table.chat_id
            joined = [u for u in table.players if await is_member(bot, chat_id, u)]
            tables[i] = replace(table, in_chat=frozenset(joined))
    done = len(tables) - len(unfinished(tables))
    if tournament.status is TournamentStatus.FINISHED:
        hint = "tours.hint_finished"
    elif done == len(tables):
        hint = "tours.hint_done"
    elif not begun(tables):
        hint = "tours.hint_not_begun"
    else:
        hint = "tours.hint_open"
    await message.answer(
        service.t(
            lang,
            "tours.text",
            name=escape(tournament.name),
            tour=current,
            count=len(tables),
            done=done,
            tables=await tournaments.tables_text(tid, tables, lang),
        )
        + "\n\n"
        + service.t(lang, hint)
    )


def _listed(nicks: dict[int, str], players: Iterable[int]) -> str:
    """Players' nicks in the order people read them ("Анна 16" before "Анна 112")."""
    return ", ".join(
        escape(n) for n in sorted((nicks.get(u, str(u)) for u in players), key=natural_key)
    )


@takes("bind.usage", Arg("code", GROUP_CODE), Arg("host", USERNAME, optional=True))
async def bind(
    message: Message,
    bot: Bot,
    service: GameService,
    tournaments: TournamentService,
    lang: str,
    code: str,
    host: str | None = None,
) -> None:
    """`/bind <code> [@host]` in a game chat: this chat is that group's table.

    Only an administrator of the chat may make it a table (asked of Telegram, not taken
    from the update): a table's Host runs /newgame there, which a club's own members
    must not lose to whoever created a tournament.
    """
    assert message.from_user is not None
    if not await is_chat_admin(bot, message.chat.id, message.from_user.id):
        await message.answer(service.t(lang, "bind.not_admin"))
        return
    missing = await missing_rights(bot, message.chat.id)
    if missing:
        rights = ", ".join(service.t(lang, f"rights.{r}") for r in missing)
        await message.answer(service.t(lang, "lobby.missing_rights", rights=rights))
        return
    host_id = message.from_user.id
    if host is not None:
        named = await service.repos.users.by_username(host[1:])
        if named is None:
            await message.answer(service.t(lang, "host.host_usage"))
            return
        host_id = named.user_id
    try:
        group = await tournaments.bind(code, message.chat.id, message.from_user.id, host_id)
    except TournamentError as error:
        await _refuse(message, service, lang, error)
        return
    # As many may join by it as the table seats (issue 25 §5): an observer handed the
    # link takes a place it no longer has, and an expelled one finds it used up.
    invite = await bot.create_chat_invite_link(
        message.chat.id, name=group.code[:32], member_limit=len(group.players)
    )
    await tournaments.keep_invite(group.code, message.chat.id, invite.invite_link)
    await tournaments.invite(group, invite.invite_link, message.chat.title or "")
    await message.answer(service.t(lang, "bind.done", code=group.code, players=len(group.players)))


def _places(rows: list[StandingsRow]) -> list[list[StandingsRow]]:
    """The placed rows, those who share a place together (T5)."""
    groups: list[list[StandingsRow]] = []
    for row in rows:
        if row.place is None:
            continue
        if groups and groups[-1][0].place == row.place:
            groups[-1].append(row)
        else:
            groups.append([row])
    return groups


def _span(group: list[StandingsRow]) -> str:
    """A place, or the places a group shares: "3", "1–4"."""
    first = group[0].place
    assert first is not None
    return str(first) if len(group) == 1 else f"{first}–{first + len(group) - 1}"


def _who(row: StandingsRow, lang: str, me: int | None) -> str:
    name = f"<b>{escape(row.nick)}</b>" if row.user_id == me else escape(row.nick)
    notes = "; ".join(
        f"{escape(a.reason)} ({as_points(lang, a.tenths, signed=True)})" for a in row.adjustments
    )
    return name + (f" [{notes}]" if notes else "")


def _table(
    service: GameService,
    lang: str,
    rows: list[StandingsRow],
    me: int | None = None,
    why: Mapping[int, str] | None = None,
) -> str:
    """The standings, shared places as one line ("1–4. Вера, Дина — 2,2"); `me`'s line is
    marked and their nick in bold (a player's own /standings). Who is out says why
    (`why`: `TournamentService.out_players`)."""
    lines = []
    for group in _places(rows):
        names = _names([_who(r, lang, me) for r in group])
        line = f"{_span(group)}. {names} — {as_points(lang, group[0].total_tenths)}"
        if group[0].decided_by is not None:  # T5: the tie-break that settled this place
            criterion = service.t(lang, f"tie_break.{group[0].decided_by}")
            line += f" ({service.t(lang, 'tie_break.decided', criterion=criterion)})"
        # The mark goes on the very line with the player's (bold) nick, in a long group too.
        lines += [f"👉 {part}" if "<b>" in part else part for part in line.split("\n")]
    out = service.t(lang, "standings.out")
    for row in rows:
        if row.place is None:
            reason = (why or {}).get(row.user_id)
            label = f"{out}: {service.t(lang, f'out.why_{reason}')}" if reason else out
            line = f"{label}. {_who(row, lang, me)} — {as_points(lang, row.total_tenths)}"
            lines.append(f"👉 {line}" if row.user_id == me else line)
    return "\n".join(lines) or "—"


def _names(names: list[str], per_line: int = 5) -> str:
    """Nicks that share a place, a few to a line: a long list reads (and splits) by lines."""
    lines = [", ".join(names[i : i + per_line]) for i in range(0, len(names), per_line)]
    return ",\n".join(lines)


def _top(rows: list[StandingsRow]) -> str:
    return "; ".join(
        f"{_span(g)}. " + _names([escape(r.nick) for r in g]) for g in _places(top_three(rows))
    )


def _inseparable(lang: str, rows: list[StandingsRow]) -> list[str]:
    """The top-three places that several players share (7.1: the Judge decides)."""
    return [
        f"{_span(g)}. "
        + _names([escape(r.nick) for r in g])
        + f" — {as_points(lang, g[0].total_tenths)}"
        for g in _places(top_three(rows))
        if len(g) > 1
    ]


def page_button(
    service: GameService, lang: str, pages: PageLinks | None, tournament: Tournament
) -> tuple[str, InlineKeyboardMarkup | None]:
    """The live page under a standings message: its address, and the Mini App button when
    the page is served over HTTPS (Telegram opens no other). Private chats only."""
    if pages is None:
        return "", None
    url = pages.url(tournament)
    link = "\n\n" + service.t(lang, "web.link", url=escape(url))
    if not pages.opens_in_telegram:
        return link, None
    button = InlineKeyboardButton(text=service.t(lang, "web.button"), web_app=WebAppInfo(url=url))
    return link, InlineKeyboardMarkup(inline_keyboard=[[button]])


async def standings(
    message: Message,
    service: GameService,
    tournaments: TournamentService,
    lang: str,
    pages: PageLinks | None = None,
) -> None:
    """The Judge's standings; a player's own tournament's, their line marked, unless the
    Judge keeps them hidden until the end (T5, `standings_visible`)."""
    assert message.from_user is not None
    me = message.from_user.id
    try:
        tournament = await tournaments.judged_by(me)
    except TournamentError as error:
        mine = await tournaments.tournament_of_player(me)
        if mine is None:
            await _refuse(message, service, lang, error)
            return
        visible = tournaments.settings(mine).standings_visible
        if not visible and mine.status is not TournamentStatus.FINISHED:
            await message.answer(service.t(lang, "standings.hidden", name=escape(mine.name)))
            return
        rows = await tournaments.standings(mine)
        table = _table(service, lang, rows, me, await tournaments.out_players(mine.tournament_id))
        link, keyboard = page_button(service, lang, pages, mine)
        await message.answer(
            service.t(lang, "standings.text", name=escape(mine.name), table=table) + link,
            reply_markup=keyboard,
        )
        return
    rows = await tournaments.standings(tournament)
    why = await tournaments.out_players(tournament.tournament_id)
    link, keyboard = page_button(service, lang, pages, tournament)
    await message.answer(
        service.t(
            lang,
            "standings.text",
            name=escape(tournament.name),
            table=_table(service, lang, rows, why=why),
        )
        + link,
        reply_markup=keyboard,
    )


async def _judged_player(
    message: Message, service: GameService, tournaments: TournamentService, lang: str, words: str
) -> tuple[Tournament, TournamentPlayer] | None:
    """The sender's tournament as its Judge and the player `words` names in it; None once
    the sender has been told why not (not a Judge, no such player)."""
    assert message.from_user is not None
    try:
        tournament = await tournaments.judged_by(message.from_user.id)
        nick = " ".join(words_of(words))
        return tournament, await tournaments.player_by_nick(tournament.tournament_id, nick)
    except TournamentError as error:
        await _refuse(message, service, lang, error)
        return None


def _stats_block(service: GameService, lang: str, title: str, stats: PlayerStats) -> str:
    t = service.t
    if not stats.total.games:
        return f"{title}\n{t(lang, 'stats.no_games')}"

    def line(what: str, tally: Tally) -> str:
        return t(
            lang,
            "stats.line",
            what=what,
            games=tally.games,
            wins=tally.wins,
            points=format_tenths(tally.tenths),
        )

    lines = [title, line(t(lang, "stats.all_roles"), stats.total)]
    lines += [line(t(lang, f"role.{role}"), stats.of(role)) for role in Role]
    return "\n".join(lines)


@takes("stats.usage", (), (Arg("words", NICK_AND_MORE),))
async def stats(
    message: Message,
    service: GameService,
    tournaments: TournamentService,
    lang: str,
    words: str | None = None,
) -> None:
    """`/stats`: the sender's own; `/stats NICK`: the Judge's, for a player of their tournament.

    Nobody else's statistics are anyone's to read: a player sees their own, and a Judge
    those of their current tournament's players in that tournament only.
    """
    assert message.from_user is not None
    t = service.t
    if words is not None:
        judged = await _judged_player(message, service, tournaments, lang, words)
        if judged is None:
            return
        tournament, player = judged
        found = (await tournaments.tournament_stats(tournament)).get(player.user_id)
        title = t(lang, "stats.of_player", nick=escape(player.nick), name=escape(tournament.name))
        await message.answer(_stats_block(service, lang, title, found or PlayerStats()))
        return
    per_tournament, overall = await tournaments.stats_of(message.from_user.id)
    blocks = [
        _stats_block(service, lang, t(lang, "stats.in_tournament", name=escape(tour.name)), line)
        for tour, line in per_tournament
    ]
    blocks.append(_stats_block(service, lang, t(lang, "stats.overall"), overall))
    await message.answer(t(lang, "stats.mine") + "\n\n" + "\n\n".join(blocks))


@takes("sheet.usage", Arg("game", GAME))
async def sheet(
    message: Message,
    bot: Bot,
    service: GameService,
    tournaments: TournamentService,
    lang: str,
    game: int,
) -> None:
    """`/sheet GAME`: the protocol sheet (T3) and its printable page, for the game's Host,
    its players and its tournament's Judge; anyone else gets the same answer whether the
    game exists or not."""
    assert message.from_user is not None
    try:
        doc = await tournaments.sheet_for(message.from_user.id, game)
    except TournamentError as error:
        await _refuse(message, service, lang, error)
        return
    text, page = tournaments.sheet_views(doc, lang)
    await message.answer(text)
    await bot.send_document(message.chat.id, page.as_file())


@takes(
    "sheet.fix_usage",
    (
        Arg("game", GAME),
        Arg("field", Word(("winner",))),
        Arg("side", Word(tuple(SIDES))),
        Arg("reason", REASON),
    ),
    (
        Arg("game", GAME),
        Arg("field", Word(("seat",))),
        Arg("seat", SEAT),
        Arg("point", Word(("0", "1"))),
        Arg("reason", REASON),
    ),
    (Arg("game", GAME), Arg("field", Word(("scheme",))), Arg("reason", REASON)),
    (Arg("game", Word(("all",))), Arg("field", Word(("scheme",))), Arg("reason", REASON)),
)
async def fix(
    message: Message,
    service: GameService,
    tournaments: TournamentService,
    lang: str,
    game: int | str,
    field: str,
    reason: str,
    side: str = "",
    seat: int = 0,
    point: str = "",
) -> None:
    """T3: only the Judge changes a signed sheet, with a reason; the history is kept.

    `/fix <game> winner <peaceful|mafia> <reason>` or `/fix <game> seat <N> <0|1> <reason>`;
    `/fix <game|all> scheme <reason>` rescores signed sheets under the current scheme (T4).
    """
    assert message.from_user is not None
    if field == "scheme":
        try:
            one = game if isinstance(game, int) else None
            changed = await tournaments.rescore(message.from_user.id, one, reason)
        except TournamentError as error:
            await _refuse(message, service, lang, error)
            return
        games = ", ".join(f"№{g}" for g in changed)
        key = "sheet.rescored" if changed else "sheet.rescored_none"
        await message.answer(service.t(lang, key, games=games))
        return
    assert isinstance(game, int)
    change: dict[str, object] = (
        {"field": "winner", "value": side}
        if field == "winner"
        else {"field": "point", "seat": seat, "value": point == "1"}
    )
    try:
        await tournaments.change_sheet(message.from_user.id, game, change, reason)
        await message.answer(await tournaments.sheet_text(game, lang))
    except TournamentError as error:
        await _refuse(message, service, lang, error)


@takes("adjust.usage", Arg("words", NICK_AND_MORE))
async def adjust(
    message: Message,
    service: GameService,
    tournaments: TournamentService,
    lang: str,
    words: str,
) -> None:
    """T5: `/adjust <nick> <points> <reason>`, points in tenths precision (e.g. -0.5).

    A nick may have spaces, so the words are read against the tournament's list: the one
    reading with points after the nick counts (TournamentService.players_by_nicks).
    """
    assert message.from_user is not None
    parts = words_of(words)
    try:
        tournament = await tournaments.judged_by(message.from_user.id)
        tournaments.check_open(tournament)
        if not any(fits(POINTS, word) for word in parts[1:-1]):
            raise TournamentError("adjust.usage")  # no reading has points and a reason
        [player], after = await tournaments.players_by_nicks(
            tournament.tournament_id, parts, 1, rest=2, fits=lambda after: fits(POINTS, after[0])
        )
        points = POINTS.parse(after[0], {})
        reason = " ".join(after[1:])
        if len(reason) > REASON.longest:
            raise TournamentError("adjust.usage")
    except TournamentError as error:
        await _refuse(message, service, lang, error)
        return
    await service.repos.tours.adjust(
        tournament.tournament_id, player.user_id, points, reason, now=service.clock.now()
    )
    await message.answer(
        service.t(
            lang,
            "adjust.done",
            nick=escape(player.nick),
            points=as_points(lang, points, signed=True),
        )
    )


@takes("finish.usage", (), (Arg("confirm", Word(("confirm", "reopen"))),))
async def finish(
    message: Message,
    service: GameService,
    tournaments: TournamentService,
    lang: str,
    confirm: str | None = None,
) -> None:
    """`/finish`: the final table, and the top three to every participant.

    Not while a table of a confirmed tour is unplayed or its sheet unsigned (the Judge is
    told which). When players share a place in the top three (T5), nothing is finished
    yet: the Judge is told, decides (7.1) with /adjust, or ends with shared places by
    `/finish confirm`. A finished tournament is closed; `/finish reopen` opens it again.
    """
    assert message.from_user is not None
    judge = message.from_user.id
    try:
        tournament = await tournaments.judged_by(judge)
        if confirm == "reopen":
            await tournaments.reopen(tournament, judge)
            await message.answer(service.t(lang, "finish.reopened", name=escape(tournament.name)))
            return
        await tournaments.check_finishable(tournament)
        if confirm is None:
            shared = _inseparable(lang, await tournaments.standings(tournament))
            if shared:
                await message.answer(service.t(lang, "finish.tied", places="\n".join(shared)))
                return
        rows = await tournaments.finish(tournament, judge)
    except TablesUnfinished as error:
        await _refuse_tables(message, service, tournaments, lang, error, judge)
        return
    except TournamentError as error:
        await _refuse(message, service, lang, error)
        return
    why = await tournaments.out_players(tournament.tournament_id)
    lot = await tournaments.lot(tournament)  # T5, S3: revealed with the final table

    posts = []
    for player in await service.repos.tournaments.players(tournament.tournament_id):
        plang = await service.user_lang(player.user_id)
        posts.append(
            Post(
                player.user_id,
                service.t(
                    plang,
                    "standings.final",
                    name=escape(tournament.name),
                    top=_top(rows),
                    table=_table(service, plang, rows, player.user_id, why),
                )
                + tournaments.lot_line(plang, lot),
            )
        )
    await service.sender.deliver(0, posts)
    await message.answer(
        service.t(
            lang,
            "standings.final",
            name=escape(tournament.name),
            top=_top(rows),
            table=_table(service, lang, rows, why=why),
        )
        + tournaments.lot_line(lang, lot)
    )


async def export(
    message: Message, bot: Bot, service: GameService, tournaments: TournamentService, lang: str
) -> None:
    assert message.from_user is not None
    try:
        tournament = await tournaments.judged_by(message.from_user.id)
    except TournamentError as error:
        await _refuse(message, service, lang, error)
        return
    for name, text in (await tournaments.exports(tournament)).items():
        await bot.send_document(message.chat.id, BufferedInputFile(text.encode(), name))


@takes("sheet.protocol_usage", Arg("number", GAME))
async def protocol(
    message: Message,
    bot: Bot,
    service: GameService,
    tournaments: TournamentService,
    lang: str,
    number: int,
) -> None:
    """Any game's protocol as JSON, for its Judge or Host (the deal only once it is over)."""
    assert message.from_user is not None
    game = await service.repos.games.get(number)
    allowed = game is not None and message.from_user.id == game.host_user_id
    if game is not None and game.tournament_id is not None:
        tournament = await service.repos.tournaments.get(game.tournament_id)
        allowed = allowed or (
            tournament is not None
            and tournament.judge_user_id == message.from_user.id
            and tournaments.may_judge(message.from_user.id)
        )
    if game is None or not allowed:
        await message.answer(service.t(lang, "sheet.protocol_usage"))
        return
    text = await tournaments.protocol_json(game.game_id)
    await bot.send_document(
        message.chat.id, BufferedInputFile(text.encode(), f"game-{game.game_id}.json")
    )


async def expel(
    message: Message, bot: Bot, service: GameService, tournaments: TournamentService, lang: str
) -> None:
    """T7: a player or the Judge replies /expel to an observer's message; they leave the chat.

    Only at a tournament table: in a casual game the chat's own administrators decide who
    stays in their group.
    """
    assert message.from_user is not None
    target = replied_member(message)
    game = await service.active_game(message.chat.id)
    if game is None or game.tournament_id is None:
        await message.answer(service.t(lang, "expel.tournament_only"))
        return
    if target is None:
        await message.answer(service.t(lang, "expel.usage"))
        return
    state = await service.state(game.game_id)
    players = (
        {st.user_id for st in state.seats.values()}
        if state
        else {p.user_id for p in await service.repos.lobby.players(game.game_id)}
    )
    judge = None
    if game.tournament_id is not None:
        tournament = await service.repos.tournaments.get(game.tournament_id)
        judge = tournament.judge_user_id if tournament else None
    judging = message.from_user.id == judge and tournaments.may_judge(message.from_user.id)
    if message.from_user.id not in players and not judging:
        await message.answer(service.t(lang, "expel.not_allowed"))
        return
    if target.id in players or target.id in (game.host_user_id, judge) or target.is_bot:
        await message.answer(service.t(lang, "expel.not_observer"))
        return
    if await is_chat_admin(bot, message.chat.id, target.id):
        # Telegram refuses to remove an administrator ("user is an administrator of the
        # chat", "can't remove chat owner"): say so rather than fail.
        await message.answer(service.t(lang, "expel.admin"))
        return
    try:
        # Kept out (issue 25 §5): Telegram refuses them by any link until the ban ends, a
        # week on, longer than a tournament lasts; the chat's administrators may lift it.
        until = int(service.clock.now()) + EXPELLED_DAYS * 86400
        await bot.ban_chat_member(message.chat.id, target.id, until_date=until)
    except TelegramBadRequest:
        # The bot lost the right to remove members since the game began.
        rights = ", ".join(
            service.t(lang, f"rights.{r}") for r in await missing_rights(bot, message.chat.id)
        )
        await message.answer(service.t(lang, "lobby.missing_rights", rights=rights or "—"))
        return
    await message.answer(
        service.t(lang, "expel.done", name=escape(target.first_name), days=EXPELLED_DAYS)
    )


@takes("replace.usage", Arg("code", GROUP_CODE), Arg("words", NICK_AND_MORE))
async def replace_player(
    message: Message,
    bot: Bot,
    service: GameService,
    tournaments: TournamentService,
    lang: str,
    code: str,
    words: str,
) -> None:
    """`/replace CODE OUT IN`: a reserve takes a missing player's place at a table (T1)."""
    assert message.from_user is not None
    nicks = words_of(words)
    try:
        tournament = await tournaments.judged_by(message.from_user.id)
        tournaments.check_open(tournament)
        if len(nicks) < 2:
            raise TournamentError("replace.usage")  # two nicks: who is out, who comes in
        group = await service.repos.tours.group(code)
        if group is None or group.tournament_id != tournament.tournament_id:
            raise TournamentError("bind.unknown", code=escape(code))
        [out, sub], _ = await tournaments.players_by_nicks(tournament.tournament_id, nicks, 2)
        await tournaments.check_substitute(group, sub)
        if out.user_id not in group.players or sub.user_id in group.players:
            raise TournamentError("replace.usage")
        lobby = await tournaments.replace(group, out.user_id, sub.user_id)
    except TournamentError as error:
        await _refuse(message, service, lang, error)
        return
    if lobby is not None:
        await refresh_lobby(service, lobby, bot)
    await message.answer(
        service.t(lang, "replace.done", code=group.code, out=escape(out.nick), sub=escape(sub.nick))
    )
    # Both are told; the substitute gets the table's chat link if it has one (T1).
    link, title = None, ""
    if group.chat_id is not None:
        with contextlib.suppress(TelegramAPIError):  # the bot lost the chat: no link then
            invite = await bot.create_chat_invite_link(
                group.chat_id,
                name=group.code[:32],
                member_limit=1,  # the substitute's own
            )
            link = invite.invite_link
            await tournaments.keep_invite(group.code, group.chat_id, link)
            chat = await service.repos.chats.get(group.chat_id)
            title = (chat.title or "") if chat else ""
    await tournaments.tell_replaced(group, out.user_id, sub.user_id, link, title)


async def is_chat_admin(bot: Bot, chat_id: int, user_id: int) -> bool:
    """Whether Telegram says the user administers the chat (the update's word is not enough)."""
    member = await bot.get_chat_member(chat_id, user_id)
    return isinstance(member, ChatMemberOwner | ChatMemberAdministrator)


async def unbind(
    message: Message, bot: Bot, service: GameService, tournaments: TournamentService, lang: str
) -> None:
    """`/unbind` in a table's chat: it is no longer that group's table.

    The tournament's Judge may, and so may an administrator of the chat, who takes back a
    group someone bound it to. A lobby or a game in the chat must end first (/stop).
    """
    assert message.from_user is not None
    group = await service.repos.tours.group_of_chat(message.chat.id)
    if group is None:
        await message.answer(service.t(lang, "bind.not_bound"))
        return
    tournament = await service.repos.tournaments.get(group.tournament_id)
    judging = (
        tournament is not None
        and tournament.judge_user_id == message.from_user.id
        and tournaments.may_judge(message.from_user.id)
    )
    if not judging and not await is_chat_admin(bot, message.chat.id, message.from_user.id):
        await message.answer(service.t(lang, "tournament.judge_only"))
        return
    if await service.active_game(message.chat.id) is not None:
        await message.answer(service.t(lang, "bind.game_on"))
        return
    await tournaments.unbind(group)
    await message.answer(service.t(lang, "bind.unbound", table=table_number(group.code)))


@takes("unban.usage", Arg("who", USER))
async def unban(
    message: Message, service: GameService, tournaments: TournamentService, lang: str, who: str
) -> None:
    """`/unban NICK` or `/unban USER_ID`: the Judge lifts a V4 ban."""
    assert message.from_user is not None
    try:
        user_id = await tournaments.unban(message.from_user.id, who)
    except TournamentError as error:
        await _refuse(message, service, lang, error)
        return
    await message.answer(service.t(lang, "unban.done", who=escape(who), user=user_id))


@takes("unregister.usage", Arg("words", NICK_AND_MORE))
async def unregister(
    message: Message,
    bot: Bot,
    service: GameService,
    tournaments: TournamentService,
    lang: str,
    words: str,
) -> None:
    """`/unregister NICK`: the Judge takes a player off their tournament's list."""
    judged = await _judged_player(message, service, tournaments, lang, words)
    if judged is None:
        return
    tournament, player = judged
    try:
        tournaments.check_open(tournament)
    except TournamentError as error:
        await _refuse(message, service, lang, error)
        return
    deleted = await tournaments.unregister(tournament, player)
    for group in await service.repos.tours.groups(tournament.tournament_id):
        game = await service.repos.games.get(group.game_id) if group.game_id else None
        if game is not None and game.status is GameStatus.LOBBY:
            await refresh_lobby(service, game, bot)  # its roster may have lost them
    key = "unregister.done" if deleted else "unregister.withdrawn"
    await message.answer(service.t(lang, key, nick=escape(player.nick)))


@takes("registration.usage", Arg("wanted", Word(("open", "closed"))))
async def registration(
    message: Message,
    service: GameService,
    tournaments: TournamentService,
    lang: str,
    wanted: str,
) -> None:
    """`/registration open|closed`: whether the registration link still registers people."""
    assert message.from_user is not None
    try:
        tournament = await tournaments.judged_by(message.from_user.id)
    except TournamentError as error:
        await _refuse(message, service, lang, error)
        return
    await tournaments.set_registration(tournament, wanted == "open")
    await message.answer(service.t(lang, f"registration.{wanted}", name=escape(tournament.name)))


async def ban_decision(
    query: CallbackQuery,
    callback_data: BanCb,
    service: GameService,
    tournaments: TournamentService,
    lang: str,
) -> None:
    """V4: the tournament's Judge confirms the ban a Host's sanction asked for, or declines."""
    try:
        request = await tournaments.decide_ban(
            query.from_user.id, callback_data.request, callback_data.confirm
        )
    except TournamentError as error:
        await query.answer(service.t(lang, error.key, **error.values), show_alert=True)
        return
    nicks = await tournaments.nicks(request.tournament_id)
    who = escape(nicks.get(request.user_id, str(request.user_id)))
    key = "ban.confirmed" if callback_data.confirm else "ban.declined"
    await query.answer()
    await service.sender.deliver(0, [Post(query.from_user.id, service.t(lang, key, player=who))])


def make_router() -> Router:
    router = Router(name="judge")
    router.message.register(
        # A token (storage.tournaments: token_urlsafe, or hex from migration 4), or an
        # old link's number; deep-link payloads are at most 64 of A-Za-z0-9_-.
        register,
        CommandStart(
            deep_link=True, magic=F.args.regexp(r"reg_(?:[A-Za-z0-9_-]{16,60}|[0-9]{1,9})$")
        ),
        PRIVATE,
    )
    router.callback_query.register(ban_decision, BanCb.filter())
    router.message.register(create, Command("tournament"), PRIVATE)
    router.message.register(nick, Command("nick"), PRIVATE)
    router.message.register(settings, Command("settings"), PRIVATE)
    router.message.register(groups, Command("groups"), PRIVATE)
    router.message.register(tour, Command("tour"), PRIVATE)
    router.message.register(standings, Command("standings"), PRIVATE)
    router.message.register(stats, Command("stats"), PRIVATE)
    router.message.register(sheet, Command("sheet"), PRIVATE)
    router.message.register(fix, Command("fix"), PRIVATE)
    router.message.register(adjust, Command("adjust"), PRIVATE)
    router.message.register(finish, Command("finish"), PRIVATE)
    router.message.register(export, Command("export"), PRIVATE)
    router.message.register(protocol, Command("protocol"), PRIVATE)
    router.message.register(replace_player, Command("replace"), PRIVATE)
    router.message.register(unregister, Command("unregister"), PRIVATE)
    router.message.register(registration, Command("registration"), PRIVATE)
    router.message.register(unban, Command("unban"), PRIVATE)
    router.message.register(bind, Command("bind"), GROUP)
    router.message.register(unbind, Command("unbind"), GROUP)
    router.message.register(expel, Command("expel"), GROUP)
    return router
