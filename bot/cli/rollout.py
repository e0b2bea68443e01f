"""Roll out a position, the best plays of a roll, or a cube decision (gnubg's rollouts)."""

from __future__ import annotations

import argparse

from bot.cli.ids import parse_dice
from bot.cli.rollout_options import DEFAULT_PLAYS, add_rollout_arguments

HELP = "roll out a position, the plays of a roll or a cube decision (gnubg's rollouts)"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("id", help="gnubg position ID, POSITIONID:MATCHID, or XGID=...")
    what = parser.add_mutually_exclusive_group()
    what.add_argument("--dice", type=parse_dice, help="roll out the best plays of this roll, e.g. 31")
    what.add_argument("--cube", action="store_true", help="roll out the cube decision of the side on roll")
    parser.add_argument("--plays", type=int, default=DEFAULT_PLAYS, metavar="K",
                        help=f"with --dice: the K best plays by 0-ply (default {DEFAULT_PLAYS})")
    add_rollout_arguments(parser)


def run(args: argparse.Namespace) -> int:
    from bot.rollout_cli import cmd_rollout

    return cmd_rollout(args)
