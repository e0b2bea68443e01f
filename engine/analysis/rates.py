"""Error classes, error rates and rating labels of gnubg's analysis (gnubg's manual, "Analysis").

Errors are normalised equity (EMG) differences, **negative = a loss** (gnubg's
sign): a move 0.07 worse than the best has error -0.07.

>>> skill(-0.07), skill(-0.02), luck(0.45)
('bad', 'none', 'lucky')
>>> rating_label(0.0045)
'World class'
>>> round(abs_fibs_rating(0.006, 0.01, 7), 1)
1967.4
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass

# ---- per-decision classes ---------------------------------------------------------------

SKILL_THRESHOLDS = (("very bad", 0.12), ("bad", 0.06), ("doubtful", 0.03))
"""Error classes by loss: very bad (blunder) > 0.12, bad (error) > 0.06, doubtful > 0.03."""

LUCK_THRESHOLDS = (("very lucky", 0.6), ("lucky", 0.3), ("very unlucky", -0.6), ("unlucky", -0.3))

CLOSE_CUBE_THRESHOLD = 0.16


def skill(error: float) -> str:
    """gnubg's skill class of one decision's error (negative = loss)."""
    for name, threshold in SKILL_THRESHOLDS:
        if error < -threshold:
            return name
    return "none"


def luck(value: float) -> str:
    """gnubg's luck class of one roll's luck (positive = lucky)."""
    if value > 0.6:
        return "very lucky"
    if value > 0.3:
        return "lucky"
    if value < -0.6:
        return "very unlucky"
    if value < -0.3:
        return "unlucky"
    return "none"


def is_close_cube(optimal: float, dt: float) -> bool:
    """A cube decision enters the statistics if ``optimal - min(DT, 1) < 0.16``
    (doubles, takes and passes always count; the caller adds those)."""
    return optimal - min(dt, 1.0) < CLOSE_CUBE_THRESHOLD


def cube_errors(nd: float, dt: float, dp: float) -> dict[str, float]:
    """The cube errors (<= 0) of each possible action given ND, DT, DP (EMG).

    ``missed_double``: not doubling when doubling is right; ``wrong_double``:
    doubling when it is wrong (the taker answers optimally); ``wrong_take`` /
    ``wrong_pass``: the taker's error seen from the taker (DT vs DP).
    """
    double = min(dt, dp)
    optimal = max(nd, double)
    return {
        "missed_double": min(0.0, nd - optimal),
        "wrong_double": min(0.0, double - optimal),
        "wrong_take": min(0.0, -dt + dp) if dt > dp else 0.0,
        "wrong_pass": min(0.0, -dp + dt) if dp > dt else 0.0,
    }


# ---- rates -------------------------------------------------------------------------------

ERROR_RATE_FACTOR = 1000.0  # gnubg's rErrorRateFactor: rates printed in mEMG


@dataclass(frozen=True)
class ErrorRates:
    """Error totals and counts of one player; rates are per decision, EMG (negative sums)."""

    chequer_error: float = 0.0  # sum of move errors
    unforced_moves: int = 0
    cube_error: float = 0.0  # sum of cube errors
    close_cube_decisions: int = 0
    total_moves: int = 0  # all moves of this player, forced included

    def __add__(self, other: ErrorRates) -> ErrorRates:
        """Both players' (or matches') totals together."""
        return ErrorRates(self.chequer_error + other.chequer_error, self.unforced_moves + other.unforced_moves,
                          self.cube_error + other.cube_error,
                          self.close_cube_decisions + other.close_cube_decisions,
                          self.total_moves + other.total_moves)

    @property
    def chequer_rate(self) -> float:
        return _rate(self.chequer_error, self.unforced_moves)

    @property
    def cube_rate(self) -> float:
        return _rate(self.cube_error, self.close_cube_decisions)

    @property
    def overall_rate(self) -> float:
        return _rate(self.chequer_error + self.cube_error,
                     self.unforced_moves + self.close_cube_decisions)

    def memg(self, rate: float) -> float:
        """A per-decision rate in mEMG (x1000), as gnubg prints it."""
        return rate * ERROR_RATE_FACTOR

    def snowie_rate(self, both_players_moves: int) -> float:
        """Snowie's error rate: overall total / all moves of both players, x1000."""
        return _rate(self.chequer_error + self.cube_error, both_players_moves) * ERROR_RATE_FACTOR

    @property
    def rating(self) -> str:
        return rating_label(abs(self.overall_rate))


def _rate(total: float, count: int) -> float:
    return total / count if count else 0.0


def xg_pr(average_loss: float) -> float:
    """XG's performance rating from an average EMG loss per counted decision (500 x)."""
    return 500.0 * abs(average_loss)


# ---- labels and FIBS rating estimates ------------------------------------------------------

RATING_LABELS = (
    (0.002, "Supernatural"),
    (0.005, "World class"),
    (0.008, "Expert"),
    (0.012, "Advanced"),
    (0.018, "Intermediate"),
    (0.026, "Casual player"),
    (0.035, "Beginner"),
)
"""gnubg 1.07's rating labels by normalised error per decision (the `gnubg`
1.1 PyPI package uses other thresholds: 0.005, 0.008, 0.013, 0.020, 0.032)."""


def rating_label(error_per_decision: float) -> str:
    """gnubg's label for an error rate (EMG per decision, sign ignored)."""
    e = abs(error_per_decision)
    for threshold, name in RATING_LABELS:
        if e < threshold:
            return name
    return "Awful!"


RATING_OFFSET = 2050.0


def fibs_rating_losses(epm: float, epc: float, match_length: int) -> tuple[float, float]:
    """(chequer-play, cube) rating loss: EPM (8798 + 25526/N), EPC (863 - 519/N)."""
    if match_length <= 0:
        raise ValueError("FIBS rating estimates are for match play (length > 0)")
    n = float(match_length)
    return abs(epm) * (8798.0 + 25526.0 / n), abs(epc) * (863.0 - 519.0 / n)


def abs_fibs_rating(epm: float, epc: float, match_length: int, offset: float = RATING_OFFSET) -> float:
    """gnubg's "error based absolute FIBS rating" (Kees van den Doel's formula).

    ``epm``: normalised chequer error per unforced move; ``epc``: cube error per
    close cube decision.
    """
    loss_m, loss_c = fibs_rating_losses(epm, epc, match_length)
    return offset - (loss_m + loss_c)


def luck_fibs_rating_diff(result_mwc: float, own_luck_mwc: float, opp_luck_mwc: float,
                          match_length: int) -> float | None:
    """gnubg's "luck based FIBS rating difference", None when undefined.

    ``r = 0.5 + result - own luck + opponent luck`` (all MWC);
    ``-2000/sqrt(N) log10(1/r - 1)``, floored at -2100.
    """
    r = 0.5 + result_mwc - own_luck_mwc + opp_luck_mwc
    if not 0.0 < r < 1.0 or match_length <= 0:
        return None
    return max(-2100.0, -2000.0 / math.sqrt(match_length) * math.log10(1.0 / r - 1.0))


_HISTORICAL = ((0.0, 2200.0), (0.005, 2050.0), (0.010, 1950.0), (0.015, 1850.0),
               (0.020, 1750.0), (0.025, 1600.0), (0.030, 1500.0))


def historical_rating(error_per_decision: float) -> float:
    """The 2003-era gnubg rating guess: piecewise linear up to 0.030, then
    exponential, ``500 + 1000 e^(10 (0.030 - r))`` (read so that it joins the
    linear part at 1500; the bug-gnubg thread "Gap in guestimated ratings?" (Jan 2003)
    writes the exponent loosely)."""
    r = abs(error_per_decision)
    if r > 0.030:
        return 500.0 + 1000.0 * math.exp(10.0 * (0.030 - r))
    for (x0, y0), (x1, y1) in itertools.pairwise(_HISTORICAL):
        if r <= x1:
            return y0 + (y1 - y0) * (r - x0) / (x1 - x0)
    return _HISTORICAL[-1][1]
