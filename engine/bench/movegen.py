"""``python -m engine.bench movegen``: every legal play of every roll, ours against
gnubg's cheapest call that lists them, on the fixed seeded position set."""

from __future__ import annotations

import argparse

from engine.bench.harness import SEED, best_rates, quiet_gnubg, row
from engine.sampling import ALL_ROLLS, random_game_positions


def run_movegen(args: argparse.Namespace) -> None:
    import numpy as np

    from engine.native import count_moves

    positions = random_game_positions(args.positions, seed=SEED)
    flat = np.array([c for p in positions for side in p.board for c in side], dtype=np.uint32)
    dice = np.array([d for roll in ALL_ROLLS for d in roll], dtype=np.int32)
    n_plays = count_moves(flat, dice)
    print(f"movegen: {len(positions)} positions (seed {SEED}) x 21 rolls = {n_plays:,} plays")

    gnubg = quiet_gnubg()
    context = gnubg.evalcontext(0, 0, 1, 0, 0.0)
    cube = gnubg.cubeinfo()
    sample = positions[: max(1, len(positions) // 5)]

    def gnubg_run() -> int:
        return sum(len(gnubg.findbestmoves(p.board, cube, context, r)) for p in sample for r in ALL_ROLLS)

    def ours_c() -> int:
        return count_moves(flat, dice)

    def ours_python() -> int:
        return sum(len(p.legal_plays(*r)) for p in sample for r in ALL_ROLLS)

    reference, c_rate, python_rate = best_rates([gnubg_run, ours_c, ours_python])
    print("  (gnubg's package has no bare move generator: its cheapest call that lists every")
    print("   play, findbestmoves at 0-ply, also scores each play with the net)")
    row("gnubg findbestmoves 0-ply, plays listed", reference)
    row("ours bg_count_moves (one C call for the set)", c_rate, reference)
    row("ours Position.legal_plays (one Python call per roll)", python_rate, reference)
