"""The tournament: the Judge's commands in private, binding tables, registration (T1-T7)."""

from __future__ import annotations

import re

from aiogram import Bot, F, Router
from aiogram.filters import Command, CommandObject, CommandStart
from aiogram.types import BufferedInputFile, Message

from bot.i18n import escape
from bot.render import Post
from bot.rules.roles import Side
from bot.rules.settings import TIMER_FIELDS
from bot.service import GameService
from bot.tournament.errors import BadPoints
from bot.tournament.scoring import format_tenths, parse_tenths
from bot.tournament.standings import StandingsRow, top_three
from bot.tournaments import TournamentError, TournamentService, words_of
from handlers.filters import IN_GROUP, IN_PRIVATE
from handlers.lobby import missing_rights, refresh_lobby
from storage.games import GameStatus

PRIVATE = IN_PRIVATE
OLD_REGISTRATION = re.compile(r"reg_[0-9]{1,9}")
SIDES = {side.value for side in Side}
GROUP = IN_GROUP


async def _refuse(
    message: Message, service: GameService, lang: str, error: TournamentError
) -> None:
    await message.answer(service.t(lang, error.key, **error.values))


async def create(
    message: Message,
    command: CommandObject,
    bot: Bot,
    service: GameService,
    tournaments: TournamentService,
    lang: str,
) -> None:
    assert message.from_user is not None
    try:
        tournament = await tournaments.create(command.args or "", message.from_user.id)
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


async def nick(
    message: Message,
    command: CommandObject,
    service: GameService,
    tournaments: TournamentService,
    lang: str,
) -> None:
    assert message.from_user is not None
    try:
        await tournaments.set_nick(message.from_user.id, command.args or "")
    except TournamentError as error:
        await _refuse(message, service, lang, error)
        return
    await message.answer(service.t(lang, "tournament.nick_set", nick=escape(command.args or "")))


async def settings(
    message: Message,
    command: CommandObject,
    service: GameService,
    tournaments: TournamentService,
    lang: str,
) -> None:
    """`/settings` shows the scheme; `/settings <name> <value> [override]` changes it (T6)."""
    assert message.from_user is not None
    try:
        tournament = await tournaments.judged_by(message.from_user.id)
        parts = (command.args or "").split()
        if len(parts) >= 2:
            changes = await tournaments.change_setting(
                tournament, parts[0], parts[1], override=parts[2:] == ["override"]
            )
            key = "settings.changed" if changes else "settings.unchanged"
            await message.answer(service.t(lang, key, changes="\n".join(changes)))
            return
        if parts:
            raise TournamentError("settings.usage")
    except TournamentError as error:
        await _refuse(message, service, lang, error)
        return
    current = tournaments.settings(tournament)
    lines = [
        f"{name} = {getattr(current, name)}"
        for name in ("group_min", "group_max", "bonus_threshold", "bonus_coefficient")
    ]
    game = current.game
    lines += [f"game.{name} = {getattr(game, name)}" for name in (*TIMER_FIELDS, "kill_rule")]
    await message.answer(
        service.t(lang, "settings.show", name=escape(tournament.name), settings="\n".join(lines))
    )


async def groups(
    message: Message,
    command: CommandObject,
    service: GameService,
    tournaments: TournamentService,
    lang: str,
) -> None:
    """`/groups` proposes the next tour's split (T1); `/groups confirm` makes it so."""
    assert message.from_user is not None
    try:
        tournament = await tournaments.judged_by(message.from_user.id)
        nicks = await tournaments.nicks(tournament.tournament_id)
        if (command.args or "").strip() == "confirm":
            tour, made = await tournaments.confirm(tournament)
            listing = "\n\n".join(
                f"<b>{g.code}</b> ({len(g.players)}): "
                + ", ".join(escape(nicks.get(u, str(u))) for u in g.players)
                for g in made
            )
            await message.answer(service.t(lang, "groups.confirmed", tour=tour, groups=listing))
            return
        tour, proposal = await tournaments.propose(tournament)
    except TournamentError as error:
        await _refuse(message, service, lang, error)
        return
    listing = "\n\n".join(
        f"<b>{i}</b> ({len(g)}): " + ", ".join(escape(nicks.get(u, str(u))) for u in g)
        for i, g in enumerate(proposal.groups, 1)
    )
    reserves = ", ".join(escape(nicks.get(u, str(u))) for u in proposal.reserves) or "—"
    key = "groups.proposal" if proposal.legal else "groups.impossible"
    await message.answer(
        service.t(
            lang,
            key,
            tour=tour,
            groups=listing or "—",
            reserves=reserves,
            repeats=proposal.repeated_pairs,
            count=len(proposal.groups) and sum(proposal.sizes),
            total=sum(proposal.sizes) + len(proposal.reserves),
        )
    )


async def bind(
    message: Message,
    command: CommandObject,
    bot: Bot,
    service: GameService,
    tournaments: TournamentService,
    lang: str,
) -> None:
    """`/bind <code> [@host]` in a game chat: this chat is that group's table."""
    assert message.from_user is not None
    parts = (command.args or "").split()
    if not parts:
        await message.answer(service.t(lang, "bind.usage"))
        return
    missing = await missing_rights(bot, message.chat.id)
    if missing:
        rights = ", ".join(service.t(lang, f"rights.{r}") for r in missing)
        await message.answer(service.t(lang, "lobby.missing_rights", rights=rights))
        return
    host_id = message.from_user.id
    if len(parts) > 1 and parts[1].startswith("@"):
        host = await service.repos.users.by_username(parts[1][1:])
        if host is None:
            await message.answer(service.t(lang, "host.host_usage"))
            return
        host_id = host.user_id
    try:
        group = await tournaments.bind(parts[0], message.chat.id, message.from_user.id, host_id)
    except TournamentError as error:
        await _refuse(message, service, lang, error)
        return
    invite = await bot.create_chat_invite_link(message.chat.id, name=group.code[:32])
    await tournaments.invite(group, invite.invite_link, message.chat.title or "")
    await message.answer(service.t(lang, "bind.done", code=group.code, players=len(group.players)))


def _table(service: GameService, lang: str, rows: list[StandingsRow]) -> str:
    lines = []
    for row in rows:
        place = str(row.place) if row.place is not None else service.t(lang, "standings.out")
        notes = "; ".join(
            f"{escape(a.reason)} ({format_tenths(a.tenths, signed=True)})" for a in row.adjustments
        )
        lines.append(
            f"{place}. {escape(row.nick)} — {format_tenths(row.total_tenths)}"
            + (f" [{notes}]" if notes else "")
        )
    return "\n".join(lines) or "—"


async def standings(
    message: Message, service: GameService, tournaments: TournamentService, lang: str
) -> None:
    assert message.from_user is not None
    try:
        tournament = await tournaments.judged_by(message.from_user.id)
    except TournamentError as error:
        await _refuse(message, service, lang, error)
        return
    rows = await tournaments.standings(tournament)
    await message.answer(
        service.t(
            lang, "standings.text", name=escape(tournament.name), table=_table(service, lang, rows)
        )
    )


async def sheet(
    message: Message,
    command: CommandObject,
    service: GameService,
    tournaments: TournamentService,
    lang: str,
) -> None:
    arg = (command.args or "").strip()
    if not arg.isdecimal() or len(arg) > 9:
        await message.answer(service.t(lang, "sheet.usage"))
        return
    try:
        await message.answer(await tournaments.sheet_text(int(arg), lang))
    except TournamentError as error:
        await _refuse(message, service, lang, error)


async def fix(
    message: Message,
    command: CommandObject,
    service: GameService,
    tournaments: TournamentService,
    lang: str,
) -> None:
    """T3: only the Judge changes a signed sheet, with a reason; the history is kept.

    `/fix <game> winner <peaceful|mafia> <reason>` or `/fix <game> seat <N> <0|1> <reason>`.
    """
    assert message.from_user is not None
    parts = (command.args or "").split()
    change: dict[str, object] | None = None
    if len(parts) >= 4 and parts[0].isdecimal() and parts[1] == "winner" and parts[2] in SIDES:
        change, reason = {"field": "winner", "value": parts[2]}, " ".join(parts[3:])
    elif (
        len(parts) >= 5
        and parts[0].isdecimal()
        and parts[1] == "seat"
        and parts[2].isdecimal()
        and parts[3] in ("0", "1")
    ):
        change = {"field": "point", "seat": int(parts[2]), "value": parts[3] == "1"}
        reason = " ".join(parts[4:])
    if change is None or len(parts[0]) > 9:
        await message.answer(service.t(lang, "sheet.fix_usage"))
        return
    try:
        await tournaments.change_sheet(message.from_user.id, int(parts[0]), change, reason)
        await message.answer(await tournaments.sheet_text(int(parts[0]), lang))
    except TournamentError as error:
        await _refuse(message, service, lang, error)


async def adjust(
    message: Message,
    command: CommandObject,
    service: GameService,
    tournaments: TournamentService,
    lang: str,
) -> None:
    """T5: `/adjust <nick> <points> <reason>`, points in tenths precision (e.g. -0.5)."""
    assert message.from_user is not None
    parts = words_of(command.args or "")
    try:
        tournament = await tournaments.judged_by(message.from_user.id)
        if len(parts) < 3:
            raise TournamentError("adjust.usage")
        [player], after = await tournaments.players_by_nicks(
            tournament.tournament_id, parts, 1, rest=2, fits=lambda after: _points(after[0])
        )
        tenths = parse_tenths(after[0])
    except TournamentError as error:
        await _refuse(message, service, lang, error)
        return
    except BadPoints:
        await message.answer(service.t(lang, "adjust.usage"))
        return
    await service.repos.tours.adjust(
        tournament.tournament_id,
        player.user_id,
        tenths,
        " ".join(after[1:])[:200],
        now=service.clock.now(),
    )
    await message.answer(
        service.t(
            lang, "adjust.done", nick=escape(player.nick), points=format_tenths(tenths, signed=True)
        )
    )


def _points(word: str) -> bool:
    try:
        parse_tenths(word)
    except BadPoints:
        return False
    return True


async def finish(
    message: Message, service: GameService, tournaments: TournamentService, lang: str
) -> None:
    """`/finish`: the final table, and the top three to every participant."""
    assert message.from_user is not None
    try:
        tournament = await tournaments.judged_by(message.from_user.id)
    except TournamentError as error:
        await _refuse(message, service, lang, error)
        return
    rows = await tournaments.finish(tournament)
    winners = ", ".join(f"{r.place}. {escape(r.nick)}" for r in top_three(rows))

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
                    top=winners,
                    table=_table(service, plang, rows),
                ),
            )
        )
    await service.sender.deliver(0, posts)
    await message.answer(
        service.t(
            lang,
            "standings.final",
            name=escape(tournament.name),
            top=winners,
            table=_table(service, lang, rows),
        )
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


async def protocol(
    message: Message,
    command: CommandObject,
    bot: Bot,
    service: GameService,
    tournaments: TournamentService,
    lang: str,
) -> None:
    """Any game's protocol as JSON, for its Judge or Host (the deal only once it is over)."""
    assert message.from_user is not None
    arg = (command.args or "").strip()
    game = await service.repos.games.get(int(arg)) if arg.isdecimal() and len(arg) <= 9 else None
    allowed = game is not None and message.from_user.id == game.host_user_id
    if game is not None and game.tournament_id is not None:
        tournament = await service.repos.tournaments.get(game.tournament_id)
        allowed = allowed or (
            tournament is not None and tournament.judge_user_id == message.from_user.id
        )
    if game is None or not allowed:
        await message.answer(service.t(lang, "sheet.usage"))
        return
    text = await tournaments.protocol_json(game.game_id)
    await bot.send_document(
        message.chat.id, BufferedInputFile(text.encode(), f"game-{game.game_id}.json")
    )


async def expel(message: Message, bot: Bot, service: GameService, lang: str) -> None:
    """T7: a player or the Judge replies /expel to an observer's message; they leave the chat."""
    assert message.from_user is not None
    target = message.reply_to_message.from_user if message.reply_to_message else None
    game = await service.active_game(message.chat.id)
    if target is None or game is None:
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
    if message.from_user.id not in players and message.from_user.id != judge:
        await message.answer(service.t(lang, "expel.not_allowed"))
        return
    if target.id in players or target.id in (game.host_user_id, judge) or target.is_bot:
        await message.answer(service.t(lang, "expel.not_observer"))
        return
    await bot.ban_chat_member(message.chat.id, target.id)
    await bot.unban_chat_member(message.chat.id, target.id, only_if_banned=True)
    await message.answer(service.t(lang, "expel.done", name=escape(target.first_name)))


async def replace_player(
    message: Message,
    command: CommandObject,
    bot: Bot,
    service: GameService,
    tournaments: TournamentService,
    lang: str,
) -> None:
    """`/replace CODE OUT IN`: a reserve takes a missing player's place at a table (T1)."""
    assert message.from_user is not None
    parts = words_of(command.args or "")
    try:
        tournament = await tournaments.judged_by(message.from_user.id)
        if len(parts) < 3:
            raise TournamentError("replace.usage")
        group = await service.repos.tours.group(parts[0])
        if group is None or group.tournament_id != tournament.tournament_id:
            raise TournamentError("bind.unknown", code=escape(parts[0]))
        [out, sub], _ = await tournaments.players_by_nicks(tournament.tournament_id, parts[1:], 2)
        if out.user_id not in group.players or sub.user_id in group.players:
            raise TournamentError("replace.usage")
    except TournamentError as error:
        await _refuse(message, service, lang, error)
        return
    await service.repos.tours.replace_player(group.code, out.user_id, sub.user_id)
    if group.game_id is not None:
        game = await service.repos.games.get(group.game_id)
        if game is not None and game.status is GameStatus.LOBBY:
            await service.leave(game, out.user_id)
            await refresh_lobby(service, game, bot)
    await message.answer(
        service.t(lang, "replace.done", code=group.code, out=escape(out.nick), sub=escape(sub.nick))
    )


async def unregister(
    message: Message,
    command: CommandObject,
    service: GameService,
    tournaments: TournamentService,
    lang: str,
) -> None:
    """`/unregister NICK`: the Judge takes a player off their tournament's list."""
    assert message.from_user is not None
    nick = " ".join(words_of(command.args or ""))
    try:
        tournament = await tournaments.judged_by(message.from_user.id)
        if not nick:
            raise TournamentError("unregister.usage")
        player = await tournaments.player_by_nick(tournament.tournament_id, nick)
    except TournamentError as error:
        await _refuse(message, service, lang, error)
        return
    deleted = await tournaments.unregister(tournament, player)
    key = "unregister.done" if deleted else "unregister.withdrawn"
    await message.answer(service.t(lang, key, nick=escape(player.nick)))


async def registration(
    message: Message,
    command: CommandObject,
    service: GameService,
    tournaments: TournamentService,
    lang: str,
) -> None:
    """`/registration open|closed`: whether the registration link still registers people."""
    assert message.from_user is not None
    wanted = (command.args or "").strip().lower()
    try:
        tournament = await tournaments.judged_by(message.from_user.id)
        if wanted not in ("open", "closed"):
            raise TournamentError("registration.usage")
    except TournamentError as error:
        await _refuse(message, service, lang, error)
        return
    await tournaments.set_registration(tournament, wanted == "open")
    await message.answer(service.t(lang, f"registration.{wanted}", name=escape(tournament.name)))


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
    router.message.register(create, Command("tournament"), PRIVATE)
    router.message.register(nick, Command("nick"), PRIVATE)
    router.message.register(settings, Command("settings"), PRIVATE)
    router.message.register(groups, Command("groups"), PRIVATE)
    router.message.register(standings, Command("standings"), PRIVATE)
    router.message.register(sheet, Command("sheet"), PRIVATE)
    router.message.register(fix, Command("fix"), PRIVATE)
    router.message.register(adjust, Command("adjust"), PRIVATE)
    router.message.register(finish, Command("finish"), PRIVATE)
    router.message.register(export, Command("export"), PRIVATE)
    router.message.register(protocol, Command("protocol"), PRIVATE)
    router.message.register(replace_player, Command("replace"), PRIVATE)
    router.message.register(unregister, Command("unregister"), PRIVATE)
    router.message.register(registration, Command("registration"), PRIVATE)
    router.message.register(bind, Command("bind"), GROUP)
    router.message.register(expel, Command("expel"), GROUP)
    return router
