"""Evaluation noise of gnubg's weaker levels (deterministic, from an MD5 of the board), a thin
face on csrc/noise.c.

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

from engine import native
from engine.levels import EvalSettings

Board = Sequence[Sequence[int]]


def _flat(board: Board) -> list[int]:
    return [int(c) for row in board for c in row]


class NoiseRng:
    """gnubg's ISAAC generator (16 words); all seed words = ``seed`` (default: the clock, as gnubg)."""

    def __init__(self, seed: int | None = None) -> None:
        self.state = native.IsaacState(int(time.time()) if seed is None else seed)

    def next_u32(self) -> int:
        return self.state.next_u32()

    def deviate(self) -> float:
        """One standard normal deviate (Marsaglia's polar method, as gnubg)."""
        return native.noise_deviate(None, 0, False, False, self.state)


def noise_deviates(board: Board, *, deterministic: bool = True, centred: bool = False,
                   rng: NoiseRng | None = None) -> list[float]:
    """The five deviates z_i gnubg adds (times noise and k_i) to a leaf's outputs."""
    if not deterministic and rng is None:
        raise ValueError("random noise needs a NoiseRng")
    flat = _flat(board)
    state = rng.state if rng is not None else None
    return [native.noise_deviate(flat, i, deterministic, centred, state) for i in range(5)]


def apply_noise(outputs: Sequence[float], board: Board, position_class: int, settings: EvalSettings,
                *, engine: native.EngineHandle | None = None, rng: NoiseRng | None = None,
                cubeful: bool = False) -> list[float]:
    """Leaf outputs with ``settings``' noise as gnubg applies it.

    ``outputs`` are what gnubg adds the noise to: the raw net outputs for a
    cubeless evaluation, the sanity-checked ones for a cubeful one (``cubeful``);
    the sanity check is re-run after the noise when ``engine`` (an engine's
    ``native.EngineHandle``) is given.
    """
    if not settings.deterministic and rng is None:
        rng = NoiseRng(settings.seed)
    return native.noise_apply(engine, _flat(board), position_class, cubeful, settings,
                              rng.state if rng is not None else None, outputs)
