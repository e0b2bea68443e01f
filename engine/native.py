"""The one door to the compiled engine: every call into C goes through this module.

``engine._core`` (cffi, built by engine/_build.py) is the C engine. Nothing else
imports it: this module turns Python values into C arguments, calls, decodes
every result into typed values (numbers, bytes, :class:`Probabilities`,
:class:`CubeEquities`, the opaque handles below) and maps every C error code to
the project's exceptions in one table (:data:`ERRORS`).

``engine._fast`` holds the per-position calls of the Python API (decode an ID,
evaluate, decide) as plain CPython functions that call ``_core``'s functions
through the addresses bound here. It is kept beside cffi because a cffi call
with its arguments and outputs costs about as much as a 0-ply evaluation
itself (``python -m engine.bench api`` has a row for it: the same two C calls,
decode an ID and evaluate, run at about 0.37 times the rate through cffi).

C objects that Python keeps (an engine, a cube info, search or rollout
settings, a MET, a generator state, running statistics) are held by handles:
opaque to their users, each with the address ``engine._fast`` takes.
"""

from __future__ import annotations

import os
import sys
import threading
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, NoReturn

from engine import _fast
from engine._core import ffi as _ffi
from engine._core import lib as _lib
from engine.errors import DataFileError, EngineError, IllegalMoveError, SearchCancelled
from engine.levels import EFFICIENCY_SETS, EvalSettings
from engine.probabilities import CubeEquities, Probabilities

if TYPE_CHECKING:  # numpy is imported where arrays are made: the per-position calls do without it
    import numpy as np

# ---- errors: every C error code of the search and rollout calls, once -----------------------

ERRORS: dict[int, tuple[type[Exception], str]] = {
    -1: (ValueError, "a side has more than 15 chequers"),
    -2: (ValueError, "dice must be 1..6"),
    -3: (ValueError, "bad {what} settings"),
    -4: (EngineError, "out of memory in the {what}"),
    -5: (ValueError, "a candidate's board is not a legal position"),
    -6: (SearchCancelled, "the {what} was cancelled"),
}


def check(rc: int, what: str = "search") -> int:
    """``rc`` if it is not an error code, else the exception :data:`ERRORS` names."""
    if rc < 0:
        raise_code(rc, what)
    return rc


def raise_code(rc: int, what: str) -> NoReturn:
    kind, text = ERRORS.get(rc, (EngineError, f"{what} error {rc}"))
    raise kind(text.format(what=what))


def error_text(code: int) -> str:
    """The C engine's words for a board or move error code (bg_error_text)."""
    return str(_ffi.string(_lib.bg_error_text(code)).decode())


# ---- handles --------------------------------------------------------------------------------


def _address(cdata: Any) -> int:
    return int(_ffi.cast("uintptr_t", cdata))


class Handle:
    """A C object owned by Python; ``address``: the pointer as an integer (NULL: 0)."""

    __slots__ = ("_c", "address")

    def __init__(self, cdata: Any) -> None:
        self._c = cdata
        self.address = _address(cdata) if cdata is not None else 0


class EngineHandle(Handle):
    """A loaded C engine (weights, bearoff databases) and its position cache."""

    __slots__ = ("_cache", "cache_address")

    def __init__(self, weights: str | os.PathLike[str], bearoff_os: str | os.PathLike[str],
                 bearoff_ts: str | os.PathLike[str], verify: bool, cache_log2: int) -> None:
        err = _ffi.new("char[1024]")
        ctx = _lib.bg_engine_load(os.fsencode(weights), os.fsencode(bearoff_os), os.fsencode(bearoff_ts),
                                  1 if verify else 0, err, len(err))
        if ctx == _ffi.NULL:
            raise DataFileError(_ffi.string(err).decode("utf-8", "replace"))
        super().__init__(_ffi.gc(ctx, _lib.bg_engine_free))
        self._cache = _ffi.NULL
        if cache_log2 > 0:
            cache = _lib.bg_cache_new(cache_log2)
            if cache == _ffi.NULL:
                raise MemoryError("cannot allocate the position cache")
            self._cache = _ffi.gc(cache, _lib.bg_cache_free)
        self.cache_address = _address(self._cache)

    def kernel(self) -> str:
        return str(_ffi.string(_lib.bg_engine_kernel(self._c)).decode())

    def clear_cache(self) -> None:
        if self._cache != _ffi.NULL:
            _lib.bg_cache_clear(self._cache)


class MetTable(Handle):
    """A ``bg_met`` (pre-Crawford 64x64 and post-Crawford 2x64 float tables)."""

    __slots__ = ()

    def __init__(self, pre: np.ndarray, post: np.ndarray) -> None:
        import numpy as np

        super().__init__(_ffi.new("bg_met *"))
        _ffi.memmove(self._c.pre, np.ascontiguousarray(pre, dtype=np.float32).tobytes(), 64 * 64 * 4)
        _ffi.memmove(self._c.post, np.ascontiguousarray(post, dtype=np.float32).tobytes(), 2 * 64 * 4)


class CubeInfo(Handle):
    """A ``bg_cubeinfo``: the cube state of the side on roll (keeps its MET alive)."""

    __slots__ = ("met",)

    def __init__(self, met: MetTable | None, cube: int, owner: int, player: int, length: int,
                 score: tuple[int, int], crawford: bool, jacoby: bool, beavers: bool) -> None:
        super().__init__(_ffi.new("bg_cubeinfo *"))
        self.met = met
        _lib.bg_cubeinfo_set(self._c, met._c if met is not None else _ffi.NULL, cube, owner, player, length,
                             score[0], score[1], int(crawford), int(jacoby), int(beavers))

    @property
    def cube(self) -> int:
        return int(self._c.cube)

    @property
    def match_to(self) -> int:
        return int(self._c.match_to)

    @property
    def score(self) -> tuple[int, int]:
        return int(self._c.score[0]), int(self._c.score[1])

    @property
    def owner(self) -> int:
        return int(self._c.owner)

    @property
    def jacoby(self) -> bool:
        return bool(self._c.jacoby)

    @property
    def beavers(self) -> bool:
        return bool(self._c.beavers)

    @property
    def gammon_price(self) -> tuple[float, float, float, float]:
        """Gammon price of player 0, player 1, backgammon price of 0, of 1."""
        g = self._c.gammon_price
        return float(g[0]), float(g[1]), float(g[2]), float(g[3])

    def available(self) -> bool:
        """Whether the side on roll may double."""
        return bool(_lib.bg_cube_available(self._c))

    def utility(self, p: Sequence[float]) -> float:
        """gnubg's cubeless utility of outcome probabilities (float)."""
        return float(_lib.bg_cube_utility(_ffi.new("float[5]", list(p)), self._c))

    def double_point_dead(self, p: Sequence[float]) -> float:
        return float(_lib.bg_cube_double_point_dead(_ffi.new("float[5]", list(p)), self._c))

    def mwc_to_emg(self, mwc: float) -> float:
        return float(_lib.bg_cube_mwc_to_emg(mwc, self._c))

    def emg_to_mwc(self, emg: float) -> float:
        return float(_lib.bg_cube_emg_to_mwc(emg, self._c))

    def double_pass_mwc(self) -> float:
        """The match winning chance of double, pass (the MET's value)."""
        c = self._c
        return float(_lib.bg_met_mwc(c.met, c.score[0], c.score[1], c.match_to, c.move, c.cube, c.move, c.crawford))

    def classify(self, nd: float, dt: float, dp: float, win_gammon: float) -> tuple[int, float]:
        """gnubg's cube decision class of three cubeful equities, and the optimal equity."""
        optimal = _ffi.new("float *")
        code = int(_lib.bg_cube_classify(self._c, _ffi.new("float[3]", [nd, dt, dp]), win_gammon, optimal))
        return code, float(optimal[0])


class SearchSettings(Handle):
    """A ``bg_search_settings`` (read-only for the C calls, shareable)."""

    __slots__ = ()

    def __init__(self, settings: EvalSettings, threads: int, seed: int | None = None) -> None:
        super().__init__(_ffi.new("bg_search_settings *"))
        cs = self._c
        _lib.bg_search_settings_init(cs)
        cs.plies = settings.plies
        cs.cubeful = int(settings.cubeful)
        cs.prune = int(settings.prune)
        cs.noise = settings.noise
        cs.deterministic = int(settings.deterministic)
        cs.centred = int(settings.noise_centred)
        seed = settings.seed if seed is None else seed
        cs.seed = 0 if seed is None else seed
        cs.efficiency_set = EFFICIENCY_SETS.index(settings.efficiency_set)
        cs.threads = threads
        table = settings.filter_table
        for n in range(4):
            for k in range(n + 1):
                f = cs.filter[n][k]
                f.accept, f.extra, f.threshold = table[n][k]

    def polling(self, flag: int) -> Handle:
        """A copy whose search polls the C int at address ``flag`` (engine.search.Cancel)."""
        copy = _ffi.new("bg_search_settings *", self._c[0])
        copy.cancel = _ffi.cast("int *", flag)
        return Handle(copy)


class RolloutSettings(Handle):
    """A ``bg_rollout_settings``: per player (0, 1) chequer and cube contexts, early and late."""

    __slots__ = ()

    def __init__(self, chequer: Sequence[SearchSettings], cube: Sequence[SearchSettings],
                 chequer_late: Sequence[SearchSettings], cube_late: Sequence[SearchSettings],
                 cube_trunc: SearchSettings, *, late_ply: int, truncate: int, bearoff_truncation: bool,
                 onesided_truncation: bool, cubeful: bool, variance_reduction: bool, quasi_random: bool,
                 initial: bool, rng: int, seed: int) -> None:
        super().__init__(_ffi.new("bg_rollout_settings *"))
        cs = self._c
        _lib.bg_rollout_settings_init(cs)
        for p in (0, 1):
            cs.chequer[p] = chequer[p]._c[0]
            cs.cube[p] = cube[p]._c[0]
            cs.chequer_late[p] = chequer_late[p]._c[0]
            cs.cube_late[p] = cube_late[p]._c[0]
        cs.cube_trunc = cube_trunc._c[0]
        cs.late_ply = late_ply
        cs.truncate = truncate
        cs.trunc_bearoff2 = int(bearoff_truncation)
        cs.trunc_bearoff_os = int(onesided_truncation)
        cs.cubeful = int(cubeful)
        cs.variance_reduction = int(variance_reduction)
        cs.quasi_random = int(quasi_random)
        cs.initial = int(initial)
        cs.rng = rng
        cs.seed = seed


class RolloutStats(Handle):
    """gnubg's running statistics of one rollout alternative (float, trial order)."""

    __slots__ = ()

    def __init__(self) -> None:
        super().__init__(_ffi.new("bg_rollout_stats *"))

    def add(self, values: np.ndarray, stride: int) -> None:
        """Adds ``len(values) // stride`` trials (rows of ``stride`` float32 outputs)."""
        import numpy as np

        v = np.ascontiguousarray(values, dtype=np.float32)
        if v.size:
            _lib.bg_rollout_stats_add(self._c, _ffi.from_buffer("float[]", v), v.size // stride, stride)

    @property
    def mu(self) -> list[float]:
        return [float(x) for x in self._c.mu]

    @property
    def se(self) -> list[float]:
        return [float(x) for x in self._c.se]

    @property
    def n(self) -> int:
        return int(self._c.n)


class IsaacState(Handle):
    """gnubg's ISAAC generator state (16 words), every seed word = ``seed``."""

    __slots__ = ()

    def __init__(self, seed: int) -> None:
        super().__init__(_ffi.new("bg_isaac *"))
        _lib.bg_isaac_seed(self._c, seed & 0xFFFFFFFF)

    def next_u32(self) -> int:
        return int(_lib.bg_isaac_next(self._c))


def _opt(handle: Handle | None) -> Any:
    return handle._c if handle is not None else _ffi.NULL


def _board50(flat: Sequence[int]) -> Any:
    return _ffi.new("unsigned int[50]", [int(c) for c in flat])


# ---- the per-position calls (engine._fast) -----------------------------------------------------

MOVE_SIZE: int = int(_ffi.sizeof("bg_move"))  # src[4], dst[4] (signed chars, off = -1), hit[4], n_steps


def _function(name: str) -> int:
    return _address(_ffi.addressof(_lib, name))


_fast.bind(_function("bg_boards8_from_position_ids"), _function("bg_evaluate_many8"),
           _function("bg_cube_decide8"), _function("bg_best_move8"), Probabilities, CubeEquities, MOVE_SIZE)

key_from_id = _fast.key_from_id
evaluate = _fast.evaluate
cube = _fast.cube
best = _fast.best


# ---- positions and moves -------------------------------------------------------------------------

_LOW_BYTE = 0 if sys.byteorder == "little" else 3
_MAX_MOVES = 4096
_buffers = threading.local()  # per-thread scratch for the C move generator and IDs


def move_steps(raw: bytes) -> list[tuple[int, int, bool]]:
    """The steps (from, to, hit) of one bg_move copied out as bytes, in the mover's
    1-based points (25 = bar, 0 = off); C: src[4], dst[4] (0-based, off = -1), hit[4], n_steps."""
    return [(raw[i] + 1, (raw[4 + i] + 1) & 0xFF, raw[8 + i] != 0) for i in range(raw[12])]


def boards_from_ids(raw: bytes, n: int) -> bytes | int:
    """The 50-byte keys of ``n`` position IDs given end to end, or the C error code."""
    out = _ffi.new("char[]", max(50 * n, 1))
    rc = int(_lib.bg_boards8_from_position_ids(raw, n, out))
    return rc if rc else bytes(_ffi.buffer(out, 50 * n))


def check_board(flat: Sequence[int]) -> int:
    """0 for a board the engine accepts (50 counts), else the C error code."""
    return int(_lib.bg_check_board(_board50(flat)))


def position_id(key: bytes) -> str:
    try:
        out = _buffers.id_out
    except AttributeError:
        out = _buffers.id_out = _ffi.new("char[15]")
    _lib.bg_position_id8(key, out)
    return str(_ffi.string(out).decode())


def legal_moves(key: bytes, die1: int, die2: int) -> tuple[bytes, bytes, int]:
    """The plays of a roll: their bg_move array and result keys (50 bytes each) end to end,
    and their count (IllegalMoveError when there are more than the buffer holds)."""
    try:
        moves, scratch, results = _buffers.generator
    except AttributeError:
        _buffers.generator = moves, scratch, results = (
            _ffi.new("bg_move[]", _MAX_MOVES), _ffi.new("unsigned int[]", 50 * _MAX_MOVES),
            _ffi.new("char[]", 50 * _MAX_MOVES))
    n = int(_lib.bg_legal_moves8(key, die1, die2, moves, scratch, results, _MAX_MOVES))
    if n < 0:
        raise IllegalMoveError("too many plays")
    return _ffi.buffer(moves, MOVE_SIZE * n)[:], _ffi.buffer(results, 50 * n)[:], n


def apply_move(flat: Sequence[int], steps: Sequence[tuple[int, int]]) -> bytes | int:
    """The 50-byte key after playing ``steps`` ((from, to), 0-based, off = -1) in order,
    or the C error code."""
    cmove = _ffi.new("bg_move *")
    for i, (src, dst) in enumerate(steps):
        cmove.src[i], cmove.dst[i] = src, dst
    cmove.n_steps = len(steps)
    out = _ffi.new("unsigned int[50]")
    rc = int(_lib.bg_apply_move(_board50(flat), cmove, out))
    return rc if rc else _ffi.buffer(out)[:][_LOW_BYTE::4]


def count_moves(boards: np.ndarray, dice: np.ndarray) -> int:
    """The number of plays of every board (rows of 50 uint32 counts) for every roll
    (rows of two int32 dice), read in place."""
    import numpy as np
    b, d = np.ascontiguousarray(boards, dtype=np.uint32), np.ascontiguousarray(dice, dtype=np.int32)
    return int(_lib.bg_count_moves(_ffi.from_buffer("unsigned int[]", b), b.size // 50,
                                   _ffi.from_buffer("int[]", d), d.size // 2))


# ---- evaluation ------------------------------------------------------------------------------------


def evaluate_many(engine: EngineHandle, data: bytes, n: int) -> tuple[np.ndarray, np.ndarray]:
    """0-ply outputs (an (n, 5) float32 array) and class codes of ``n`` 50-byte boards."""
    import numpy as np
    out, classes = np.empty((n, 5), dtype=np.float32), np.empty(n, dtype=np.int32)
    if n:
        rc = _lib.bg_evaluate_many8(engine._c, engine._cache, data, n, _ffi.from_buffer("float[]", out),
                                    _ffi.from_buffer("int[]", classes))
        if rc:
            raise ValueError(f"board {-rc - 1} has a side with more than 15 checkers")
    return out, classes


def evaluate_ids(engine: EngineHandle, raw: bytes, n: int, threads: int) -> tuple[np.ndarray, np.ndarray] | None:
    """:func:`evaluate_many` of ``n`` position IDs end to end, decoded in C on
    ``threads`` threads (0: every core); None when an ID is bad."""
    import numpy as np
    out, classes = np.empty((n, 5), dtype=np.float32), np.empty(n, dtype=np.int32)
    if n and _lib.bg_evaluate_ids(engine._c, engine._cache, raw, n, threads, _ffi.from_buffer("float[]", out),
                                  _ffi.from_buffer("int[]", classes)):
        return None
    return out, classes


def classify(key: bytes) -> int:
    """gnubg's class code of one 50-byte board."""
    out = _ffi.new("int[1]")
    if _lib.bg_classify_many8(key, 1, out):
        raise ValueError("a side has more than 15 checkers")
    return int(out[0])


def classify_many(data: bytes, n: int) -> np.ndarray:
    """gnubg's class codes of ``n`` 50-byte boards."""
    import numpy as np
    classes = np.empty(n, dtype=np.int32)
    if n and _lib.bg_classify_many8(data, n, _ffi.from_buffer("int[]", classes)):
        raise ValueError("a board has a side with more than 15 checkers")
    return classes


def evaluate_nply(engine: EngineHandle, flat: Sequence[int], settings: SearchSettings,
                  ci: CubeInfo) -> tuple[Probabilities, float, float]:
    """n-ply probabilities, cubeless and cubeful equity before the roll."""
    probs, equity = _ffi.new("float[5]"), _ffi.new("float[2]")
    check(_lib.bg_evaluate_nply(engine._c, engine._cache, _board50(flat), settings._c, ci._c, probs, equity))
    return Probabilities(*(float(x) for x in probs)), float(equity[0]), float(equity[1])


def default_threads() -> int:
    """Threads a search uses unless told otherwise: every core this process may use."""
    return int(_lib.bg_search_default_threads())


# ---- decisions in bulk -----------------------------------------------------------------------------


def cube_infos(infos: Sequence[CubeInfo]) -> Handle:
    """An array of cube infos (one per decision) for the bulk calls."""
    arr = _ffi.new("bg_cubeinfo[]", max(len(infos), 1))
    for i, ci in enumerate(infos):
        arr[i] = ci._c[0]
    return Handle(arr)


def play_blob(moves: bytes, results: bytes, equity: bytes, equity2: bytes, probs: bytes, plies: bytes) -> bytes:
    """One decision's outputs in the layout of engine._fast's ``best``: for its
    candidates, each array end to end (moves, result boards, equity, equity2,
    probabilities, plies)."""
    return b"".join((moves, results, equity, equity2, probs, plies))


def decode_plays(blob: bytes, n: int) -> list[tuple[bytes, tuple[int, ...], float, float, Probabilities, int]]:
    """The ``n`` candidates of a :func:`play_blob`: (bg_move bytes, result board as 50
    counts, equity, cubeless equity, probabilities, plies)."""
    at = n * MOVE_SIZE
    view = memoryview(blob)  # native byte order, as the C engine wrote them
    boards = view[at:at + 200 * n].cast("I").tolist()
    at += 200 * n
    floats = view[at:at + 28 * n].cast("f").tolist()
    plies = view[at + 28 * n:at + 32 * n].cast("i").tolist()
    eq, eq2, probs = floats[:n], floats[n:2 * n], floats[2 * n:]
    return [(blob[i * MOVE_SIZE:(i + 1) * MOVE_SIZE], tuple(boards[50 * i:50 * i + 50]), eq[i], eq2[i],
             Probabilities(*probs[5 * i:5 * i + 5]), plies[i]) for i in range(n)]


def best_moves(engine: EngineHandle, keys: bytes, dice: Sequence[int], n: int, settings: SearchSettings,
               infos: Handle, step: int, threads: int) -> list[bytes | None]:
    """The chosen play of each of ``n`` decisions as a one-candidate :func:`play_blob`
    (None: no legal play)."""
    size = max(n, 1)
    moves, results = _ffi.new("bg_move[]", size), _ffi.new("unsigned int[]", 50 * size)
    eq, eq2, probs = _ffi.new("float[]", size), _ffi.new("float[]", size), _ffi.new("float[]", 5 * size)
    plies, status = _ffi.new("int[]", size), _ffi.new("int[]", size)
    check(_lib.bg_best_moves8(engine._c, engine._cache, keys, _ffi.new("int[]", list(dice) or [0]), n,
                              settings._c, infos._c, step, threads, moves, results, eq, eq2, probs, plies, status))
    raw_moves, raw_results = _ffi.buffer(moves, n * MOVE_SIZE)[:], _ffi.buffer(results, 200 * n)[:]
    raw_eq, raw_eq2 = _ffi.buffer(eq, 4 * n)[:], _ffi.buffer(eq2, 4 * n)[:]
    raw_probs, raw_plies = _ffi.buffer(probs, 20 * n)[:], _ffi.buffer(plies, 4 * n)[:]
    out: list[bytes | None] = []
    for i in range(n):
        if check(int(status[i])) == 0:
            out.append(None)
            continue
        out.append(play_blob(raw_moves[i * MOVE_SIZE:(i + 1) * MOVE_SIZE], raw_results[200 * i:200 * i + 200],
                             raw_eq[4 * i:4 * i + 4], raw_eq2[4 * i:4 * i + 4], raw_probs[20 * i:20 * i + 20],
                             raw_plies[4 * i:4 * i + 4]))
    return out


def cube_decide_many(engine: EngineHandle, keys: bytes, n: int, settings: SearchSettings, infos: Handle,
                     step: int, threads: int) -> list[tuple[int, float, CubeEquities, float, float, float, float]]:
    """Each decision as engine._fast's ``cube`` returns one: (code, optimal, equities,
    pre-check win chance, cube available, dead-cube double point, beavers)."""
    size = max(n, 1)
    out, probs, pre = _ffi.new("float[]", 4 * size), _ffi.new("float[]", 5 * size), _ffi.new("float[]", 5 * size)
    info, codes = _ffi.new("float[]", 3 * size), _ffi.new("int[]", size)
    check(_lib.bg_cube_decide_many8(engine._c, engine._cache, keys, n, settings._c, infos._c, step, threads,
                                    out, probs, pre, info, codes))
    codes_ = _ffi.unpack(codes, n)
    if n and min(codes_) < 0:
        check(min(codes_))
    outs = _ffi.unpack(out, 4 * n)
    wins = _ffi.unpack(pre, 5 * n)[::5]
    infos_ = _ffi.unpack(info, 3 * n)
    return [(codes_[i], outs[4 * i], CubeEquities(outs[4 * i + 1], outs[4 * i + 2], outs[4 * i + 3]), wins[i],
             infos_[3 * i], infos_[3 * i + 1], infos_[3 * i + 2]) for i in range(n)]


# ---- cube arithmetic at a leaf -----------------------------------------------------------------------


def cube_efficiency(flat: Sequence[int], position_class: int, low_ply: bool) -> float:
    """gnubg's cube efficiency of a leaf position."""
    return float(_lib.bg_cube_efficiency(_board50(flat), position_class, int(low_ply)))


def cube_exact_money(engine: EngineHandle, flat: Sequence[int]) -> tuple[float, float, float] | None:
    """The bearoff database's money cubeful equities (centred, owned, opponent owns), if it has them."""
    buf = _ffi.new("float[3]")
    if _lib.bg_cube_exact_money(engine._c, _board50(flat), buf):
        return None
    return float(buf[0]), float(buf[1]), float(buf[2])


def cube_decision(p: Sequence[float], efficiency_x: float, position_class: int,
                  exact_money: Sequence[float] | None, ci: CubeInfo) -> tuple[int, float, CubeEquities]:
    """gnubg's cube decision of leaf probabilities: (code, optimal, equities)."""
    exact = _ffi.new("float[3]", list(exact_money)) if exact_money is not None else _ffi.NULL
    out = _ffi.new("float[4]")
    code = int(_lib.bg_cube_decision(_ffi.new("float[5]", list(p)), efficiency_x, position_class, exact, ci._c, out))
    return code, float(out[0]), CubeEquities(float(out[1]), float(out[2]), float(out[3]))


def low_ply_efficiency(efficiency_set: str, plies: int) -> bool:
    """Whether a context of ``plies`` uses gnubg 1.1's 0-1 ply cube efficiencies
    (the C engine's rule; ``efficiency_set`` one of :data:`engine.levels.EFFICIENCY_SETS`)."""
    if efficiency_set not in EFFICIENCY_SETS:
        raise ValueError(f"unknown cube efficiency set {efficiency_set!r}; valid: {', '.join(EFFICIENCY_SETS)}")
    return bool(_lib.bg_low_ply_efficiency(EFFICIENCY_SETS.index(efficiency_set), plies))


# ---- noise ---------------------------------------------------------------------------------------------


def noise_deviate(flat: Sequence[int] | None, index: int, deterministic: bool, centred: bool,
                  rng: IsaacState | None) -> float:
    """gnubg's noise deviate ``index`` of a board (deterministic) or of the generator."""
    board = _board50(flat) if flat is not None else _ffi.NULL
    return float(_lib.bg_noise_deviate(board, index, int(deterministic), int(centred), _opt(rng)))


def noise_apply(engine: EngineHandle | None, flat: Sequence[int], position_class: int, cubeful: bool,
                settings: EvalSettings, rng: IsaacState | None, outputs: Sequence[float]) -> list[float]:
    """Leaf outputs with ``settings``' noise (sanity-checked again when ``engine`` is given)."""
    out = _ffi.new("float[5]", list(outputs))
    rc = _lib.bg_noise_apply(_opt(engine), _board50(flat), position_class, int(cubeful), settings.noise,
                             int(settings.deterministic), int(settings.noise_centred), _opt(rng), out)
    if rc < 0:
        raise ValueError("random noise needs a generator")
    return [float(x) for x in out]


# ---- rollouts ------------------------------------------------------------------------------------------


def rollout_trials(engine: EngineHandle, settings: RolloutSettings,
                   alts: Sequence[tuple[Sequence[int], CubeInfo, bool, bool, int]], first: int, n: int,
                   threads: int, out: np.ndarray) -> None:
    """Trials first .. first+n-1 of the alternatives (board as 50 counts, cube info,
    cube decision at the top, inverted, basis cube) into ``out`` ((n, alts, 7) float32)."""
    arr = _ffi.new("bg_rollout_alt[]", len(alts))
    for j, (flat, ci, top, inv, basis) in enumerate(alts):
        arr[j].board = list(flat)
        arr[j].ci = ci._c[0]
        arr[j].cube_dec_top = int(top)
        arr[j].invert = int(inv)
        arr[j].basis_cube = basis
    check(int(_lib.bg_rollout_trials(engine._c, engine._cache, settings._c, arr, len(alts), first, n, threads,
                                     _ffi.from_buffer("float[]", out))), "rollout")
