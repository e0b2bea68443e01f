"""Rank the plays of a position, or analyse its cube decision, as gnubg's ``hint`` does."""

from __future__ import annotations

import argparse

from bot.cli.ids import parse_dice

HELP = "rank the plays of a position (gnubg position ID[:match ID] or XGID)"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    from bot.cli.rollout_options import add_rollout_arguments

    parser.add_argument("id", help="gnubg position ID, POSITIONID:MATCHID, or XGID=...")
    parser.add_argument("--dice", type=parse_dice, help="the roll, e.g. 31; without dice: the cube analysis")
    parser.add_argument("--level", default="expert",
                        help='a gnubg level: beginner ... expert, "world class", supremo, grandmaster, 4ply '
                             "(default expert)")
    parser.add_argument("--rating", type=float, metavar="FIBS_RATING",
                        help="instead of --level: the strength table's setting for this FIBS rating")
    parser.add_argument("--rollout", action="store_true",
                        help="roll the candidates out (gnubg's rollouts; the settings of fibsbot rollout)")
    add_rollout_arguments(parser, for_hint=True)
    parser.add_argument("--think", type=float, metavar="SECONDS",
                        help="a thinking-time level: the deepest search that fits SECONDS per decision")
    parser.add_argument("--think-mode", choices=("time", "nodes"), default="time",
                        help="--think counts seconds (time) or search nodes (nodes: repeatable)")
    parser.add_argument("--json", action="store_true",
                        help="print JSON: the ranked candidates, the chosen play and the depth reached")


def run(args: argparse.Namespace) -> int:
    from bot.cli.errors import CommandError
    from bot.cli.ids import level_named, parse_gnubg_id
    from engine.evaluator import Engine
    from engine.levels import Level
    from engine.search import format_hint

    position, match = parse_gnubg_id(args.id)
    dice = args.dice or (match.dice if match else None)
    from bot.think_cli import think_hint, wants_think

    if wants_think(args) and not args.rollout and args.rating is None:  # --think, "fibsbot strong", --json
        try:
            return think_hint(args, position, match, dice)
        except ValueError as exc:
            raise CommandError(str(exc)) from None
    if args.rollout:
        from bot.rollout_cli import hint_rollout_text

        try:
            print(hint_rollout_text(Engine(), position, match, dice, args))
        except ValueError as exc:  # settings, or no cube to roll out
            raise CommandError(str(exc)) from None
        return 0
    level: Level = level_named(args.level)
    if args.rating is not None:
        from engine.strength import strength_for_rating

        try:
            strength = strength_for_rating(args.rating)
        except ValueError as exc:
            raise CommandError(str(exc)) from None
        print(f"FIBS rating {args.rating:g}: {strength.describe()}")
        level = strength.setting.level(f"fibs-{args.rating:g}")
    print(format_hint(Engine(), position, match=match, dice=dice, level=level))
    return 0
