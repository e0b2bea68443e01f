"""Boards as the C engine reads them: 50 checker-count bytes each (board[0] then board[1]),
from Positions, raw 2x25 boards or integer arrays, validated on the slow path."""

from __future__ import annotations

import sys
from collections.abc import Iterable
from itertools import chain
from typing import TYPE_CHECKING, Any, cast

from engine.position import Position

if TYPE_CHECKING:
    import numpy as np


def _slow_bytes(board: Any) -> bytes:
    """50 count bytes of a board given as lists, tuples or an array, validated."""
    import numpy as np

    try:
        rows = np.asarray(board)
        if rows.shape != (2, 25) and rows.shape != (50,):
            raise ValueError(f"a board is 2 rows of 25 counts, not shape {rows.shape}")
        if rows.dtype.kind not in "iu" or rows.min() < 0 or rows.max() > 15:
            raise ValueError("checker counts must be integers in 0..15")
    except (TypeError, ValueError) as exc:
        raise ValueError(f"bad board: {exc}") from None
    return rows.astype(np.uint8).tobytes()


def board_bytes(position: Any) -> bytes:
    """A position's board as 50 bytes (board[0] then board[1]), the C boundary format."""
    if type(position) is Position:
        return position._key or position.key  # a key carried from construction: no property call
    board = getattr(position, "board", position)
    try:
        key = bytes(board[0]) + bytes(board[1])
        if len(key) == 50:
            return key
    except (TypeError, ValueError, IndexError):
        pass
    return _slow_bytes(board)


def _array_bytes(positions: np.ndarray) -> tuple[bytes, int]:
    """An (N, 2, 25) or (N, 50) integer array as 50 bytes a board, validated."""
    import numpy as np

    if positions.ndim < 1 or positions.size % 50 or positions.shape[-1] not in (25, 50):
        raise ValueError(f"boards array must have shape (N, 2, 25) or (N, 50), not {positions.shape}")
    if positions.dtype.kind not in "iu":
        raise ValueError("boards array must hold integers")
    if positions.size and (positions.min() < 0 or positions.max() > 15):
        raise ValueError("checker counts must be in 0..15")
    return positions.astype(np.uint8, copy=False).tobytes(), positions.size // 50


def boards_bytes(positions: Iterable[Any] | np.ndarray) -> tuple[bytes, int]:
    """Positions (objects with ``.board``, raw 2x25 boards, or an (N, 2, 25) /
    (N, 50) integer array) as 50 bytes each; returns (bytes, N)."""
    numpy = sys.modules.get("numpy")  # an array exists only once numpy is imported
    if numpy is not None and isinstance(positions, numpy.ndarray):
        return _array_bytes(cast("np.ndarray", positions))
    if not isinstance(positions, list):
        positions = list(positions)
    try:  # Positions that carry their key (made from IDs, plays or keys): no Python per board
        data = b"".join([p._key for p in positions])
        if len(data) == 50 * len(positions) and set(map(type, positions)) <= {Position}:
            return data, len(positions)
    except (AttributeError, TypeError):
        pass
    if all(type(p) is Position for p in positions):
        return b"".join([p.key for p in positions]), len(positions)
    boards = [getattr(p, "board", p) for p in positions]
    try:
        data = b"".join(map(bytes, chain.from_iterable(boards)))
        if len(data) == 50 * len(boards) and all(len(b[0]) == 25 for b in boards):
            return data, len(boards)
    except (TypeError, ValueError, IndexError):
        pass
    return b"".join(_slow_bytes(b) for b in boards), len(boards)
