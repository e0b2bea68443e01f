"""The engine's two compiled modules, bound together once.

``engine._core`` (cffi) is the C engine; ``engine._fast`` holds the Python API's
per-position calls as plain CPython functions, which call ``_core``'s functions
through the addresses handed over here (a cffi call with its arguments and
outputs costs as much as a 0-ply evaluation itself).
"""

from __future__ import annotations

from typing import Any

from engine import _fast
from engine._core import ffi, lib
from engine.cube import CubeEquities
from engine.probabilities import Probabilities


def address(cdata: Any) -> int:
    """A C pointer as the integer ``engine._fast`` takes (NULL: 0)."""
    return int(ffi.cast("uintptr_t", cdata))


def _function(name: str) -> int:
    return address(ffi.addressof(lib, name))


_fast.bind(_function("bg_boards8_from_position_ids"), _function("bg_evaluate_many8"),
           _function("bg_cube_decide8"), _function("bg_best_move8"), Probabilities, CubeEquities,
           ffi.sizeof("bg_move"))

key_from_id = _fast.key_from_id
evaluate = _fast.evaluate
cube = _fast.cube
best = _fast.best
