"""Play on FIBS with the bot's config, or one local match against a sparring bot (``--local``)."""

from __future__ import annotations

import argparse
from pathlib import Path

from bot.cli.argtypes import positive_float

HELP = "play on FIBS, or one local match with --local"
CONFIG_HELP = "the YAML settings (default: ./bot.yaml, else $FIBSBOT_CONFIG, else the shipped defaults)"


def _length(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"a match length is a whole number, got {text!r}") from None
    if value < 1:  # the local server plays matches; 0 (unlimited) never ends on its own
        raise argparse.ArgumentTypeError(f"a local match is at least 1 point, got {value}")
    return value


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("config", nargs="?", type=Path, default=None, help=CONFIG_HELP)
    parser.add_argument("--local", action="store_true",
                        help="start a local server in this process and play one match against a sparring bot")
    parser.add_argument("--level", help="our engine level: a gnubg level or \"fibsbot strong\" "
                                         "(default: the config's engine.level)")
    parser.add_argument("--think", type=positive_float, metavar="S",
                        help="play at a thinking budget of S seconds per decision (engine.level: {think: S})")
    parser.add_argument("--think-mode", choices=["time", "nodes"], default="time",
                        help="with --think: S is seconds (time, default) or search nodes (nodes: repeatable)")
    parser.add_argument("--opponent-level",
                        help="the sparring bot's level with --local (default: local.opponent_level)")
    parser.add_argument("--length", type=_length, help="match length with --local (default: local.length)")
    parser.add_argument("--log-level", default=None, choices=["DEBUG", "INFO", "WARNING", "ERROR"],
                        help="default: INFO with --log-file, else WARNING")
    parser.add_argument("--log-file", type=Path, help="also write the log to this file (rotated at 10 MB, 5 kept)")
    parser.add_argument("--status-port", type=int,
                        help="the status endpoint's port (default: the config's status.port; 0 = off)")


def run(args: argparse.Namespace) -> int:
    from bot.run import cmd_run

    return cmd_run(args)
