"""A rollout as the judge of a paired level comparison (`fibsbot analyse --levels
... --judge rollout`; engine/analysis/level_compare.py).

Where the levels' plays differ, the distinct plays are rolled out together
(the same dice for all, variance reduction, Expert both sides by default)
and each level loses the rolled-out equity its play gives up against the
best of them. Only differences between the plays enter the pairs' intervals,
so the best of the rolled-out plays serves as the reference; the rollouts'
own noise widens those intervals, as it should.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from engine.analysis.level_compare import Spot
from engine.evaluator import Engine
from engine.position import Position
from engine.rollout import CandidateResult


def _score(c: CandidateResult) -> float:
    return c.cubeful_equity if c.cubeful_equity is not None else c.equity


@dataclass(frozen=True)
class RolloutJudge:
    trials: int = 144
    seed: int = 1
    level: Any = "expert"

    @property
    def name(self) -> str:
        return f"rollout ({self.trials} trials, {self.level})"

    def losses(self, engine: Engine, spot: Spot, plays: dict[int, Position | None],
               threads: int | None) -> dict[int, float]:
        """Each level's loss (EMG, >= 0) against the best of the plays rolled out."""
        distinct = list(dict.fromkeys(p for p in plays.values() if p is not None))
        moves = [m for m in (spot.position.legal_play_to(*spot.dice, p) for p in distinct) if m is not None]
        result = engine.rollout(spot.position, spot.match, candidates=moves, trials=self.trials, seed=self.seed,
                                level=self.level, threads=threads)
        equity = {p: _score(c) for p, c in zip(distinct, result.candidates, strict=True)}
        best = max(equity.values())
        return {i: best - equity[p] for i, p in plays.items() if p is not None}
