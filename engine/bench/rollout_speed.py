"""Rollout speed against the `gnubg` package: ``python -m engine.bench.rollout_speed``.

The workload: an Expert (0-ply chequer play and cube) cubeful
rollout with variance reduction and quasi-random dice of a contact position,
1296 trials by default. gnubg runs on one thread (its rollout with
``set threads 1``), ours on one and on two threads, in the same process and
run, alternating so that a change in the machine's load hits both; the ratios
are what to read: one thread against gnubg in CPU time (wall time beside it,
stretched by whatever else the machine runs), two threads over one in wall
time (with the cores the two-thread run actually got). Each rollout starts
with emptied caches (gnubg's and ours).
"""

from __future__ import annotations

import argparse
import os
import sys
import time

from engine.bench import rollout_gnubg
from engine.evaluator import Engine
from engine.position import Position
from engine.rollout import DEFAULT_TRIALS, RolloutJob, RolloutSettings, run

OPENING = "4HPwATDgc/ABMA"


def timed(fn: object, *args: object, **kw: object) -> tuple[float, float]:
    """Wall and CPU seconds of one call."""
    wall, cpu = time.perf_counter(), time.process_time()
    fn(*args, **kw)  # type: ignore[operator]
    return time.perf_counter() - wall, time.process_time() - cpu


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m engine.bench.rollout_speed", description=__doc__.split("\n\n")[0])
    ap.add_argument("--position", default=OPENING, help="gnubg position ID (default: the opening position)")
    ap.add_argument("--trials", type=int, default=DEFAULT_TRIALS)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--rounds", type=int, default=1, help="alternating rounds (times are summed)")
    args = ap.parse_args(argv)
    job = RolloutJob.of(Position.from_position_id(args.position), None, None,
                        RolloutSettings(trials=args.trials, seed=args.seed))
    engine = Engine()
    totals = {"gnubg": [0.0, 0.0], "ours 1 thread": [0.0, 0.0], "ours 2 threads": [0.0, 0.0]}
    for _ in range(args.rounds):
        for name in totals:
            if name == "gnubg":
                wall, cpu = timed(rollout_gnubg.rollout, job)
            else:
                engine.clear_cache()
                wall, cpu = timed(run, engine, job, threads=1 if "1" in name else 2)
            totals[name][0] += wall
            totals[name][1] += cpu
    trials = args.trials * args.rounds
    print(f"{args.trials}-trial Expert cubeful rollout with variance reduction of {args.position}, "
          f"seed {args.seed}, {args.rounds} round(s); {os.cpu_count()} CPUs, load {os.getloadavg()[0]:.1f}")
    print(f"{'':16} {'wall ms/trial':>13} {'CPU ms/trial':>13} {'vs gnubg (CPU)':>15} {'vs gnubg (wall)':>16}")
    g_wall, g_cpu = totals["gnubg"]
    for name, (wall, cpu) in totals.items():
        print(f"{name:16} {1000 * wall / trials:13.2f} {1000 * cpu / trials:13.2f} {g_cpu / cpu:14.2f}x "
              f"{g_wall / wall:15.2f}x")
    (one, one_cpu), (two, two_cpu) = totals["ours 1 thread"], totals["ours 2 threads"]
    # CPU time is the fair one-thread measure on a shared machine (other
    # processes' load stretches wall time, not ours); a speed-up from threads
    # only shows in wall time: the cores the run got say what it could be, its
    # CPU time per trial what the threads cost each other
    print(f"one thread vs gnubg: {g_cpu / one_cpu:.2f}x in CPU time, {g_wall / one:.2f}x in wall time")
    print(f"two threads over one (wall time): {one / two:.2f}x, with {two_cpu / two:.2f} cores busy on average "
          f"and {100 * (two_cpu / one_cpu - 1):+.1f}% CPU time per trial")
    return 0


if __name__ == "__main__":
    sys.exit(main())
