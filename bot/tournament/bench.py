"""How much faster a tournament runs on more worker processes.

    python -m bot.tournament.bench [CONFIG] [--workers 2] [--runs 15] [--matches N]

Plays the whole tournament of CONFIG (default: config/expert-vs-beginner.yaml)
from scratch, alternately on one worker and on ``--workers``, each time in a
fresh temporary folder, and prints each pair's wall times and speed-up and
the median speed-up with its quartiles. Alternating pairs spread the drift
of a shared machine over both sides; on a 2-vCPU cloud VM single pairs
ranged 1.1-2.2x, so read the median of many. The wall time is the tournament's own (first match handed out
to last result saved), as `fibsbot tournament` prints it.

The speed-up splits in two factors, printed at the end: how busy the
machine's cores were (``/proc/stat``; did the executor keep every core
working?) and how many CPU seconds the same matches took (parent and
workers; does a match cost more when all cores run?).
"""

from __future__ import annotations

import argparse
import resource
import statistics
import tempfile
from dataclasses import dataclass
from pathlib import Path

from rich.console import Console

from bot.tournament import config as tconfig
from bot.tournament.executors import LocalExecutor
from bot.tournament.runner import run
from bot.yamlconfig import shipped_config

DEFAULT_CONFIG = shipped_config("expert-vs-beginner.yaml")
_STAT = Path("/proc/stat")


@dataclass(frozen=True)
class Timing:
    wall_s: float  # the tournament's own wall time
    cpu_s: float  # CPU seconds of the parent and its workers over the whole run
    busy: float | None  # share of all cores' time spent working (None: no /proc/stat)


def _core_times() -> tuple[int, int] | None:
    """(working, all) jiffies of every core since boot; steal and idle are not working."""
    try:
        fields = [int(x) for x in _STAT.read_text().split("\n", 1)[0].split()[1:]]
    except (OSError, ValueError):
        return None
    user, nice, system, idle, iowait, irq, softirq = fields[:7]
    return user + nice + system + irq + softirq, sum(fields[:8])


def _cpu_s() -> float:
    own, workers = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + workers.ru_utime + workers.ru_stime


def timed_run(cfg: tconfig.TournamentConfig, workers: int) -> Timing:
    """Play every match of ``cfg`` in an empty folder on ``workers`` processes."""
    with tempfile.TemporaryDirectory(prefix="fibsbot-bench-") as folder:
        fresh = tconfig.TournamentConfig.model_validate({**cfg.model_dump(), "output": Path(folder)})
        cores, cpu = _core_times(), _cpu_s()
        summary = run(fresh, LocalExecutor(workers), Console(quiet=True), live=False)
        cpu, after = _cpu_s() - cpu, _core_times()
    busy = None
    if cores and after and after[1] > cores[1]:
        busy = (after[0] - cores[0]) / (after[1] - cores[1])
    return Timing(summary.wall_s, cpu, busy)


def _describe(workers: int, t: Timing) -> str:
    busy = f", cores {t.busy:.0%} busy" if t.busy is not None else ""
    return f"{workers} worker{'s' if workers > 1 else ''} {t.wall_s:.2f} s (CPU {t.cpu_s:.2f} s{busy})"


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
    pairs: list[tuple[Timing, Timing]] = []
    for i in range(1, args.runs + 1):
        one, many = timed_run(cfg, 1), timed_run(cfg, args.workers)
        pairs.append((one, many))
        print(f"run {i}: {_describe(1, one)}, {_describe(args.workers, many)}: {one.wall_s / many.wall_s:.2f}x",
              flush=True)
    ratios = [one.wall_s / many.wall_s for one, many in pairs]
    quartiles = statistics.quantiles(ratios, n=4) if len(ratios) > 1 else [ratios[0]] * 3
    print(f"median speed-up with {args.workers} workers: {statistics.median(ratios):.2f}x "
          f"(quartiles {quartiles[0]:.2f}-{quartiles[2]:.2f}; runs: {', '.join(f'{r:.2f}' for r in ratios)})")
    cpu_growth = statistics.median(many.cpu_s / one.cpu_s for one, many in pairs)
    busy = [many.busy for _, many in pairs if many.busy is not None]
    print(f"why: the same matches took {cpu_growth - 1:+.0%} CPU seconds on {args.workers} workers (median)"
          + (f"; the cores were {statistics.median(busy):.0%} busy during those runs" if busy else ""))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
