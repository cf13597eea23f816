"""`python -m sandbox --port 8081`: the sandbox as its own process.

For running the bot as a separate process against a simulated Telegram (the demo, an
end-to-end test that starts `python -m bot run`): the Bot API is served for any token
of Telegram's shape, and the test drives people through the control API (`/_sandbox/`,
see `sandbox.control`). `--port 0` picks a free port. The first line on standard
error names the address once the socket accepts connections, so a parent process can
wait for it instead of polling. Stop it with Ctrl-C or SIGTERM.
"""

from __future__ import annotations

import argparse
import socket
import sys

from aiohttp import web

from sandbox.server import Sandbox


def _arguments(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m sandbox", description=__doc__)
    add = parser.add_argument
    add("--host", default="127.0.0.1")
    add("--port", type=int, default=8081, help="0 picks a free port")
    add("--bot-username", default="mafia_table_bot")
    add("--bot-name", default="Mafia Table")
    add("--bot-id", type=int, default=7_000_000_001, help="the bot's user id")
    add("--no-privacy", action="store_true", help="the bot sees every group message")
    add("--rate-limits", action="store_true", help="enforce Telegram's flood limits")
    add("--flaky-429", type=float, default=0.0, help="fraction of calls answered 429")
    add("--seed", type=int, default=0, help="seed for choosing the flaky calls")
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    args = _arguments(argv)
    sandbox = Sandbox(
        args.bot_username,
        bot_name=args.bot_name,
        bot_id=args.bot_id,
        privacy_mode=not args.no_privacy,
        rate_limits=args.rate_limits,
        flaky_429=args.flaky_429,
        seed=args.seed,
        any_token=True,
    )
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind((args.host, args.port))
    sock.listen(128)  # connections made before the server runs wait in the backlog
    host, port = sock.getsockname()[:2]
    print(
        f"Sandbox Bot API on http://{host}:{port} for @{args.bot_username} "
        f"(token {sandbox.token}); control API under /_sandbox/",
        file=sys.stderr,
        flush=True,
    )
    web.run_app(
        sandbox.app,
        sock=sock,
        handler_cancellation=True,
        access_log=None,
        shutdown_timeout=1.0,
        print=None,
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
