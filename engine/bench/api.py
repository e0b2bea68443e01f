"""``python -m engine.bench api``: the Python API's speed on fresh positions, against gnubg.

Positions are made fresh from their position IDs inside each timed run, the way
a user's code makes them (``Position.from_position_id`` for us,
``gnubg.positionfromid`` for gnubg), on the fixed seeded set, one thread each,
caches emptied before each run (not timed), timed in CPU time of this process
(a busy machine's waits for a core count for neither side). Rows (each with its ratio to gnubg's row above):

* ``speed-api-eval``: 0-ply evaluation, one call per position, and in one batch
  (ours ``Engine.evaluate_many`` / ``Engine.evaluate_ids``);
* ``speed-api-expert``: the Expert play (0-ply) for a seeded roll: gnubg
  ``findbestmove`` against ``Engine.best_move`` and the bulk ``Engine.best_moves``;
* ``speed-api-cube``: a 0-ply cube decision: gnubg's cubeful 0-ply ``evaluate``
  (one cube position; gnubg has no cube call in its library API) against
  ``Engine.cube_decision`` and the bulk ``Engine.cube_decisions``;
* ``speed-api-legal``: every legal play of every roll: gnubg's cheapest listing
  (``findbestmoves`` at 0 ply, which also scores each play) against
  ``Position.legal_plays`` (lazy plays).
"""

from __future__ import annotations

import argparse
import random
import time
from collections.abc import Callable

from engine.bench.harness import SEED, best_rates, quiet_gnubg, row, silently
from engine.sampling import ALL_ROLLS, random_game_positions


def run_api(args: argparse.Namespace) -> None:
    from engine import native
    from engine.evaluator import Engine
    from engine.levels import level
    from engine.position import Position
    from engine.probabilities import Probabilities

    gnubg = silently(quiet_gnubg)
    engine = Engine()
    positions = random_game_positions(args.positions, seed=SEED)
    ids = [p.position_id() for p in positions]
    rng = random.Random(SEED)
    dice = [(rng.randint(1, 6), rng.randint(1, 6)) for _ in ids]
    cube = gnubg.cubeinfo(1, -1, 0, 0, (0, 0), 0, 0)
    cube["jacoby"] = 1
    ctx0 = gnubg.evalcontext(0, 0, 1, 0, 0.0)
    ctx0_cubeful = gnubg.evalcontext(1, 0, 1, 0, 0.0)
    expert = level("expert", flavour="gnubg-1.1")
    n = len(ids)
    repeats = 5

    flushing = [0.0]  # CPU seconds spent emptying caches, left out of the timings

    def flush() -> None:
        start = time.process_time()
        silently(gnubg.command, "set cache 1024")
        silently(gnubg.command, "set cache 65536")
        engine.clear_cache()
        flushing[0] += time.process_time() - start

    def clock() -> float:
        return time.process_time() - flushing[0]

    def timed(fn: Callable[[], object]) -> tuple[Callable[[], int], Callable[[], float]]:
        def run() -> int:
            flush()
            fn()
            return n
        return run, clock

    print(f"api: {n} positions from random games (seed {SEED}), made fresh from their IDs in every run;")
    print(f"  gnubg {gnubg.version} and ours on 1 thread ({engine.kernel}); best of {repeats} interleaved runs, "
          "caches emptied, CPU time")

    print("  speed-api-eval: 0-ply evaluation")
    def through_cffi(i: str) -> Probabilities:
        # the same two C calls (decode the ID, evaluate) through cffi instead of engine._fast
        key = native.boards_from_ids(i.encode("ascii"), 1)
        assert isinstance(key, bytes)
        return Probabilities(*native.evaluate_many(engine.native, key, 1)[0][0].tolist())

    reference, one, cffi, many, by_id = best_rates([
        timed(lambda: [gnubg.evaluate(gnubg.positionfromid(i), cube, ctx0) for i in ids]),
        timed(lambda: [engine.evaluate(Position.from_position_id(i)) for i in ids]),
        timed(lambda: [through_cffi(i) for i in ids]),
        timed(lambda: engine.evaluate_many([Position.from_position_id(i) for i in ids])),
        timed(lambda: engine.evaluate_ids(ids, threads=1)),
    ], repeats)
    row("gnubg evaluate(positionfromid(id))", reference)
    row("ours Engine.evaluate(Position.from_position_id(id))", one, reference)
    row("ours the same two C calls through cffi (without engine._fast)", cffi, reference)
    row("ours Engine.evaluate_many(fresh Positions), one C call", many, reference)
    row("ours Engine.evaluate_ids(ids), one C call", by_id, reference)

    print("  speed-api-expert: Expert (0-ply) play for a seeded roll")
    pairs = list(zip(ids, dice, strict=True))
    reference, one, bulk = best_rates([
        timed(lambda: [gnubg.findbestmove(gnubg.positionfromid(i), cube, ctx0_cubeful, d) for i, d in pairs]),
        timed(lambda: [engine.best_move(Position.from_position_id(i), d, None, expert, threads=1).move
                       for i, d in pairs]),
        timed(lambda: [d.move for d in engine.best_moves([Position.from_position_id(i) for i in ids], dice,
                                                         None, expert, threads=1)]),
    ], repeats)
    row("gnubg findbestmove(positionfromid(id), ...)", reference)
    row("ours Engine.best_move(Position.from_position_id(id), ...).move", one, reference)
    row("ours Engine.best_moves(fresh Positions, dice), one C call", bulk, reference)

    print("  speed-api-cube: 0-ply cube decision")
    reference, one, bulk = best_rates([
        timed(lambda: [gnubg.evaluate(gnubg.positionfromid(i), cube, ctx0_cubeful) for i in ids]),
        timed(lambda: [engine.cube_decision(Position.from_position_id(i), None, expert, threads=1) for i in ids]),
        timed(lambda: engine.cube_decisions([Position.from_position_id(i) for i in ids], None, expert,
                                            threads=1)),
    ], repeats)
    row("gnubg evaluate(positionfromid(id)), cubeful 0-ply", reference)
    row("ours Engine.cube_decision(Position.from_position_id(id))", one, reference)
    row("ours Engine.cube_decisions(fresh Positions), one C call", bulk, reference)

    print("  speed-api-legal: every legal play of every roll")
    sample = ids[: max(1, n // 5)]
    plays_seen = [0]

    def ours_legal() -> int:
        total = 0
        for i in sample:
            p = Position.from_position_id(i)
            for r in ALL_ROLLS:
                total += len(p.legal_plays(*r))
        plays_seen[0] = total
        return total

    def theirs_legal() -> int:
        flush()
        return sum(len(gnubg.findbestmoves(gnubg.positionfromid(i), cube, ctx0, r))
                   for i in sample for r in ALL_ROLLS)

    reference, ours = best_rates([(theirs_legal, clock), (ours_legal, clock)], repeats)
    row("gnubg findbestmoves 0-ply, plays listed", reference)
    row("ours Position.legal_plays, plays listed", ours, reference)
