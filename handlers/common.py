"""Everybody's commands: /start, /help, /rules, /status, /lang."""

from __future__ import annotations

import json
import re

from aiogram import Bot, F, Router
from aiogram.filters import Command, CommandObject, CommandStart
from aiogram.types import Message

from bot import __version__
from bot.rules.codec import from_json
from bot.rules.settings import GameSettings
from bot.services.game import GameService
from bot.services.judge import TournamentService
from bot.views.i18n import LANGUAGES, Texts, escape
from bot.views.render import named
from bot.views.settings import game_rule_values
from handlers.args import Arg, Word, takes
from handlers.commands import help_text
from handlers.filters import IN_PRIVATE, Is
from handlers.lobby import join_from_private, repost_lobby
from storage.games import GameStatus

# Deep-link payloads are at most 64 characters of A-Za-z0-9_- (Bot API). A lobby's token
# is storage.games' token_urlsafe(16): 22 of them, or 32 hex digits for a lobby that
# was open when the tokens came; an old link had the game's number (ASCII digits only).
JOIN = re.compile(r"join_[A-Za-z0-9_-]{16,59}")
OLD_JOIN = re.compile(r"join_[0-9]{1,15}")


async def start(
    message: Message,
    command: CommandObject,
    service: GameService,
    t: Texts,
    tournaments: TournamentService,
    lang: str,
) -> None:
    assert message.from_user is not None
    user_id = message.from_user.id
    await service.started(user_id)
    # A card or night keyboard that could not reach them before goes out now.
    await service.resend_unsent(user_id)
    await service.show_panels_of(user_id)  # a Host's panel that could not reach them
    payload = command.args or ""
    if OLD_JOIN.fullmatch(payload):
        # Links of before the tokens named the game by its number, which anyone could guess.
        await message.answer(t(lang, "lobby.old_link"))
        return
    if JOIN.fullmatch(payload):
        token = payload.removeprefix("join_")
        await join_from_private(message, token, service, t, tournaments, lang)
        return
    welcome = t(lang, "common.welcome")
    if user_id in tournaments.judges:
        # The people the config names run the bot: they see which release answers them.
        welcome += "\n\n" + t(lang, "common.version", version=__version__)
    await message.answer(welcome)
    await service.retry_waiting_begins(user_id)


async def migrated(message: Message, bot: Bot, service: GameService, t: Texts) -> None:
    """A group that became a supergroup keeps its game (Telegram moves it to a new id):
    told in the old group (`migrate_to_chat_id`) or in the new (`migrate_from_chat_id`),
    whichever comes first."""
    if message.migrate_to_chat_id is not None:
        await chat_moved(service, t, bot, message.chat.id, message.migrate_to_chat_id)
    elif message.migrate_from_chat_id is not None:
        await chat_moved(service, t, bot, message.migrate_from_chat_id, message.chat.id)


async def chat_moved(
    service: GameService, t: Texts, bot: Bot, chat_id: int, new_chat_id: int
) -> None:
    """The game moves with its chat, and what the group was shown goes up in the
    supergroup (the service's), the lobby with its Join button too."""
    for game in await service.migrate_chat(chat_id, new_chat_id):
        if game.status is GameStatus.LOBBY and game.lobby_message_id is not None:
            await repost_lobby(service, t, game, bot)


async def help_(message: Message, t: Texts, lang: str) -> None:
    """The commands that work in this chat, from their declarations (handlers.commands)."""
    await message.answer(help_text(t, lang, private=message.chat.type == "private"))


async def rules(
    message: Message, service: GameService, t: Texts, tournaments: TournamentService, lang: str
) -> None:
    assert message.from_user is not None
    private = message.chat.type == "private"
    await message.answer(
        await rules_text(
            service, t, tournaments, message.chat.id, private, message.from_user.id, lang
        )
    )


async def rules_text(
    service: GameService,
    t: Texts,
    tournaments: TournamentService,
    chat_id: int,
    private: bool,
    user_id: int,
    lang: str,
) -> str:
    """The rules in short with the timers and kill rule that apply here, and which those are:
    in a group, its game's or its tournament table's; in private, the player's tournament's;
    else the defaults."""
    scheme, applies = service.casual_settings, t(lang, "rules.applies_default")
    tournament = None
    if private:
        tournament = await tournaments.tournament_of_player(user_id)
    else:
        game = await service.active_game(chat_id)
        group = await service.repos.tours.group_of_chat(chat_id)
        if game is not None:
            scheme = from_json(GameSettings, json.loads(game.settings_json))
            applies = t(lang, "rules.applies_game", game=game.game_id)
        elif group is not None:
            tournament = await service.repos.tournaments.get(group.tournament_id)
    if tournament is not None:
        scheme = tournaments.settings(tournament).game
        applies = t(lang, "rules.applies_tournament", name=escape(tournament.name))
    values = game_rule_values(t, lang, scheme)
    return t(lang, "rules.text", applies=applies, **values)


async def status(message: Message, service: GameService, t: Texts, lang: str) -> None:
    if message.chat.type == "private" and message.from_user is not None:
        await message.answer(await private_status_text(service, t, message.from_user.id, lang))
        return
    await message.answer(await status_text(service, t, message.chat.id, lang))


async def private_status_text(service: GameService, t: Texts, user_id: int, lang: str) -> str:
    """/status in the bot's private chat: the running games the person sits at or hosts.

    The safe way to see the phase and the time at night (N5): a word in the group at
    night is opening one's eyes (V3), a word to the bot is not.
    """
    games = {game.game_id: game for game, _ in await service.games_of_user(user_id)}
    for game in await service.repos.games.running():
        if game.host_user_id == user_id:
            games[game.game_id] = game
    if not games:
        return t(lang, "status.private_none")
    parts = []
    for game_id, game in sorted(games.items()):
        text = await status_text(service, t, game.chat_id, lang)
        parts.append(t(lang, "status.game", game=game_id) + "\n" + text)
    return "\n\n".join(parts)


async def status_text(service: GameService, t: Texts, chat_id: int, lang: str) -> str:
    """What /status says about the game in `chat_id` (also sent in private, see guard)."""
    running = await service.running_in_chat(chat_id)
    if running is None:
        game = await service.active_game(chat_id)
        return t(lang, "status.lobby" if game is not None else "status.none")
    _, state = running
    left = state.paused_remaining
    if left is None and state.deadline is not None:
        left = max(0.0, state.deadline - service.clock.now())
    speaker = named(state, state.speaker, t, lang) if state.speaker else "—"
    return t(
        lang,
        "status.running",
        day=state.day,
        phase=t(lang, f"phase.{state.phase.value}"),
        speaker=speaker,
        seconds=int(left or 0),
        paused=t(lang, "status.paused") if state.paused else "",
        living=", ".join(str(s) for s in state.living()),
    )


@takes(
    "common.lang_usage",
    Arg("wanted", Word(LANGUAGES)),
    usage_values={"languages": ", ".join(LANGUAGES)},
)
async def set_lang(
    message: Message, service: GameService, t: Texts, lang: str, wanted: str
) -> None:
    if message.chat.type == "private":
        assert message.from_user is not None
        await service.set_user_lang(message.from_user.id, wanted)
    else:
        await service.set_chat_lang(message.chat.id, wanted)
    await message.answer(t(wanted, "common.lang_set"))


def make_router() -> Router:
    router = Router(name="common")
    router.message.register(migrated, Is(F.migrate_to_chat_id | F.migrate_from_chat_id))
    router.message.register(start, CommandStart(), IN_PRIVATE)
    router.message.register(help_, CommandStart())  # /start in a group: the group's commands
    router.message.register(help_, Command("help"))
    router.message.register(rules, Command("rules"))
    router.message.register(status, Command("status"))
    router.message.register(set_lang, Command("lang"))
    return router
