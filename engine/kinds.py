"""The argument types of the engine's API, named once.

Every decision method takes its arguments in one order: the position, the
dice (plays only), the match state, the level; options after them by keyword.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from engine.levels import EvalSettings, Level
from engine.met import MatchEquityTable
from engine.native import EngineHandle
from engine.position import Position
from engine.probabilities import Probabilities

Board = Sequence[Sequence[int]]
"""A raw board: two rows of 25 checker counts (``board[1]`` on roll)."""

PositionLike = Position | Board
"""A :class:`Position` or a raw 2x25 board."""

LevelLike = str | Level | EvalSettings
"""A level name ("expert", "world class"...), a :class:`Level` or an :class:`EvalSettings`."""

Dice = tuple[int, int]


class EngineCore(Protocol):
    """What the search and rollout modules need of an :class:`engine.Engine`."""

    native: EngineHandle
    _engine_addr: int
    _cache_addr: int

    @property
    def met(self) -> MatchEquityTable: ...

    def evaluate(self, position: PositionLike) -> Probabilities: ...
