"""The Mini App's launch data (issue 12): only what Telegram signed, lately, counts."""

from __future__ import annotations

import json
from urllib.parse import urlencode

from bot.web.webapp import MAX_AGE_SECONDS, sign_fields, viewer_of

TOKEN = "7000000001:sandbox-token"
NOW = 1_767_225_600.0


def launch(token: str = TOKEN, auth_date: float = NOW, **extra: str) -> str:
    fields = {
        "user": json.dumps({"id": 42, "first_name": "Вера", "language_code": "ru"}),
        "chat_instance": "123",
        "chat_type": "sender",
        "auth_date": str(int(auth_date)),
        **extra,
    }
    fields["hash"] = sign_fields(fields, token)
    return urlencode(fields)


def test_signed_launch_data_names_the_viewer() -> None:
    viewer = viewer_of(launch(), TOKEN, NOW)
    assert viewer is not None
    assert (viewer.user_id, viewer.first_name, viewer.language_code) == (42, "Вера", "ru")


def test_the_hash_matches_telegrams_documented_construction() -> None:
    import hashlib
    import hmac

    fields = {"auth_date": "1", "user": '{"id":1}'}
    key = hmac.new(b"WebAppData", TOKEN.encode(), hashlib.sha256).digest()
    check = 'auth_date=1\nuser={"id":1}'
    assert sign_fields(fields, TOKEN) == hmac.new(key, check.encode(), hashlib.sha256).hexdigest()


def test_forged_launch_data_is_refused() -> None:
    other_bot = launch(token="7000000002:another-token")
    assert viewer_of(other_bot, TOKEN, NOW) is None
    # Someone changes the user in data signed for another: the hash no longer fits.
    genuine = launch()
    forged = genuine.replace("%22id%22%3A+42", "%22id%22%3A+43")
    assert forged != genuine
    assert viewer_of(forged, TOKEN, NOW) is None
    assert viewer_of(genuine + "&user=x", TOKEN, NOW) is None  # a field twice
    assert viewer_of("", TOKEN, NOW) is None
    assert viewer_of("garbage", TOKEN, NOW) is None
    assert viewer_of(genuine.replace("hash=", "hash=0"), TOKEN, NOW) is None
    assert viewer_of("a=" + "x" * 5000, TOKEN, NOW) is None


def test_stale_launch_data_is_refused() -> None:
    assert viewer_of(launch(auth_date=NOW - MAX_AGE_SECONDS - 1), TOKEN, NOW) is None
    assert viewer_of(launch(auth_date=NOW - MAX_AGE_SECONDS + 60), TOKEN, NOW) is not None
    assert viewer_of(launch(auth_date=NOW + 3600), TOKEN, NOW) is None  # from the future


def test_signed_data_without_a_numeric_user_is_refused() -> None:
    fields = {"auth_date": str(int(NOW)), "user": json.dumps({"id": "42"})}
    fields["hash"] = sign_fields(fields, TOKEN)
    assert viewer_of(urlencode(fields), TOKEN, NOW) is None


def test_launch_data_older_than_an_hour_is_a_replay() -> None:
    """Issue 25 §5: Telegram advises checking auth_date against replays; an hour by default
    (`[web] launch_data_max_age_minutes`), and the caller's window when given."""
    assert MAX_AGE_SECONDS == 3600
    assert viewer_of(launch(auth_date=NOW - 2 * 3600), TOKEN, NOW) is None
    assert viewer_of(launch(auth_date=NOW - 50 * 60), TOKEN, NOW) is not None
    assert viewer_of(launch(auth_date=NOW - 20 * 60), TOKEN, NOW, max_age=15 * 60) is None
