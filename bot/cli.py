"""The `fibsbot` command line: a thin layer over the engine and the bot."""

from __future__ import annotations

import argparse
import sys

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
    from engine.search import format_hint

    position, match = parse_gnubg_id(args.id)
    dice = args.dice or (match.dice if match else None)
    print(format_hint(Engine(), position, match, dice, args.level))
    return 0


def cmd_convert(args: argparse.Namespace) -> int:
    from engine.records import convert

    convert(args.input, args.output, partial=args.partial)
    print(f"wrote {args.output}")
    return 0


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="fibsbot", description="A FIBS backgammon bot with a gnubg-grade engine.")
    sub = parser.add_subparsers(dest="command", required=True)
    hint = sub.add_parser("hint", help="rank the plays of a position (gnubg position ID[:match ID])")
    hint.add_argument("id", help="gnubg position ID, POSITIONID:MATCHID, or XGID=...")
    hint.add_argument("--dice", type=parse_dice, help="the roll, e.g. 31; without dice: the cube analysis")
    hint.add_argument("--level", default="expert",
                      help='a gnubg level: beginner ... expert, "world class", supremo, grandmaster, 4ply (default expert)')
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
