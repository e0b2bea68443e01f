"""Matches, win rate, rating, error rates and worst decisions from the match database."""

from __future__ import annotations

import argparse

HELP = "matches, win rate, rating, error rates and worst decisions from the store"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    from bot.store.cli import add_stats

    add_stats(parser)


def run(args: argparse.Namespace) -> int:
    from bot.store.cli import run_stats

    return run_stats(args)
