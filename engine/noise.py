"""Evaluation noise of gnubg's weaker levels (gnubg-play-spec section 2), a thin face on csrc/noise.c.

The search applies noise in C at its leaves; these helpers serve tests and tools.

>>> from engine.position import Position, Move
>>> after = Position.initial().play(Move.parse("24/15")).swap()   # opening 63 played 24/15
>>> [round(z, 3) for z in noise_deviates(after.board)]            # gnubg on x86
[-7.723, -5.348, -6.34, -4.787, -7.023]
>>> [round(z, 3) for z in noise_deviates(after.board, centred=True)]
[1.803, -0.152, -0.277, -0.457, -0.095]
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import Any

from engine._core import ffi, lib
from engine.levels import EvalSettings

Board = Sequence[Sequence[int]]


def _flat(board: Board) -> Any:
    return ffi.new("unsigned int[50]", [int(c) for row in board for c in row])


class NoiseRng:
    """gnubg's ISAAC generator (16 words); all seed words = ``seed`` (default: the clock, as gnubg)."""

    def __init__(self, seed: int | None = None) -> None:
        self.state = ffi.new("bg_isaac *")
        lib.bg_isaac_seed(self.state, int(time.time()) & 0xFFFFFFFF if seed is None else seed & 0xFFFFFFFF)

    def next_u32(self) -> int:
        return int(lib.bg_isaac_next(self.state))

    def deviate(self) -> float:
        """One standard normal deviate (Marsaglia's polar method, as gnubg)."""
        return float(lib.bg_noise_deviate(ffi.NULL, 0, 0, 0, self.state))


def noise_deviates(board: Board, *, deterministic: bool = True, centred: bool = False,
                   rng: NoiseRng | None = None) -> list[float]:
    """The five deviates z_i gnubg adds (times noise and k_i) to a leaf's outputs."""
    if not deterministic and rng is None:
        raise ValueError("random noise needs a NoiseRng")
    flat = _flat(board)
    state = rng.state if rng is not None else ffi.NULL
    return [lib.bg_noise_deviate(flat, i, int(deterministic), int(centred), state) for i in range(5)]


def apply_noise(outputs: Sequence[float], board: Board, position_class: int, settings: EvalSettings,
                *, engine: Any = None, rng: NoiseRng | None = None, cubeful: bool = False) -> list[float]:
    """Leaf outputs with ``settings``' noise as gnubg applies it.

    ``outputs`` are what gnubg adds the noise to: the raw net outputs for a
    cubeless evaluation, the sanity-checked ones for a cubeful one (``cubeful``);
    the sanity check is re-run after the noise when ``engine`` (a ``bg_engine *``)
    is given.
    """
    out = ffi.new("float[5]", list(outputs))
    if not settings.deterministic and rng is None:
        rng = NoiseRng(settings.seed)
    rc = lib.bg_noise_apply(engine if engine is not None else ffi.NULL, _flat(board), position_class,
                            int(cubeful), settings.noise, int(settings.deterministic),
                            int(settings.noise_centred), rng.state if rng is not None else ffi.NULL, out)
    if rc < 0:
        raise ValueError("random noise needs a generator")
    return list(out)
