"""The engine's narrow exception hierarchy."""


class BoardParseError(ValueError):
    """A board, position ID, match ID or board line that cannot be read."""


class IllegalMoveError(ValueError):
    """A move that cannot be parsed or is not legal in the position."""


class RecordParseError(ValueError):
    """A match record (.sgf, .mat) that cannot be read."""


class DataFileError(OSError):
    """A weights, bearoff or MET file that is missing or corrupt."""


class EngineError(RuntimeError):
    """The engine failed (a C call reported an error)."""


class SearchCancelled(EngineError):
    """A search stopped by its cancel flag (engine.search.Cancel) before it finished: no result."""
