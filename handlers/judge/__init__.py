"""The tournament: the Judge's commands in private, binding tables, registration (T1-T7).

One module per part of the Judge's work: `registration` (the tournament, the deep link,
nicks, settings), `tours` (groups, tours, a table's chat, substitutes, expelling),
`sheets`, `bans`, `results`; `replies` is how they all refuse. The router is made here,
in the order its handlers must see updates.
"""

from __future__ import annotations

from aiogram import F, Router
from aiogram.filters import Command, CommandStart

from bot.views.callbacks import BanCb
from handlers.filters import IN_GROUP, IN_PRIVATE
from handlers.judge.bans import ban_decision, unban
from handlers.judge.registration import create, nick, register, registration, settings, unregister
from handlers.judge.results import adjust, export, finish, standings, stats
from handlers.judge.sheets import fix, protocol, sheet
from handlers.judge.tours import EXPELLED_DAYS, bind, expel, groups, replace_player, tour, unbind

__all__ = ["EXPELLED_DAYS", "make_router"]

PRIVATE = IN_PRIVATE
GROUP = IN_GROUP


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
    router.callback_query.register(ban_decision, BanCb.filter())
    router.message.register(create, Command("tournament"), PRIVATE)
    router.message.register(nick, Command("nick"), PRIVATE)
    router.message.register(settings, Command("settings"), PRIVATE)
    router.message.register(groups, Command("groups"), PRIVATE)
    router.message.register(tour, Command("tour"), PRIVATE)
    router.message.register(standings, Command("standings"), PRIVATE)
    router.message.register(stats, Command("stats"), PRIVATE)
    router.message.register(sheet, Command("sheet"), PRIVATE)
    router.message.register(fix, Command("fix"), PRIVATE)
    router.message.register(adjust, Command("adjust"), PRIVATE)
    router.message.register(finish, Command("finish"), PRIVATE)
    router.message.register(export, Command("export"), PRIVATE)
    router.message.register(protocol, Command("protocol"), PRIVATE)
    router.message.register(replace_player, Command("replace"), PRIVATE)
    router.message.register(unregister, Command("unregister"), PRIVATE)
    router.message.register(registration, Command("registration"), PRIVATE)
    router.message.register(unban, Command("unban"), PRIVATE)
    router.message.register(bind, Command("bind"), GROUP)
    router.message.register(unbind, Command("unbind"), GROUP)
    router.message.register(expel, Command("expel"), GROUP)
    return router
