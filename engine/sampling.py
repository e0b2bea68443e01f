"""Seeded position sets from random games, for tests and benchmarks."""

from __future__ import annotations

import random

from engine.position import Position


def random_game_positions(n: int, seed: int, keep: float = 0.3) -> list[Position]:
    """``n`` positions (side on roll first) met in uniformly random games.

    Every play is drawn uniformly from the distinct legal results, so the set
    covers contact, hits, the bar, races and bear-offs. Deterministic per seed.
    """
    rng = random.Random(seed)
    out: list[Position] = []
    while len(out) < n:
        position = Position.initial()
        while position.winner() is None and len(out) < n:
            plays = position.legal_plays(rng.randint(1, 6), rng.randint(1, 6))
            position = rng.choice(plays)[1].swap()
            if position.winner() is None and rng.random() < keep:
                out.append(position)
    return out


ALL_ROLLS = [(d1, d2) for d1 in range(1, 7) for d2 in range(1, d1 + 1)]


def random_bearoff_positions(n: int, rng: random.Random) -> list[Position]:
    """``n`` positions with 1 to 6 chequers a side, all in the home boards
    (the two-sided bearoff database's ground), drawn from ``rng``."""
    out: list[Position] = []
    while len(out) < n:
        rows = []
        for _ in range(2):
            row = [0] * 25
            for _ in range(rng.randint(1, 6)):
                row[rng.randrange(6)] += 1
            rows.append(tuple(row))
        out.append(Position.from_board((rows[0], rows[1])))
    return out
