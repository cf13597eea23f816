"""Telegram handlers: one router per feature, in the order they must see updates.

Routers are made fresh for every dispatcher (a router can belong to one only). The
guard comes last: it deletes whatever no other router claimed and the rules do not
allow in the group (D10, N5).
"""

from __future__ import annotations

from aiogram import Router

from handlers import common, day, guard, host, judge, lobby, night, presence, vote


def get_routers() -> list[Router]:
    return [
        presence.make_router(),  # the bot's own membership, before the guard's rights
        host.host_router(),
        host.refusal_router(),
        host.button_router(),
        judge.make_router(),
        common.make_router(),
        lobby.make_router(),
        day.make_router(),
        vote.make_router(),
        night.make_router(),
        guard.make_router(),
    ]
