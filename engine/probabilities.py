"""The value every evaluation returns: cubeless outcome probabilities for the side on roll."""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

_F32 = np.float32


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
        w, wg, wbg, lg, lbg = (_F32(v) for v in self)
        return float((w * _F32(2) - _F32(1)) + (wg - lg) + (wbg - lbg))

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
