"""Convert a match record between gnubg's .sgf and Jellyfish's .mat."""

from __future__ import annotations

import argparse

HELP = "convert a match record between .sgf and .mat"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("input", help="an .sgf or .mat file")
    parser.add_argument("output", help="the file to write; its suffix picks the format")
    parser.add_argument("--partial", action="store_true",
                        help="convert a .mat that stops before the match ends (refused by default: "
                             "a truncated file reads the same way)")


def run(args: argparse.Namespace) -> int:
    from engine.records import convert

    convert(args.input, args.output, partial=args.partial)
    print(f"wrote {args.output}")
    return 0
