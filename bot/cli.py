"""The `fibsbot` command line: a thin layer over the engine and the bot."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from engine.errors import BoardParseError, DataFileError, EngineError, IllegalMoveError, RecordParseError
from engine.match import MatchState
from engine.position import Position


def parse_gnubg_id(text: str) -> tuple[Position, MatchState | None]:
    """Accept ``POSITIONID``, gnubg's ``POSITIONID:MATCHID``, or an ``XGID=...``."""
    if text.strip().startswith("XGID="):
        from engine.xgid import from_xgid

        return from_xgid(text)
    pid, _, mid = text.strip().partition(":")
    return Position.from_position_id(pid), MatchState.from_match_id(mid) if mid else None


def parse_dice(text: str) -> tuple[int, int]:
    if len(text) != 2 or not all(c in "123456" for c in text):
        raise argparse.ArgumentTypeError(f"dice are two digits 1-6 such as 31, got {text!r}")
    return int(text[0]), int(text[1])


def cmd_hint(args: argparse.Namespace) -> int:
    from engine.evaluator import Engine
    from engine.levels import Level
    from engine.search import format_hint
    from engine.strength import shipped_table

    position, match = parse_gnubg_id(args.id)
    dice = args.dice or (match.dice if match else None)
    # ---- thinking-time levels and --json (bot/think_cli.py) ----
    from bot.think_cli import think_hint, wants_think

    if wants_think(args) and not args.rollout and args.rating is None:
        try:
            return think_hint(args, position, match, dice)
        except ValueError as exc:
            print(f"fibsbot hint: {exc}", file=sys.stderr)
            return 2
    # ---- end of the thinking-time block ----
    if args.rollout:
        from bot.rollout_cli import hint_rollout_text

        try:
            print(hint_rollout_text(Engine(), position, match, dice, args))
        except ValueError as exc:  # settings, or no cube to roll out
            print(f"fibsbot hint: {exc}", file=sys.stderr)
            return 2
        return 0
    level: str | Level = args.level
    if args.rating is not None:
        try:
            strength = shipped_table().for_rating(args.rating)
        except ValueError as exc:
            print(f"fibsbot hint: {exc}", file=sys.stderr)
            return 2
        print(f"FIBS rating {args.rating:g}: {strength.describe()}")
        level = strength.setting.level(f"fibs-{args.rating:g}")
    print(format_hint(Engine(), position, match, dice, level))
    return 0


def cmd_convert(args: argparse.Namespace) -> int:
    from engine.records import convert

    convert(args.input, args.output, partial=args.partial)
    print(f"wrote {args.output}")
    return 0


def version_text() -> str:
    """The package version, the engine's SIMD kernel and the data files in use."""
    from importlib import metadata

    from engine.evaluator import Engine

    try:
        version = metadata.version("fibsbot")
    except metadata.PackageNotFoundError:
        version = "(not installed)"
    engine = Engine()
    files = engine.files
    lines = [f"fibsbot {version}", f"engine kernel: {engine.kernel}",
             f"weights: {files.weights}", f"bearoff: {files.bearoff_os}, {files.bearoff_ts}", f"MET: {files.met}"]
    return "\n".join(lines)


class _Version(argparse.Action):
    def __call__(self, parser: argparse.ArgumentParser, *args: object, **kwargs: object) -> None:
        try:
            print(version_text())
        except DataFileError as exc:
            parser.exit(2, f"fibsbot: {exc}\n")
        parser.exit()


def cmd_init(args: argparse.Namespace) -> int:
    from bot.yamlconfig import shipped_config

    folder = args.folder
    targets = [folder / name for name in INIT_FILES]
    existing = [str(t) for t in targets if t.exists()]
    if existing:
        print(f"fibsbot: {', '.join(existing)} already exist(s); nothing written", file=sys.stderr)
        return 2
    folder.mkdir(parents=True, exist_ok=True)
    for name, target in zip(INIT_FILES, targets):
        target.write_bytes(shipped_config(name).read_bytes())
        print(f"wrote {target}")
    print(f"edit them, then: fibsbot config check {folder / 'bot.yaml'}")
    return 0


INIT_FILES = ("bot.yaml", "tournament.yaml")


def cmd_status(args: argparse.Namespace) -> int:
    from bot.status import fetch, render

    try:
        snapshot = fetch(args.url)
    except (OSError, ValueError) as exc:
        print(f"fibsbot: no status at {args.url}: {exc}", file=sys.stderr)
        return 2
    print(render(snapshot))
    return 0


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="fibsbot", description="A FIBS backgammon bot with a gnubg-grade engine.")
    parser.add_argument("--version", action=_Version, nargs=0,
                        help="print the version, the engine's SIMD kernel and the data files in use")
    sub = parser.add_subparsers(dest="command", required=True)
    init = sub.add_parser("init", help="write the commented default configs into a folder, to edit")
    init.add_argument("folder", nargs="?", type=Path, default=Path("."), help="where (default: here)")
    init.set_defaults(run=cmd_init)
    status = sub.add_parser("status", help="show a running bot's status endpoint as a table")
    status.add_argument("url", nargs="?", default="http://127.0.0.1:8130",
                        help="the endpoint (default: http://127.0.0.1:8130, bot.yaml's default)")
    status.set_defaults(run=cmd_status)
    hint = sub.add_parser("hint", help="rank the plays of a position (gnubg position ID[:match ID])")
    hint.add_argument("id", help="gnubg position ID, POSITIONID:MATCHID, or XGID=...")
    hint.add_argument("--dice", type=parse_dice, help="the roll, e.g. 31; without dice: the cube analysis")
    hint.add_argument("--level", default="expert",
                      help='a gnubg level: beginner ... expert, "world class", supremo, grandmaster, 4ply (default expert)')
    hint.add_argument("--rating", type=float, metavar="FIBS_RATING",
                      help="instead of --level: the strength table's setting for this FIBS rating")
    hint.add_argument("--rollout", action="store_true",
                      help="roll the candidates out (gnubg's rollouts; the settings of fibsbot rollout)")
    from bot.rollout_cli import add_rollout_arguments
    from bot.think_cli import add_think_arguments  # --think, --think-mode, --json

    add_rollout_arguments(hint, for_hint=True)
    add_think_arguments(hint)
    hint.set_defaults(run=cmd_hint)
    convert = sub.add_parser("convert", help="convert a match record between .sgf and .mat")
    convert.add_argument("input", help="an .sgf or .mat file")
    convert.add_argument("output", help="the file to write; its suffix picks the format")
    convert.add_argument("--partial", action="store_true",
                         help="convert a .mat that stops before the match ends (refused by default: "
                              "a truncated file reads the same way)")
    convert.set_defaults(run=cmd_convert)
    from bot.server import cli as server_cli

    server = sub.add_parser("server", help="run the FIBS-compatible local server")
    server_cli.build_parser(server)
    server.set_defaults(run=server_cli.run)
    from bot.tournament.cli import add_analyse_parser, add_tournament_parser

    add_tournament_parser(sub)
    add_analyse_parser(sub)
    from bot.rollout_cli import add_rollout_parser

    add_rollout_parser(sub, parse_gnubg_id, parse_dice)
    from bot.tournament.calibrate_cli import add_calibrate_parser

    add_calibrate_parser(sub)
    from bot.run import add_config_parser, add_run_parser

    add_run_parser(sub)
    add_config_parser(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        return int(args.run(args))
    except (BoardParseError, IllegalMoveError, RecordParseError, DataFileError, EngineError, OSError) as exc:
        print(f"fibsbot: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
