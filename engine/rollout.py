"""Rollouts as gnubg does them (csrc/rollout.c; gnubg's manual, chapter "Rollouts").

A rollout plays ``trials`` games from a position (or from each candidate play
of a roll, or from both branches of a cube decision) with gnubg's dice, and
reports the mean outcome with its standard error. Trial ``i`` is fixed by the
settings, the seed and ``i`` alone, so a rollout can be split into trial
ranges (:class:`RolloutJob`.run_range) over threads, processes or machines:
:func:`merge_ranges` puts the per-trial values back in index order and
:meth:`RolloutJob.summarise` adds them as gnubg does (float, trial order, the
clamped running mean), so every split gives the same numbers.

Equities are normalised: money per the starting cube of the first candidate
(gnubg's display), match play as EMG with the match winning chance beside it.

>>> from engine.evaluator import Engine
>>> from engine.position import Position
>>> r = Engine().rollout(Position.from_position_id("trsbAADs7jkAAA"), trials=36, seed=1)
>>> r.trials, round(r.candidates[0].probabilities[0], 3)
(36, 0.33)
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace

import numpy as np

from engine import native
from engine.cube import ACTIONS, cube_info
from engine.kinds import EngineCore, LevelLike
from engine.levels import DEFAULT_TRIALS as DEFAULT_TRIALS  # the API names it here too
from engine.levels import EvalSettings, Level
from engine.match import MatchState
from engine.native import CubeInfo, RolloutStats, SearchSettings
from engine.position import Move, Position
from engine.search import c_settings, default_threads, resolve_level

LevelSpec = LevelLike | tuple[LevelLike, LevelLike]
"""A level for both players, or a pair (player 0's, player 1's)."""
SettingValue = LevelSpec | int | float | str | bool | None
"""A value of one of :class:`RolloutSettings`' fields."""
Candidates = None | str | Sequence[Move]
Progress = Callable[[int, int, "RolloutResult"], None]

OUTPUTS = 7  # W WG WBG LG LBG, cubeless equity, cubeful equity (money) or MWC (match)
CL, CF = 5, 6
RNGS = ("sfmt", "mt19937")
MAX_TRIALS = 10**8  # trial indices stay C ints
CHUNK_SECONDS = 1.0  # a local rollout's C calls (progress updates) after the first


@dataclass(frozen=True)
class RolloutSettings:
    """gnubg's rollout context (``set rollout ...``: trials, seed, dice, variance reduction,
    cubeful, truncation, stop rules) with our defaults: Expert for both sides.

    ``level``/``cube_level``: chequer play and cube decisions (a name, Level or
    EvalSettings; a pair gives player 0's and player 1's); ``cube_level=None``
    uses ``level``'s cube context. ``late_level``/``late_cube_level`` apply from
    ply ``late_ply`` on. ``truncate``: half-moves played before the position
    is evaluated with ``truncation_level`` (default: the cube level).
    ``stop_se``: stop a candidate once ``min_trials`` are done and its
    standard errors (cubeless and cubeful equity) are at most this.
    ``rng``: the dice generator past the quasi-random plies, "sfmt" (gnubg 1.08
    and the `gnubg` package) or "mt19937" (gnubg 1.07).
    """

    trials: int = DEFAULT_TRIALS
    level: LevelSpec = "expert"
    cube_level: LevelSpec | None = None
    late_level: LevelSpec | None = None
    late_cube_level: LevelSpec | None = None
    late_ply: int | None = None
    truncate: int | None = None
    truncation_level: LevelSpec | None = None
    seed: int = 0
    quasi_random: bool = True
    variance_reduction: bool = True
    cubeful: bool = True
    initial: bool = False
    bearoff_truncation: bool = True
    onesided_truncation: bool = True
    stop_se: float | None = None
    min_trials: int = 324
    rng: str = "sfmt"

    def __post_init__(self) -> None:
        if not isinstance(self.trials, int) or not 1 <= self.trials <= MAX_TRIALS:
            raise ValueError(f"trials must be an integer from 1 to {MAX_TRIALS}, got {self.trials!r}")
        if self.truncate is not None and (not isinstance(self.truncate, int) or self.truncate < 1):
            raise ValueError(f"truncate must be a positive number of half-moves, got {self.truncate!r}")
        if self.late_ply is not None and self.late_ply < 0:
            raise ValueError("late_ply must be 0 or more")
        if not 0 <= self.seed < 2**32:
            raise ValueError("seed must fit in 32 bits")
        if self.rng not in RNGS:
            raise ValueError(f"unknown dice generator {self.rng!r}; valid: {', '.join(RNGS)}")
        if self.stop_se is not None and self.stop_se <= 0:
            raise ValueError("stop_se must be positive")
        if self.min_trials < 1:
            raise ValueError("min_trials must be positive")
        for name in ("level", "cube_level", "late_level", "late_cube_level", "truncation_level"):
            value = getattr(self, name)
            if value is not None:
                _pair(value, cube=name != "level")  # validates names early

    def with_(self, **changes: SettingValue) -> RolloutSettings:
        return replace(self, **changes)  # type: ignore[arg-type]

    @classmethod
    def from_dict(cls, data: object) -> RolloutSettings:
        """The settings of :meth:`as_dict` (ValueError for anything else)."""
        if not isinstance(data, dict) or set(data) - set(cls.__dataclass_fields__):
            raise ValueError("not a rollout's settings")
        fields: dict[str, object] = {k: tuple(v) if isinstance(v, list) else v for k, v in data.items()}
        try:
            return cls(**fields)  # type: ignore[arg-type]
        except TypeError as exc:
            raise ValueError(f"bad rollout settings: {exc}") from None

    def as_dict(self) -> dict[str, object]:
        """The settings as JSON-ready values (levels by name)."""
        out: dict[str, object] = {}
        for f in self.__dataclass_fields__:
            v = getattr(self, f)
            out[f] = v if v is None or isinstance(v, (int, float, str, bool)) else _level_text(v)
        return out


def _level_text(value: object) -> str | list[str]:
    if isinstance(value, (tuple, list)):
        return [str(_level_text(v)) for v in value]
    return value.name if isinstance(value, Level) else str(value)


def _pair(value: LevelSpec, cube: bool) -> tuple[EvalSettings, EvalSettings]:
    """Player 0's and player 1's context of a level-like (or a pair of them)."""
    items = value if isinstance(value, (tuple, list)) else (value, value)
    if len(items) != 2:
        raise ValueError("a per-player level is a pair (player 0, player 1)")
    out = []
    for item in items:
        lv = resolve_level(item)
        out.append(lv.cube if cube else lv.checker)
    return out[0], out[1]


def _c_settings(s: RolloutSettings, cubeful: bool) -> native.RolloutSettings:
    """The C rollout settings of s (cubeful: this rollout's flag)."""

    def ctx(e: EvalSettings) -> SearchSettings:
        # a cubeless rollout uses cubeless contexts throughout (gnubg's
        # reproducible setting: ``set rollout chequerplay cubeful off``)
        return c_settings(e if cubeful else e.with_(cubeful=False), 1)

    def both(pair: tuple[EvalSettings, EvalSettings]) -> list[SearchSettings]:
        return [ctx(pair[0]), ctx(pair[1])]

    chequer = _pair(s.level, cube=False)
    cube = _pair(s.cube_level if s.cube_level is not None else s.level, cube=True)
    chequer_late = _pair(s.late_level, cube=False) if s.late_level is not None else chequer
    cube_late = _pair(s.late_cube_level, cube=True) if s.late_cube_level is not None else cube
    trunc = ctx(_pair(s.truncation_level, cube=True)[0] if s.truncation_level is not None else cube[0])
    return native.RolloutSettings(
        both(chequer), both(cube), both(chequer_late), both(cube_late), trunc,
        late_ply=-1 if s.late_ply is None else s.late_ply, truncate=s.truncate or 0,
        bearoff_truncation=s.bearoff_truncation, onesided_truncation=s.onesided_truncation, cubeful=cubeful,
        variance_reduction=s.variance_reduction, quasi_random=s.quasi_random, initial=s.initial,
        rng=RNGS.index(s.rng), seed=s.seed)


# ---- results -------------------------------------------------------------------------------


@dataclass(frozen=True)
class CandidateResult:
    """One candidate's rollout: means and standard errors from the mover's side.

    ``equity``: cubeless (money per the first candidate's cube; match EMG);
    ``cubeful_equity``: money normalised equity / match EMG (None if cubeless);
    ``mwc``: the cubeful match winning chance (match play only).
    """

    move: str
    probabilities: tuple[float, ...]
    equity: float
    cubeful_equity: float | None
    mwc: float | None
    stderr_probabilities: tuple[float, ...]
    stderr_equity: float
    stderr_cubeful_equity: float | None
    stderr_mwc: float | None
    trials: int

    def as_json(self) -> dict[str, object]:
        out: dict[str, object] = {"move": self.move, "probabilities": list(self.probabilities),
                               "equity": self.equity, "cubeful_equity": self.cubeful_equity}
        se: dict[str, object] = {"probabilities": list(self.stderr_probabilities), "equity": self.stderr_equity,
                              "cubeful_equity": self.stderr_cubeful_equity}
        if self.mwc is not None:
            out["mwc"] = self.mwc
            se["mwc"] = self.stderr_mwc
        out["stderr"] = se
        out["trials"] = self.trials
        return out


@dataclass(frozen=True)
class RolloutResult:
    """Candidates in the order given; ``action``: gnubg's verdict of a cube rollout.

    A cube rollout's rows are gnubg's: the double/take row's cubeless equity is that of
    the doubled cube in units of the current one (twice the per-cube value in money),
    as gnubg prints it beside "gnubg owns 2-cube"; the cubeless equity of the position,
    gnubg's "Rollout cubeless equity", is :attr:`cubeless_equity`, the no-double row's.
    """

    candidates: list[CandidateResult]
    trials: int
    seconds: float
    settings: RolloutSettings
    action: str | None = None

    @property
    def cubeless_equity(self) -> float | None:
        """A cube rollout's cubeless equity (the no-double row's; None for other rollouts)."""
        return self.candidates[0].equity if self.action is not None else None

    def as_json(self) -> dict[str, object]:
        out: dict[str, object] = {"candidates": [c.as_json() for c in self.candidates],
                               "trials": self.trials, "seconds": self.seconds}
        if self.action is not None:
            out["action"] = self.action
            out["cubeless_equity"] = self.cubeless_equity
        out["settings"] = self.settings.as_dict()
        return out


# ---- the job ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class RolloutJob:
    """What to roll out: picklable (IDs and move texts), so trial ranges can run anywhere.

    ``candidates``: None (the position, side on roll before its roll), "cube"
    (no double and double/take for the side on roll), or plays (move texts or
    Moves) of ``match.dice`` / any roll by the side on roll.
    """

    position_id: str
    match_id: str | None
    candidates: tuple[str, ...] | str | None
    settings: RolloutSettings = field(default_factory=RolloutSettings)

    @classmethod
    def of(cls, position: Position, match: MatchState | None, candidates: Candidates,
           settings: RolloutSettings) -> RolloutJob:
        if isinstance(candidates, str):
            if candidates != "cube":
                raise ValueError("candidates is None, 'cube' or a list of plays")
            cands: tuple[str, ...] | str | None = "cube"
        elif candidates is None:
            cands = None
        else:
            cands = tuple(str(m) for m in candidates)
            if not cands:
                raise ValueError("no candidate plays to roll out")
        job = cls(position.position_id(), None if match is None else match.match_id(), cands, settings)
        job.alternatives()  # validates the candidates now
        return job

    @property
    def position(self) -> Position:
        return Position.from_position_id(self.position_id)

    @property
    def match(self) -> MatchState:
        return MatchState(length=0, jacoby=True) if self.match_id is None else MatchState.from_match_id(self.match_id)

    @property
    def cubeful(self) -> bool:
        return self.settings.cubeful or self.candidates == "cube"

    def labels(self) -> list[str]:
        if self.candidates is None:
            return ["position"]
        if self.candidates == "cube":
            return ["no double", "double, take"]
        return list(self.candidates)

    def alternatives(self) -> list[tuple[Position, CubeInfo, bool, bool, int]]:
        """(board with the side on roll in board[1], C cube info, cube_dec_top, invert, basis cube)."""
        pos, match = self.position, self.match
        if pos.winner() is not None:
            raise ValueError("the game is over in this position")
        me = match.on_roll
        ci = cube_info(match, me)
        if self.candidates is None:
            return [(pos, ci, False, False, match.cube)]
        if self.candidates == "cube":
            if not ci.available():
                raise ValueError("the cube is not available to the side on roll")
            dt = cube_info(match, me, cube=2 * match.cube, owner=1 - me)
            return [(pos, ci, False, False, match.cube), (pos, dt, False, False, match.cube)]
        opp = cube_info(match, 1 - me)
        out = []
        for text in self.candidates:
            after = pos.play(Move.parse(text), match.dice) if match.dice else pos.play(Move.parse(text))
            out.append((after.swap(), opp, True, True, match.cube))
        return out

    def run_range(self, engine: EngineCore, first: int, n: int, threads: int | None = None,
                  active: Sequence[int] | None = None,
                  alternatives: list[tuple[Position, CubeInfo, bool, bool, int]] | None = None) -> np.ndarray:
        """Trials first .. first+n-1 of the candidates (``active``: their indices,
        default all): an (n, len(active), 7) float32 array. The GIL is released.
        ``alternatives``: this job's, if the caller keeps them (short ranges)."""
        alts = alternatives or self.alternatives()
        pick = list(range(len(alts))) if active is None else list(active)
        chosen = []
        for i in pick:
            pos, ci, top, inv, basis = alts[i]
            chosen.append((list(pos.board[0]) + list(pos.board[1]), ci, top, inv, basis))
        out = np.zeros((n, len(pick), OUTPUTS), dtype=np.float32)
        if n:
            native.rollout_trials(engine.native, _c_settings(self.settings, self.cubeful), chosen, first, n,
                                  0 if threads is None else threads, out)
        return out

    def summarise(self, values: Sequence[np.ndarray], seconds: float = 0.0) -> RolloutResult:
        """The result of per-trial values (one (n_i, 7) array per candidate, in trial order)."""
        alts = self.alternatives()
        match = self.match
        first_ci = alts[0][1]
        results = []
        stats = []
        for (_pos, ci, _top, inv, _basis), label, vals in zip(alts, self.labels(), values, strict=True):
            st = RolloutStats()
            st.add(vals, OUTPUTS)
            stats.append(st)
            # the mover's cube for plays (results are stored from the mover's side)
            report_ci = first_ci if not inv else cube_info(match, match.on_roll)
            results.append(_candidate(label, st, ci, report_ci, inv, self.cubeful, match.length > 0))
        action = None
        if self.candidates == "cube":
            results.append(_double_pass(first_ci, match.length > 0))
            action = _cube_action(first_ci, results, stats[0].mu[1])
        n = max((len(v) for v in values), default=0)
        return RolloutResult(results, n, seconds, self.settings, action)


def _emg(mwc: float, ci: CubeInfo) -> float:
    return ci.mwc_to_emg(mwc)


def _candidate(label: str, st: RolloutStats, ci: CubeInfo, report_ci: CubeInfo, inverted: bool, cubeful: bool,
               match: bool) -> CandidateResult:
    mu, se = st.mu, st.se
    cl, se_cl = mu[CL], se[CL]
    cf: float | None = mu[CF] if cubeful else None
    se_cf: float | None = se[CF] if cubeful else None
    mwc = se_mwc = None
    if match:
        alt_ci = report_ci if inverted else ci
        # gnubg's display: CL via the candidate's MWC into the first cube's EMG
        scale = _emg(1.0, report_ci) - _emg(0.0, report_ci)
        cl_mwc = alt_ci.emg_to_mwc(cl)
        cl_scale = alt_ci.emg_to_mwc(1.0) - alt_ci.emg_to_mwc(0.0)
        cl, se_cl = _emg(cl_mwc, report_ci), se_cl * cl_scale * scale
        if cubeful:
            mwc, se_mwc = mu[CF], se[CF]
            cf, se_cf = _emg(mu[CF], report_ci), se[CF] * scale
    else:
        ratio = ci.cube / report_ci.cube
        cl, se_cl = cl * ratio, se_cl * ratio
    return CandidateResult(label, tuple(mu[:5]), cl, cf, mwc, tuple(se[:5]), se_cl, se_cf, se_mwc, st.n)


def _double_pass(ci: CubeInfo, match: bool) -> CandidateResult:
    """Double/pass is not rolled out: 1 (money) or the MET's value (match)."""
    mwc: float | None = None
    eq = 1.0
    if match:
        mwc = ci.double_pass_mwc()
        eq = _emg(mwc, ci)
    zero = (0.0,) * 5
    return CandidateResult("double, pass", zero, eq, eq, mwc, zero, 0.0, 0.0, 0.0 if match else None, 0)


def _cube_action(ci: CubeInfo, results: list[CandidateResult], win_gammon: float) -> str:
    nd, dt, dp = (r.cubeful_equity or 0.0 for r in results)
    return ACTIONS[ci.classify(nd, dt, dp, win_gammon)[0]]


def merge_ranges(ranges: Sequence[tuple[int, np.ndarray]]) -> np.ndarray:
    """Per-trial values of trial ranges ((first, values) pairs, any order) in
    index order; the ranges must cover 0 .. n-1 exactly once."""
    parts = sorted(ranges, key=lambda r: r[0])
    at = 0
    for first, vals in parts:
        if first != at:
            raise ValueError(f"trial ranges leave a gap or overlap at trial {at}")
        at += len(vals)
    if not parts:
        return np.zeros((0, 0, OUTPUTS), dtype=np.float32)
    return np.concatenate([v for _, v in parts], axis=0)


# ---- running a rollout locally ---------------------------------------------------------------


def run(engine: EngineCore, job: RolloutJob, *, threads: int | None = None, progress: Progress | None = None,
        done: Sequence[np.ndarray] | None = None, chunk: int | None = None,
        on_chunk: Callable[[list[np.ndarray]], None] | None = None) -> RolloutResult:
    """Runs (or continues from ``done``: per-candidate values so far) a rollout
    locally, ``chunk`` trials per C call (default: about a second's worth);
    ``progress(done, total, partial)`` and ``on_chunk(values)`` are called
    after each chunk."""
    labels = job.labels()
    values = ([np.zeros((0, OUTPUTS), np.float32) for _ in labels] if done is None
              else [np.asarray(v, np.float32) for v in done])
    if len(values) != len(labels):
        raise ValueError("saved values do not match the candidates")
    total = job.settings.trials
    # at the end of a C call its threads wait for the slowest trial (trials
    # differ 3x in length): a first short call measures the speed, the later
    # ones last about CHUNK_SECONDS each, which keeps that wait near half a
    # trial per second (2% of two threads' time at 36 trials per call, 0.3% at 200)
    step = least = chunk or max(36, 8 * (threads or default_threads()))
    start = time.perf_counter()
    linked = job.candidates == "cube"  # gnubg stops a cube rollout only when both branches qualify
    active = [i for i, v in enumerate(values) if len(v) < total]
    result = job.summarise(values)
    while active:
        first = min(len(values[i]) for i in active)
        if any(len(values[i]) != first for i in active):
            active = [i for i in active if len(values[i]) == first]
        n = min(step, total - first)
        began = time.perf_counter()
        block = job.run_range(engine, first, n, threads, active)
        if chunk is None:
            step = max(least, int(n * CHUNK_SECONDS / max(time.perf_counter() - began, 1e-3)))
        for j, i in enumerate(active):
            values[i] = np.concatenate([values[i], block[:, j, :]])
        if job.settings.stop_se is not None:
            values, active = apply_stop(job, values, active, first, n, linked)
        active = [i for i in active if len(values[i]) < total]
        result = job.summarise(values, time.perf_counter() - start)
        if on_chunk is not None:
            on_chunk(values)
        if progress is not None:
            progress(result.trials, total, result)
    return replace(result, seconds=time.perf_counter() - start)


def apply_stop(job: RolloutJob, values: list[np.ndarray], active: list[int], first: int, n: int,
                linked: bool) -> tuple[list[np.ndarray], list[int]]:
    """Cuts candidates at the first trial after which their standard errors (in
    equity) are within the limit; gnubg checks after every full trial,
    a cube rollout's branches only together."""
    limit = job.settings.stop_se
    assert limit is not None
    alts = job.alternatives()
    match = job.match.length > 0
    scale = []
    for i in active:
        ci = alts[i][1]
        money_ratio = ci.cube / alts[0][1].cube
        cf_scale = _emg(1.0, alts[0][1]) - _emg(0.0, alts[0][1]) if match else 1.0
        scale.append((1.0 if match else money_ratio, cf_scale))
    stats = []
    for i in active:
        st = RolloutStats()
        st.add(values[i][:first], OUTPUTS)
        stats.append(st)
    stop_at: dict[int, int] = {}
    for t in range(first, first + n):
        ok = []
        for j, i in enumerate(active):
            if i in stop_at:
                ok.append(True)
                continue
            st = stats[j]
            st.add(values[i][t], OUTPUTS)
            good = (t + 1 >= job.settings.min_trials and st.se[CL] * scale[j][0] <= limit
                    and (not job.cubeful or st.se[CF] * scale[j][1] <= limit))
            ok.append(good)
            if good and not linked:
                stop_at[i] = t + 1
        if linked and all(ok):
            stop_at = dict.fromkeys(active, t + 1)
        if len(stop_at) == len(active):
            break
    for i, at in stop_at.items():
        values[i] = values[i][:at]
    return values, [i for i in active if i not in stop_at]
