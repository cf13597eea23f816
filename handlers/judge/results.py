"""The results (T4, T5): /standings, /stats, /adjust, /finish, /export."""

from __future__ import annotations

from collections.abc import Mapping

from aiogram import Bot
from aiogram.types import (
    BufferedInputFile,
    InlineKeyboardButton,
    InlineKeyboardMarkup,
    Message,
    WebAppInfo,
)

from bot.rules.roles import Role
from bot.services.game import GameService
from bot.services.judge import TablesUnfinished, TournamentError, TournamentService, words_of
from bot.tournament.scoring import format_tenths
from bot.tournament.standings import StandingsRow, top_three
from bot.tournament.stats import PlayerStats, Tally
from bot.views.i18n import Texts, escape
from bot.views.render import Post
from bot.views.sheet import points as as_points
from bot.web.page import PageLinks
from handlers.args import NICK_AND_MORE, POINTS, REASON, Arg, Word, fits, takes
from handlers.judge.replies import judged, judged_player, refuse, refuse_tables
from storage.tournaments import Tournament, TournamentStatus


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
    t: Texts,
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
            criterion = t(lang, f"tie_break.{group[0].decided_by}")
            line += f" ({t(lang, 'tie_break.decided', criterion=criterion)})"
        # The mark goes on the very line with the player's (bold) nick, in a long group too.
        lines += [f"👉 {part}" if "<b>" in part else part for part in line.split("\n")]
    out = t(lang, "standings.out")
    for row in rows:
        if row.place is None:
            reason = (why or {}).get(row.user_id)
            label = f"{out}: {t(lang, f'out.why_{reason}')}" if reason else out
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
    t: Texts, lang: str, pages: PageLinks | None, tournament: Tournament
) -> tuple[str, InlineKeyboardMarkup | None]:
    """The live page under a standings message: its address, and the Mini App button when
    the page is served over HTTPS (Telegram opens no other). Private chats only."""
    if pages is None:
        return "", None
    url = pages.url(tournament)
    link = "\n\n" + t(lang, "web.link", url=escape(url))
    if not pages.opens_in_telegram:
        return link, None
    button = InlineKeyboardButton(text=t(lang, "web.button"), web_app=WebAppInfo(url=url))
    return link, InlineKeyboardMarkup(inline_keyboard=[[button]])


async def standings(
    message: Message,
    t: Texts,
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
            await refuse(message, t, lang, error)
            return
        visible = tournaments.settings(mine).standings_visible
        if not visible and mine.status is not TournamentStatus.FINISHED:
            await message.answer(t(lang, "standings.hidden", name=escape(mine.name)))
            return
        rows = await tournaments.standings(mine)
        table = _table(t, lang, rows, me, await tournaments.out_players(mine.tournament_id))
        link, keyboard = page_button(t, lang, pages, mine)
        await message.answer(
            t(lang, "standings.text", name=escape(mine.name), table=table) + link,
            reply_markup=keyboard,
        )
        return
    rows = await tournaments.standings(tournament)
    why = await tournaments.out_players(tournament.tournament_id)
    link, keyboard = page_button(t, lang, pages, tournament)
    await message.answer(
        t(
            lang,
            "standings.text",
            name=escape(tournament.name),
            table=_table(t, lang, rows, why=why),
        )
        + link,
        reply_markup=keyboard,
    )


def _stats_block(t: Texts, lang: str, title: str, stats: PlayerStats) -> str:
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
    t: Texts,
    tournaments: TournamentService,
    lang: str,
    words: str | None = None,
) -> None:
    """`/stats`: the sender's own; `/stats NICK`: the Judge's, for a player of their tournament.

    Nobody else's statistics are anyone's to read: a player sees their own, and a Judge
    those of their current tournament's players in that tournament only.
    """
    assert message.from_user is not None
    if words is not None:
        judged = await judged_player(message, tournaments, t, lang, words)
        if judged is None:
            return
        tournament, player = judged
        found = (await tournaments.tournament_stats(tournament)).get(player.user_id)
        title = t(lang, "stats.of_player", nick=escape(player.nick), name=escape(tournament.name))
        await message.answer(_stats_block(t, lang, title, found or PlayerStats()))
        return
    per_tournament, overall = await tournaments.stats_of(message.from_user.id)
    blocks = [
        _stats_block(t, lang, t(lang, "stats.in_tournament", name=escape(tour.name)), line)
        for tour, line in per_tournament
    ]
    blocks.append(_stats_block(t, lang, t(lang, "stats.overall"), overall))
    await message.answer(t(lang, "stats.mine") + "\n\n" + "\n\n".join(blocks))


@takes("adjust.usage", Arg("words", NICK_AND_MORE))
async def adjust(
    message: Message,
    service: GameService,
    t: Texts,
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
        await refuse(message, t, lang, error)
        return
    await service.repos.tours.adjust(
        tournament.tournament_id, player.user_id, points, reason, now=service.clock.now()
    )
    await message.answer(
        t(
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
    t: Texts,
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
            await message.answer(t(lang, "finish.reopened", name=escape(tournament.name)))
            return
        await tournaments.check_finishable(tournament)
        if confirm is None:
            shared = _inseparable(lang, await tournaments.standings(tournament))
            if shared:
                await message.answer(t(lang, "finish.tied", places="\n".join(shared)))
                return
        rows = await tournaments.finish(tournament, judge)
    except TablesUnfinished as error:
        await refuse_tables(message, tournaments, t, lang, error, judge)
        return
    except TournamentError as error:
        await refuse(message, t, lang, error)
        return
    why = await tournaments.out_players(tournament.tournament_id)
    lot = await tournaments.lot(tournament)  # T5, S3: revealed with the final table

    posts = []
    for player in await service.repos.tournaments.players(tournament.tournament_id):
        plang = await service.user_lang(player.user_id)
        posts.append(
            Post(
                player.user_id,
                t(
                    plang,
                    "standings.final",
                    name=escape(tournament.name),
                    top=_top(rows),
                    table=_table(t, plang, rows, player.user_id, why),
                )
                + tournaments.lot_line(plang, lot),
            )
        )
    await service.sender.deliver(0, posts)
    await message.answer(
        t(
            lang,
            "standings.final",
            name=escape(tournament.name),
            top=_top(rows),
            table=_table(t, lang, rows, why=why),
        )
        + tournaments.lot_line(lang, lot)
    )


async def export(
    message: Message,
    bot: Bot,
    t: Texts,
    tournaments: TournamentService,
    lang: str,
) -> None:
    assert message.from_user is not None
    tournament = await judged(message, tournaments, t, lang)
    if tournament is None:
        return
    for name, text in (await tournaments.exports(tournament)).items():
        await bot.send_document(message.chat.id, BufferedInputFile(text.encode(), name))
