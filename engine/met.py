"""Match equity tables: gnubg's ``met/*.xml`` files, extended to 64 points as gnubg does.

A table holds, like gnubg, single-precision values:

* ``pre[i][j]``: player 0's match winning chance (MWC) before the Crawford game,
  player 0 needing ``i + 1`` points and player 1 needing ``j + 1``. Row/column 0
  is the Crawford game itself.
* ``post[p][i]``: after the Crawford game, the MWC of player ``p`` trailing and
  needing ``i + 1`` points while the other player is 1-away.

Extension (as gnubg extends a table to 64 points): the post-Crawford row keeps the file's
entries ``0 .. N-2`` (the last one is dropped, as gnubg does) and continues with
``pc[i] = 0.125 pc[i-4] + 0.375 pc[i-2]``; the pre-Crawford table beyond the file's
``N`` points uses gnubg's normal-distribution formula, then symmetry.

Lookups follow gnubg's ``getME``: a result that leaves someone 1-away, or any
result of the Crawford game or of a game where someone is already 1-away, is
read from the post-Crawford row.

>>> met = default_met()
>>> met.name
'Kazaross XG2 25 point MET'
>>> round(met.mwc_away(1, 2), 5), round(met.mwc_away(2, 1, post_crawford=True), 5)
(0.67736, 0.48803)
"""

from __future__ import annotations

import functools
import math
import os
import pathlib
from dataclasses import dataclass
from typing import TYPE_CHECKING

from engine.errors import DataFileError
from engine.native import MetTable
from engine.probabilities import f32

if TYPE_CHECKING:  # numpy and the XML parser load with the first table: money play needs neither
    import xml.etree.ElementTree as ET

    import numpy as np

MAX_SCORE = 64

# per-game standard deviations used by gnubg to extend a table (index = points needed)
_STDDEV = [0.0, 1.24, 1.27, 1.47, 1.50, 1.60, 1.61, 1.66, 1.68, 1.70, 1.72]
_STDDEV_REST = 1.77


def default_met_path() -> pathlib.Path:
    """Kazaross-XG2.xml, found by engine.data (explicit folder, ``FIBSBOT_DATA``,
    the ``gnubg`` package's data folder, Debian's gnubg-data)."""
    from engine.data import find_met

    return pathlib.Path(find_met())


@dataclass(frozen=True, eq=False)
class MatchEquityTable:
    """A 64-point match equity table (see the module doc)."""

    name: str
    description: str
    length: int  # points in the file (native size)
    pre: np.ndarray  # float32 [64, 64], player 0's MWC
    post: np.ndarray  # float32 [2, 64], trailer's MWC post-Crawford
    path: str = ""

    # ---- lookups (gnubg's getME) -------------------------------------------------

    def mwc_away(self, away0: int, away1: int, post_crawford: bool = False) -> float:
        """Player 0's MWC needing ``away0`` vs ``away1`` points (1-based)."""
        if away0 <= 0:
            return 1.0
        if away1 <= 0:
            return 0.0
        if post_crawford:
            if away0 == 1:
                return float(1.0 - self.post[1][away1 - 1])
            if away1 == 1:
                return float(self.post[0][away0 - 1])
        return float(self.pre[away0 - 1][away1 - 1])

    def mwc(self, score: tuple[int, int], length: int, player: int, points: int = 0,
            winner: int = 0, crawford: bool = False) -> float:
        """MWC of ``player`` after ``winner`` wins ``points`` from ``score`` (gnubg's getME)."""
        n0 = length - (score[0] + (points if winner == 0 else 0)) - 1
        n1 = length - (score[1] + (points if winner == 1 else 0)) - 1
        if n0 < 0:
            return 0.0 if player else 1.0
        if n1 < 0:
            return 1.0 if player else 0.0
        if crawford or length - score[0] == 1 or length - score[1] == 1:
            if n0 == 0:  # player 0 leads, player 1 trails
                v = float(self.post[1][n1])
                return v if player else f32(1.0 - v)
            v = float(self.post[0][n0])
            return f32(1.0 - v) if player else v
        v = float(self.pre[n0][n1])
        return f32(1.0 - v) if player else v

    # ---- C view -----------------------------------------------------------------

    def c_table(self) -> MetTable:
        """The table for the C engine (cached)."""
        cached: MetTable | None = self.__dict__.get("_c")
        if cached is None:
            cached = MetTable(self.pre, self.post)
            object.__setattr__(self, "_c", cached)
        return cached


# ---- parsing -------------------------------------------------------------------------


def _floats(row: ET.Element, path: str) -> list[float]:
    out = []
    for me in row.findall("me"):
        try:
            out.append(float((me.text or "").strip()))
        except ValueError:
            raise DataFileError(f"{path}: bad MET value {me.text!r}") from None
    return out


def _explicit_pre(elem: ET.Element, n: int, path: str) -> np.ndarray:
    import numpy as np

    rows = [_floats(r, path) for r in elem.findall("row")]
    if len(rows) < n or any(len(r) < n for r in rows[:n]):
        raise DataFileError(f"{path}: the pre-Crawford table is not {n} x {n}")
    table = np.zeros((MAX_SCORE, MAX_SCORE), dtype=np.float32)
    for i in range(n):
        for j in range(n):
            v = rows[i][j]
            if not 0.0 <= v <= 1.0:
                raise DataFileError(f"{path}: MET value {v} outside [0, 1]")
            table[i][j] = v
    return table


def _normal_area(lo: float, hi: float, mu: float, sigma: float) -> np.float32:
    from numpy import float32 as _f32

    # gnubg: float arguments, erf in double, float results
    t_lo = _f32((_f32(lo) - _f32(mu)) / _f32(sigma))
    t_hi = _f32((_f32(hi) - _f32(mu)) / _f32(sigma))
    i1 = _f32((math.erf(float(t_lo) / math.sqrt(2.0)) + 1.0) / 2.0)
    i2 = _f32((math.erf(float(t_hi) / math.sqrt(2.0)) + 1.0) / 2.0)
    return _f32(i2 - i1)


def _stddev(points: int) -> np.float32:
    from numpy import float32 as _f32

    return _f32(_STDDEV[points] if points <= 10 else _STDDEV_REST)


def _extend_pre(table: np.ndarray, n: int) -> None:
    """gnubg's extension of a pre-Crawford table from n to 64 points."""
    from numpy import float32 as _f32

    for i in range(n, MAX_SCORE):
        s0 = i + 1
        sd0 = _stddev(s0)
        for j in range(i + 1):
            s1 = j + 1
            sd1 = _stddev(s1)
            games = (s0 + s1) / 2.0
            sigma = _f32(math.sqrt(float(_f32(sd0 * sd0 + sd1 * sd1))) * math.sqrt(games))
            if float(_f32(6.0) * sigma) > s0 - s1:
                table[i][j] = _normal_area(s0 - s1, float(_f32(6.0) * sigma), 0.0, float(sigma))
            else:
                table[i][j] = 0.0
    for i in range(MAX_SCORE):
        for j in range(max(n, i + 1), MAX_SCORE):
            table[i][j] = _f32(1.0 - float(table[j][i]))


def _extend_post(row: np.ndarray, start: int, gammon_rate: float = 0.25,
                 free_drop2: float = 0.015, free_drop4: float = 0.004) -> None:
    from numpy import float32 as _f32

    g = _f32(gammon_rate)
    for i in range(start, MAX_SCORE):
        a = row[i - 4] if i >= 4 else _f32(1.0)
        b = row[i - 2] if i >= 2 else _f32(1.0)
        v = _f32(_f32(g * _f32(0.5)) * a) + _f32(_f32(_f32(1.0) - g) * _f32(0.5)) * b
        v = _f32(v)
        if i == 1:
            v = _f32(v - _f32(free_drop2))
        if i == 3:
            v = _f32(v - _f32(free_drop4))
        row[i] = v


def load_met(path: str | os.PathLike[str] | None = None) -> MatchEquityTable:
    """Read a gnubg MET file (default: Kazaross-XG2 from the data folder).

    Only explicit tables are supported (all the 25-point tables gnubg ships);
    a parametric (zadeh/mec) table raises DataFileError. A missing or corrupt
    file raises DataFileError naming the file.
    """
    import xml.etree.ElementTree as ET

    import numpy as np

    p = pathlib.Path(path) if path is not None else default_met_path()
    spath = str(p)
    try:
        root = ET.parse(p).getroot()
    except FileNotFoundError:
        raise DataFileError(f"{spath}: MET file not found") from None
    except (ET.ParseError, OSError) as exc:
        raise DataFileError(f"{spath}: cannot read MET file: {exc}") from None
    if root.tag != "met":
        raise DataFileError(f"{spath}: not a match equity table (root element <{root.tag}>)")
    info = root.find("info")
    name = (info.findtext("name") or "").strip() if info is not None else ""
    desc = " ".join((info.findtext("description") or "").split()) if info is not None else ""
    try:
        n = int((info.findtext("length") or "").strip()) if info is not None else -1
    except ValueError:
        raise DataFileError(f"{spath}: bad <length> in the MET file") from None
    pre_el = root.find("pre-crawford-table")
    posts = root.findall("post-crawford-table")
    if pre_el is None or not posts:
        raise DataFileError(f"{spath}: MET file lacks a pre- or post-Crawford table")
    for el in [pre_el, *posts]:
        if el.get("type", "explicit") != "explicit":
            raise DataFileError(f"{spath}: parametric ({el.get('type')}) tables are not supported")
    if not 1 <= n <= MAX_SCORE:
        raise DataFileError(f"{spath}: MET length {n} outside 1..{MAX_SCORE}")
    pre = _explicit_pre(pre_el, n, spath)
    _extend_pre(pre, n)
    post = np.zeros((2, MAX_SCORE), dtype=np.float32)
    filled = [False, False]
    for el in posts:
        who = el.get("player", "both")
        players = {"both": (0, 1), "0": (0,), "1": (1,)}.get(who)
        if players is None:
            raise DataFileError(f"{spath}: bad post-Crawford player={who!r}")
        row_el = el.find("row")
        values = _floats(row_el, spath) if row_el is not None else []
        if len(values) < n:
            raise DataFileError(f"{spath}: the post-Crawford row has {len(values)} values, need {n}")
        for pl in players:
            for i in range(n - 1):  # gnubg ignores the file's last entry
                post[pl][i] = values[i]
            _extend_post(post[pl], n - 1)
            filled[pl] = True
    if not all(filled):
        raise DataFileError(f"{spath}: post-Crawford tables for both players are needed")
    return MatchEquityTable(name=name, description=desc, length=n, pre=pre, post=post, path=spath)


@functools.cache
def met_at(path: str) -> MatchEquityTable:
    """The table in ``path``, loaded once per process (C cube code keeps pointers into it)."""
    return load_met(path)


def default_met() -> MatchEquityTable:
    """The default table (Kazaross-XG2 from the data folder), loaded once."""
    return met_at(str(default_met_path()))
