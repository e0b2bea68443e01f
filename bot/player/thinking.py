"""The bot's decider for thinking-time levels: :class:`engine.think` plays a
:class:`engine.levels.Think` level, and each decision carries the engine note
(the depth reached) that the match record keeps in its SGF comment. gnubg levels
pass through to the engine unchanged."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from engine.levels import Level, Think
from engine.match import MatchState
from engine.position import Move, Position
from engine.records import EngineNote
from engine.think import CostModel, ThinkResult, think_cube, think_move

WARM_UP_POSITION = "kZ8gIGy2rMQREA"  # a contact position where World class searches 8 plays of a 4-3


@dataclass(frozen=True)
class ThoughtMove:
    """A play chosen by a thinking-time level: ``move``, and ``note`` naming the depth reached."""

    move: Move
    note: EngineNote
    result: ThinkResult


@dataclass(frozen=True)
class ThoughtCube:
    """A cube decision of a thinking-time level, with its ``note``."""

    should_double: bool
    should_take: bool
    note: EngineNote
    result: ThinkResult


def record_note(choice: object) -> EngineNote | None:
    """The engine note a decision carries for the match record (None: a gnubg level's)."""
    note = getattr(choice, "note", None)
    return note if isinstance(note, EngineNote) else None


class ThinkingDecider:
    """The engine's decisions (:class:`bot.player.model.Decider`), thinking-time levels
    played by iterative deepening on one thread. The cost model is learned over the
    decisions of this decider (safe to share between players: a race loses one update)."""

    def __init__(self, engine: Any, model: CostModel | None = None) -> None:
        self.engine = engine
        self.model = model or CostModel()

    def warm_up(self, level: str | Level | Think) -> None:
        """At a thinking-time level, plays a middle-game roll and cube decision
        once: the engine's first search allocates its cache and the cost model
        learns this machine's speed before a clock runs."""
        if isinstance(level, Think):
            position = Position.from_position_id(WARM_UP_POSITION)
            self.best_move(position, (4, 3), None, level)
            self.cube_decision(position, None, level)

    def best_move(self, position: Position, dice: tuple[int, int], match: MatchState | None = None,
                  level: str | Level | Think = "expert") -> Any:
        if isinstance(level, Think):
            result = think_move(self.engine, position, dice, match, level, model=self.model)
            return ThoughtMove(result.decision.move, result.record_note(), result)
        return self.engine.best_move(position, dice, match, level)

    def cube_decision(self, position: Position, match: MatchState | None = None,
                      level: str | Level | Think = "expert") -> Any:
        if isinstance(level, Think):
            result = think_cube(self.engine, position, match, level, model=self.model)
            d = result.decision
            return ThoughtCube(bool(d.should_double), bool(d.should_take), result.record_note(), result)
        return self.engine.cube_decision(position, match, level)

    def resign_offer(self, position: Position, match: MatchState | None = None,
                     level: str | Level | Think = "expert", declined: int = 0) -> int:
        offer: int = self.engine.resign_offer(position, match, _fixed(level), declined)
        return offer

    def accept_resignation(self, position: Position, match: MatchState | None, level: str | Level | Think,
                           value: int) -> bool:
        accept: bool = self.engine.accept_resignation(position, match, _fixed(level), value)
        return accept


def _fixed(level: str | Level | Think) -> str | Level:
    """Resignations of a thinking-time level are judged at expert (gnubg's bots judge them at 0 ply)."""
    return "expert" if isinstance(level, Think) else level
