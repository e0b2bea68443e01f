"""fibsbot's backgammon engine: positions, moves, match state and gnubg-grade evaluation."""

from engine.errors import BoardParseError, DataFileError, EngineError, IllegalMoveError, RecordParseError
from engine.match import MatchState
from engine.position import Move, Position, Step

__all__ = [
    "BoardParseError",
    "DataFileError",
    "EngineError",
    "IllegalMoveError",
    "MatchState",
    "Move",
    "Position",
    "RecordParseError",
    "Step",
]
