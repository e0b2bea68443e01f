"""A thinking level's last step: the close plays of its search rolled out.

After the deepest search that fits (engine/think.py), what is left of the
budget goes to a rollout of the plays within ``Settle.window`` of the best
(at most ``Settle.plays``): Expert on both sides, gnubg's quasi-random dice
and variance reduction, cubeful, truncated after ``Settle.truncate``
half-moves, the same dice for every play (so the differences are paired).
Trials run in chunks; a chunk starts only if its predicted time (or node
count) fits what is left. The rollout's best play replaces the search's only
where the paired difference leads by ``Settle.switch_se`` standard errors
after at least ``Settle.min_trials`` trials: a search's ranking is kept
against a rollout too short to overrule it.

The dice are seeded from the position and roll, so a node budget gives the
same decision every time.
"""

from __future__ import annotations

import math
import time
import zlib
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from engine import rollout
from engine.cube import CubeDecision, cube_info, decision_of
from engine.levels import Settle
from engine.match import MatchState
from engine.probabilities import CubeEquities
from engine.search import Candidate, MoveDecision

FULL_GAME_PLIES = 60  # a rollout to the end: a typical game's remaining half-moves, for node counts
FIRST_CHUNK = 2  # trials
TIME_SAFETY = 1.25  # a chunk starts if 1.25 times its predicted seconds fit: trials' lengths vary
CF = 6  # per-trial outputs: the cubeful equity (money) or match winning chance


@dataclass(frozen=True)
class Settled:
    """What the rollout step did: the plays rolled out, the trials each got,
    the nodes counted, and whether it changed the search's choice."""

    plays: int
    trials: int
    nodes: int
    changed: bool
    seconds: float = 0.0

    def as_json(self) -> dict[str, object]:
        return {"plays": self.plays, "trials": self.trials, "nodes": self.nodes, "changed": self.changed,
                "seconds": round(self.seconds, 6)}


def trial_nodes(spec: Settle) -> int:
    """Nodes of one trial of one play: each half-move one choice, and with
    variance reduction the 21 rolls' choices besides."""
    plies = spec.truncate or FULL_GAME_PLIES
    return plies * (22 if spec.variance_reduction else 1)


def close_plays(decision: MoveDecision, spec: Settle) -> list[Candidate]:
    """The plays rolled out: the search's best and those of the same depth
    within the window of it (a play dropped by a filter earlier is not)."""
    cands = decision.candidates
    if len(cands) < 2:
        return []
    best = cands[0]
    out = [c for c in cands if c.plies == best.plies and c.equity >= best.equity - spec.window]
    return out[:spec.plays] if len(out) >= 2 else []


def seed_of(position: Any, dice: tuple[int, int]) -> int:
    """The rollout's seed: the position and roll's own, so that a decision repeats."""
    return zlib.crc32(f"{position.position_id()} {dice[0]}{dice[1]}".encode())


def settle_play(engine: Any, position: Any, dice: tuple[int, int], match: MatchState | None,
                decision: MoveDecision, spec: Settle, left: Callable[[], float], *, nodes_mode: bool,
                rate: float, clock: Callable[[], float] = time.perf_counter) -> tuple[MoveDecision, Settled, float]:
    """Rolls out the close plays of ``decision`` while ``left()`` (seconds, or
    nodes in ``nodes_mode``) covers the next chunk; ``rate``: the seconds a
    trial of one play is expected to take on ``clock`` (learned by the caller). Returns the
    decision (reordered if the rollout changed it), what was done, and the
    rate measured (the given one if nothing ran)."""
    plays = close_plays(decision, spec)
    if not plays:
        return decision, Settled(0, 0, 0, False), rate
    money = match or MatchState(length=0, jacoby=True)
    # the plays are the search's own, legal: the job is built without replaying them
    # (its alternatives are made once, by _roll)
    job = rollout.RolloutJob(position.position_id(), replace(money, dice=dice).match_id(),
                             tuple(str(c.move) for c in plays), _settings(spec, seed_of(position, dice)))
    values, done, rate = _roll(engine, job, spec, left, nodes_mode, rate, clock)
    if values is None:
        return decision, done, rate
    order = _ranking(values, spec)
    result = job.summarise([values[:, j, :] for j in range(len(plays))])
    rolled = [replace(plays[j], equity=float(result.candidates[j].cubeful_equity or 0.0)) for j in order]
    rest = [c for c in decision.candidates if all(c is not p for p in plays)]
    settled = MoveDecision(rolled[0].move, decision.level, decision.settings, None)
    settled._candidates = rolled + rest  # noqa: SLF001 (a decision built from candidates, not a C blob)
    return settled, replace(done, changed=order[0] != 0), rate


def settle_cube(engine: Any, position: Any, match: MatchState | None, decision: CubeDecision, spec: Settle,
                left: Callable[[], float], *, nodes_mode: bool, rate: float, beavers: bool = True,
                plies: int = 2, clock: Callable[[], float] = time.perf_counter) -> tuple[CubeDecision, Settled, float]:
    """The cube decision's rollout step (``Settle.cubes``): where doubling or
    taking is within the window, no double and double/take are rolled out as
    :func:`settle_play` rolls out plays, and gnubg's classes are read off the
    rolled-out equities (double/pass: 1, or the match's value)."""
    nd, dt, dp = decision.equities
    if not decision.cube_available or min(abs(min(dt, dp) - nd), abs(dt - dp)) > spec.window:
        return decision, Settled(0, 0, 0, False), rate
    money = match or MatchState(length=0, jacoby=True)
    job = rollout.RolloutJob(position.position_id(), money.match_id(), "cube",
                             _settings(spec, seed_of(position, (0, 0))))
    values, done, rate = _roll(engine, job, spec, left, nodes_mode, rate, clock)
    if values is None or done.trials < spec.min_trials:
        return decision, done, rate
    result = job.summarise([values[:, 0, :], values[:, 1, :]])
    nd, dt, dp = (float(c.cubeful_equity or 0.0) for c in result.candidates[:3])
    ci = cube_info(money, money.on_roll, beavers=beavers)
    probabilities = result.candidates[0].probabilities
    code, optimal = ci.classify(nd, dt, dp, probabilities[1])
    settled = decision_of(code, optimal, CubeEquities(nd, dt, dp), ci, probabilities, plies)
    changed = (settled.should_double, settled.should_take) != (decision.should_double, decision.should_take)
    return settled, replace(done, changed=changed), rate


def _settings(spec: Settle, seed: int) -> rollout.RolloutSettings:
    return rollout.RolloutSettings(trials=spec.max_trials, level="expert", truncate=spec.truncate, seed=seed,
                                   variance_reduction=spec.variance_reduction, cubeful=True)


def _roll(engine: Any, job: rollout.RolloutJob, spec: Settle, left: Callable[[], float], nodes_mode: bool,
          rate: float, clock: Callable[[], float]) -> tuple[np.ndarray | None, Settled, float]:
    """Trials of ``job`` in chunks while ``left()`` covers the next: the
    per-trial values (None if none ran), what was done, the rate measured."""
    alternatives = job.alternatives()
    width = len(alternatives)
    per_trial = trial_nodes(spec) * width
    blocks: list[np.ndarray] = []
    done = spent_nodes = 0
    spent = 0.0
    while done < spec.max_trials:
        # as many trials as fit, at most a chunk; the first chunk is short, as
        # it measures this position's own rate (races' trials are cheap)
        one = per_trial if nodes_mode else width * rate * TIME_SAFETY
        room = left() - spent_nodes if nodes_mode else left()
        n = min(spec.chunk if blocks else FIRST_CHUNK, spec.max_trials - done, int(room / one))
        if n < 1:
            break
        t0 = clock()
        blocks.append(job.run_range(engine, done, n, threads=1, alternatives=alternatives))
        seconds = clock() - t0
        spent += seconds
        rate = seconds / (n * width)
        done += n
        spent_nodes += n * per_trial
    settled = Settled(width, done, spent_nodes, False, spent)
    return (np.concatenate(blocks, axis=0) if blocks else None), settled, rate


def _ranking(values: np.ndarray, spec: Settle) -> list[int]:
    """Indices of the plays, the chosen one first: the search's best (index 0)
    unless another leads it by ``switch_se`` standard errors of the paired
    difference; the others by their rollout means."""
    n = values.shape[0]
    eq = values[:, :, CF].astype(np.float64)
    means = eq.mean(axis=0)
    chosen = 0
    if n >= spec.min_trials:
        lead = -math.inf
        for j in range(1, eq.shape[1]):
            diff = eq[:, j] - eq[:, 0]
            se = float(diff.std(ddof=1)) / math.sqrt(n) if n > 1 else math.inf
            margin = float(diff.mean()) - spec.switch_se * se
            if margin > 0 and float(diff.mean()) > lead:
                chosen, lead = j, float(diff.mean())
    others = sorted((j for j in range(eq.shape[1]) if j != chosen), key=lambda j: -means[j])
    return [chosen, *others]


__all__ = ["Settled", "close_plays", "seed_of", "settle_cube", "settle_play", "trial_nodes"]
