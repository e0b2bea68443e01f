"""``python -m engine.bench think-wall [--positions N --levels L --seed S]``: the
wall-clock answer time of thinking-time levels, as the bot plays them.

Each decision is played as the bot's decider plays it (bot/player/thinking.py):
one thread, the wall clock, a deeper search cut at the budget plus half the
margin, one cost model learned over the run's decisions. The decisions are
those of ``equal-time`` (seeded Expert self-play, chequer plays and a fifth as
many cube decisions; default 36 in all). Printed per level: the answer time
over the budget (mean, 99th percentile, max), how many answers came past the
budget and past the budget plus the margin, deeper searches cut, the depths.

Run it on a quiet machine at normal priority: it measures wall time.
"""

from __future__ import annotations

import argparse
import statistics
import time
from typing import Any

from engine.bench.equal_time import self_play_spots, think_variants
from engine.bench.gnubg_player import HELD_OUT_SEED


def wall_times(engine: Any, spots: list[Any], think: Any) -> list[tuple[float, int, bool]]:
    """(wall seconds, depth reached, deeper search cut) of each decision."""
    from engine.match import MatchState
    from engine.think import CostModel, think_cube, think_move

    money = MatchState(length=0, jacoby=True)
    model = CostModel()
    out = []
    for spot in spots:
        start = time.perf_counter()
        if spot.dice is not None:
            r = think_move(engine, spot.position, spot.dice, match=money, think=think, threads=1, model=model)
        else:
            r = think_cube(engine, spot.position, match=money, think=think, threads=1, model=model)
        out.append((time.perf_counter() - start, r.plies, r.cut))
    return out


def run_think_wall(args: argparse.Namespace) -> None:
    from engine.evaluator import Engine

    engine = Engine()
    seed = HELD_OUT_SEED if getattr(args, "seed", None) is None else int(args.seed)
    n = args.positions if args.positions != 1000 else 36
    cubes = max(n // 6, 1)
    spots = self_play_spots(engine, n - cubes, cubes, seed)
    print(f"think-wall: {n - cubes} chequer plays and {cubes} cube decisions from seeded Expert self-play "
          f"(seed {seed}), money play; one thread, the wall clock, as the bot plays")
    for name, think in think_variants(getattr(args, "levels", "")).items():
        rows = wall_times(engine, spots, think)
        ratios = sorted(s / think.budget for s, _, _ in rows)
        depths = [d for _, d, _ in rows]
        hist = ", ".join(f"{d}-ply {depths.count(d)}" for d in sorted(set(depths)))
        p99 = ratios[min(len(ratios) - 1, int(0.99 * len(ratios)))]
        print(f"  {name} ({think.budget:g} s, margin {100 * think.margin:.0f}%): answer time / budget: mean "
              f"{statistics.fmean(ratios):.2f}, p99 {p99:.2f}, max {ratios[-1]:.3f}; past the budget "
              f"{sum(r > 1 for r in ratios)}, past budget + margin {sum(r > 1 + think.margin for r in ratios)} "
              f"of {len(ratios)}; deeper search cut {sum(c for _, _, c in rows)}; depth {hist}")
