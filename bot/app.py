"""Wiring: the aiogram Bot and Dispatcher, storage, timers and the game service.

`python -m bot run` builds everything here from the config, in `main()`, never at
import time.
"""

from __future__ import annotations

import asyncio
import logging
import secrets
from collections.abc import Awaitable, Callable
from dataclasses import dataclass

from aiogram import Bot, Dispatcher
from aiogram.client.default import DefaultBotProperties
from aiogram.client.session.base import BaseSession
from aiogram.client.telegram import TelegramAPIServer
from aiogram.enums import ParseMode
from aiogram.filters import ExceptionTypeFilter
from aiogram.types import (
    BotCommand,
    BotCommandScopeAllChatAdministrators,
    BotCommandScopeAllGroupChats,
    BotCommandScopeAllPrivateChats,
    BotCommandScopeDefault,
    BotCommandScopeUnion,
)

from bot import __version__, timings
from bot.cli.restore import RunLock
from bot.config import Config
from bot.delivery import runtime
from bot.delivery.longtext import LongMessages
from bot.delivery.moved_chats import MovedChats
from bot.delivery.sender import Sender
from bot.rules.settings import GameSettings
from bot.services.clock import Clock, Timers
from bot.services.game import GameService
from bot.services.game.shared import LOBBY_IDLE_SECONDS
from bot.services.judge import OPEN_TOURNAMENTS, TournamentService
from bot.services.workers import Workers
from bot.views.i18n import LANGUAGES, Texts
from bot.web.page import PageLinks, TournamentPages, serve_pages
from handlers import get_routers
from handlers.commands import menus
from handlers.common import chat_moved
from handlers.failures import STORAGE_FAILURES, StaleAnswers, Unreachable, gone, not_recorded
from handlers.guard import AnswersInPrivate, OutOfTurnCommands
from handlers.middleware import (
    AtWork,
    DecidedOnTelling,
    InChatOrder,
    KnowTheSender,
    NothingOnBehalfOfAChat,
    OncePerUpdate,
    ThrottleCommands,
)
from handlers.topics import GameTopic
from storage.db import Database
from storage.repositories import Repositories
from storage.secrets import PAGE_KEY

log = logging.getLogger(__name__)


def make_bot(token: str, api_server: str, session: BaseSession | None = None) -> Bot:
    """The bot, with its session to `api_server` (or `session`, the demo's in process)."""
    if session is None:
        loads, dumps = runtime.json_codec()
        api = TelegramAPIServer.from_base(api_server)
        session = runtime.LeanSession(api=api, json_loads=loads, json_dumps=dumps)
    # A reply to a message deleted meanwhile goes without the reply (issue 21).
    default = DefaultBotProperties(parse_mode=ParseMode.HTML, allow_sending_without_reply=True)
    return Bot(token, session=session, default=default)


def new_seed() -> str:
    """S3: each game's secret seed, from a cryptographically secure source."""
    return secrets.token_hex(16)


@dataclass
class App:
    bot: Bot
    dispatcher: Dispatcher
    service: GameService
    database: Database
    # Every background task, and every update and timer's job under way (`Workers`).
    workers: Workers


async def build_app(
    bot: Bot,
    database: Database,
    clock: Clock,
    timers: Timers,
    texts: Texts,
    casual_settings: GameSettings,
    warning_seconds: float = 10.0,
    seeds: Callable[[], str] = new_seed,
    pace_scale: float = 1.0,
    judges: frozenset[int] = frozenset(),
    timezone: str = "Europe/Moscow",
    pages: PageLinks | None = None,
    lobby_idle_seconds: float = LOBBY_IDLE_SECONDS,
    open_tournaments: int = OPEN_TOURNAMENTS,
    workers: Workers | None = None,
) -> App:
    # Here, not where the bot is made: every bot the app runs (the demo's and the tests'
    # too) keeps its answers' models built, rather than rebuilding one after each
    # garbage collection.
    runtime.tune(bot)
    workers = workers or Workers()
    sender = Sender(bot, clock, pace_scale, workers)
    # Outermost, to time all of a call an update waits for (`bot.timings`; off: nothing).
    bot.session.middleware(timings.Calls())
    # Then: an update that tells Telegram something lets its chat's next update go.
    bot.session.middleware(DecidedOnTelling())
    # Then: an answer to a command sent out of turn goes to its sender (D10, N5).
    bot.session.middleware(AnswersInPrivate())
    # Then: a text too long for one message becomes several, each paced in turn.
    bot.session.middleware(LongMessages())
    # Then: a button's answer Telegram no longer waits for is dropped (issue 21).
    bot.session.middleware(StaleAnswers())
    # Then: a call to a group that became a supergroup goes there (issue 21 §3).
    moves = MovedChats()
    bot.session.middleware(moves)
    bot.session.middleware(sender.limiter)  # every call the bot makes is paced by it
    service = GameService(
        Repositories.of(database),
        clock,
        timers,
        texts,
        sender,
        casual_settings,
        seeds,
        warning_seconds,
        timezone=timezone,
        lobby_idle_seconds=lobby_idle_seconds,
        moves=moves,
    )
    # A move learnt from a refusal moves the chat, as its service message would.
    moves.on_move = lambda chat_id, new_chat_id: chat_moved(
        service, texts, bot, chat_id, new_chat_id
    )
    dispatcher = Dispatcher()
    dispatcher["service"] = service
    # Handlers and middlewares read the texts by this name, as they do the service.
    dispatcher["t"] = texts
    dispatcher["tournaments"] = TournamentService(service, judges, open_tournaments)
    dispatcher["pages"] = pages  # the live page's addresses, when [web] is on
    dispatcher["workers"] = workers
    # Outermost: an update's handling is the bot's work until it ends.
    dispatcher.update.outer_middleware(AtWork(workers))
    # Then: a chat's updates one after another, in Telegram's order (issue 26).
    dispatcher.update.outer_middleware(InChatOrder(workers))
    dispatcher.update.outer_middleware(OncePerUpdate())
    # Before anything is stored of it: a flood of commands outside a game is dropped.
    dispatcher.message.outer_middleware(ThrottleCommands())
    dispatcher.message.outer_middleware(KnowTheSender())
    # A forum's topics other than the game's are not the game's (after KnowTheSender: `lang`).
    dispatcher.message.outer_middleware(GameTopic())
    dispatcher.edited_message.outer_middleware(GameTopic(edited=True))
    dispatcher.message.outer_middleware(NothingOnBehalfOfAChat())  # after KnowTheSender: `lang`
    dispatcher.message.outer_middleware(OutOfTurnCommands())  # after KnowTheSender: its `lang`
    dispatcher.callback_query.outer_middleware(KnowTheSender())
    dispatcher.include_routers(*get_routers())
    dispatcher.errors.register(not_recorded, ExceptionTypeFilter(*STORAGE_FAILURES))
    # A chat gone, or the bot blocked or removed there: no redelivery mends it (issue 21).
    dispatcher.errors.register(Unreachable().handle, lambda event: gone(event.exception))
    return App(bot, dispatcher, service, database, workers)


# The scopes handlers.commands.menus() names, by their BotCommandScope type.
SCOPES: dict[str, BotCommandScopeUnion] = {
    "all_group_chats": BotCommandScopeAllGroupChats(),
    "all_chat_administrators": BotCommandScopeAllChatAdministrators(),
    "all_private_chats": BotCommandScopeAllPrivateChats(),
    "default": BotCommandScopeDefault(),
}


async def set_command_menus(bot: Bot, texts: Texts) -> None:
    """Command menus per scope (group members, group administrators, private chats), each
    in every language and without one, from the commands' declarations."""
    for lang in (None, *LANGUAGES):
        shown = lang or texts.default
        for menu in menus():
            commands = [
                BotCommand(command=name, description=texts(shown, f"commands.{name}"))
                for name in menu.commands
            ]
            await bot.set_my_commands(commands, scope=SCOPES[menu.scope], language_code=lang)


async def run_bot(config: Config) -> None:
    """Long polling (or a webhook, as the config says) against the configured Bot API."""
    assert config.bot.token is not None
    log.info("Mafia Table %s, database %s", __version__, config.database_path.resolve())
    timings.serve(asyncio.get_running_loop())  # MAFIA_TIMINGS=1: make bench asks for them
    texts = Texts(config.bot.language)
    # One bot a database: a second one would answer every update twice, and a restore
    # must not pull the file from under a running bot (bot/cli/restore.py).
    running = RunLock(config.database_path)
    if not running.acquire():
        raise StartRefused(texts(config.bot.language, "check.running", path=config.database_path))
    try:
        bot = make_bot(config.bot.token.get_secret_value(), config.bot.api_server)
        try:
            await reach_telegram(bot, texts, config.bot.language)
        except BaseException:
            await bot.session.close()
            raise
        await _run(bot, config, texts)
    finally:
        running.release()


async def _run(bot: Bot, config: Config, texts: Texts) -> None:
    from bot.services.clock import SchedulerTimers, WallClock

    assert config.bot.token is not None
    database = await Database.open(config.database_path, synchronous=config.bot.synchronous)
    timers = SchedulerTimers()
    token = config.bot.token.get_secret_value()
    pages = None
    if config.web.enabled:
        # The page's addresses come from the database's own key, not the token: a revoked
        # token leaves every page's address as it was.
        key = await Repositories.of(database).secrets.get_or_make(PAGE_KEY)
        pages = PageLinks(config.web.base_url, key)
    app = await build_app(
        bot,
        database,
        WallClock(),
        timers,
        texts,
        config.casual_settings(),
        config.game.warning_seconds,
        pace_scale=config.bot.flood_window_scale,
        judges=frozenset(config.access.judges),
        timezone=config.bot.timezone,
        pages=pages,
        lobby_idle_seconds=config.casual.lobby_idle_minutes * 60,
        open_tournaments=config.access.open_tournaments_per_judge,
    )
    page_server = None
    try:
        if pages is not None:
            page_server = await serve_pages(
                TournamentPages(
                    app.dispatcher["tournaments"],
                    pages,
                    token,
                    texts,
                    launch_max_age=config.web.launch_data_max_age_minutes * 60,
                ),
                config.web.host,
                config.web.port,
            )
            # Where to point the reverse proxy, and the address people get.
            print(
                f"Live tournament page: listening on http://{config.web.host}:"
                f"{config.web.port}, open at {pages.base_url}/t/...",
                flush=True,
            )
        timers.start()
        resumed = await app.service.rearm_all()
        log.info("resumed %d running games", len(resumed.games))
        # The clocks first: the menus are a few calls, each a round trip to Telegram.
        await set_command_menus(bot, texts)
        # The groups are told while updates are read already: Telegram's overall window
        # takes 500 notices in no less than 17 s, and no game waits for its own.
        app.workers.spawn(app.service.tell_resumed(resumed), "tell resumed")
        runtime.freeze_start_up()
        with runtime.watching_collections():
            if config.bot.mode == "webhook":
                await _serve_webhook(app, config)
            else:
                await _drop_leftover_webhook(bot)
                await app.dispatcher.start_polling(bot)
    finally:
        # What was still to be sent goes with the process: the outbox sends it again.
        await app.workers.stop()
        if page_server is not None:
            await page_server.cleanup()
        timers.shutdown()
        await database.close()
        await bot.session.close()


class StartRefused(Exception):
    """Telegram refuses the bot itself (a revoked token): no retry mends it."""


# Seconds between tries while Telegram cannot be reached at start: a network still coming
# up at boot, or an outage, is waited out here, with one line a try, not a traceback.
REACH_BACKOFF = (1.0, 2.0, 5.0, 10.0, 30.0, 60.0)


async def reach_telegram(
    bot: Bot,
    texts: Texts,
    lang: str,
    *,
    backoff: tuple[float, ...] = REACH_BACKOFF,
    sleep: Callable[[float], Awaitable[object]] = asyncio.sleep,
) -> None:
    """getMe until Telegram answers; `StartRefused` if it answers that the token is bad."""
    from aiogram.exceptions import (
        AiogramError,
        TelegramNetworkError,
        TelegramNotFound,
        TelegramServerError,
        TelegramUnauthorizedError,
    )

    tries = 0
    while True:
        try:
            await asyncio.wait_for(bot.get_me(), 20)
        except TelegramUnauthorizedError:
            raise StartRefused(texts(lang, "check.unauthorized").removeprefix("✗ ")) from None
        except TelegramNotFound:
            raise StartRefused(
                texts(lang, "check.not_found", url=bot.session.api.base).removeprefix("✗ ")
            ) from None
        except (TelegramNetworkError, TelegramServerError, TimeoutError, OSError) as error:
            seconds = backoff[min(tries, len(backoff) - 1)]
            said = str(error) or type(error).__name__
            log.warning("%s", texts(lang, "check.waiting", error=said, seconds=f"{seconds:g}"))
            tries += 1
            await sleep(seconds)
            continue
        except AiogramError:
            raise StartRefused(
                texts(lang, "check.not_bot_api", url=bot.session.api.base).removeprefix("✗ ")
            ) from None
        if tries:
            log.warning("%s", texts(lang, "check.reached"))
        return


async def _drop_leftover_webhook(bot: Bot) -> None:
    """A webhook still set from an earlier run in webhook mode makes Telegram refuse
    every getUpdates (409 Conflict) for as long as it stays: polling would hear nothing.
    Its pending updates are kept: polling gets them."""
    info = await bot.get_webhook_info()
    if info.url:
        await bot.delete_webhook(drop_pending_updates=False)
        log.warning("polling mode: the webhook %s left from webhook mode was deleted", info.url)


async def _serve_webhook(app: App, config: Config) -> None:
    from handlers.webhook import new_secret, serve_webhook

    assert config.bot.webhook_url is not None  # the config refuses webhook mode without it
    given = config.bot.webhook_secret
    runner = await serve_webhook(
        app.dispatcher,
        app.bot,
        config.bot.webhook_url,
        given.get_secret_value() if given is not None else new_secret(),
        host=config.bot.webhook_host,
        port=config.bot.webhook_port,
    )
    try:
        await asyncio.Event().wait()
    finally:
        await runner.cleanup()
