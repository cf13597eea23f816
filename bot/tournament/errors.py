"""Typed errors of the tournament core (same shape as `bot.rules.errors`)."""

from __future__ import annotations

from bot.rules.errors import RuleError


class BadPoints(RuleError, ValueError):
    """A points value the Judge typed (`/adjust`) is not a number with at most one decimal."""

    code = "bad_points"
