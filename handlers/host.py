"""The Host's commands in the group. Anyone else gets a polite refusal.

The host-only handlers sit behind one router-level filter; `refuse` catches the
commands handlers/commands.py declares as the Host's (HOST_ONLY) from everybody else.
"""

from __future__ import annotations

import contextlib
from typing import Any

from aiogram import Bot, Router
from aiogram.exceptions import TelegramBadRequest, TelegramForbiddenError
from aiogram.filters import Command, CommandObject, Filter
from aiogram.types import CallbackQuery, Message

from bot.delivery.sender import markup
from bot.rules.access import Asked, Qualifier, Verdict, may_any, positions_of
from bot.rules.actions import Action, Extend, Pause, Resume, Sanction, Skip, Stop
from bot.rules.errors import RuleError
from bot.rules.events import Phase
from bot.rules.sanctions import Penalty, VCode, disqualifies
from bot.rules.state import GameState
from bot.services.game import GameService, log_game
from bot.services.judge import TournamentService
from bot.tournament.record import tournament_penalty
from bot.views.callbacks import PanelCb, SanctionCb, SignCb, WarnCb
from bot.views.i18n import Texts, escape
from bot.views.panel import EXTEND_SECONDS, Picking
from bot.views.render import Button, Keyboard, Post, named, violation
from handlers.args import SEAT, SECONDS, USERNAME, Arg, Word, replied_member, takes
from handlers.commands import HOST_ONLY
from handlers.filters import IN_GROUP
from handlers.lobby import admin_takes_over, ask_host_to_start, is_member, kick
from storage.games import Game, GameStatus
from storage.nicks import profile_name
from storage.tournaments import TournamentStatus


def hosts(game: Game, user_id: int, asked: Asked) -> Verdict[Qualifier]:
    """What the table (bot.rules.access) says of `user_id` asking `asked` of `game`, for
    the rows only the Host's column allows: no seat decides them, so no state is read."""
    return may_any(asked, positions_of(None, game.host_user_id, user_id))


class IsHost(Filter):
    """The sender is the Host of the chat's active game: the router's commands (/begin,
    /kick and the Host's commands) are rows where only the Host may."""

    async def __call__(self, message: Message, service: GameService) -> bool | dict[str, Any]:
        if message.from_user is None:
            return False
        game = await service.active_game(message.chat.id)
        if game is None or not hosts(game, message.from_user.id, Asked.HOST_COMMAND).allowed:
            return False
        return {"game": game}


async def _act(message: Message, service: GameService, t: Texts, lang: str, action: Action) -> None:
    running = await service.running_in_chat(message.chat.id)
    if running is None:
        await message.answer(t(lang, "host.no_game"))
        return
    try:
        await service.act(running[0].game_id, action)
    except RuleError as error:
        await message.answer(t(lang, f"error.{error.code}"))


async def begin(
    message: Message, bot: Bot, service: GameService, t: Texts, lang: str, game: Any
) -> None:
    if game.status is not GameStatus.LOBBY:
        await message.answer(t(lang, "host.already_running"))
        return
    outcome = await service.begin(game)
    if outcome.too_few is not None or outcome.unreachable:
        # Not started: remind here (a started game's first posts never wait behind it).
        await ask_host_to_start(bot, service, t, game, lang)
    if outcome.too_few is not None:
        players = await service.repos.lobby.players(game.game_id)
        settings = await service.settings_of(game)
        await message.answer(
            t(
                lang,
                "lobby.count",
                count=len(players),
                min=settings.min_players,
                max=settings.max_players,
            )
        )
    elif outcome.unreachable:
        me = await bot.me()
        names = ", ".join(
            f'<a href="tg://user?id={p.user_id}">{escape(p.nick)}</a>' for p in outcome.unreachable
        )
        link = f"https://t.me/{me.username}?start=join_{game.join_token}"
        await bot.send_message(
            message.chat.id,
            t(lang, "lobby.unreachable", players=names),
            message_thread_id=game.thread_id,
            reply_markup=markup(((Button(t(lang, "button.start"), url=link),),)),
        )


async def pause(message: Message, service: GameService, t: Texts, lang: str) -> None:
    await _act(message, service, t, lang, Pause())


async def resume(message: Message, service: GameService, t: Texts, lang: str) -> None:
    await _act(message, service, t, lang, Resume())


NIGHTS = (Phase.NIGHT,)  # N4: a night of fixed length (Night 0, N1, is not one)


async def ask_to_skip_night(
    bot: Bot, service: GameService, t: Texts, game_id: Any, lang: str
) -> bool:
    """At night an early end tells the table something (N4's fixed length): the Host is
    asked, privately, to confirm; only the confirmation skips (issue 22 §1). True if the
    night is not to be skipped at once."""
    state = await service.state(game_id)
    if state is None or state.phase not in NIGHTS:
        return False
    game = await service.repos.games.get(game_id)
    assert game is not None
    confirm = PanelCb(game=game_id, step=state.step, do="skipnight").pack()
    cancel = PanelCb(game=game_id, step=state.step, do="keepnight").pack()
    buttons = (
        Button(t(lang, "button.confirm"), callback=confirm),
        Button(t(lang, "button.cancel"), callback=cancel),
    )
    if await service.reachable(game.host_user_id):
        await bot.send_message(
            game.host_user_id, t(lang, "host.skip_night"), reply_markup=markup((buttons,))
        )
    else:
        await ask_host_to_start(bot, service, t, game, lang)
    return True


async def skip(message: Message, bot: Bot, service: GameService, t: Texts, lang: str) -> None:
    running = await service.running_in_chat(message.chat.id)
    if running is not None and await ask_to_skip_night(bot, service, t, running[0].game_id, lang):
        return
    await _act(message, service, t, lang, Skip())


@takes("host.extend_usage", Arg("seconds", SECONDS))
async def extend(message: Message, service: GameService, t: Texts, lang: str, seconds: int) -> None:
    await _act(message, service, t, lang, Extend(float(seconds)))


async def stop(message: Message, service: GameService, t: Texts, lang: str, game: Any) -> None:
    if game.status is GameStatus.LOBBY and await service.stop_lobby(game):
        await message.answer(t(lang, "over.aborted"))
        return
    # Running, or dealt by a /begin that took the lock first: the game itself stops.
    await _act(message, service, t, lang, Stop())


@takes("host.remove_usage", Arg("seat", SEAT))
async def remove(message: Message, service: GameService, t: Texts, lang: str, seat: int) -> None:
    running = await service.running_in_chat(message.chat.id)
    if running is None:
        await message.answer(t(lang, "host.no_game"))
        return
    if seat not in running[1].seats:
        await message.answer(t(lang, "host.remove_usage"))
        return
    await _act(message, service, t, lang, Sanction(seat, Penalty.REMOVAL_FROM_GAME))


@takes(
    "host.warn_usage",
    (Arg("seat", SEAT), Arg("code", Word(tuple(v.value for v in VCode)))),
    (Arg("seat", SEAT),),
)
async def warn(
    message: Message,
    bot: Bot,
    service: GameService,
    t: Texts,
    tournaments: TournamentService,
    lang: str,
    seat: int,
    code: str | None = None,
) -> None:
    """RULES V: the bot proposes the sanction from the player's record; the Host confirms.

    With no violation named, the Host first picks it from the list, in words, as on the
    panel. Both go to the Host's private chat when the bot can write there (the table
    does not watch the Host decide), otherwise to the group (issue 22 §1, §4)."""
    running = await service.running_in_chat(message.chat.id)
    if running is None:
        await message.answer(t(lang, "host.no_game"))
        return
    game, state = running
    if seat not in state.seats:
        await message.answer(t(lang, "host.warn_usage"))
        return

    async def build(lang: str) -> tuple[str, Keyboard]:
        if code is None:
            return _violations(t, lang, game.game_id, state, seat)
        return await _proposal(t, tournaments, lang, game, state, seat, VCode(code))

    host = game.host_user_id
    if await service.reachable(host):
        private = await service.user_lang(host)
        text, keyboard = await build(private)
        text = t(private, "sanction.in_game", game=game.game_id) + "\n" + text
        try:
            await bot.send_message(host, text, reply_markup=markup(keyboard))
            return
        except TelegramForbiddenError:  # blocked since: the group hears it, then
            log_game(game, "the Host cannot be written to: the proposal goes to the group")
    text, keyboard = await build(lang)
    await service.sender.deliver(game.game_id, [Post(message.chat.id, text, keyboard)])


def _violations(
    t: Texts, lang: str, game_id: int, state: GameState, seat: int
) -> tuple[str, Keyboard]:
    """The violations in words, one a row, and Cancel: the Host picks what was broken."""
    given = state.sanctions_of(seat)
    text = t(lang, "panel.pick_violation", player=named(state, seat, t, lang))
    rows = tuple(
        (
            Button(
                violation(t, lang, v),
                WarnCb(game=game_id, seat=seat, code=v.value, given=given).pack(),
            ),
        )
        for v in VCode
    )
    cancel = SanctionCb(game=game_id, seat=seat, code="", penalty="", given=given).pack()
    return text, (*rows, (Button(t(lang, "button.cancel"), cancel),))


async def _proposal(
    t: Texts,
    tournaments: TournamentService,
    lang: str,
    game: Any,
    state: GameState,
    seat: int,
    vcode: VCode,
) -> tuple[str, Keyboard]:
    """The ladder's sanction for `vcode` and the seat's record, with Confirm and Cancel."""
    penalty = await _ladder(game, state, seat, vcode, tournaments)
    text = t(
        lang,
        "sanction.proposed",
        player=named(state, seat, t, lang),
        violation=violation(t, lang, vcode),
        penalty=t(lang, f"penalty.{penalty.value}"),
    )
    given = state.sanctions_of(seat)
    made = SanctionCb(
        game=game.game_id, seat=seat, code=vcode.value, penalty=penalty.value, given=given
    )
    cancel = made.model_copy(update={"penalty": ""}).pack()
    keyboard = (
        (
            Button(t(lang, "button.confirm"), made.pack()),
            Button(t(lang, "button.cancel"), cancel),
        ),
    )
    return text, keyboard


async def _hosted(
    query: CallbackQuery, service: GameService, t: Texts, lang: str, game_id: int, asked: Asked
) -> Game | None:
    """The game a Host's button is for, if whoever pressed it may press it (the table's
    row `asked`: the Host's); anyone else (a forged or forwarded press) is told it is the
    Host's, and gets None."""
    game = await service.repos.games.get(game_id)
    if game is None or not hosts(game, query.from_user.id, asked).allowed:
        await query.answer(t(lang, "host.only_host"), show_alert=True)
        return None
    return game


async def pick_violation(
    query: CallbackQuery,
    callback_data: WarnCb,
    service: GameService,
    t: Texts,
    tournaments: TournamentService,
    lang: str,
) -> None:
    """A violation picked from a `/warn N` list: the same message becomes the proposal."""
    game = await _hosted(query, service, t, lang, callback_data.game, Asked.SANCTION_DECISION)
    if game is None:
        return
    state = await service.state(game.game_id)
    if game.status is not GameStatus.RUNNING or state is None or state.finished:
        await query.answer(t(lang, "error.game_finished"), show_alert=True)
        await _settled(query, service, game.game_id)
        return
    seat, code = callback_data.seat, callback_data.code
    known = seat in state.seats and code in VCode.__members__
    if not known or callback_data.given != state.sanctions_of(seat) or not _on_it(query):
        await query.answer(t(lang, "error.stale"), show_alert=True)
        await _settled(query, service, game.game_id)
        return
    text, keyboard = await _proposal(t, tournaments, lang, game, state, seat, VCode(code))
    assert query.message is not None  # `_on_it`
    if query.message.chat.type == "private":
        text = t(lang, "sanction.in_game", game=game.game_id) + "\n" + text
    if query.bot is not None:
        with contextlib.suppress(TelegramBadRequest):  # gone, or pressed twice at once
            await query.bot.edit_message_text(
                text,
                chat_id=query.message.chat.id,
                message_id=query.message.message_id,
                reply_markup=markup(keyboard),
            )
    await query.answer()


def _on_it(query: CallbackQuery) -> bool:
    """The press came from a button its message shows (as Telegram says): only then is
    that message an offer to edit, and not some other message of the chat."""
    keyboard = getattr(query.message, "reply_markup", None)
    if keyboard is None:
        return False
    return query.data in (b.callback_data for row in keyboard.inline_keyboard for b in row)


async def _settled(query: CallbackQuery, service: GameService, game_id: int) -> None:
    """The proposal is decided (or past deciding): its buttons go, so nobody presses them
    again. Not the panel's: it shows its next view itself."""
    message = query.message
    if message is None or query.bot is None or not _on_it(query):
        return  # nothing to take off, or not an offer of ours to close
    shown = (message.chat.id, message.message_id)
    panel = await service.repos.panels.get(game_id)
    if panel is not None and (panel.chat_id, panel.message_id) == shown:
        return
    if shown in service.settled:
        return
    service.settled[shown] = True
    with contextlib.suppress(TelegramBadRequest):  # gone, or taken off already
        await query.bot.edit_message_reply_markup(
            chat_id=message.chat.id, message_id=message.message_id, reply_markup=None
        )


async def _ladder(
    game: Any, state: GameState, seat: int, vcode: VCode, tournaments: TournamentService
) -> Penalty:
    """The sanction RULES V gives for `vcode`, from the player's record."""
    if game.tournament_id is not None:
        # RULES V: repeats count over the whole tournament (this game's included).
        offences = await tournaments.offences(game.tournament_id)
        return tournament_penalty(state.seats[seat].user_id, vcode, game.game_id, offences)
    return state.casual_penalty(seat, vcode)


@takes("host.host_usage", (), (Arg("username", USERNAME),))
async def hand_over(
    message: Message,
    bot: Bot,
    service: GameService,
    t: Texts,
    lang: str,
    game: Any,
    username: str | None = None,
) -> None:
    """Hand the game to another member: reply to their message, or name their @username."""
    target_id: int | None = None
    target_name = ""
    who = replied_member(message)
    if username is not None:  # named outright: that is whom the Host means
        user = await service.repos.users.by_username(username[1:])
        if user is not None:
            target_id, target_name = user.user_id, user.first_name
    elif who is not None:
        target_id, target_name = who.id, profile_name(who.first_name, who.last_name)
    if target_id is not None and not await is_member(bot, message.chat.id, target_id):
        target_id = None  # only a member of the chat, as Telegram says, may run its game
    if target_id is None:
        await message.answer(t(lang, "host.host_usage"))
        return
    try:
        handed = await service.hand_over(game, target_id)
    except RuleError as error:  # the game ended meanwhile
        await message.answer(t(lang, f"error.{error.code}"))
        return
    if handed is None:
        await message.answer(t(lang, "host.no_game"))
        return
    link = f'<a href="tg://user?id={target_id}">{escape(target_name)}</a>'
    await message.answer(t(lang, "host.handed_over", host=link))
    # The panel goes to the new Host (none if they hold a seat).
    state = await service.state(game.game_id)
    if handed.status is GameStatus.RUNNING and state is not None:
        async with service.lock(game.game_id):
            service.panels.pick(game.game_id, None)
            await service.show_panel(handed, state)


async def refuse(
    message: Message,
    bot: Bot,
    service: GameService,
    t: Texts,
    lang: str,
    command: CommandObject,
) -> None:
    # Issue 25: a chat's administrator takes over a lobby someone else left open.
    taken = await admin_takes_over(message, bot, service, t, lang)
    if taken is not None:
        if command.command == "stop":
            await stop(message, service, t, lang, taken)
        elif command.command == "begin":
            await begin(message, bot, service, t, lang, taken)
        return
    game = await service.active_game(message.chat.id)
    await message.answer(t(lang, "host.only_host" if game else "host.no_game"))


async def confirm_sanction(
    query: CallbackQuery,
    callback_data: SanctionCb,
    service: GameService,
    t: Texts,
    tournaments: TournamentService,
    lang: str,
) -> None:
    game = await _hosted(query, service, t, lang, callback_data.game, Asked.SANCTION_DECISION)
    if game is None:
        return
    # The panel's picker, if the proposal came from it, is done either way.
    picked = service.panels.picking(game.game_id) is not None
    service.panels.pick(game.game_id, None)
    if not callback_data.penalty:
        await query.answer(t(lang, "sanction.cancelled"))
        await _settled(query, service, game.game_id)
        if picked:
            await _refresh_panel(service, game.game_id)
        return
    # The ladder's answer must still be the one proposed: a second press of Confirm, or a
    # proposal the record has moved past, is stale; a penalty no proposal made is refused.
    state = await service.state(game.game_id)
    seat, code = callback_data.seat, callback_data.code
    penalty: Penalty | None = None
    known = state is not None and seat in state.seats and code in VCode.__members__
    if known and state is not None and callback_data.given == state.sanctions_of(seat):
        penalty = await _ladder(game, state, seat, VCode(code), tournaments)
    if penalty is None or penalty.value != callback_data.penalty:
        await query.answer(t(lang, "error.stale"), show_alert=True)
        await _settled(query, service, game.game_id)
        if picked:
            await _refresh_panel(service, game.game_id)
        return
    action = Sanction(seat, penalty, VCode(code))
    asked: list[tuple[Post, int]] = []

    async def ask_the_judge(after: GameState) -> None:
        # Out of the tournament (RULES V): the status, and the Judge's message, stand or
        # fall with the sanction, in its transaction; V4's ban is the Judge's to confirm.
        assert game is not None and penalty is not None
        told = await tournaments.put_out(game, after, seat, penalty)
        if told is not None:
            asked.append(told)
        if penalty is Penalty.BAN:
            asked.append(
                await tournaments.ask_judge_to_ban(
                    game, after, seat, f"{code}, game {game.game_id}"
                )
            )

    out = disqualifies(penalty) and game.tournament_id is not None
    try:
        state, _ = await service.act(game.game_id, action, ask_the_judge if out else None)
    except (RuleError, LookupError) as error:
        code = error.code if isinstance(error, RuleError) else "game_finished"
        await query.answer(t(lang, f"error.{code}"), show_alert=True)
        await _settled(query, service, game.game_id)
        if picked:
            await _refresh_panel(service, game.game_id)
        return
    await query.answer()
    await _settled(query, service, game.game_id)
    for post, outbox_id in asked:
        await tournaments.send_queued(game.game_id, post, outbox_id)


async def _refresh_panel(service: GameService, game_id: int) -> None:
    """Show the game's panel as it stands (its picker moved, or a press was refused)."""
    async with service.lock(game_id):
        game = await service.repos.games.get(game_id)
        state = await service.state(game_id)
        if game is not None and state is not None and game.status is GameStatus.RUNNING:
            await service.show_panel(game, state)


async def panel_press(
    query: CallbackQuery,
    callback_data: PanelCb,
    service: GameService,
    t: Texts,
    tournaments: TournamentService,
    lang: str,
) -> None:
    """A button of the Host's private panel: the same service calls as the commands.

    Only this game's Host, as the stored game says, from the panel in their private
    chat; a Host who holds a seat has no panel. Pause, resume, +30 s and End turn are
    for the step the panel showed: once the turn moved on, a press is stale.
    """
    game = await service.repos.games.get(callback_data.game)
    user_id = query.from_user.id
    chat = query.message.chat.id if query.message is not None else None
    verdict = None if game is None else hosts(game, user_id, Asked.PANEL_BUTTON)
    if (
        game is None
        or verdict is None
        or not verdict.allowed
        # The table's "from their own panel": the press comes from the Host's private chat.
        or (Qualifier.FROM_THEIR_OWN_PANEL in verdict.qualifiers and chat != user_id)
    ):
        await query.answer(t(lang, "host.only_host"), show_alert=True)
        return
    state = await service.state(game.game_id)
    if game.status is not GameStatus.RUNNING or state is None or state.finished:
        await query.answer(t(lang, "error.game_finished"), show_alert=True)
        return
    if Qualifier.WITHOUT_A_SEAT in verdict.qualifiers and state.seat_of(user_id) is not None:
        await query.answer(t(lang, "panel.seated"), show_alert=True)
        return
    do, seat, code = callback_data.do, callback_data.seat, callback_data.code
    step = callback_data.step  # the engine refuses the action at any other step
    actions: dict[str, Action] = {
        "pause": Pause(step),
        "resume": Resume(step),
        "extend": Extend(float(EXTEND_SECONDS), step),
        "skip": Skip(step),
    }
    if (
        do == "skip"
        and query.bot is not None
        and await ask_to_skip_night(query.bot, service, t, game.game_id, lang)
    ):
        await query.answer()
        return
    if do in ("skipnight", "keepnight") and query.message is not None and query.bot is not None:
        with contextlib.suppress(TelegramBadRequest):  # the question is answered: no buttons
            await query.bot.edit_message_reply_markup(
                chat_id=chat, message_id=query.message.message_id, reply_markup=None
            )
        if do == "keepnight":
            await query.answer(t(lang, "host.night_kept"))
            return
        do = "skip"
    if do in actions:
        try:
            await service.act(game.game_id, actions[do])
        except (RuleError, LookupError) as error:
            key = error.code if isinstance(error, RuleError) else "game_finished"
            await query.answer(t(lang, f"error.{key}"), show_alert=True)
            await _refresh_panel(service, game.game_id)
            return
        await query.answer()
        return
    picking: Picking | None
    if do == "warn":
        picking = Picking()
    elif do == "seat" and state.is_alive(seat):
        picking = Picking(seat)
    elif do == "code" and seat in state.seats and code in VCode.__members__:
        # The ladder's answer for the record as it is now; Confirm checks it again.
        penalty = await _ladder(game, state, seat, VCode(code), tournaments)
        picking = Picking(seat, VCode(code), penalty, state.sanctions_of(seat))
    elif do == "back":
        picking = None
    else:
        await query.answer(t(lang, "error.stale"), show_alert=True)
        return
    service.panels.pick(game.game_id, picking)
    await _refresh_panel(service, game.game_id)
    await query.answer()


async def sign(
    query: CallbackQuery,
    callback_data: SignCb,
    service: GameService,
    t: Texts,
    tournaments: TournamentService,
    lang: str,
) -> None:
    game = await _hosted(query, service, t, lang, callback_data.game, Asked.SIGN_SHEET)
    if game is None:
        return
    # T3: only an ended game has a sheet; a forged press before the end is told so.
    refusal = {
        GameStatus.LOBBY: "over.not_over",
        GameStatus.RUNNING: "over.not_over",
        GameStatus.ABORTED: "over.no_sheet",
    }.get(game.status)
    if refusal is None and game.tournament_id is not None:
        tournament = await service.repos.tournaments.get(game.tournament_id)
        if tournament is not None and tournament.status is TournamentStatus.FINISHED:
            refusal = "over.tournament_finished"  # T5: the final table is closed
    if refusal is None and not await service.sign(
        game, query.from_user.id, query.from_user.first_name
    ):
        refusal = "over.already_signed"
    if refusal is not None:
        await query.answer(t(lang, refusal), show_alert=True)
        return
    await query.answer()
    signed = await service.repos.games.get(game.game_id)
    if signed is not None and signed.tournament_id is not None:
        await tournaments.send_sheet_to_judge(signed)  # T3: signed sheets go to the Judge


def host_router() -> Router:
    router = Router(name="host")
    router.message.filter(IN_GROUP, IsHost())
    router.message.register(begin, Command("begin"))
    router.message.register(pause, Command("pause"))
    router.message.register(resume, Command("resume"))
    router.message.register(skip, Command("skip"))
    router.message.register(extend, Command("extend"))
    router.message.register(stop, Command("stop"))
    router.message.register(remove, Command("remove"))
    router.message.register(warn, Command("warn"))
    router.message.register(hand_over, Command("host"))
    router.message.register(kick, Command("kick"))
    return router


def refusal_router() -> Router:
    router = Router(name="host-refusals")
    router.message.register(refuse, Command(*HOST_ONLY), IN_GROUP)
    return router


def button_router() -> Router:
    router = Router(name="host-buttons")
    router.callback_query.register(confirm_sanction, SanctionCb.filter())
    router.callback_query.register(pick_violation, WarnCb.filter())
    router.callback_query.register(panel_press, PanelCb.filter())
    router.callback_query.register(sign, SignCb.filter())
    return router
