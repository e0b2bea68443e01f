"""The estimates behind ``fibsbot calibrate``: ratings with standard errors, from match results.

(a) Error-based: the self-play matches of a setting, analysed by the judge,
give its chequer error per unforced move (EPM) and cube error per close cube
decision (EPC); gnubg's formula turns them into an absolute FIBS rating
(:func:`engine.analysis.rates.abs_fibs_rating`). Matches are the independent
units: the standard error is the delta method's for a ratio of sums over
matches, so a match full of blunders counts as one unit, not as many.

(b) Head-to-head: ``w`` wins in ``m`` matches against a reference give a win
rate whose Wilson interval the FIBS formula maps to a rating difference
(a sweep has no finite bound and carries no weight). The reference's own
rating comes from (a); its variance is added.

Independent estimates of one rating are combined with inverse-variance
weights. Intervals are 95%, value +- 1.96 standard errors.

>>> e = error_rating([{"chequer_error": -1.0, "unforced_moves": 100, "cube_error": 0.0,
...                    "close_cube_decisions": 10}] * 4, 5)
>>> round(e.value, 1), e.se
(1911.0, 0.0)
>>> d = rating_difference(60, 100, 5)  # 2000/sqrt(5) log10(0.6/0.4) = 157.5
>>> round(d.value, 1), round(d.se, 1)
(157.5, 78.8)
>>> c = combine([Estimate(1500, 30), Estimate(1560, 40)])
>>> round(c.value, 1), round(c.se, 1)
(1521.6, 24.0)
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from bot.tournament.stats import Z95, wilson
from engine.analysis.rates import ERROR_RATE_FACTOR, abs_fibs_rating, fibs_rating_losses
from engine.strength import fibs_rating_difference


@dataclass(frozen=True)
class Estimate:
    """A value and its standard error (``inf``: unknown)."""

    value: float
    se: float

    @property
    def low(self) -> float:
        return self.value - Z95 * self.se

    @property
    def high(self) -> float:
        return self.value + Z95 * self.se

    @property
    def finite(self) -> bool:
        return math.isfinite(self.value) and math.isfinite(self.se)

    def plus(self, other: Estimate) -> Estimate:
        """The sum of two independent estimates."""
        return Estimate(self.value + other.value, math.hypot(self.se, other.se))

    def agrees_with(self, other: Estimate) -> bool:
        """Whether the difference lies within its own 95% interval of zero."""
        return abs(self.value - other.value) <= Z95 * math.hypot(self.se, other.se)

    def as_dict(self) -> dict[str, float | None]:
        """For JSON (no NaN or infinity): an unknown estimate is all None."""
        if not self.finite:
            return dict.fromkeys(("value", "se", "low", "high"))
        return {"value": self.value, "se": self.se, "low": self.low, "high": self.high}


def combine(estimates: Iterable[Estimate]) -> Estimate:
    """Inverse-variance weighted mean of independent estimates (infinite ones carry no weight);
    an exact estimate (se 0) wins outright."""
    usable = [e for e in estimates if e.finite]
    if not usable:
        return Estimate(math.nan, math.inf)
    exact = [e for e in usable if e.se == 0.0]
    if exact:
        return Estimate(sum(e.value for e in exact) / len(exact), 0.0)
    weights = [1.0 / (e.se * e.se) for e in usable]
    total = sum(weights)
    return Estimate(sum(w * e.value for w, e in zip(weights, usable, strict=True)) / total, math.sqrt(1.0 / total))


# ---- (a) error rates ------------------------------------------------------------------------

MatchErrors = Mapping[str, float]  # one match's totals: chequer_error, unforced_moves, cube_error, close_cube_decisions


def _ratio(matches: Sequence[MatchErrors], total: str, count: str) -> tuple[float, list[float]]:
    """A ratio of sums and each match's influence on it (for the delta-method variance)."""
    denominator = sum(m[count] for m in matches)
    if denominator == 0:
        return 0.0, [0.0] * len(matches)
    ratio = sum(abs(m[total]) for m in matches) / denominator
    return ratio, [(abs(m[total]) - ratio * m[count]) / denominator for m in matches]


def _se(influences: Sequence[float]) -> float:
    n = len(influences)
    if n < 2:
        return math.inf
    return math.sqrt(sum(v * v for v in influences) * n / (n - 1))


def error_rating(matches: Sequence[MatchErrors], length: int) -> Estimate:
    """gnubg's error-based absolute FIBS rating of ``length``-point matches, from their totals."""
    epm, chequer = _ratio(matches, "chequer_error", "unforced_moves")
    epc, cube = _ratio(matches, "cube_error", "close_cube_decisions")
    loss_m, loss_c = fibs_rating_losses(1.0, 1.0, length)  # the weights of EPM and EPC
    influences = [loss_m * a + loss_c * b for a, b in zip(chequer, cube, strict=True)]
    return Estimate(abs_fibs_rating(epm, epc, length), _se(influences))


def error_rate(matches: Sequence[MatchErrors]) -> Estimate:
    """The overall error rate, mEMG per counted decision (chequer and cube together)."""
    folded = [{"error": abs(m["chequer_error"]) + abs(m["cube_error"]),
               "decisions": m["unforced_moves"] + m["close_cube_decisions"]} for m in matches]
    rate, influences = _ratio(folded, "error", "decisions")
    return Estimate(rate * ERROR_RATE_FACTOR, _se(influences) * ERROR_RATE_FACTOR)


def analysed(results: Iterable[Mapping[str, Any]], name: str) -> list[MatchErrors]:
    """The judge's totals for ``name`` in each analysed result line (both sides in self play)."""
    return [r["analysis"][name] for r in results if name in r.get("analysis", {})]


# ---- (b) head to head -----------------------------------------------------------------------

def rating_difference(wins: int, matches: int, length: int) -> Estimate:
    """The FIBS-formula rating difference that ``wins`` in ``matches`` imply, with a standard
    error from the Wilson interval (inf after a sweep: no finite bound)."""
    if matches < 1:
        return Estimate(math.nan, math.inf)
    interval = wilson(wins, matches)
    if interval.low <= 0.0 or interval.high >= 1.0:
        return Estimate(math.nan, math.inf)
    # a sweep's point estimate would be infinite: half a win either way keeps it finite
    p = wins / matches if 0 < wins < matches else (wins + 0.5) / (matches + 1)
    low, high = (fibs_rating_difference(v, length) for v in (interval.low, interval.high))
    return Estimate(fibs_rating_difference(p, length), (high - low) / (2 * Z95))


def wins_against(results: Iterable[Mapping[str, Any]], name: str, reference: str) -> tuple[int, int]:
    """(wins, matches) of ``name`` against ``reference``."""
    wins = matches = 0
    for r in results:
        if {r["white"], r["black"]} == {name, reference} and name != reference:
            matches += 1
            wins += r["winner"] == name
    return wins, matches


def matches_needed(half_width: float, win_probability: float, length: int, reference_se: float = 0.0) -> int | None:
    """Matches against one reference for a 95% rating interval of +-``half_width`` (the
    normal approximation of the FIBS formula's slope); None when the reference's own
    uncertainty alone is wider."""
    budget = (half_width / Z95) ** 2 - reference_se ** 2
    if budget <= 0:
        return None
    p = min(max(win_probability, 0.01), 0.99)
    slope = math.log(10.0) * math.sqrt(length) / 2000.0 * p * (1.0 - p)  # dP/dD
    return math.ceil(p * (1.0 - p) / (slope * slope * budget))
