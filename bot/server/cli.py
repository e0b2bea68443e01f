"""``fibsbot server``: run the FIBS-compatible server from the command line."""

from __future__ import annotations

import argparse
import asyncio
import getpass
import logging
import signal
import sys
from collections.abc import Sequence
from pathlib import Path

from bot.server.login import MIN_PASSWORD, NAME
from bot.server.passwords import hash_password
from bot.server.server import DEFAULT_PORT, FibsServer
from bot.server.store import Store
from bot.server.texts import MOTD
from bot.server.wordings import NAMES as WORDINGS


def build_parser(parser: argparse.ArgumentParser | None = None) -> argparse.ArgumentParser:
    """The options; pass a (sub)parser to fill it, e.g. from ``fibsbot``'s own CLI."""
    if parser is None:
        parser = argparse.ArgumentParser(prog="fibsbot server")
    parser.description = ("A FIBS-compatible backgammon server (CLIP protocol) for local play and tests. "
                          "SIGINT/SIGTERM save every running match and stop.")
    parser.add_argument("--host", default="127.0.0.1",
                        help="address to listen on (default: 127.0.0.1, loopback)")
    parser.add_argument("--port", type=int, default=DEFAULT_PORT,
                        help=f"TCP port (default: {DEFAULT_PORT}; 0 = any free)")
    parser.add_argument("--db", type=Path, default=Path("fibs-server.db"), metavar="PATH",
                        help="SQLite file with accounts, messages and saved matches (default: fibs-server.db)")
    parser.add_argument("--seed", type=int, metavar="N",
                        help="reproducible dice (a per-match stream derived from N); default: the OS's secure source")
    parser.add_argument("--auto-register", action="store_true",
                        help="create an account at the first CLIP login of an unknown name (local play)")
    parser.add_argument("--motd", type=Path, metavar="FILE",
                        help="message of the day shown at login (default: built in)")
    parser.add_argument("--idle-timeout", type=float, default=3600.0, metavar="SECONDS",
                        help="disconnect users who send no complete line this long, as FIBS does "
                             "(default: 3600; 0 = never)")
    parser.add_argument("--login-timeout", type=float, default=60.0, metavar="SECONDS",
                        help="the same before login: an idle login prompt is closed; never longer than --idle-timeout "
                             "(default: 60; 0 = never)")
    parser.add_argument("--max-connections", type=int, default=1000, metavar="N",
                        help="connections at once; more are refused (default: 1000; 0 = no cap)")
    parser.add_argument("--max-connections-per-address", type=int, default=100, metavar="N",
                        help="connections at once from one address (default: 100; 0 = no cap)")
    parser.add_argument("--max-line", type=int, default=2048, metavar="BYTES",
                        help="longest command line; the rest of a longer line is dropped (default: 2048)")
    parser.add_argument("--max-login-failures", type=int, default=10, metavar="N",
                        help="failed logins to one account from one address within 10 minutes before that "
                             "address is locked out of that account; also the tries one connection gets "
                             "(default: 10)")
    parser.add_argument("--max-account-failures", type=int, default=50, metavar="N",
                        help="failed logins to one account from all addresses within 10 minutes before the "
                             "account is locked (default: 50)")
    tests = parser.add_argument_group("misbehaving on purpose (to test clients)")
    tests.add_argument("--forget-saved", action="store_true",
                       help="start without saved matches (deletes those in --db), as a server that lost them")
    tests.add_argument("--keep-games", action="store_true",
                       help="a player who drops leaves the match running, not saved; the next login sits "
                            "down again")
    tests.add_argument("--unanswered", action="append", default=[], metavar="COMMAND",
                       help="swallow this command (full name, e.g. board): no reply, no effect; repeatable")
    tests.add_argument("--wording", action="append", default=[], metavar="NAME",
                       help=f"say these lines as another server does; repeatable; one of: {', '.join(WORDINGS)}")
    parser.add_argument("--add-user", metavar="NAME",
                        help="create account NAME (password read from stdin) and exit")
    parser.add_argument("--log-level", default="INFO", choices=["DEBUG", "INFO", "WARNING", "ERROR"],
                        help="server log level on stderr (default: INFO)")
    return parser


def _add_user(db: Path, name: str) -> int:
    if not NAME.fullmatch(name):
        print(f"fibsbot server: {name!r}: a name is 1-20 letters or '_'", file=sys.stderr)
        return 2
    password = getpass.getpass("Password: ") if sys.stdin.isatty() else sys.stdin.readline().rstrip("\r\n")
    if len(password) < MIN_PASSWORD or " " in password:
        print(f"fibsbot server: a password has at least {MIN_PASSWORD} characters and no blanks", file=sys.stderr)
        return 2
    store = Store(db)
    try:
        if store.password_hash(name) is not None:
            print(f"fibsbot server: user {name} exists", file=sys.stderr)
            return 1
        store.create(name, hash_password(password))
    finally:
        store.close()
    print(f"created user {name}")
    return 0


async def serve(args: argparse.Namespace) -> None:
    motd = args.motd.read_text(encoding="ascii", errors="replace").rstrip("\n") if args.motd else MOTD
    server = FibsServer(args.host, args.port, db_path=args.db, seed=args.seed, auto_register=args.auto_register,
                        motd=motd, idle_timeout_s=args.idle_timeout, login_timeout_s=args.login_timeout,
                        max_line=args.max_line, max_connections=args.max_connections or None,
                        max_connections_per_host=args.max_connections_per_address or None,
                        max_login_failures=args.max_login_failures,
                        max_account_failures=args.max_account_failures, forget_saved=args.forget_saved,
                        keep_games=args.keep_games, unanswered=args.unanswered, wordings=args.wording)
    await server.start()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(sig, lambda: loop.create_task(server.close()))
    print(f"fibsbot server listening on {args.host}:{server.port}", flush=True)
    await server.serve_forever()


def run(args: argparse.Namespace) -> int:
    """Run with parsed options (what ``fibsbot server`` calls)."""
    logging.basicConfig(level=args.log_level, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    if args.add_user:
        return _add_user(args.db, args.add_user)
    try:
        asyncio.run(serve(args))
    except OSError as exc:
        print(f"fibsbot server: {exc}", file=sys.stderr)
        return 1
    except ValueError as exc:  # an unknown --wording or --unanswered
        print(f"fibsbot server: {exc}", file=sys.stderr)
        return 2
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    return run(build_parser().parse_args(argv))
