"""Playing strength as a FIBS rating: a continuous knob, and the calibration table that maps it.

A :class:`Setting` is a point on the strength scale: 0-ply with deterministic
noise ``noise`` on chequer play and cube decisions together (gnubg's levels
Expert ... Beginner are noise 0 ... 0.06; the knob runs on to ~0.1), or one of
gnubg's n-ply levels above Expert (2-ply = World class, 3 = Grandmaster, 4 =
4ply). The shipped :class:`StrengthTable` (``engine/strength_table.json``,
made by ``fibsbot calibrate``) gives calibrated settings their FIBS rating and
error rate with 95% intervals; between two 0-ply rows it interpolates
linearly in the noise, in both directions (setting -> rating, rating -> setting).

The two formulas that tie a rating to play (both used by gnubg's analysis):

* the FIBS formula: a player rated ``D`` points higher wins an ``N``-point
  match with probability ``1 / (1 + 10^(-D sqrt(N) / 2000))``;
* the error-based absolute rating ``2050 - (EPM (8798 + 25526/N) + EPC (863 - 519/N))``
  (:func:`engine.analysis.rates.abs_fibs_rating`).

>>> round(fibs_win_probability(100, 5), 4)
0.564
>>> round(fibs_rating_difference(fibs_win_probability(100, 5), 5), 6)
100.0
>>> Setting(noise=0.04).name, Setting(plies=2).name
('noise-0.0400', 'world class')
"""

from __future__ import annotations

import functools
import itertools
import json
import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any

from engine.errors import DataFileError
from engine.levels import Level
from engine.levels import level as named_level

TABLE_FILE = "strength_table.json"
MAX_NOISE = 0.2  # beyond this a 0-ply bot is hardly playing backgammon
PLY_LEVELS = {2: "world class", 3: "grandmaster", 4: "4ply"}  # the n-ply settings above Expert


# ---- the FIBS formula ------------------------------------------------------------------------

def fibs_win_probability(difference: float, length: int) -> float:
    """The FIBS formula: the chance that a player rated ``difference`` higher wins
    an ``length``-point match.

    >>> fibs_win_probability(0, 7), round(fibs_win_probability(-200, 1), 4)
    (0.5, 0.4427)
    """
    if length < 1:
        raise ValueError("the FIBS formula needs a match length of at least 1")
    return 1.0 / (1.0 + math.pow(10.0, -difference * math.sqrt(length) / 2000.0))


def fibs_rating_difference(win_probability: float, length: int) -> float:
    """The inverse of :func:`fibs_win_probability`: the rating difference that
    wins ``length``-point matches with ``win_probability`` (strictly in (0, 1)).

    >>> round(fibs_rating_difference(0.75, 9), 1)
    318.1
    """
    if length < 1:
        raise ValueError("the FIBS formula needs a match length of at least 1")
    if not 0.0 < win_probability < 1.0:
        raise ValueError(f"a win probability strictly between 0 and 1 is needed, got {win_probability!r}")
    return -2000.0 / math.sqrt(length) * math.log10(1.0 / win_probability - 1.0)


# ---- settings --------------------------------------------------------------------------------

@dataclass(frozen=True, order=True)
class Setting:
    """One point of the strength scale: ``plies`` 0 with ``noise`` (0..MAX_NOISE), or an
    n-ply level above Expert (``plies`` 2, 3 or 4, no noise)."""

    plies: int = 0
    noise: float = 0.0

    def __post_init__(self) -> None:
        if self.plies != 0 and self.plies not in PLY_LEVELS:
            raise ValueError(f"plies must be 0 (with noise) or one of {sorted(PLY_LEVELS)}, got {self.plies!r}")
        noise = float(self.noise)
        if not 0.0 <= noise <= MAX_NOISE:
            raise ValueError(f"noise must be in [0, {MAX_NOISE}], got {self.noise!r}")
        if self.plies and noise:
            raise ValueError("noise applies to 0-ply settings only (the n-ply settings are gnubg's levels)")
        object.__setattr__(self, "noise", round(noise, 6))

    @property
    def name(self) -> str:
        """``expert``, ``noise-0.0400``, or the n-ply level's name (usable as a player name)."""
        if self.plies:
            return PLY_LEVELS[self.plies]
        return "expert" if self.noise == 0.0 else f"noise-{self.noise:.4f}"

    def level(self, name: str | None = None) -> Level:
        """The engine level: Expert with ``noise`` on both contexts, or the n-ply level."""
        if self.plies:
            base = named_level(PLY_LEVELS[self.plies])
            return base if name is None else Level(name, base.label, base.checker, base.cube)
        base = named_level("expert")
        label = "expert" if self.noise == 0.0 else f"0-ply noise {self.noise:g}"
        return Level(name or self.name, label, base.checker.with_(noise=self.noise),
                     base.cube.with_(noise=self.noise))


# ---- the calibration table -----------------------------------------------------------------

@dataclass(frozen=True)
class Strength:
    """A setting with its expected FIBS rating and error rate (mEMG per decision), 95% intervals."""

    setting: Setting
    rating: float
    low: float
    high: float
    error_rate: float
    error_rate_low: float
    error_rate_high: float

    def describe(self) -> str:
        where = (f"0-ply noise {self.setting.noise:.4f}" if not self.setting.plies
                 else f"{self.setting.name} ({self.setting.plies}-ply)")
        return (f"{where}: expected FIBS rating {self.rating:.0f} (95% {self.low:.0f}..{self.high:.0f}), "
                f"error rate {self.error_rate:.1f} mEMG per decision")


@dataclass(frozen=True)
class StrengthTable:
    """Calibrated settings (``rows``) and how they were made; ``data`` is the whole file."""

    rows: tuple[Strength, ...]
    command: str
    seed: int
    data: Mapping[str, Any] = field(repr=False, compare=False)

    @classmethod
    def from_dict(cls, data: Any, source: str = "strength table") -> StrengthTable:
        """Read a table; DataFileError names ``source`` and what is wrong."""
        try:
            rows = tuple(_row(entry) for entry in data["settings"])
            command, seed = str(data["command"]), int(data["seed"])
        except (KeyError, TypeError, ValueError) as exc:
            raise DataFileError(f"{source}: not a strength table ({type(exc).__name__}: {exc})") from None
        if not rows:
            raise DataFileError(f"{source}: a strength table needs at least one setting")
        if len({r.setting for r in rows}) != len(rows):
            raise DataFileError(f"{source}: a setting appears twice")
        return cls(tuple(sorted(rows, key=lambda r: r.setting)), command, seed, data)

    @classmethod
    def load(cls, path: str | Path | None = None) -> StrengthTable:
        """The table at ``path``, or the one shipped with the package."""
        try:
            if path is None:
                text = resources.files("engine").joinpath(TABLE_FILE).read_text(encoding="utf-8")
                path = TABLE_FILE
            else:
                text = Path(path).read_text(encoding="utf-8")
            data = json.loads(text)
        except (OSError, ValueError) as exc:
            raise DataFileError(f"{path}: cannot read the strength table: {exc}") from None
        return cls.from_dict(data, str(path))

    def show(self) -> dict[str, Any]:
        """The table as ``fibsbot calibrate --show --json`` prints it."""
        return {"settings": [{"noise": r.setting.noise, "plies": r.setting.plies, "rating": r.rating,
                              "low": r.low, "high": r.high} for r in self.rows],
                "command": self.command, "seed": self.seed}

    @property
    def noisy(self) -> tuple[Strength, ...]:
        """The 0-ply rows, from noise 0 up (the continuous part of the scale)."""
        return tuple(r for r in self.rows if not r.setting.plies)

    def coverage(self) -> str:
        """The ratings the table reaches, in words (for error messages)."""
        parts = []
        noisy = self.noisy
        if len(noisy) > 1:
            ratings = [r.rating for r in noisy]
            parts.append(f"{min(ratings):.0f}..{max(ratings):.0f} (0-ply noise {noisy[0].setting.noise:g}.."
                         f"{noisy[-1].setting.noise:g})")
        parts += [f"{r.low:.0f}..{r.high:.0f} ({r.setting.name})" for r in self.rows
                  if r.setting.plies or len(noisy) == 1]
        return ", ".join(parts)

    def at(self, setting: Setting) -> Strength:
        """A setting's expected rating and error rate: a calibrated row, or interpolated
        between the two 0-ply rows around its noise."""
        for row in self.rows:
            if row.setting == setting:
                return row
        noisy = self.noisy
        if setting.plies or not noisy or not noisy[0].setting.noise <= setting.noise <= noisy[-1].setting.noise:
            raise ValueError(f"{setting.name} is outside the calibrated settings "
                             f"({', '.join(r.setting.name for r in self.rows)})")
        for a, b in itertools.pairwise(noisy):
            if a.setting.noise <= setting.noise <= b.setting.noise:
                return _between(a, b, (setting.noise - a.setting.noise) / (b.setting.noise - a.setting.noise),
                                setting)
        raise AssertionError("unreachable: the noise lies between two rows")

    def for_rating(self, target: float) -> Strength:
        """The setting expected to play at FIBS rating ``target``: interpolated on the
        0-ply part (the least noise that reaches it), else an n-ply row whose 95%
        interval holds it. ValueError names the covered ranges otherwise."""
        if not math.isfinite(target):
            raise ValueError(f"a FIBS rating must be a number, got {target!r}")
        noisy = self.noisy
        for a, b in itertools.pairwise(noisy):
            if min(a.rating, b.rating) <= target <= max(a.rating, b.rating):
                if a.rating == b.rating:
                    return a
                t = (target - a.rating) / (b.rating - a.rating)
                noise = a.setting.noise + t * (b.setting.noise - a.setting.noise)
                return _between(a, b, t, Setting(noise=noise))
        near = [r for r in self.rows if r.low <= target <= r.high]
        if near:
            return min(near, key=lambda r: abs(r.rating - target))
        raise ValueError(f"FIBS rating {target:g} is outside what the strength table covers: {self.coverage()}")


@functools.cache
def shipped_table() -> StrengthTable:
    """The table shipped with the package (read once)."""
    return StrengthTable.load()


def strength_for_rating(rating: float) -> Strength:
    """The shipped table's setting for a FIBS rating: the one rule from a rating to
    play. ValueError names the covered range, or what is wrong with the table."""
    try:
        return shipped_table().for_rating(rating)
    except DataFileError as exc:
        raise ValueError(str(exc)) from None


def level_for_rating(rating: float, name: str | None = None) -> Level:
    """The level that plays at a FIBS rating (:func:`strength_for_rating`)."""
    return strength_for_rating(rating).setting.level(name)


def _row(entry: Mapping[str, Any]) -> Strength:
    setting = Setting(plies=int(entry["plies"]), noise=float(entry["noise"]))
    numbers = [float(entry[k]) for k in ("rating", "low", "high", "error_rate_memg", "error_rate_low",
                                          "error_rate_high")]
    if not all(math.isfinite(v) for v in numbers):
        raise ValueError(f"{setting.name}: ratings and error rates must be finite numbers")
    if not numbers[1] <= numbers[0] <= numbers[2] or not numbers[4] <= numbers[3] <= numbers[5]:
        raise ValueError(f"{setting.name}: an estimate lies outside its interval")
    return Strength(setting, *numbers)


def _between(a: Strength, b: Strength, t: float, setting: Setting) -> Strength:
    """Linear interpolation of every estimate, ``t`` of the way from ``a`` to ``b``."""
    def mix(x: float, y: float) -> float:
        return x + t * (y - x)

    return Strength(setting, mix(a.rating, b.rating), mix(a.low, b.low), mix(a.high, b.high),
                    mix(a.error_rate, b.error_rate), mix(a.error_rate_low, b.error_rate_low),
                    mix(a.error_rate_high, b.error_rate_high))
