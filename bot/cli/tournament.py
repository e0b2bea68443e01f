"""A local self-play tournament between engine levels: standings, ratings, intervals."""

from __future__ import annotations

import argparse
import os
from pathlib import Path

from bot.cli.argtypes import positive

HELP = "local self-play tournament between engine levels"


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.description = ("Play engine against engine (no network) and report standings, ratings and confidence "
                     "intervals. Rerun to resume.")
    p.add_argument("config", nargs="?", default=None,
                   help="tournament YAML file (default: ./tournament.yaml, else the shipped one); a shipped "
                        "example's name (expert-vs-beginner.yaml, levels.yaml) works from any folder")
    p.add_argument("--workers", type=positive, default=os.cpu_count() or 1,
                   help="worker processes of the local executor (default: all cores)")
    p.add_argument("--executor", choices=("local", "dask"), default="local")
    p.add_argument("--scheduler", help="Dask scheduler address, e.g. tcp://host:8786 (--executor dask)")
    p.add_argument("--output", type=Path, help="results folder (overrides the config's output)")
    p.add_argument("--matches", type=positive, help="matches per pairing (overrides the config)")
    p.add_argument("--seed", type=int, help="tournament seed (overrides the config)")
    p.add_argument("--quiet", action="store_true", help="no progress display")


def run(args: argparse.Namespace) -> int:
    from bot.tournament.cli import cmd_tournament

    return cmd_tournament(args)
