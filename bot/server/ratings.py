"""FIBS's rating formula (``help formula``) and its ``toggle ratings`` printout.

>>> change = rate_match("myself", 1655.634835, 2761, "someplayer", 1500.0, 187, 3)
>>> round(change.winner, 6), round(change.loser, 6)
(2.930831, -9.173502)
>>> change.lines[4]
'Probability that underdog wins: Pu=1/(10^(D*sqrt(N)/2000)+1)=0.423029'
"""

from __future__ import annotations

import math
from dataclasses import dataclass


@dataclass(frozen=True)
class RatingChange:
    winner: float
    """Added to the winner's rating (>= 0)."""
    loser: float
    """Added to the loser's rating (<= 0)."""
    lines: list[str]
    """The ``rating calculation:`` block FIBS prints with toggle ratings on."""


def k_factor(experience: int) -> float:
    """New players move fast: K = 5 at experience 0, 1 from experience 400 on."""
    return max(1.0, -experience / 100 + 5)


def rate_match(winner: str, winner_rating: float, winner_exp: int,
               loser: str, loser_rating: float, loser_exp: int, length: int) -> RatingChange:
    """Rating changes for a finished ``length``-point match (experience before the match)."""
    d = abs(winner_rating - loser_rating)
    pu = 1 / (10 ** (d * math.sqrt(length) / 2000) + 1)
    p = 1 - pu if winner_rating < loser_rating else pu  # the underdog won / the favourite won
    k_w, k_l = k_factor(winner_exp), k_factor(loser_exp)
    gain = 4 * k_w * math.sqrt(length) * p
    loss = -4 * k_l * math.sqrt(length) * p
    lines = [
        "rating calculation:",
        f"rating difference D={d:f}",
        f"match length      N={length}",
        f"Experience: {winner} {winner_exp} - {loser} {loser_exp}",
        f"Probability that underdog wins: Pu=1/(10^(D*sqrt(N)/2000)+1)={pu:f}",
        f"P={p:f} is 1-Pu if underdog wins and Pu if favorite wins",
        f"K=max(1 , -Experience/100+5) for {winner}: {k_w:f}",
        f"change for {winner}: 4*K*sqrt(N)*P={gain:f}",
        f"K=max(1 , -Experience/100+5) for {loser}: {k_l:f}",
        f"change for {loser}: -4*K*sqrt(N)*P={loss:f}",
    ]
    return RatingChange(gain, loss, lines)
