"""A game never runs unseen: the bot removed from its group, and back (issue 21 §3).

Removed (my_chat_member: left or kicked), the bot can show the group nothing: the game
is paused at once, so that its clock stops and no turn passes unseen, and its Host
hears the real reason in private, with a button to stop the game from there. When the
bot is added back, a game it paused goes on from where it stood; one the Host had
paused before stays paused for the Host's /resume. Which game the bot paused is stored
with its chat (`ChatRepository.set_paused_away`), so that it goes on after a restart too.

A seated player who leaves the group mid-game (chat_member, or the service message):
the Host hears it in private, with the way to go on (/remove; a Judge's substitute in a
tournament). Nothing changes by itself: the player may come back.
"""

from __future__ import annotations

import logging

from aiogram import Bot, F, Router
from aiogram.exceptions import TelegramBadRequest, TelegramForbiddenError
from aiogram.filters import JOIN_TRANSITION, LEAVE_TRANSITION, ChatMemberUpdatedFilter
from aiogram.types import CallbackQuery, ChatMemberUpdated, InlineKeyboardMarkup, Message, User

from bot.delivery.sender import markup
from bot.lru import LRU
from bot.services.game import GameService
from bot.views.callbacks import AwayCb
from bot.views.i18n import Texts, escape
from bot.views.render import Button
from handlers.filters import IN_GROUP, Is

log = logging.getLogger(__name__)
TOLD_KEPT = 10_000  # departures remembered, to tell each once


class Presence:
    def __init__(self) -> None:
        # (game, person) whose leaving the Host heard: chat_member and the service
        # message tell the same departure twice.
        self.told_left: LRU[tuple[int, int], bool] = LRU(TOLD_KEPT)

    async def member_left(
        self, update: ChatMemberUpdated, bot: Bot, service: GameService, t: Texts
    ) -> None:
        await self._left(update.chat.id, update.chat.title, update.new_chat_member.user, bot,
                         service, t)  # fmt: skip

    async def left_message(
        self, message: Message, bot: Bot, service: GameService, t: Texts
    ) -> None:
        if message.left_chat_member is not None:
            await self._left(message.chat.id, message.chat.title, message.left_chat_member, bot,
                             service, t)  # fmt: skip

    async def _left(
        self,
        chat_id: int,
        title: str | None,
        person: User,
        bot: Bot,
        service: GameService,
        t: Texts,
    ) -> None:
        """A seated player left the group mid-game: the Host hears it, and how to go on."""
        running = await service.running_in_chat(chat_id)
        if running is None:
            return
        game, state = running
        seat = state.seat_of(person.id)
        if seat is None or not state.is_alive(seat):
            return
        if self.told_left.get((game.game_id, person.id)) is not None:
            return
        self.told_left[(game.game_id, person.id)] = True
        lang = await service.user_lang(game.host_user_id)
        key = "presence.player_left_tournament" if game.tournament_id else "presence.player_left"
        text = t(
            lang,
            key,
            seat=seat,
            nick=escape(state.seats[seat].nick),
            title=escape(title or ""),
            game=game.game_id,
        )
        await _tell(bot, game.host_user_id, text, None)

    async def removed(
        self, update: ChatMemberUpdated, bot: Bot, service: GameService, t: Texts
    ) -> None:
        running = await service.running_in_chat(update.chat.id)
        if running is None:
            return
        game, state = running
        if not state.paused and not await service.away.removed(game):
            return  # it ended meanwhile
        log.warning("game %d: the bot was removed from chat %d; paused", game.game_id,
                    update.chat.id)  # fmt: skip
        lang = await service.user_lang(game.host_user_id)
        text = t(lang, "presence.removed", title=escape(update.chat.title or ""), game=game.game_id)
        button = Button(t(lang, "presence.stop"), callback=AwayCb(game=game.game_id).pack())
        await _tell(bot, game.host_user_id, text, markup(((button,),)))

    async def back(
        self, update: ChatMemberUpdated, bot: Bot, service: GameService, t: Texts
    ) -> None:
        running = await service.running_in_chat(update.chat.id)
        if running is None:
            return
        game, state = running
        resumed = await service.away.back(game, state)
        lang = await service.user_lang(game.host_user_id)
        key = "presence.back" if resumed else "presence.back_paused"
        text = t(lang, key, title=escape(update.chat.title or ""), game=game.game_id)
        await _tell(bot, game.host_user_id, text, None)

    async def stop(
        self,
        query: CallbackQuery,
        callback_data: AwayCb,
        service: GameService,
        t: Texts,
        lang: str,
    ) -> None:
        """Only the stored game's Host, from their own private chat."""
        game = await service.repos.games.get(callback_data.game)
        chat = query.message.chat.id if query.message is not None else None
        if game is None or game.host_user_id != query.from_user.id or chat != query.from_user.id:
            await query.answer(t(lang, "host.only_host"), show_alert=True)
            return
        if not await service.away.stop(game):
            await query.answer(t(lang, "error.game_finished"), show_alert=True)
            return
        await query.answer(t(lang, "presence.stopped", game=game.game_id), show_alert=True)


async def _tell(bot: Bot, user_id: int, text: str, keyboard: InlineKeyboardMarkup | None) -> None:
    try:
        await bot.send_message(user_id, text, reply_markup=keyboard)
    except (TelegramForbiddenError, TelegramBadRequest) as error:
        # The Host never pressed Start, or blocked the bot: nobody else may be told.
        log.warning("could not tell the Host %d: %s", user_id, error)


def make_router() -> Router:
    presence = Presence()
    router = Router(name="presence")
    router.my_chat_member.register(
        presence.removed, IN_GROUP, ChatMemberUpdatedFilter(LEAVE_TRANSITION)
    )
    router.my_chat_member.register(
        presence.back, IN_GROUP, ChatMemberUpdatedFilter(JOIN_TRANSITION)
    )
    router.callback_query.register(presence.stop, AwayCb.filter())
    router.chat_member.register(
        presence.member_left, IN_GROUP, ChatMemberUpdatedFilter(LEAVE_TRANSITION)
    )
    router.message.register(presence.left_message, IN_GROUP, Is(F.left_chat_member))
    return router
