"""The `gnubg` package as a timed World class player (engine/bench/equal_time.py,
engine/bench/equal_time_match.py), and the interval both report."""

from __future__ import annotations

import math
import statistics
import time
from typing import TYPE_CHECKING, Any

from engine.bench.decide import gnubg_filter, gnubg_tuple_board
from engine.bench.harness import SEED, captured, gnubg_cubeinfo, quiet_gnubg, silently

if TYPE_CHECKING:
    from engine.position import Position

HELD_OUT_SEED = SEED + 3401  # the self-play games and matches of equal-time (used nowhere else)


class Gnubg:
    """The package at World class, one thread, money play with Jacoby."""

    def __init__(self) -> None:
        from engine.levels import level
        from engine.match import MatchState

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

    def move(self, position: Position, dice: tuple[int, int], cubeinfo: Any = None) -> tuple[Position | None, float]:
        """gnubg's World class play (the board after it; None if its tuple is cut) and its CPU seconds."""
        from engine.position import Position

        start = time.process_time()
        tup = self.g.findbestmove(position.board, cubeinfo or self.cube, self.ctx, dice, self.filter)
        seconds = time.process_time() - start
        board = gnubg_tuple_board(position, tup)
        return (Position(board) if board is not None else None), seconds

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
