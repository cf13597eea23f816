"""The lobby: /newgame with the rights check, Join by deep link or /join, /leave."""

from __future__ import annotations

from typing import Any

from aiogram import Bot, Router
from aiogram.exceptions import TelegramBadRequest
from aiogram.filters import Command
from aiogram.types import (
    CallbackQuery,
    ChatMemberAdministrator,
    ChatMemberMember,
    ChatMemberOwner,
    ChatMemberRestricted,
    Message,
    User,
)

from bot.delivery.sender import markup
from bot.delivery.slot import Shown, put
from bot.rules.access import Asked, Qualifier, may_any, positions_of
from bot.services.game import GameService, JoinOutcome
from bot.services.judge import TournamentService
from bot.tournament.access import (
    TournamentAsked,
    may_any_at_tournament,
    tournament_positions_of,
)
from bot.tournament.natural import natural_key
from bot.tournament.tables import table_number
from bot.views.callbacks import PresenceCb
from bot.views.i18n import Texts, clip, escape
from bot.views.render import Button
from handlers.args import SEAT, Arg, takes
from handlers.filters import IN_GROUP
from storage.failures import ActiveGameExistsError
from storage.games import Game, GameStatus
from storage.nicks import profile_name

# PRODUCT: the bot needs these rights to run a game in a group.
REQUIRED_RIGHTS = (
    "can_delete_messages",
    "can_restrict_members",
    "can_pin_messages",
    "can_invite_users",
)
# How much of a chat's title an alert quotes: the rest of "lobby.elsewhere" and a game
# number take up to about 150 of the 200 characters an alert may hold.
TITLE_IN_ALERT = 40


async def missing_rights(bot: Bot, chat_id: int) -> list[str]:
    me = await bot.me()
    member = await bot.get_chat_member(chat_id, me.id)
    if isinstance(member, ChatMemberOwner):
        return []
    if not isinstance(member, ChatMemberAdministrator):
        return list(REQUIRED_RIGHTS)
    return [right for right in REQUIRED_RIGHTS if not getattr(member, right)]


async def lobby_view(service: GameService, t: Texts, game: Game, bot: Bot) -> tuple[str, Button]:
    lang = await service.chat_lang(game.chat_id)
    players = await service.repos.lobby.players(game.game_id)
    group = await service.repos.tours.group_of_game(game.game_id)
    if group is not None:
        # T1: the table's roster; each player confirms presence with the button.
        present = {p.user_id for p in players}
        nicks = {
            p.user_id: p.nick for p in await service.repos.tournaments.players(group.tournament_id)
        }
        roster = "\n".join(
            f"{'✅' if u in present else '⏳'} {escape(nicks.get(u, str(u)))}"
            for u in sorted(group.players, key=lambda u: natural_key(nicks.get(u, str(u))))
        )
        text = t(
            lang,
            "lobby.tournament",
            game=game.game_id,
            table=table_number(group.code),
            count=len(present),
            total=len(group.players),
            players=roster,
        )
        return text, Button(t(lang, "button.present"), PresenceCb(game=game.game_id).pack())
    settings = await service.settings_of(game)
    host = await service.repos.users.get(game.host_user_id)
    names = "\n".join(f"{i}. {escape(p.nick)}" for i, p in enumerate(players, 1)) or "—"
    text = t(
        lang,
        "lobby.text",
        game=game.game_id,
        host=escape(host.first_name if host else "?"),
        count=len(players),
        min=settings.min_players,
        max=settings.max_players,
        players=names,
    )
    if len(players) >= settings.max_players:
        text += "\n\n" + t(lang, "lobby.full_note", max=settings.max_players)
    me = await bot.me()
    link = f"https://t.me/{me.username}?start=join_{game.join_token}"
    return text, Button(t(lang, "button.join"), url=link)


async def refresh_lobby(service: GameService, t: Texts, game: Game, bot: Bot) -> None:
    """Edit the lobby post to show who is in now.

    A burst of joins shares edits: while one edit is on its way (an edit is cosmetic, so
    it may wait for the group's window), a later change only marks the post stale, and
    the edit under way is followed by one more with the list as it is then. Callers do
    not hold the game's lock meanwhile, so a join never waits for another's edit.
    """
    if game.lobby_message_id is None:
        return
    stale = service.stale_lobbies
    if game.game_id in stale:  # an edit is under way: it goes again after
        stale[game.game_id] = True
        return
    stale[game.game_id] = True
    # What the post shows now, as the last edit left it (a refresh that ran before this
    # one may have shown this change already: Telegram refuses an edit that changes nothing).
    shown = service.lobby.shown
    try:
        while stale[game.game_id]:
            stale[game.game_id] = False
            text, button = await lobby_view(service, t, game, bot)
            post = Shown(game.chat_id, game.lobby_message_id, shown.get(game.game_id) or "")
            # An edit already made may have shown that change; a lobby post that was
            # deleted is not posted again (no harm: the lobby goes on).
            _, now = await put(bot, post, text, text, markup(((button,),)))
            if now is not None:
                shown[game.game_id] = text
    finally:
        del stale[game.game_id]


async def repost_lobby(service: GameService, t: Texts, game: Game, bot: Bot) -> None:
    """The lobby post stayed behind in a group that became a supergroup: it goes up
    there anew, with its Join button, and is the one edited from then on."""
    text, button = await lobby_view(service, t, game, bot)
    sent = await bot.send_message(game.chat_id, text, reply_markup=markup(((button,),)))
    await service.lobby_posted(game, sent.message_id, text)


def topic_of(message: Message) -> int | None:
    """The forum topic a message was posted in, where a game it opens lives; None for a
    forum's General (which has no thread id) and for a group without topics (where a
    thread id is a reply thread's)."""
    return message.message_thread_id if message.is_topic_message else None


async def ask_host_to_start(
    bot: Bot, service: GameService, t: Texts, game: Game, lang: str
) -> None:
    """A Host who never pressed Start gets no panel and has night reports (V3) only in the
    group: ask them, with a button to the bot's private chat (issue 22 §1)."""
    if await service.reachable(game.host_user_id):
        return
    me = await bot.me()
    link = f"https://t.me/{me.username}?start=host"
    await bot.send_message(
        game.chat_id,
        t(lang, "lobby.host_start"),
        message_thread_id=game.thread_id,
        reply_markup=markup(((Button(t(lang, "button.start"), url=link),),)),
    )


async def newgame(
    message: Message,
    bot: Bot,
    service: GameService,
    t: Texts,
    tournaments: TournamentService,
    lang: str,
) -> None:
    assert message.from_user is not None
    missing = await missing_rights(bot, message.chat.id)
    if missing:
        rights = t.listing(lang, [t(lang, f"rights.{r}") for r in missing])
        await message.answer(t(lang, "lobby.missing_rights", rights=rights))
        return
    group = await tournaments.repos.tours.group_of_chat(message.chat.id)
    try:
        if group is not None:
            # A tournament table: the roster is the group; its Host or the Judge opens it.
            tournament = await tournaments.repos.tournaments.get(group.tournament_id)
            assert tournament is not None
            positions = tournament_positions_of(
                message.from_user.id,
                creator=tournament.judge_user_id,
                judges=tournaments.judges,
                host=group.host_user_id,
            )
            if not may_any_at_tournament(TournamentAsked.NEW_GAME, positions).allowed:
                await message.answer(t(lang, "host.only_host"))
                return
            game = await tournaments.open_table(group, message.chat.id, topic_of(message))
        else:
            game = await service.open_lobby(
                message.chat.id, message.from_user.id, topic_of(message)
            )
    except ActiveGameExistsError:
        if await admin_takes_over(message, bot, service, t, lang) is None:
            await message.answer(t(lang, "lobby.exists"))
        return
    await ask_host_to_start(bot, service, t, game, lang)
    text, button = await lobby_view(service, t, game, bot)
    sent = await bot.send_message(
        message.chat.id,
        text,
        message_thread_id=game.thread_id,
        reply_markup=markup(((button,),)),
    )
    await service.lobby_posted(game, sent.message_id, text)


async def is_admin(bot: Bot, chat_id: int, user_id: int) -> bool:
    """Whether Telegram says, now, that the user administers the chat (getChatMember)."""
    try:
        member = await bot.get_chat_member(chat_id, user_id)
    except TelegramBadRequest:
        return False
    return isinstance(member, ChatMemberOwner | ChatMemberAdministrator)


async def admin_takes_over(
    message: Message, bot: Bot, service: GameService, t: Texts, lang: str
) -> Game | None:
    """A chat's administrator sent a Host's command (or /newgame) in a casual lobby that
    someone else opened: they become its Host, and the group is told (issue 25: any
    member's lobby left open must not lock the chat). None if not so: the sender is
    not an administrator as Telegram says now, or there is no such lobby."""
    user = message.from_user
    if user is None or user.is_bot or message.sender_chat is not None:
        return None  # an anonymous administrator is no person to make the Host
    game = await service.active_game(message.chat.id)
    if game is None or game.status is not GameStatus.LOBBY or game.tournament_id is not None:
        return None
    # The table's row (bot.rules.access): nobody takes over their own lobby; anyone else
    # may, if Telegram says now that they administer the chat (asked last: a request).
    verdict = may_any(Asked.LOBBY_TAKEN_OVER, positions_of(None, game.host_user_id, user.id))
    if not verdict.allowed:
        return None
    needs_admin = Qualifier.AN_ADMINISTRATOR_OF_THE_CHAT in verdict.qualifiers
    if needs_admin and not await is_admin(bot, message.chat.id, user.id):
        return None
    taken = await service.take_over(game, user.id)
    if taken is None:
        return None
    admin = f'<a href="tg://user?id={user.id}">{escape(_name(user))}</a>'
    await message.answer(t(lang, "lobby.taken_over", game=game.game_id, admin=admin))
    await refresh_lobby(service, t, taken, bot)
    return taken


@takes("lobby.kick_usage", Arg("number", SEAT))
async def kick(
    message: Message, bot: Bot, service: GameService, t: Texts, lang: str, game: Any, number: int
) -> None:
    """The Host's /kick N: the lobby's N-th player is out (one who never pressed Start
    and holds /begin up, say)."""
    if game.status is not GameStatus.LOBBY:
        await message.answer(t(lang, "host.already_running"))
        return
    out = await service.kick(game, number)
    if out is None:
        await message.answer(t(lang, "lobby.kick_usage"))
        return
    await message.answer(t(lang, "lobby.kicked", number=number, nick=escape(out.nick)))
    await refresh_lobby(service, t, game, bot)


def _name(user: User) -> str:
    """A casual player's nick: their Telegram profile's name, made safe (storage.nicks)."""
    return profile_name(user.first_name, user.last_name, user.username, fallback=str(user.id))


async def is_member(bot: Bot, chat_id: int, user_id: int) -> bool:
    """Whether Telegram says the user is in the chat (a restricted member still is)."""
    try:
        member = await bot.get_chat_member(chat_id, user_id)
    except TelegramBadRequest:
        return False  # "user not found": never in the chat
    if isinstance(member, ChatMemberRestricted):
        return member.is_member
    return isinstance(member, ChatMemberOwner | ChatMemberAdministrator | ChatMemberMember)


async def out_of_tournament(
    service: GameService, tournaments: TournamentService, game: Game, user_id: int
) -> str | None:
    """Why the person may not sit at this tournament table, if they are out of its
    tournament (RULES V, T5): the text key that says so in words; None otherwise."""
    group = await service.repos.tours.group_of_game(game.game_id)
    if group is None:
        return None
    why = (await tournaments.out_players(group.tournament_id)).get(user_id)
    return None if why is None else f"lobby.out_{why}"


async def answer_seating(
    message: Message, service: GameService, t: Texts, lang: str, game: Game, outcome: JoinOutcome
) -> None:
    """Tell the person what became of their request for a seat (in the chat they asked in)."""
    if outcome.elsewhere is not None:
        where = outcome.elsewhere
        chat = await service.repos.chats.get(where.chat_id)
        title = escape(chat.title or "") if chat else ""
        await message.answer(t(lang, "lobby.elsewhere", title=title, game=where.game_id))
        return
    chat = await service.repos.chats.get(game.chat_id)
    title = escape(chat.title or "") if chat else ""
    await message.answer(t(lang, f"lobby.{outcome.seating.value}", title=title, game=game.game_id))


async def join_from_private(
    message: Message,
    token: str,
    service: GameService,
    t: Texts,
    tournaments: TournamentService,
    lang: str,
) -> None:
    """The Join deep link lands here: the player has pressed Start, so we can write to them.

    The link names the lobby by its token; whoever follows it must be a member of the
    game's chat as Telegram says (getChatMember), not merely someone who saw the link.
    """
    assert message.from_user is not None and message.bot is not None
    game = await service.repos.games.by_join_token(token)
    if game is None or game.status is not GameStatus.LOBBY:
        await message.answer(t(lang, "lobby.closed"))
        return
    if not await is_member(message.bot, game.chat_id, message.from_user.id):
        chat = await service.repos.chats.get(game.chat_id)
        title = escape(chat.title or "") if chat else ""
        await message.answer(t(lang, "lobby.not_member", title=title))
        return
    out = await out_of_tournament(service, tournaments, game, message.from_user.id)
    if out is not None:
        await message.answer(t(lang, out))
        return
    outcome = await service.join(game, message.from_user.id, _name(message.from_user))
    await answer_seating(message, service, t, lang, game, outcome)
    if outcome.joined:
        await refresh_lobby(service, t, game, message.bot)  # the player hears first
    await service.retry_waiting_begins(message.from_user.id)


async def join_in_group(
    message: Message,
    bot: Bot,
    service: GameService,
    t: Texts,
    tournaments: TournamentService,
    lang: str,
) -> None:
    assert message.from_user is not None
    game = await service.active_game(message.chat.id)
    if game is None or game.status is not GameStatus.LOBBY:
        await message.answer(t(lang, "lobby.none"))
        return
    if message.from_user.is_bot or message.sender_chat is not None:
        # An anonymous admin or a channel speaks as a bot: no person to seat.
        await message.answer(t(lang, "lobby.cannot_join"))
        return
    out = await out_of_tournament(service, tournaments, game, message.from_user.id)
    if out is not None:
        await message.answer(t(lang, out))  # RULES V, T5: out means out
        return
    outcome = await service.join(game, message.from_user.id, _name(message.from_user))
    if outcome.joined:
        await refresh_lobby(service, t, game, bot)
    else:  # why not, said plainly: full, already in, off the roster, seated elsewhere
        await answer_seating(message, service, t, lang, game, outcome)


async def leave(message: Message, bot: Bot, service: GameService, t: Texts, lang: str) -> None:
    assert message.from_user is not None
    game = await service.active_game(message.chat.id)
    if game is None or game.status is not GameStatus.LOBBY:
        await message.answer(t(lang, "lobby.none"))
        return
    if await service.leave(game, message.from_user.id):
        await refresh_lobby(service, t, game, bot)
    else:
        await message.answer(t(lang, "lobby.not_in"))


async def present(
    query: CallbackQuery,
    callback_data: PresenceCb,
    bot: Bot,
    service: GameService,
    t: Texts,
    tournaments: TournamentService,
    lang: str,
) -> None:
    """A tournament player confirms presence at their table (the roster is the group's)."""
    game = await service.repos.games.get(callback_data.game)
    group = await service.repos.tours.group_of_game(callback_data.game)
    if game is None or group is None or game.status is not GameStatus.LOBBY:
        await query.answer(t(lang, "lobby.closed"), show_alert=True)
        return
    # Out of the tournament (RULES V, T5): never seated, whatever the roster says, and
    # told why, before the roster (which an out player has left) is even looked at.
    out = await out_of_tournament(service, tournaments, game, query.from_user.id)
    if out is not None:
        await query.answer(t(lang, out), show_alert=True)
        return
    if query.from_user.id not in group.players:
        await query.answer(t(lang, "lobby.not_on_roster"), show_alert=True)
        return
    nick = next(
        (
            p.nick
            for p in await service.repos.tournaments.players(group.tournament_id)
            if p.user_id == query.from_user.id
        ),
        _name(query.from_user),
    )
    outcome = await service.join(game, query.from_user.id, nick)
    if outcome.joined:
        await refresh_lobby(service, t, game, bot)
        await query.answer(t(lang, "lobby.present"))
    elif outcome.elsewhere is not None:
        chat = await service.repos.chats.get(outcome.elsewhere.chat_id)
        # An alert is plain text (no escaping) of at most 200 characters: a long title is cut.
        title = clip(chat.title or "", TITLE_IN_ALERT) if chat else ""
        text = t(lang, "lobby.elsewhere", title=title, game=outcome.elsewhere.game_id)
        await query.answer(text, show_alert=True)
    else:
        await query.answer(t(lang, "lobby.already_present"))
    await service.retry_waiting_begins(query.from_user.id)


def make_router() -> Router:
    router = Router(name="lobby")
    router.callback_query.register(present, PresenceCb.filter())
    router.message.register(newgame, Command("newgame"), IN_GROUP)
    router.message.register(join_in_group, Command("join"), IN_GROUP)
    router.message.register(leave, Command("leave"), IN_GROUP)
    return router
