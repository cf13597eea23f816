"""Bans (V4): the Judge's Confirm or Decline of a Host's ban, and /unban."""

from __future__ import annotations

from aiogram.types import CallbackQuery, Message

from bot.services.game import GameService
from bot.services.judge import TournamentError, TournamentService
from bot.views.callbacks import BanCb
from bot.views.i18n import Texts, escape
from bot.views.render import Post
from handlers.args import USER, Arg, takes
from handlers.judge.replies import refuse


@takes("unban.usage", Arg("who", USER))
async def unban(
    message: Message,
    t: Texts,
    tournaments: TournamentService,
    lang: str,
    who: str,
) -> None:
    """`/unban NICK` or `/unban USER_ID`: the Judge lifts a V4 ban."""
    assert message.from_user is not None
    try:
        user_id = await tournaments.unban(message.from_user.id, who)
    except TournamentError as error:
        await refuse(message, t, lang, error)
        return
    await message.answer(t(lang, "unban.done", who=escape(who), user=user_id))


async def ban_decision(
    query: CallbackQuery,
    callback_data: BanCb,
    service: GameService,
    t: Texts,
    tournaments: TournamentService,
    lang: str,
) -> None:
    """V4: the tournament's Judge confirms the ban a Host's sanction asked for, or declines."""
    try:
        request = await tournaments.decide_ban(
            query.from_user.id, callback_data.request, callback_data.confirm
        )
    except TournamentError as error:
        await query.answer(t(lang, error.key, **error.values), show_alert=True)
        return
    nicks = await tournaments.nicks(request.tournament_id)
    who = escape(nicks.get(request.user_id, str(request.user_id)))
    key = "ban.confirmed" if callback_data.confirm else "ban.declined"
    await query.answer()
    await service.sender.deliver(0, [Post(query.from_user.id, t(lang, key, player=who))])
