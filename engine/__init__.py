"""fibsbot's backgammon engine: positions, moves, match state and gnubg-grade evaluation."""

from engine.errors import BoardParseError, DataFileError, EngineError, IllegalMoveError, RecordParseError
from engine.evaluator import Engine, PositionClass
from engine.match import MatchState
from engine.position import Move, Position, Step
from engine.probabilities import Probabilities

__all__ = [
    "BoardParseError",
    "DataFileError",
    "Engine",
    "EngineError",
    "IllegalMoveError",
    "MatchState",
    "Move",
    "Position",
    "PositionClass",
    "Probabilities",
    "RecordParseError",
    "Step",
]
