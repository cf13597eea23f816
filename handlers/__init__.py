"""Telegram handlers: one router per feature, in the order they must see updates.

The guard comes last: it deletes whatever no other router claimed and the rules
do not allow in the group (D10, N5).
"""

from __future__ import annotations

from aiogram import Router

from handlers import common, day, guard, host, lobby, night, vote


def get_routers() -> list[Router]:
    return [
        host.router,
        host.refusals,
        host.sanction_router,
        common.router,
        lobby.router,
        day.router,
        vote.router,
        night.router,
        guard.router,
    ]
