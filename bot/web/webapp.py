"""Who opened a Mini App, as Telegram signs it: the `initData` check (issue 12).

Telegram hands a Mini App its launch data as a query string (`initData`). Its `hash`
is HMAC-SHA256 over the other fields, sorted by name and joined as `name=value` lines,
keyed by HMAC-SHA256 of the bot's token keyed by "WebAppData" (core.telegram.org/bots/
webapps, "Validating data received via the Mini App"). Anything else a page sends
about its viewer is the viewer's own claim and counts for nothing.
"""

from __future__ import annotations

import hashlib
import hmac
import json
from dataclasses import dataclass
from urllib.parse import parse_qsl

# How old launch data may be (`[web] launch_data_max_age_minutes`): an hour. Telegram's
# docs advise checking auth_date so that a copy someone kept cannot be replayed; a Mini
# App reopened gets fresh data. A little ahead of our clock is a skew, not a forgery.
MAX_AGE_SECONDS = 3600
CLOCK_SKEW_SECONDS = 60
# Telegram's launch data is a few hundred bytes; anything far longer is not it.
MAX_INIT_DATA = 4096


@dataclass(frozen=True)
class Viewer:
    user_id: int
    first_name: str
    language_code: str | None


def _secret_key(bot_token: str) -> bytes:
    return hmac.new(b"WebAppData", bot_token.encode(), hashlib.sha256).digest()


def sign_fields(fields: dict[str, str], bot_token: str) -> str:
    """The `hash` Telegram puts on these fields (tests build launch data with it)."""
    check = "\n".join(f"{k}={v}" for k, v in sorted(fields.items()))
    return hmac.new(_secret_key(bot_token), check.encode(), hashlib.sha256).hexdigest()


def viewer_of(
    init_data: str, bot_token: str, now: float, max_age: float = MAX_AGE_SECONDS
) -> Viewer | None:
    """The Telegram user who opened the Mini App, or None unless Telegram signed it lately."""
    if not init_data or len(init_data) > MAX_INIT_DATA:
        return None
    try:
        pairs = parse_qsl(init_data, keep_blank_values=True, strict_parsing=True)
    except ValueError:
        return None
    fields = dict(pairs)
    if len(fields) != len(pairs):
        return None  # a name twice: which one was signed?
    given = fields.pop("hash", "")
    if not hmac.compare_digest(sign_fields(fields, bot_token), given):
        return None
    try:
        auth_date = int(fields["auth_date"])
        user = json.loads(fields["user"])
        user_id = user["id"]
    except (KeyError, ValueError, TypeError):
        return None
    if not now - max_age <= auth_date <= now + CLOCK_SKEW_SECONDS:
        return None
    if type(user_id) is not int:
        return None
    language = user.get("language_code")
    return Viewer(
        user_id, str(user.get("first_name", "")), language if isinstance(language, str) else None
    )
