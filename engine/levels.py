"""gnubg's playing levels, move filters and evaluation settings (the presets of gnubg's
"Settings > Evaluation" and ``set evaluation`` commands, gnubg's manual).

Plies use **gnubg's numbering**: 0-ply is the raw neural net (a static
evaluation), 1-ply averages the 21 replies evaluated at 0-ply, 2-ply looks one
more roll ahead, and so on (XG and bgsage call gnubg's 0-ply "1-ply").

>>> lv = level("World Class")
>>> lv.name, lv.checker.plies, lv.checker.move_filter, lv.checker.prune
('world class', 2, 'normal', True)
>>> level("beginner").checker.noise
0.06
>>> level("worldclass").cube == level("supremo").cube
True
>>> MOVE_FILTERS["large"][2]
((0, 16, 0.32), (-1, 0, 0.0), (0, 4, 0.08))
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from typing import Any

# ---- move filters ---------------------------------------------------------------------

FilterEntry = tuple[int, int, float]  # (accept, extra, threshold); accept -1 = skip that ply
FilterTable = tuple[tuple[FilterEntry, ...], ...]  # row n-1 for an n-ply evaluation, k entries

_SKIP: FilterEntry = (-1, 0, 0.0)

DEFAULT_TRIALS = 1296  # gnubg's default rollout length (36 x 36 quasi-random first rolls)


def _filter(first: FilterEntry, third: FilterEntry) -> FilterTable:
    return ((first,), (first, _SKIP), (first, _SKIP, third), (first, _SKIP, third, _SKIP))


MOVE_FILTERS: dict[str, FilterTable] = {
    "tiny": _filter((0, 5, 0.08), (0, 2, 0.02)),
    "narrow": _filter((0, 8, 0.12), (0, 2, 0.03)),
    "normal": _filter((0, 8, 0.16), (0, 2, 0.04)),
    "large": _filter((0, 16, 0.32), (0, 4, 0.08)),
    "huge": _filter((0, 20, 0.44), (0, 6, 0.11)),
}
"""gnubg's five predefined move-filter sets (read from gnubg 1.07's binary).
``table[n-1][k]`` filters the moves after scoring them at ply ``k`` of an
``n``-ply evaluation: keep the first ``accept``, then up to ``extra`` more within
``threshold`` (normalised equity) of the best; ``accept = -1`` skips ply ``k``."""

FILTER_NAMES = tuple(MOVE_FILTERS)


def _check_filter(table: Iterable[Iterable[Iterable[float]]]) -> FilterTable:
    try:
        rows = tuple(tuple((int(a), int(e), float(t)) for a, e, t in row) for row in table)
    except (TypeError, ValueError):
        raise ValueError("a move filter is a name or rows of (accept, extra, threshold)") from None
    if len(rows) != 4 or any(len(row) != n + 1 for n, row in enumerate(rows)):
        raise ValueError("a move-filter table has 4 rows of 1, 2, 3, 4 (accept, extra, threshold) entries")
    for row in rows:
        for a, e, t in row:
            if a < -1 or e < 0 or t < 0:
                raise ValueError(f"bad move-filter entry {(a, e, t)}")
    return rows


# ---- evaluation settings -----------------------------------------------------------------

EFFICIENCY_SETS = ("gnubg-1.07", "gnubg-1.1")
"""Cube-efficiency parameter sets: gnubg 1.07 (one set:
contact/crashed 0.68, race 0.55 + 0.00125 pips in [0.6, 0.7]) and gnubg 1.1
(the `gnubg` PyPI package), which keeps those for 2+ ply contexts and uses
contact/crashed 0.76, race 0.6 + 0.0025 pips in [0.6, 0.8] for 0-1 ply ones
(the rule: :func:`engine.native.low_ply_efficiency`)."""


FLAVOURS = ("gnubg-1.07", "gnubg-1.1")
"""Which gnubg to emulate where versions differ. "gnubg-1.07" (the x86 builds
long seen on FIBS): deterministic noise with gnubg's signed-char bias, one
cube-efficiency set, and its ranking of plays that score the same: the first
generated wins, the dice taken in the order given (1.08 on prefers bearing off
more chequers, then a lower rearmost chequer). "gnubg-1.1" (the `gnubg` PyPI package): centred
deterministic noise, 0-1 ply cube efficiencies of its own. The default (no
flavour) pairs the weights we ship (gnubg >= 1.08's) with gnubg 1.1's cube
efficiencies, and keeps the x86 noise bias that rated gnubg bots show."""

MoveFilter = str | FilterTable | None


@dataclass(frozen=True)
class EvalSettings:
    """One evaluation context (gnubg's evalcontext plus our own switches).

    * ``plies``: 0..4, gnubg numbering (0 = the raw net).
    * ``move_filter``: a name from :data:`MOVE_FILTERS`, an explicit 4-row table,
      or None (0-ply play and cube decisions use none).
    * ``noise``: standard deviation added to leaf evaluations (0 = none).
    * ``deterministic``: noise from an MD5 of the position (gnubg's levels) rather
      than from a random generator seeded with ``seed`` (None = from the clock).
    * ``noise_centred``: unbiased deterministic noise; gnubg's x86 builds sum the
      hash bytes as signed chars, which shifts every noisy leaf down by ~6.9 σ
      (False reproduces that).
    * ``prune``: pruning nets inside the search (gnubg disables them with noise).
    * ``cubeful``: cubeful move scores; ``threads``: search threads.
    * ``efficiency_set``: cube-efficiency parameters, see :data:`EFFICIENCY_SETS`.
    """

    plies: int = 0
    move_filter: MoveFilter = None
    noise: float = 0.0
    deterministic: bool = True
    seed: int | None = None
    noise_centred: bool = False
    prune: bool = False
    cubeful: bool = True
    threads: int = 1
    efficiency_set: str = "gnubg-1.1"

    def __post_init__(self) -> None:
        if not isinstance(self.plies, int) or not 0 <= self.plies <= 4:
            raise ValueError(f"plies must be 0..4 (gnubg numbering), got {self.plies!r}")
        if isinstance(self.move_filter, str):
            name = self.move_filter.strip().lower()
            if name not in MOVE_FILTERS:
                raise ValueError(f"unknown move filter {self.move_filter!r}; valid: {', '.join(FILTER_NAMES)}")
            object.__setattr__(self, "move_filter", name)
        elif self.move_filter is not None:
            object.__setattr__(self, "move_filter", _check_filter(self.move_filter))
        if not 0.0 <= float(self.noise) <= 1.0:
            raise ValueError(f"noise must be in [0, 1], got {self.noise!r}")
        object.__setattr__(self, "noise", float(self.noise))
        if self.threads < 1:
            raise ValueError("threads must be at least 1")
        if self.seed is not None and not 0 <= self.seed < 2**32:
            raise ValueError("seed must fit in 32 bits")
        if self.efficiency_set not in EFFICIENCY_SETS:
            raise ValueError(f"unknown efficiency set {self.efficiency_set!r}; valid: {', '.join(EFFICIENCY_SETS)}")

    @property
    def filter_table(self) -> FilterTable:
        """The move filter as a table (Normal when none is set, as gnubg's default)."""
        if self.move_filter is None:
            return MOVE_FILTERS["normal"]
        if isinstance(self.move_filter, str):
            return MOVE_FILTERS[self.move_filter]
        return self.move_filter

    @property
    def uses_pruning(self) -> bool:
        """Pruning is effective only with plies > 0 and no noise (gnubg prunes only then)."""
        return self.prune and self.plies > 0 and self.noise == 0.0

    def with_(self, **changes: object) -> EvalSettings:
        return replace(self, **changes)  # type: ignore[arg-type]

    def with_flavour(self, flavour: str) -> EvalSettings:
        """The same context emulating another gnubg (see :data:`FLAVOURS`)."""
        if flavour not in FLAVOURS:
            raise ValueError(f"unknown flavour {flavour!r}; valid: {', '.join(FLAVOURS)}")
        modern = flavour == "gnubg-1.1"
        return replace(self, noise_centred=modern, efficiency_set=flavour)

    def same_context(self, other: EvalSettings) -> bool:
        """gnubg's comparison of contexts: prune ignored at 0 plies, determinism without noise."""
        def key(s: EvalSettings) -> tuple[int, bool, float, bool | None, bool | None]:
            return (s.plies, s.cubeful, s.noise, s.prune if s.plies else None,
                    s.deterministic if s.noise else None)
        return key(self) == key(other)


@dataclass(frozen=True)
class Level:
    """A gnubg playing level: chequer-play and cube-decision contexts."""

    name: str
    label: str  # gnubg's label, as printed after hints
    checker: EvalSettings
    cube: EvalSettings = field(repr=False)

    def with_flavour(self, flavour: str) -> Level:
        return replace(self, checker=self.checker.with_flavour(flavour), cube=self.cube.with_flavour(flavour))


# (name, gnubg label, plies, prune, noise, filter) in gnubg's order (aecSettings)
_LEVELS = (
    ("beginner", "beginner", 0, False, 0.060, None),
    ("casual", "casual play", 0, False, 0.050, None),
    ("intermediate", "intermediate", 0, False, 0.040, None),
    ("advanced", "advanced", 0, False, 0.015, None),
    ("expert", "expert", 0, False, 0.0, None),
    ("world class", "world class", 2, True, 0.0, "normal"),
    ("supremo", "supremo", 2, True, 0.0, "large"),
    ("grandmaster", "grandmaster", 3, True, 0.0, "large"),
    ("4ply", "4ply", 4, True, 0.0, "large"),
)


def _make(name: str, label: str, plies: int, prune: bool, noise: float, mf: str | None) -> Level:
    checker = EvalSettings(plies=plies, move_filter=mf, noise=noise, deterministic=True,
                           prune=prune, cubeful=True)
    return Level(name=name, label=label, checker=checker, cube=checker.with_(move_filter=None))


LEVELS: dict[str, Level] = {row[0]: _make(*row) for row in _LEVELS}
LEVEL_NAMES = tuple(LEVELS)

_ALIASES = {"worldclass": "world class", "world_class": "world class", "world-class": "world class",
            "casual play": "casual", "casual_play": "casual", "four ply": "4ply", "4-ply": "4ply"}


def level(name: str, flavour: str | None = None) -> Level:
    """The level called ``name`` (case-insensitive; ``worldclass``/``world_class`` accepted).

    ``flavour`` picks the gnubg whose noise and cube efficiencies to emulate
    (see :data:`FLAVOURS`). Raises ValueError listing the valid names.
    """
    key = " ".join(str(name).strip().lower().split())
    key = _ALIASES.get(key, key)
    if key not in LEVELS:
        raise ValueError(f"unknown level {name!r}; valid levels: {', '.join(LEVEL_NAMES)}")
    lv = LEVELS[key]
    return lv if flavour is None else lv.with_flavour(flavour)


# ---- thinking-time levels (engine/think.py plays them) ---------------------------------------

THINK_MODES = ("time", "nodes")
"""``time``: a budget in seconds per decision (wall clock unless a clock is
given); ``nodes``: a budget in search nodes, deterministic (tests, benchmarks)."""


@dataclass(frozen=True)
class Settle:
    """A thinking level's last step (engine/think_rollout.py): the close plays
    of the deepest search rolled out in the time left, the rollout's choice
    kept where it leads the search's by ``switch_se`` standard errors.

    ``window``: plays within this equity of the best are rolled out, at most
    ``plays`` of them; ``truncate``: half-moves per trial before the 0-ply
    evaluation (None: to the end of the game); ``chunk``: trials between
    looks at the clock; ``min_trials``: fewer trials never change the choice;
    ``cubes``: cube decisions within the window are rolled out too.
    """

    window: float = 0.06
    plays: int = 3
    truncate: int | None = 3
    variance_reduction: bool = True
    chunk: int = 6
    min_trials: int = 12
    switch_se: float = 0.0
    max_trials: int = 1296
    cubes: bool = False

    def __post_init__(self) -> None:
        if not self.window > 0 or not 2 <= self.plays <= 16 or self.chunk < 1 or self.min_trials < 1:
            raise ValueError("settle: window > 0, 2..16 plays, chunk and min_trials >= 1")
        if self.truncate is not None and self.truncate < 1:
            raise ValueError("settle: truncate is a positive number of half-moves or None")
        if not self.switch_se >= 0 or self.max_trials < self.min_trials:
            raise ValueError("settle: switch_se >= 0 and max_trials >= min_trials")


@dataclass(frozen=True)
class Think:
    """A level given as a thinking budget per decision (engine/think.py).

    The engine plays the deepest gnubg-numbered search (0..``max_plies``, each
    with ``move_filter``) whose predicted cost fits ``budget``: seconds in
    ``mode="time"`` (never more than ``budget * (1 + margin)``), search nodes
    in ``mode="nodes"``. ``cube_plies`` caps the cube decisions' depth.
    """

    budget: float
    mode: str = "time"
    move_filter: MoveFilter = "normal"
    max_plies: int = 4
    cube_plies: int = 3
    margin: float = 0.10
    name: str = ""
    settle: Settle | None = None

    def __post_init__(self) -> None:
        if self.mode not in THINK_MODES:
            raise ValueError(f"unknown think mode {self.mode!r}; valid: {', '.join(THINK_MODES)}")
        budget = float(self.budget)
        if not budget > 0 or budget != budget or budget == float("inf"):
            raise ValueError(f"a think budget is a positive number, got {self.budget!r}")
        object.__setattr__(self, "budget", budget)
        if not 0 <= self.max_plies <= 4 or not 0 <= self.cube_plies <= 4:
            raise ValueError("think plies are 0..4 (gnubg numbering)")
        if not 0.0 <= self.margin <= 1.0:
            raise ValueError(f"think margin must be in [0, 1], got {self.margin!r}")
        EvalSettings(move_filter=self.move_filter)  # validates the filter

    @property
    def label(self) -> str:
        unit = "s" if self.mode == "time" else " nodes"
        return self.name or f"think {self.budget:g}{unit}"

    def checker(self, plies: int) -> EvalSettings:
        """The chequer-play context searched at ``plies`` (gnubg's World class switches)."""
        return EvalSettings(plies=plies, move_filter=self.move_filter, prune=plies > 0, cubeful=True)

    def cube(self, plies: int) -> EvalSettings:
        return EvalSettings(plies=plies, prune=plies > 0, cubeful=True)


THINK_LEVELS: dict[str, Think] = {
    # gnubg World class's mean CPU time per decision on the development machine
    # (47-60 ms, the gnubg package on one thread): World class's own search, then
    # the close plays and cube decisions rolled out in the time left (3-ply
    # trials, variance reduction), chosen by the equal-time benchmark (README
    # "Think-time levels")
    "fibsbot strong": Think(budget=0.06, move_filter="normal", max_plies=2, cube_plies=2, settle=Settle(cubes=True),
                            name="fibsbot strong"),
}
"""Named thinking-time levels (README "Think-time levels" says how each was chosen)."""


def think_level(spec: Any) -> Think:
    """A :class:`Think` from a Think, a named think level, a number of seconds or a
    mapping such as ``{"think": 1.5}`` / ``{"think": 20000, "think_mode": "nodes",
    "filter": "large"}``. Raises ValueError on anything else.

    >>> think_level({"think": 1.5}).label, think_level("Fibsbot  Strong").budget
    ('think 1.5s', 0.06)
    """
    if isinstance(spec, Think):
        return spec
    if isinstance(spec, str):
        key = " ".join(spec.strip().lower().split())
        if key in THINK_LEVELS:
            return THINK_LEVELS[key]
        raise ValueError(f"unknown think level {spec!r}; valid: {', '.join(THINK_LEVELS)}")
    if isinstance(spec, (int, float)) and not isinstance(spec, bool):
        return Think(budget=float(spec))
    if isinstance(spec, dict):
        known = {"think", "think_mode", "mode", "filter", "move_filter", "max_plies", "cube_plies", "margin", "name",
                 "rollout"}
        unknown = set(spec) - known
        if unknown or "think" not in spec:
            raise ValueError(f"a think level is {{think: SECONDS}} (optional: think_mode, filter, max_plies, "
                             f"cube_plies, margin), got {spec!r}")
        try:
            return Think(budget=float(spec["think"]), mode=str(spec.get("think_mode", spec.get("mode", "time"))),
                         move_filter=spec.get("filter", spec.get("move_filter", "normal")),
                         max_plies=int(spec.get("max_plies", 4)), cube_plies=int(spec.get("cube_plies", 3)),
                         margin=float(spec.get("margin", 0.10)), name=str(spec.get("name", "")),
                         settle=settle_spec(spec.get("rollout")))
        except (TypeError, ValueError) as exc:
            raise ValueError(f"bad think level {spec!r}: {exc}") from None
    raise ValueError(f"a think level is a name, seconds or {{think: SECONDS}}, not {type(spec).__name__}")


def settle_spec(spec: Any) -> Settle | None:
    """A thinking level's rollout step from bot.yaml's ``rollout:`` value: a
    mapping of :class:`Settle`'s fields, ``true`` (the defaults) or ``false``/absent."""
    if spec is None or spec is False:
        return None
    if spec is True:
        return Settle()
    if not isinstance(spec, dict) or set(spec) - set(Settle.__dataclass_fields__):
        raise ValueError(f"rollout: a mapping of {', '.join(Settle.__dataclass_fields__)}, or true; got {spec!r}")
    return Settle(**spec)


def is_think_level(spec: Any) -> bool:
    """Whether ``spec`` names or gives a thinking-time level (not a gnubg level)."""
    if isinstance(spec, (Think, dict)):
        return True
    return isinstance(spec, str) and " ".join(spec.strip().lower().split()) in THINK_LEVELS
