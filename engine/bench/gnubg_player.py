"""The `gnubg` package as a timed World class player (engine/bench/equal_time.py,
engine/bench/equal_time_match.py), and the interval both report."""

from __future__ import annotations

import math
import statistics
import time
from collections import Counter
from typing import TYPE_CHECKING, Any

from engine.bench.decide import gnubg_filter, gnubg_tuple_board
from engine.bench.harness import SEED, captured, gnubg_cubeinfo, quiet_gnubg, silently

if TYPE_CHECKING:
    from engine.match import MatchState
    from engine.position import Position

HELD_OUT_SEED = SEED + 3401  # the self-play games and matches of equal-time (used nowhere else)


class Gnubg:
    """The package at World class, one thread, money play with Jacoby. ``engine``
    (our World class, which plays as gnubg's) settles the plays that the
    package's move tuple leaves open: the tuple stops at the first chequer
    borne off."""

    def __init__(self, engine: Any = None) -> None:
        from engine.levels import level
        from engine.match import MatchState

        self.engine = engine
        self.g = silently(quiet_gnubg)
        self.money = MatchState(length=0, jacoby=True)
        self.cube = gnubg_cubeinfo(self.g, self.money)
        self.ctx = self.g.evalcontext(1, 2, 1, 1, 0.0)
        self.filter = gnubg_filter(level("world class").checker.filter_table)
        for c in ("set evaluation cubedecision evaluation plies 2",
                  "set evaluation cubedecision evaluation prune on",
                  "set evaluation cubedecision evaluation cubeful on",
                  "set evaluation cubedecision evaluation noise 0", "set output digits 6"):
            silently(self.g.command, c)

    def move(self, position: Position, dice: tuple[int, int], cubeinfo: Any = None,
             match: MatchState | None = None) -> tuple[Position | None, float]:
        """gnubg's World class play (the board after it; None if its tuple is cut
        and cannot be settled) and its CPU seconds. ``match``: the state
        ``cubeinfo`` describes (default: money)."""
        from engine.position import Position

        start = time.process_time()
        tup = self.g.findbestmove(position.board, cubeinfo or self.cube, self.ctx, dice, self.filter)
        seconds = time.process_time() - start
        board = gnubg_tuple_board(position, tup)
        if board is None:
            return self._settle(position, dice, tuple(tup), match or self.money), seconds
        return Position(board), seconds

    def _settle(self, position: Position, dice: tuple[int, int], tup: tuple[int, ...],
                match: MatchState) -> Position | None:
        """The play a cut tuple names: the legal plays holding its steps and one
        chequer borne off from its last point; if several, our World class's first."""
        need = Counter([(tup[i], tup[i + 1]) for i in range(0, len(tup) - 1, 2)] + [(tup[-1], 0)])
        fits = [after for move, after in position.legal_plays(*dice)
                if not need - Counter((s.src, s.dst) for s in move.steps)]
        if len(fits) <= 1 or self.engine is None:
            return fits[0] if len(fits) == 1 else None
        for c in self.engine.best_move(position, dice, match=match, level="world class").candidates:
            if c.position in fits:
                return c.position  # type: ignore[no-any-return]
        return None

    def cube_action(self, position: Position, match_id: str) -> tuple[str | None, float]:
        """gnubg's World class cube action (its hint's words; None: cannot double) and its CPU seconds."""
        silently(self.g.setgnubgid, f"{position.position_id()}:{match_id}")
        start = time.process_time()
        text = captured(self.g.command, "hint")
        seconds = time.process_time() - start
        for line in text.splitlines():
            if line.strip().startswith("Proper cube action:"):
                words = line.split(":", 1)[1].strip()
                return words.split(" (")[0].strip(), seconds
        return None, seconds


def gnubg_doubles(action: str | None) -> bool:
    """Whether gnubg's bot doubles on a hint's proper action (doubling classes, not optional ones)."""
    return action is not None and action.split(",")[0].strip() in ("Double", "Redouble")


def gnubg_takes(action: str | None) -> bool:
    return action is not None and not action.endswith("pass")


def interval(values: list[float]) -> tuple[float, float]:
    """Mean and the half-width of its 95% interval (normal approximation)."""
    if not values:
        return 0.0, math.nan
    mean = statistics.fmean(values)
    half = 1.96 * statistics.stdev(values) / math.sqrt(len(values)) if len(values) > 1 else math.nan
    return mean, half
