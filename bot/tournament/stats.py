"""Tournament statistics: confidence intervals and rating estimates.

Intervals are 95% (z = 1.96). Win rates of independent matches use Wilson's
score interval; averages of other scores (points per game, duplicate-dice
pairs) use the normal interval with the sample standard deviation.

Ratings are a Bradley-Terry maximum-likelihood fit: P(i beats j) =
1 / (1 + 10^(-(r_i - r_j) / scale)), one player (the anchor) fixed. With
scale 400 that is Elo; with scale 2000/sqrt(N) it is the FIBS formula for
N-point matches. Standard errors come from the inverse Fisher information.

>>> iv = wilson(30, 40)
>>> round(iv.value, 3), round(iv.low, 4), round(iv.high, 4)
(0.75, 0.5981, 0.8581)
>>> fit = fit_ratings(2, [Outcome(0, 1, 1.0)] * 3 + [Outcome(0, 1, 0.0)], anchor=1)
>>> round(fit.ratings[0], 1), round(400 * math.log10(3), 1)
(190.8, 190.8)
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

Z95 = 1.959963984540054  # the two-sided 95% normal quantile
ELO_SCALE = 400.0


@dataclass(frozen=True)
class Interval:
    """An estimate with its 95% confidence interval."""

    value: float
    low: float
    high: float

    def as_dict(self) -> dict[str, float]:
        return {"value": self.value, "low": self.low, "high": self.high}


def wilson(successes: float, n: int, z: float = Z95) -> Interval:
    """Wilson's score interval for a proportion (binary outcomes)."""
    if n <= 0:
        raise ValueError("a proportion needs at least one trial")
    p = successes / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z / (1 + z * z / n) * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n))
    return Interval(p, centre - half, centre + half)


def mean_interval(values: Sequence[float], z: float = Z95) -> Interval:
    """Mean +- z standard errors (sample standard deviation, n - 1)."""
    n = len(values)
    if n == 0:
        raise ValueError("a mean needs at least one value")
    mean = sum(values) / n
    if n == 1:
        return Interval(mean, -math.inf, math.inf)
    sd = math.sqrt(sum((v - mean) ** 2 for v in values) / (n - 1))
    half = z * sd / math.sqrt(n)
    return Interval(mean, mean - half, mean + half)


def fibs_scale(match_length: int) -> float:
    """The rating scale of the FIBS formula for N-point matches: 2000 / sqrt(N)."""
    if match_length <= 0:
        raise ValueError("the FIBS formula needs a match length of at least 1")
    return 2000.0 / math.sqrt(match_length)


@dataclass(frozen=True)
class Outcome:
    """``score`` (1 win, 0 loss, 0.5 a drawn duplicate pair...) of player i against j."""

    i: int
    j: int
    score: float


@dataclass(frozen=True)
class RatingFit:
    """Ratings and standard errors (the anchor's error is 0). ``regularised``:
    the plain fit had no finite solution (someone won or lost everything), so
    each player got one virtual drawn game against the anchor."""

    ratings: tuple[float, ...]
    errors: tuple[float, ...]
    regularised: bool

    def interval(self, player: int) -> Interval:
        r, se = self.ratings[player], self.errors[player]
        return Interval(r, r - Z95 * se, r + Z95 * se)


def _strongly_connected(n: int, outcomes: Sequence[Outcome]) -> bool:
    """Whether every player both beat and lost to the rest through some chain
    (the condition for a finite maximum-likelihood fit)."""
    beats: list[set[int]] = [set() for _ in range(n)]
    for o in outcomes:
        if o.score > 0:
            beats[o.i].add(o.j)
        if o.score < 1:
            beats[o.j].add(o.i)

    def reach(edges: list[set[int]]) -> set[int]:
        seen, stack = {0}, [0]
        while stack:
            for k in edges[stack.pop()] - seen:
                seen.add(k)
                stack.append(k)
        return seen

    lost_to: list[set[int]] = [set() for _ in range(n)]
    for a, targets in enumerate(beats):
        for b in targets:
            lost_to[b].add(a)
    return len(reach(beats)) == n and len(reach(lost_to)) == n


def fit_ratings(n_players: int, outcomes: Sequence[Outcome], anchor: int = 0,
                anchor_rating: float = 0.0, scale: float = ELO_SCALE) -> RatingFit:
    """Bradley-Terry ratings of ``n_players`` from pairwise outcomes (Newton's method)."""
    if not 0 <= anchor < n_players:
        raise ValueError("the anchor must be one of the players")
    data = list(outcomes)
    regularised = not _strongly_connected(n_players, data) if n_players > 1 else False
    if regularised:
        data += [Outcome(k, anchor, 0.5) for k in range(n_players) if k != anchor]
    c = math.log(10.0) / scale
    wins = np.zeros((n_players, n_players))  # wins[i, j]: i's score against j
    games = np.zeros((n_players, n_players))
    for o in data:
        wins[o.i, o.j] += o.score
        wins[o.j, o.i] += 1.0 - o.score
        games[o.i, o.j] += 1.0
        games[o.j, o.i] += 1.0
    free = [k for k in range(n_players) if k != anchor]
    r = np.zeros(n_players)
    info = np.zeros((len(free), len(free)))
    for _ in range(100):
        p = 1.0 / (1.0 + np.exp(-c * (r[:, None] - r[None, :])))
        grad = c * (wins - games * p).sum(axis=1)
        w = c * c * games * p * (1.0 - p)
        hess = np.diag(w.sum(axis=1)) - w
        info = hess[np.ix_(free, free)]
        step = np.linalg.solve(info, grad[free])
        r[free] += step
        if np.max(np.abs(step), initial=0.0) < 1e-9:
            break
    covariance = np.linalg.inv(info)
    errors = np.zeros(n_players)
    errors[free] = np.sqrt(np.diag(covariance))
    return RatingFit(tuple(float(v) + anchor_rating for v in r), tuple(float(e) for e in errors), regularised)
