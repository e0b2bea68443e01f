"""The value every evaluation returns: cubeless outcome probabilities for the side on roll."""

from __future__ import annotations

import struct
from typing import NamedTuple

_F32 = struct.Struct("f")
_pack, _unpack = _F32.pack, _F32.unpack


def f32(x: float) -> float:
    """``x`` rounded to single precision (IEEE round to nearest even)."""
    return float(_unpack(_pack(x))[0])


class Probabilities(NamedTuple):
    """Cubeless outcome probabilities for the side on roll (gammons include
    backgammons). A frozen value (a named tuple: it unpacks in gnubg's order)."""

    win: float
    win_gammon: float
    win_backgammon: float
    lose_gammon: float
    lose_backgammon: float

    @property
    def lose(self) -> float:
        return 1.0 - self.win

    @property
    def equity(self) -> float:
        """Cubeless money equity, computed as gnubg does: in float32,
        ``(win*2 - 1) + (wg - lg) + (wbg - lbg)``."""
        # each float32 operation is the double result rounded once to float32: a
        # double holds the exact sum or product of two floats closely enough that the
        # second rounding cannot differ (Figueroa, "When is double rounding innocuous?", 1995)
        w, wg, wbg, lg, lbg = (f32(v) for v in self)
        return f32(f32(f32(w * 2.0 - 1.0) + f32(wg - lg)) + f32(wbg - lbg))

    def as_tuple(self) -> tuple[float, float, float, float, float]:
        return tuple(self)  # type: ignore[return-value]

    def inverted(self) -> Probabilities:
        """The same outcome seen by the other side."""
        return Probabilities(1.0 - self.win, self.lose_gammon, self.lose_backgammon,
                             self.win_gammon, self.win_backgammon)


class CubeEquities(NamedTuple):
    """No double, double/take, double/pass (normalised equity or EMG)."""

    nd: float
    dt: float
    dp: float
