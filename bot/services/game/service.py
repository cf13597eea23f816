"""The game service: the one door between Telegram handlers and the rules core.

A handler turns an update into a call here. Behind the door the work is in parts, each
in its own module: people and languages (`people`), the states and locks (`states`),
the lobby and the deal (`lobby`), an action's apply-store-tell (`actions`), the timers
(`clockwork`), the table message and the Host's panel (`table`), what the Host must
hear (`notices`), where a game lives (`places`), and start-up (`resume`). This class
only builds them and names what handlers may call.
"""

from __future__ import annotations

from collections.abc import Callable

from bot.delivery.moved_chats import MovedChats
from bot.delivery.sender import Sender
from bot.lru import LRU
from bot.rules.settings import GameSettings
from bot.services.clock import Clock, Timers
from bot.services.game.actions import Actions
from bot.services.game.away import Away
from bot.services.game.clockwork import Clockwork
from bot.services.game.lobby import Lobby
from bot.services.game.notices import Notices
from bot.services.game.people import KEEP_CHATS, People
from bot.services.game.places import Places
from bot.services.game.resume import Resume
from bot.services.game.shared import LOBBY, LOBBY_IDLE_SECONDS, TURN, WARN, log
from bot.services.game.states import GameStates
from bot.services.game.table import TableMessage
from bot.services.inbox import HandledUpdates
from bot.views.i18n import Texts
from bot.views.panel import HostPanels
from storage.repositories import Repositories


class GameService:
    def __init__(
        self,
        repos: Repositories,
        clock: Clock,
        timers: Timers,
        texts: Texts,
        sender: Sender,
        casual_settings: GameSettings,
        new_seed: Callable[[], str],
        warning_seconds: float = 10.0,
        timezone: str = "Europe/Moscow",
        lobby_idle_seconds: float = LOBBY_IDLE_SECONDS,
        moves: MovedChats | None = None,
    ) -> None:
        self.repos = repos
        self.clock = clock
        self.timers = timers
        self.t = texts
        self.sender = sender
        self.casual_settings = casual_settings
        self.timezone = timezone  # of the clock times players read
        self.updates = HandledUpdates(repos.processed, also_prune=[repos.outbox.prune])
        # (chat, message) of the Host's decided sanction proposals, whose buttons were
        # taken off: a second press that was on its way does not ask for it again.
        self.settled: LRU[tuple[int, int], bool] = LRU(KEEP_CHATS)

        self.people = people = People(repos, texts, timezone)
        self.states = states = GameStates(repos, sender)
        self.panels = HostPanels(repos, sender, texts, people.user_lang)
        self.notices = notices = Notices(people, texts, sender)
        self.table = table = TableMessage(repos, clock, texts, sender, states, self.panels)
        self.clockwork = clockwork = Clockwork(
            repos, clock, timers, texts, sender, states, people, notices, warning_seconds
        )
        self.actions = actions = Actions(
            repos, clock, texts, sender, states, people, clockwork, table, notices, self.updates
        )
        self.lobby = lobby = Lobby(
            repos,
            clock,
            timers,
            texts,
            sender,
            states,
            people,
            actions,
            casual_settings,
            new_seed,
            lobby_idle_seconds,
        )
        self.places = places = Places(
            repos, clock, sender, states, people, table, moves or MovedChats()
        )
        self.resume = resume = Resume(
            repos, clock, texts, sender, states, people, clockwork, actions, table, notices
        )
        self.away = Away(repos, actions)
        timers.set_handler(self.on_timer)

        # What handlers call, each answered by its part.
        self.chat_lang = people.chat_lang
        self.user_lang = people.user_lang
        self.set_chat_lang = people.set_chat_lang
        self.set_user_lang = people.set_user_lang
        self.saw_user = people.saw_user
        self.saw_chat = people.saw_chat
        self.reachable = people.reachable
        self.started = people.started
        self.audience = people.audience
        self.lock = states.lock
        self.active_game = states.active_game
        self.cached_state = states.cached_state
        self.state = states.state
        self.running_in_chat = states.running_in_chat
        self.games_of_user = states.games_of_user
        self.stale_lobbies = lobby.stale
        self.open_lobby = lobby.open
        self.take_over = lobby.take_over
        self.kick = lobby.kick
        self.settings_of = lobby.settings_of
        self.join = lobby.join
        self.leave = lobby.leave
        self.stop_lobby = lobby.stop
        self.lobby_posted = lobby.posted
        self.unreachable = lobby.unreachable
        self.begin = lobby.begin
        self.retry_waiting_begins = lobby.retry_waiting_begins
        self.act = actions.act
        self.sign = actions.sign
        self.hand_over = actions.hand_over
        self.show_board = table.show_board
        self.show_panel = table.show_panel
        self.show_panels_of = table.show_panels_of
        self.tell_host = notices.tell_host
        self.migrate_chat = places.migrate_chat
        self.resend_unsent = resume.resend_unsent
        self.rearm_all = resume.rearm_all
        self.tell_resumed = resume.tell_resumed

    @property
    def new_seed(self) -> Callable[[], str]:
        """Where every deal's seed and every tournament lot's comes from (S3)."""
        return self.lobby.new_seed

    async def resume_all(self) -> int:
        """Start-up: every running game back on its clock, every casual lobby's closing
        time armed again, then each group told where its game stands and what it never
        got sent again."""
        resumed = await self.resume.rearm_all()
        await self.lobby.rearm()
        await self.resume.tell_resumed(resumed)
        return len(resumed.games)

    async def on_timer(self, kind: str, game_id: int, step: int) -> None:
        """A timer of a game is due (jobs carry only ids: the state says the rest). Its
        job is an activity of the bot's while it runs."""
        with self.sender.workers.activity():
            try:
                if kind == TURN:
                    await self.actions.time_out(game_id, step)
                elif kind == WARN:
                    await self.clockwork.warn(game_id, step)
                elif kind == LOBBY:
                    await self.lobby.expire(game_id)
            except Exception:
                log.exception("timer %s for game %s failed", kind, game_id)
