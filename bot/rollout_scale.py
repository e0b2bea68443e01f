"""How a rollout scales with Dask workers: ``python -m bot.rollout_scale``.

Starts a local cluster of worker processes (one thread each) for each worker
count, runs the same rollout on it as trial ranges (bot.tournament.executors
.DaskRollout) and prints the wall time, the speed-up over one worker, and
whether the numbers equal a local run's (they must: trial i depends only on
the seed and i). Counts above this machine's cores measure the scheduler,
not the engine.
"""

from __future__ import annotations

import argparse
import importlib
import sys
import time
from typing import Any

from bot.tournament.executors import DaskRollout, worker_engine
from engine.evaluator import Engine
from engine.position import Position
from engine.rollout import RolloutJob, RolloutSettings, run


def _load_engine() -> None:
    worker_engine()


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m bot.rollout_scale", description=__doc__.split("\n\n")[0])
    ap.add_argument("--position", default="4HPwATDgc/ABMA")
    ap.add_argument("--trials", type=int, default=432)
    ap.add_argument("--workers", default="1,2", help="worker counts, comma-separated")
    ap.add_argument("--range-size", type=int, default=36, help="trials per task")
    args = ap.parse_args(argv)
    distributed: Any = importlib.import_module("distributed")  # optional: fibsbot[cluster]

    engine = Engine()
    job = RolloutJob.of(Position.from_position_id(args.position), None, None,
                        RolloutSettings(trials=args.trials, seed=1))
    reference = run(engine, job, threads=1).candidates
    base = None
    print(f"{args.trials}-trial Expert cubeful rollout of {args.position}, {args.range_size} trials per task")
    print(f"{'workers':>7} {'wall s':>8} {'speed-up':>9}  equal to a local run")
    for n in (int(x) for x in args.workers.split(",")):
        with distributed.LocalCluster(n_workers=n, threads_per_worker=1, processes=True,
                                      dashboard_address=None) as cluster, distributed.Client(cluster) as client:
            client.run(_load_engine)  # each worker loads its Engine before the clock runs
            start = time.perf_counter()
            result = DaskRollout(client, range_size=args.range_size).run(engine, job)
            wall = time.perf_counter() - start
        base = base or wall
        print(f"{n:7d} {wall:8.1f} {base / wall:8.2f}x  {result.candidates == reference}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
