"""Paired comparison of levels: every level plays the same positions, a judge scores the plays.

Error rates measured on each level's own games differ by the positions each
happened to meet; close levels (world class and supremo choose the same play
almost always) drown in that noise. Here each checker decision of the given
records is put to every level, and only where their plays differ does the
judge (a deeper search, gnubg's analysis method) score them. Each pair of
neighbouring levels then has an exact difference per position, and its mean
over positions a confidence interval, tested at a few looks (see PairResult).
A pair stops being played once a look decides it; the comparison ends when
every pair is decided or the positions run out. Checker play only: cube
decisions are not compared.
"""

from __future__ import annotations

import itertools
import math
import random
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from statistics import NormalDist
from typing import Any, Protocol

from engine.analysis import match_state, scored
from engine.evaluator import Engine
from engine.levels import Level
from engine.match import MatchState
from engine.position import Position
from engine.records import MatchRecord, Roll
from engine.search import MoveDecision

Z95 = 1.959964  # two-sided 95% normal quantile


@dataclass(frozen=True)
class Spot:
    """One checker decision with more than one legal play."""

    where: str  # e.g. "beginner~beginner~0000.sgf game 1 action 7"
    position: Position  # the mover's checkers in board[1]
    dice: tuple[int, int]
    match: MatchState  # the mover's view, dice set
    opponent: MatchState  # the view of the side to move after the play


def checker_spots(record: MatchRecord, name: str) -> list[Spot]:
    """The unforced checker decisions of ``record``, in order."""
    spots = []
    for number, game in enumerate(record.games, 1):
        for i, (action, before) in enumerate(zip(game.actions, game.states, strict=False)):  # states: one more, the end
            if not isinstance(action, Roll):
                continue
            position = before.position(action.player)
            if len(position.legal_plays(*action.dice)) <= 1:
                continue
            spots.append(Spot(f"{name} game {number} action {i}", position, action.dice,
                              match_state(record, game, before, action.player, dice=action.dice),
                              match_state(record, game, before, 1 - action.player)))
    return spots


def shuffled(spots: Iterable[Spot], seed: int) -> list[Spot]:
    """The spots in a seeded random order, so that any prefix samples every record and phase."""
    out = list(spots)
    random.Random(seed).shuffle(out)
    return out


@dataclass
class PairResult:
    """``weaker`` against ``stronger``: per compared position, weaker's loss minus stronger's (EMG).

    The pair is tested only at looks, when the number of positions where the
    two differ reaches ``min_differing``, then twice that, four times...; look
    k allows a false verdict with probability 5%/2^k, so all looks together
    stay under 5% however long the comparison runs (testing after every
    position would all but guarantee a verdict, right or wrong).
    """

    weaker: str
    stronger: str
    min_differing: int = 10
    differences: list[float] = field(default_factory=list)
    looks: int = 0
    decided: str | None = None  # "in order" or "reversed" once a look decides
    _differing: int = 0
    _sum: float = 0.0
    _squares: float = 0.0

    def add(self, difference: float) -> None:
        """One more compared position; a look when the differing count reaches the next threshold."""
        self.differences.append(difference)
        self._sum += difference
        self._squares += difference * difference
        if difference == 0.0:
            return
        self._differing += 1
        if self.decided is None and self._differing == self.min_differing << self.looks:
            self.looks += 1
            low, high = self.interval(look_z(self.looks))
            self.decided = "in order" if low > 0.0 else "reversed" if high < 0.0 else None

    @property
    def positions(self) -> int:
        return len(self.differences)

    @property
    def differing(self) -> int:
        return self._differing

    @property
    def mean(self) -> float:
        return self._sum / len(self.differences) if self.differences else 0.0

    def interval(self, z: float = Z95) -> tuple[float, float]:
        """Confidence interval of the mean difference (normal approximation; 95% by default)."""
        n = len(self.differences)
        if n < 2:
            return (-math.inf, math.inf)
        mean = self.mean
        sd = math.sqrt(max(0.0, self._squares - n * mean * mean) / (n - 1))
        half = z * sd / math.sqrt(n)
        return (mean - half, mean + half)

    @property
    def verdict(self) -> str:
        """'in order' (weaker loses more), 'reversed', or 'undecided'."""
        return self.decided or "undecided"

    @property
    def leaning(self) -> str:
        """The sign of the mean alone: 'in order', 'reversed' or 'tied'."""
        mean = self.mean
        return "in order" if mean > 0 else "reversed" if mean < 0 else "tied"

    def as_dict(self) -> dict[str, Any]:
        low, high = self.interval()
        return {"weaker": self.weaker, "stronger": self.stronger, "positions": self.positions,
                "differing": self.differing, "mean_difference_memg": 1000 * self.mean,
                "interval_memg": [1000 * low if math.isfinite(low) else None,
                                  1000 * high if math.isfinite(high) else None],
                "looks": self.looks, "verdict": self.verdict, "leaning": self.leaning,
                "last_look_confidence": 1 - 0.05 / 2 ** self.looks if self.looks else None}


def look_z(look: int) -> float:
    """The two-sided normal quantile for look ``look`` (1, 2, ...): error 5%/2^look."""
    return NormalDist().inv_cdf(1 - 0.05 / 2 ** (look + 1))


@dataclass
class LevelResult:
    """A level's loss against the judge's best play, on the positions it played."""

    name: str
    positions: int = 0
    judged: int = 0  # positions where the judge scored its play (the others agreed with every level)
    loss: float = 0.0  # EMG summed over judged positions

    @property
    def rate(self) -> float:
        """EMG lost per position played, counting positions where all levels agreed as no loss."""
        return self.loss / self.positions if self.positions else 0.0


@dataclass
class Comparison:
    """Where a comparison stands: each level's losses and each neighbouring pair's differences."""

    judge: str
    min_differing: int
    levels: list[LevelResult]
    pairs: list[PairResult]
    positions: int = 0  # spots visited
    judged: int = 0  # spots the judge searched

    @property
    def in_order(self) -> bool:
        return all(p.verdict == "in order" for p in self.pairs)

    def as_dict(self) -> dict[str, Any]:
        return {"judge": self.judge, "min_differing": self.min_differing, "positions": self.positions,
                "judged": self.judged, "in_order": self.in_order,
                "levels": [{"name": lv.name, "positions": lv.positions, "judged": lv.judged,
                            "rate_memg": 1000 * lv.rate} for lv in self.levels],
                "pairs": [p.as_dict() for p in self.pairs]}


class Judge(Protocol):
    """Another judge than a search (engine/analysis/rollout_judge.py): each level's loss on a spot."""

    @property
    def name(self) -> str: ...

    def losses(self, engine: Engine, spot: Spot, plays: dict[int, Position | None],
               threads: int | None) -> dict[int, float]: ...


def compare_levels(engine: Engine, spots: Sequence[Spot], levels: Sequence[Level], judge: Level | Judge, *,
                   min_differing: int = 10, threads: int | None = None,
                   on_spot: Callable[[Comparison], None] | None = None) -> Comparison:
    """Put ``spots`` (in order) to ``levels`` (weakest first) until every neighbouring
    pair is decided; ``judge`` scores the plays where the active levels differ.

    A level with the judge's checker settings is not searched twice: its play is
    the judge's best.
    """
    if len(levels) < 2:
        raise ValueError("compare at least two levels")
    if len({lv.name for lv in levels}) != len(levels):
        raise ValueError("each level may appear once")
    result = Comparison(judge.name, min_differing, [LevelResult(lv.name) for lv in levels],
                        [PairResult(a.name, b.name, min_differing) for a, b in itertools.pairwise(levels)])
    for spot in spots:
        open_pairs = [i for i, pair in enumerate(result.pairs) if pair.decided is None]
        if not open_pairs:
            break
        active = sorted({i for p in open_pairs for i in (p, p + 1)})
        plays: dict[int, Position | None] = {}  # None: the judge's best play
        for i in active:
            lv = levels[i]
            if isinstance(judge, Level) and lv.checker == judge.checker:
                plays[i] = None
            else:
                choice: MoveDecision = engine.best_move(spot.position, spot.dice, spot.match, lv, threads=threads)
                plays[i] = spot.position.play(choice.move)
        losses = dict.fromkeys(active, 0.0)
        if None in plays.values() or len(set(plays.values())) > 1:
            losses = (_judge(engine, spot, judge, plays, threads) if isinstance(judge, Level)
                      else judge.losses(engine, spot, plays, threads))
            result.judged += 1
            for i in active:
                result.levels[i].judged += 1
                result.levels[i].loss += losses[i]
        result.positions += 1
        for i in active:
            result.levels[i].positions += 1
        for p in open_pairs:
            result.pairs[p].add(losses[p] - losses[p + 1])
        if on_spot is not None:
            on_spot(result)
    return result


def _judge(engine: Engine, spot: Spot, judge: Level, plays: dict[int, Position | None],
           threads: int | None) -> dict[int, float]:
    """Each level's loss (EMG, >= 0) against the judge's best play on ``spot``."""
    decision: MoveDecision = engine.best_move(spot.position, spot.dice, spot.match, judge, threads=threads)
    best = decision.candidates[0]
    by_result = {c.position: c for c in decision.candidates}
    scores: dict[Position, float] = {}
    losses = {}
    for i, play in plays.items():
        if play is None or play == best.position:
            losses[i] = 0.0
            continue
        if play not in scores:
            scores[play] = scored(engine, judge, by_result[play], best.plies, spot.opponent, threads)
        losses[i] = max(0.0, best.equity - scores[play])
    return losses
