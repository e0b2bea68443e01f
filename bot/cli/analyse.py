"""gnubg-style analysis of match records: errors, luck, error rates; or a paired comparison of levels."""

from __future__ import annotations

import argparse

from bot.cli.argtypes import positive

HELP = "analyse match records: errors, luck, error rates"


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.description = ("gnubg-style analysis of every decision of a match (.sgf or .mat); with several files, "
                     "each player's totals over all of them.")
    p.add_argument("match", nargs="+", help="match records (.sgf or .mat)")
    p.add_argument("--level", help="analysis level (default expert = 0-ply); with --levels the judge "
                                   "(default 4ply)")
    p.add_argument("--json", metavar="FILE", help="also write the analysis as JSON ('-' = stdout, no tables)")
    p.add_argument("--html", metavar="OUT", help="also write an HTML report: OUT.html for one record; for several, "
                                                 "the folder OUT with index.html and a page per record")
    p.add_argument("--all", action="store_true", help="list every decision, not only the errors (one match)")
    p.add_argument("--workers", type=positive, default=1,
                   help="matches analysed side by side in worker processes, one search thread each "
                        "(default 1: one match at a time on every core)")
    compare = p.add_argument_group("paired comparison of levels (checker play)")
    compare.add_argument("--levels", metavar="A,B,...",
                         help="instead of analysing the played moves, let these levels (weakest first; 'all' = "
                              "the nine) play every decision of the records and compare neighbours, judged at "
                              "--level where their plays differ")
    compare.add_argument("--min-differing", type=positive, default=10,
                         help="positions where a pair's plays differ at its first look (default 10); later "
                              "looks at twice, four times... that, each with a stricter interval")
    compare.add_argument("--max-positions", type=positive, help="stop after this many positions")
    compare.add_argument("--judge", choices=("search", "rollout"), default="search",
                         help="score differing plays by a search at --level (default) or by rolling them out")
    compare.add_argument("--judge-trials", type=positive, default=144,
                         help="--judge rollout: trials per play (default 144; Expert both sides)")
    compare.add_argument("--seed", type=int, default=1, help="order in which the positions are visited")


def run(args: argparse.Namespace) -> int:
    from bot.tournament.cli import cmd_analyse

    return cmd_analyse(args)
