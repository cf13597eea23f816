"""Tours and seating (T1): /groups, /tour, binding a table's chat, /replace, and the
observers a table's chat expels (T7)."""

from __future__ import annotations

import contextlib
from collections.abc import Iterable
from dataclasses import replace

from aiogram import Bot
from aiogram.exceptions import TelegramAPIError, TelegramBadRequest
from aiogram.types import ChatMemberAdministrator, ChatMemberOwner, Message

from bot.services.game import GameService
from bot.services.judge import TablesUnfinished, TournamentError, TournamentService, words_of
from bot.tournament.access import TournamentAsked, may_any_at_tournament, tournament_positions_of
from bot.tournament.natural import natural_key
from bot.tournament.tables import table_number
from bot.tournament.tours import TableState, begun, unfinished
from bot.views.i18n import Texts, escape
from handlers.args import GROUP_CODE, NICK_AND_MORE, USERNAME, Arg, Word, replied_member, takes
from handlers.judge.replies import judged, refuse, refuse_tables
from handlers.lobby import is_member, missing_rights, refresh_lobby
from storage.tournaments import TournamentStatus

# How long an expelled observer stays out of the table's chat (T7).
EXPELLED_DAYS = 7


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
    t: Texts,
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
            await message.answer(t(lang, "groups.cancelled", tour=tour))
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
            await message.answer(t(lang, key, tour=tour, groups=listing))
            return
        tour, proposal = await tournaments.propose(tournament)
    except TablesUnfinished as error:
        await refuse_tables(message, tournaments, t, lang, error, judge)
        return
    except TournamentError as error:
        await refuse(message, t, lang, error)
        return
    listing = "\n\n".join(
        f"<b>{i}</b> ({len(g)}): " + _listed(nicks, g) for i, g in enumerate(proposal.groups, 1)
    )
    reserves = _listed(nicks, proposal.reserves) or "—"
    key = "groups.proposal" if proposal.legal else "groups.impossible"
    await message.answer(
        t(
            lang,
            key,
            tour=tour,
            groups=listing or "—",
            reserves=reserves,
            repeats=proposal.repeated_pairs,
            seating=(
                "\n" + t(lang, "groups.seating", again=proposal.repeated_seats)
                if proposal.seated
                else ""
            ),
            count=len(proposal.groups) and sum(proposal.sizes),
            total=sum(proposal.sizes) + len(proposal.reserves),
        )
    )


async def tour(
    message: Message,
    bot: Bot,
    service: GameService,
    t: Texts,
    tournaments: TournamentService,
    lang: str,
) -> None:
    """`/tour`: the current tour at a glance, for its Judge: each table's code, chat, Host
    and state, and who has not come."""
    assert message.from_user is not None
    tournament = await judged(message, tournaments, t, lang)
    if tournament is None:
        return
    tid = tournament.tournament_id
    current = await service.repos.tours.last_tour(tid)
    if current == 0:
        await message.answer(t(lang, "tours.none", name=escape(tournament.name)))
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
        t(
            lang,
            "tours.text",
            name=escape(tournament.name),
            tour=current,
            count=len(tables),
            done=done,
            tables=await tournaments.tables_text(tid, tables, lang),
        )
        + "\n\n"
        + t(lang, hint)
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
    t: Texts,
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
        await message.answer(t(lang, "bind.not_admin"))
        return
    missing = await missing_rights(bot, message.chat.id)
    if missing:
        rights = ", ".join(t(lang, f"rights.{r}") for r in missing)
        await message.answer(t(lang, "lobby.missing_rights", rights=rights))
        return
    host_id = message.from_user.id
    if host is not None:
        named = await service.repos.users.by_username(host[1:])
        if named is None:
            await message.answer(t(lang, "host.host_usage"))
            return
        host_id = named.user_id
    try:
        group = await tournaments.bind(code, message.chat.id, message.from_user.id, host_id)
    except TournamentError as error:
        await refuse(message, t, lang, error)
        return
    # As many may join by it as the table seats (issue 25 §5): an observer handed the
    # link takes a place it no longer has, and an expelled one finds it used up.
    invite = await bot.create_chat_invite_link(
        message.chat.id, name=group.code[:32], member_limit=len(group.players)
    )
    await tournaments.keep_invite(group.code, message.chat.id, invite.invite_link)
    await tournaments.invite(group, invite.invite_link, message.chat.title or "")
    await message.answer(t(lang, "bind.done", code=group.code, players=len(group.players)))


async def unbind(
    message: Message,
    bot: Bot,
    service: GameService,
    t: Texts,
    tournaments: TournamentService,
    lang: str,
) -> None:
    """`/unbind` in a table's chat: it is no longer that group's table.

    The tournament's Judge may, and so may an administrator of the chat, who takes back a
    group someone bound it to. A lobby or a game in the chat must end first (/stop).
    """
    assert message.from_user is not None
    group = await service.repos.tours.group_of_chat(message.chat.id)
    if group is None:
        await message.answer(t(lang, "bind.not_bound"))
        return
    tournament = await service.repos.tournaments.get(group.tournament_id)
    user_id = message.from_user.id
    creator = tournament.judge_user_id if tournament is not None else None
    # The README's /unbind row (bot.tournament.access): the Judge, or an administrator of
    # the chat. Telegram is asked only when being the Judge does not settle it already.
    positions = tournament_positions_of(user_id, creator=creator, judges=tournaments.judges)
    if not may_any_at_tournament(TournamentAsked.UNBIND, positions).allowed:
        if await is_chat_admin(bot, message.chat.id, user_id):
            positions = tournament_positions_of(
                user_id, creator=creator, judges=tournaments.judges, administrators=(user_id,)
            )
        if not may_any_at_tournament(TournamentAsked.UNBIND, positions).allowed:
            await message.answer(t(lang, "tournament.judge_only"))
            return
    if await service.active_game(message.chat.id) is not None:
        await message.answer(t(lang, "bind.game_on"))
        return
    await tournaments.unbind(group)
    await message.answer(t(lang, "bind.unbound", table=table_number(group.code)))


async def is_chat_admin(bot: Bot, chat_id: int, user_id: int) -> bool:
    """Whether Telegram says the user administers the chat (the update's word is not enough)."""
    member = await bot.get_chat_member(chat_id, user_id)
    return isinstance(member, ChatMemberOwner | ChatMemberAdministrator)


async def expel(
    message: Message,
    bot: Bot,
    service: GameService,
    t: Texts,
    tournaments: TournamentService,
    lang: str,
) -> None:
    """T7: a player or the Judge replies /expel to an observer's message; they leave the chat.

    Only at a tournament table: in a casual game the chat's own administrators decide who
    stays in their group.
    """
    assert message.from_user is not None
    target = replied_member(message)
    game = await service.active_game(message.chat.id)
    if game is None or game.tournament_id is None:
        await message.answer(t(lang, "expel.tournament_only"))
        return
    if target is None:
        await message.answer(t(lang, "expel.usage"))
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
    # The README's /expel row (bot.tournament.access): a player of the table or the Judge;
    # not the Host as such. An administrator of the chat as such has no cell there ("—"),
    # so Telegram is not asked.
    positions = tournament_positions_of(
        message.from_user.id,
        creator=judge,
        judges=tournaments.judges,
        host=game.host_user_id,
        roster=players,
    )
    if not may_any_at_tournament(TournamentAsked.EXPEL_OBSERVER, positions).allowed:
        await message.answer(t(lang, "expel.not_allowed"))
        return
    if target.id in players or target.id in (game.host_user_id, judge) or target.is_bot:
        await message.answer(t(lang, "expel.not_observer"))
        return
    if await is_chat_admin(bot, message.chat.id, target.id):
        # Telegram refuses to remove an administrator ("user is an administrator of the
        # chat", "can't remove chat owner"): say so rather than fail.
        await message.answer(t(lang, "expel.admin"))
        return
    try:
        # Kept out (issue 25 §5): Telegram refuses them by any link until the ban ends, a
        # week on, longer than a tournament lasts; the chat's administrators may lift it.
        until = int(service.clock.now()) + EXPELLED_DAYS * 86400
        await bot.ban_chat_member(message.chat.id, target.id, until_date=until)
    except TelegramBadRequest:
        # The bot lost the right to remove members since the game began.
        rights = ", ".join(
            t(lang, f"rights.{r}") for r in await missing_rights(bot, message.chat.id)
        )
        await message.answer(t(lang, "lobby.missing_rights", rights=rights or "—"))
        return
    await message.answer(t(lang, "expel.done", name=escape(target.first_name), days=EXPELLED_DAYS))


@takes("replace.usage", Arg("code", GROUP_CODE), Arg("words", NICK_AND_MORE))
async def replace_player(
    message: Message,
    bot: Bot,
    service: GameService,
    t: Texts,
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
        await refuse(message, t, lang, error)
        return
    if lobby is not None:
        await refresh_lobby(service, t, lobby, bot)
    await message.answer(
        t(lang, "replace.done", code=group.code, out=escape(out.nick), sub=escape(sub.nick))
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
