"""``python -m engine.bench eval``: raw 0-ply evaluation, ours against gnubg's package.

On the fixed seeded position set (random games, all classes) it times, single
threaded and with every position cache empty (each position is evaluated once
per run, so no cache can help either side; emptying gnubg's cache is not timed):

* gnubg.evaluate, one Python call per position (the reference);
* Engine.evaluate_many on the list of Positions (one C call; includes turning
  the Python boards into bytes);
* Engine.evaluate_many on the same boards already in an (N, 2, 25) array (the
  engine alone);
* Engine.evaluate, one Python call per position;

and prints rates, ratios to gnubg, the max absolute difference of the outputs
and the class agreement.
"""

from __future__ import annotations

import argparse
import time
from collections import Counter

import numpy as np

from engine.bench.harness import SEED, best_rates, quiet_gnubg, row, silently


def run_eval(args: argparse.Namespace) -> None:
    from engine.evaluator import Engine
    from engine.sampling import random_game_positions

    positions = random_game_positions(args.positions, seed=SEED)
    boards = [p.board for p in positions]
    array = np.array(boards, dtype=np.int64)
    gnubg = silently(quiet_gnubg)
    cube, context = gnubg.cubeinfo(), gnubg.evalcontext(0, 0, 1, 0, 0.0)
    engine = Engine(cache_log2=0)

    theirs = np.array([gnubg.evaluate(b, cube, context)[:5] for b in boards])
    their_classes = np.array([gnubg.classify(b) for b in boards])
    ours, our_classes = engine.evaluate_many(positions, with_classes=True)
    counts = dict(sorted(Counter(our_classes.tolist()).items()))
    print(f"eval: {len(positions)} positions (seed {SEED}), classes {counts}, kernel {engine.kernel}")
    print(f"  max abs difference vs gnubg {np.abs(ours - theirs).max():.3g}, "
          f"classes agree {np.mean(our_classes == their_classes):.2%}")

    resizing = [0.0]  # seconds spent emptying gnubg's cache, left out of its timing

    def clock() -> float:
        return time.perf_counter() - resizing[0]

    def gnubg_run() -> int:
        start = time.perf_counter()
        silently(gnubg.command, "set cache 1024")  # resizing empties gnubg's cache
        silently(gnubg.command, "set cache 65536")  # its default size, as in the other benches
        resizing[0] += time.perf_counter() - start
        for b in boards:
            gnubg.evaluate(b, cube, context)
        return len(boards)

    def batch_positions() -> int:
        return len(engine.evaluate_many(positions))

    def batch_array() -> int:
        return len(engine.evaluate_many(array))

    def one_at_a_time() -> int:
        for p in positions:
            engine.evaluate(p)
        return len(positions)

    reference, *rates = best_rates([(gnubg_run, clock), batch_positions, batch_array, one_at_a_time], 5)
    row("gnubg.evaluate, one call per position", reference)
    for label, rate in zip(("ours Engine.evaluate_many(positions), one C call",
                            "ours Engine.evaluate_many(boards array), one C call",
                            "ours Engine.evaluate, one call per position"), rates, strict=True):
        row(label, rate, reference)
