"""`python -m bot run` runs the bot; `python -m bot demo` plays an offline sandbox game."""

from __future__ import annotations

import argparse
import asyncio
import logging
import sys
from pathlib import Path

from bot.config import load_config


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bot")
    parser.add_argument("--config", type=Path, default=None, help="the TOML config file")
    sub = parser.add_subparsers(dest="command", required=True)
    sub.add_parser("run", help="run the bot (the sandbox demo when no token is configured)")
    demo = sub.add_parser("demo", help="play a whole game in the offline sandbox")
    demo.add_argument("--players", type=int, default=12)
    demo.add_argument("--seed", type=int, default=1)
    demo.add_argument("--lang", choices=("ru", "en"), default=None)
    args = parser.parse_args(argv)

    logging.basicConfig(
        level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s"
    )
    config = load_config(args.config)
    if args.command == "run" and config.bot.token is not None:
        # Imported here: the sandbox and the demo stay unloaded in production.
        from bot import runtime
        from bot.app import run_bot

        # A line per handled update is noise at a club's scale; our own lines stay.
        logging.getLogger("aiogram.event").setLevel(logging.WARNING)
        logging.getLogger("apscheduler").setLevel(logging.WARNING)  # lines per timer, too
        with asyncio.Runner(loop_factory=runtime.loop_factory()) as runner:
            runner.run(run_bot(config))
        return 0

    from bot.demo import play_demo

    if args.command == "run":
        print(
            "No bot token configured (config.toml [bot] token, or MAFIA_BOT_TOKEN): "
            "playing the offline sandbox demo instead.\n",
            flush=True,
        )
        players, seed, lang = 12, 1, config.bot.language
    else:
        players, seed, lang = args.players, args.seed, args.lang or config.bot.language
    logging.getLogger().setLevel(logging.WARNING)
    return asyncio.run(play_demo(config, players, seed, lang, sys.stdout))


if __name__ == "__main__":
    sys.exit(main())
