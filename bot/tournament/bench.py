"""How much faster a tournament runs on more worker processes.

    python -m bot.tournament.bench [CONFIG] [--workers 2] [--runs 15] [--matches N]

Plays the whole tournament of CONFIG (default: config/expert-vs-beginner.yaml)
from scratch, alternately on one worker and on ``--workers``, each time in a
fresh temporary folder, and prints each pair's wall times and speed-up and
the median speed-up with its quartiles. Alternating pairs spread the drift
of a shared machine over both sides; on a 2-vCPU cloud VM single pairs
ranged 1.1-2.2x, so read the median of many. The wall time is the tournament's own (first match handed out
to last result saved), as `fibsbot tournament` prints it.
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
from pathlib import Path

from rich.console import Console

from bot.tournament import config as tconfig
from bot.tournament.executors import LocalExecutor
from bot.tournament.runner import run

DEFAULT_CONFIG = Path(__file__).resolve().parents[2] / "config" / "expert-vs-beginner.yaml"


def wall_time(cfg: tconfig.TournamentConfig, workers: int) -> float:
    """Seconds to play every match of ``cfg`` in an empty folder on ``workers`` processes."""
    with tempfile.TemporaryDirectory(prefix="fibsbot-bench-") as folder:
        fresh = tconfig.TournamentConfig.model_validate({**cfg.model_dump(), "output": Path(folder)})
        summary = run(fresh, LocalExecutor(workers), Console(quiet=True), live=False)
    return summary.wall_s


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bot.tournament.bench", description=__doc__.split("\n\n")[0])
    parser.add_argument("config", nargs="?", default=str(DEFAULT_CONFIG), help="tournament YAML file")
    parser.add_argument("--workers", type=int, default=2, help="worker processes to compare with one (default 2)")
    parser.add_argument("--runs", type=int, default=15, help="pairs of runs (default 15)")
    parser.add_argument("--matches", type=int, help="matches per pairing (overrides the config)")
    args = parser.parse_args(argv)
    cfg = tconfig.load(args.config)
    if args.matches:
        cfg = tconfig.TournamentConfig.model_validate({**cfg.model_dump(), "matches": args.matches})
    ratios = []
    for i in range(1, args.runs + 1):
        one, many = wall_time(cfg, 1), wall_time(cfg, args.workers)
        ratios.append(one / many)
        print(f"run {i}: 1 worker {one:.2f} s, {args.workers} workers {many:.2f} s: {ratios[-1]:.2f}x", flush=True)
    quartiles = statistics.quantiles(ratios, n=4) if len(ratios) > 1 else [ratios[0]] * 3
    print(f"median speed-up with {args.workers} workers: {statistics.median(ratios):.2f}x "
          f"(quartiles {quartiles[0]:.2f}-{quartiles[2]:.2f}; runs: {', '.join(f'{r:.2f}' for r in ratios)})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
