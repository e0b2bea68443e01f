"""Calibrate playing strength by FIBS rating; show the strength table; verify it by play."""

from __future__ import annotations

import argparse
import os
from pathlib import Path

from bot.cli.argtypes import floats, ints

HELP = "calibrate playing strength by FIBS rating; --show the table; --verify it by play"


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.description = ("Play the calibration tournaments (self play analysed by a judge: the error-based rating; "
                     "head to head against Expert and World class: the FIBS formula) and write the strength "
                     "table and its plot. Rerun the same command to resume.")
    p.add_argument("--output", type=Path, help="results folder (default: calibration, or calibration/verify-SEED)")
    p.add_argument("--seed", type=int, help="dice seed (calibration default 1; --verify default: a fresh one)")
    p.add_argument("--noise", type=floats, default=[0.0, 0.01, 0.02, 0.03, 0.04, 0.05, 0.06, 0.08, 0.10],
                   help="0-ply noise settings to calibrate (default 0,0.01,...,0.06,0.08,0.1)")
    p.add_argument("--plies", type=ints, default=[2], help="n-ply levels above Expert to calibrate (2 = World "
                                                            "class, 3 = Grandmaster, 4 = 4ply; default 2)")
    p.add_argument("--judge", default="world class", help="analysis level of the self-play matches")
    p.add_argument("--self-play-lengths", type=ints, default=[5, 7], help="self-play match lengths (default 5,7)")
    p.add_argument("--self-play-matches", type=int, default=8,
                   help="self-play matches per setting and length (default 8)")
    p.add_argument("--length", type=int, default=5, help="head-to-head match length (default 5)")
    p.add_argument("--matches", type=ints, default=[3000, 100],
                   help="head-to-head matches per setting against Expert,World class (default 3000,100)")
    p.add_argument("--table", type=Path, help="the strength table to show or verify (default: the shipped one)")
    p.add_argument("--show", action="store_true", help="print the strength table")
    p.add_argument("--verify", type=floats, metavar="R1,R2,...",
                   help="play bots chosen for these FIBS ratings against the references on fresh dice")
    p.add_argument("--half-width", type=float, default=55.0,
                   help="--verify: match counts aim at this 95%% half-width (default 55)")
    p.add_argument("--json", action="store_true", help="machine-readable output on stdout")
    p.add_argument("--workers", type=int, default=os.cpu_count() or 1, help="local worker processes")
    p.add_argument("--executor", choices=("local", "dask"), default="local")
    p.add_argument("--scheduler", help="Dask scheduler address (--executor dask)")


def run(args: argparse.Namespace) -> int:
    from bot.tournament.calibrate_cli import cmd_calibrate

    return cmd_calibrate(args)
