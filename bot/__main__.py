"""`python -m bot run` runs the bot; `python -m bot check` says whether it can;
`python -m bot backup PATH` copies the database while it runs; `python -m bot restore
FILE` puts a copy back while it is stopped; `python -m bot demo` plays
an offline sandbox game; `python -m bot verify` recomputes the draws of a finished game
from its seed (S3)."""

from __future__ import annotations

import argparse
import asyncio
import io
import logging
import os
import sys
from pathlib import Path

from bot import __version__
from bot.cli.check import (
    CONFIG,
    ConfigProblem,
    config_file,
    language,
    preflight,
    read_config,
    texts,
)
from bot.config import Config

# `demo` (and `run` with no token) where the bot is installed without its source checkout.
NO_SANDBOX = 2
NO_DEMO = (
    "The demo plays in the offline sandbox, which comes with the source checkout, not with "
    "the installed bot (the Docker image has none). Run `make run` or `python -m bot demo` "
    "in a clone of the repository; to run the bot itself, configure a token (config.toml "
    "[bot] token, or MAFIA_BOT_TOKEN) and use `python -m bot run`."
)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bot")
    parser.add_argument("--config", type=Path, default=None, help="the TOML config file")
    parser.add_argument("--version", action="version", version=f"Mafia Table {__version__}")
    sub = parser.add_subparsers(dest="command", required=True)
    sub.add_parser("run", help="run the bot (the sandbox demo when no token is configured)")
    check_parser = sub.add_parser(
        "check",
        help="check the config, the token, the database and Telegram; say what is wrong",
    )
    check_parser.add_argument(
        "--token-required",
        action="store_true",
        help="no token is a failure (a server), not the offline demo (a laptop)",
    )
    check_parser.add_argument(
        "--offline",
        action="store_true",
        help="everything but Telegram, which `run` waits for itself (a server at boot)",
    )
    backup_parser = sub.add_parser(
        "backup",
        help="copy the database while the bot runs (README, Backups)",
        description="A consistent copy of the database, made with SQLite's online backup "
        "while the bot may be running, readable by its owner only. PATH is a new file, or "
        "a folder (the copy is then named mafia-YYYYMMDD-HHMMSS.sqlite3, UTC).",
    )
    backup_parser.add_argument(
        "path", help="the new file, or a folder to put it in (made if the path ends with /)"
    )
    restore_parser = sub.add_parser(
        "restore",
        help="put a backup in the database's place (README, Backups); the bot must be stopped",
        description="Refuses while a bot runs on the database. Checks the backup, keeps the "
        "current database aside under a dated name, puts the copy in its place (owned like "
        "its folder, mode 0600) and migrates it to the current schema.",
    )
    restore_parser.add_argument("file", type=Path, help="the backup to restore")
    demo = sub.add_parser("demo", help="play a whole game in the offline sandbox")
    demo.add_argument("--players", type=int, default=12)
    demo.add_argument("--seed", type=int, default=1)
    demo.add_argument("--lang", choices=("ru", "en"), default=None)
    demo.add_argument(
        "--web",
        action="store_true",
        help="with --scenario tournament: serve the live page (on [web] host and port) "
        "while the demo plays, and after it until Ctrl-C",
    )
    demo.add_argument(
        "--scenario",
        choices=("game", "host", "lot", "tie", "sanction", "tournament"),
        default="game",
        help="host: the Host pauses, extends, warns, removes; lot: nobody is nominated "
        "(D8); tie: both leaders leave (D7); sanction: the ladder of rules V; "
        "tournament: the Judge's tournament of one tour, from registration to the final "
        "standings (12 players or more, T1)",
    )
    verify = sub.add_parser(
        "verify",
        help="recompute every draw of a finished game from its seed (docs/fairness.md)",
        description="Either --protocol FILE.json (the Judge's /protocol download of a "
        "finished game), or the revealed SEED and the players as ID:NICK (their Telegram "
        "ids) or as bare nicks in increasing order of Telegram id.",
    )
    verify.add_argument("seed", nargs="?", help="the seed revealed at the end of the game")
    verify.add_argument("players", nargs="*", help="ID:NICK, or nicks in order of Telegram id")
    verify.add_argument("--protocol", type=Path, help="the game's protocol JSON (/protocol)")
    verify.add_argument(
        "--day",
        action="append",
        default=[],
        metavar="K:SEATS",
        help="also draw day K's first speaker and lot among these living seats, e.g. 2:1,2,4,5",
    )
    verify.add_argument("--mafia", type=int, default=None, help="mafiosi at a casual table")
    verify.add_argument("--lang", choices=("ru", "en"), default=None)
    args = parser.parse_args(argv)

    try:
        config = read_config(args.config)
    except ConfigProblem as problem:
        print(
            texts()(language(args.config), "check.config_problem", error=problem), file=sys.stderr
        )
        return CONFIG
    if args.command == "verify":
        return _verify(args, config)
    if args.command == "check":
        from bot.cli.check import check

        return asyncio.run(
            check(args.config, sys.stdout, token_required=args.token_required, offline=args.offline)
        )
    if args.command == "backup":
        from bot.cli.backup import backup

        return backup(config.database_path, args.path, sys.stdout)

    if args.command == "restore":
        from bot.cli.restore import restore

        return restore(config.database_path, args.file, sys.stdout)

    from bot.logs import setup_logging

    setup_logging(config.bot.log_format)
    if args.command == "run" and config.bot.token is not None:
        # Imported here: the sandbox and the demo stay unloaded in production.
        from bot.app import StartRefused, run_bot
        from bot.delivery import runtime

        # What `check` would refuse, refused in its words before anything starts: one
        # line each and status 78, which the systemd unit does not retry.
        said = io.StringIO()
        if preflight(config, config_file(args.config, dict(os.environ)), said) != 0:
            problems = [line for line in said.getvalue().splitlines() if line.startswith("✗")]
            print("\n".join(problems), file=sys.stderr)
            return CONFIG

        # A line per handled update is noise at a club's scale; our own lines stay.
        logging.getLogger("aiogram.event").setLevel(logging.WARNING)
        logging.getLogger("apscheduler").setLevel(logging.WARNING)  # lines per timer, too
        try:
            with asyncio.Runner(loop_factory=runtime.loop_factory()) as runner:
                runner.run(run_bot(config))
        except StartRefused as refused:
            print(
                texts()(config.bot.language, "check.start_refused", error=refused), file=sys.stderr
            )
            return CONFIG
        return 0

    try:
        from bot.cli.demo import play_demo
        from bot.cli.scenarios import SMALLEST_TOURNAMENT
    except ModuleNotFoundError as missing:
        # The sandbox is a development folder of the source checkout: the installed bot
        # (the wheel, the Docker image) has none.
        if missing.name != "sandbox" and not (missing.name or "").startswith("sandbox."):
            raise
        print(NO_DEMO, file=sys.stderr)
        return NO_SANDBOX

    if args.command == "run":
        print(
            "No bot token configured (config.toml [bot] token, or MAFIA_BOT_TOKEN): "
            "playing the offline sandbox demo instead.\n",
            flush=True,
        )
        players, seed, lang, scenario = 12, 1, config.bot.language, "game"
    else:
        players, seed, lang = args.players, args.seed, args.lang or config.bot.language
        scenario = args.scenario
        if scenario == "tournament" and players < SMALLEST_TOURNAMENT:
            demo.error(f"a tournament table seats {SMALLEST_TOURNAMENT} players or more (T1)")
    logging.getLogger().setLevel(logging.WARNING)
    web = args.command == "demo" and args.web
    if web and scenario != "tournament":
        demo.error("--web shows a tournament's page: add --scenario tournament")
    try:
        return asyncio.run(play_demo(config, players, seed, lang, sys.stdout, scenario, web=web))
    except KeyboardInterrupt:
        return 0


def _verify(args: argparse.Namespace, config: Config) -> int:
    from bot.cli import verify
    from bot.views.i18n import Texts

    texts = Texts(config.bot.language)
    lang = texts.lang(args.lang)
    if args.protocol is not None:
        if args.seed is not None or args.day or args.mafia is not None:
            print(texts(lang, "verify.usage"), file=sys.stderr)
            return verify.UNUSABLE
        return verify.verify_protocol(args.protocol, sys.stdout, texts, lang)
    if args.seed is None:
        print(texts(lang, "verify.usage"), file=sys.stderr)
        return verify.UNUSABLE
    return verify.verify_seed(
        args.seed, args.players, args.day, args.mafia, sys.stdout, texts, lang
    )


if __name__ == "__main__":
    sys.exit(main())
