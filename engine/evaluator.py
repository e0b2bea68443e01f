"""The evaluation engine: gnubg-compatible 0-ply evaluation of positions.

Plies follow gnubg's numbering: 0-ply is the raw neural net (or database).
Outputs are cubeless probabilities for the side on roll (``board[1]``), in
gnubg's order: win, win gammon, win backgammon, lose gammon, lose backgammon
(gammons include backgammons). They equal gnubg 1.08's 0-ply outputs.

>>> from engine.position import Position
>>> engine = Engine()
>>> p = engine.evaluate(Position.initial())
>>> round(p.win, 4), round(p.equity, 4)
(0.5215, 0.0676)
>>> engine.classify(Position.initial()).name
'CONTACT'

One ``Engine`` is meant to be loaded once and shared: it is immutable after
loading, every C call releases the GIL, and its position cache is lock-free.
"""

from __future__ import annotations

import functools
import os
from collections.abc import Iterable, Sequence
from enum import IntEnum
from typing import TYPE_CHECKING, Literal, overload

from engine import data, native, search
from engine.boards import board_bytes, boards_bytes
from engine.cube import CubeDecision
from engine.kinds import Dice, LevelLike, PositionLike
from engine.levels import DEFAULT_TRIALS
from engine.match import MatchState
from engine.met import MatchEquityTable, default_met, met_at
from engine.position import Position, boards_from_ids
from engine.probabilities import Probabilities

if TYPE_CHECKING:  # numpy and rollouts load when first used: a single decision needs neither
    import numpy as np
    import numpy.typing as npt

    from engine import rollout


class PositionClass(IntEnum):
    """gnubg's position classes (its enum values)."""

    OVER = 0
    HYPERGAMMON1 = 1
    HYPERGAMMON2 = 2
    HYPERGAMMON3 = 3
    BEAROFF2 = 4
    BEAROFF_TS = 5
    BEAROFF1 = 6
    BEAROFF_OS = 7
    RACE = 8
    CRASHED = 9
    CONTACT = 10


class Engine:
    """gnubg-compatible evaluator. ``Engine(data_dir=None)`` loads weights and bearoff
    databases once (see :mod:`engine.data` for where they are found).

    Every decision method takes its arguments in one order: the position (or
    positions), the dice (plays only), the match state, the level; options
    follow by keyword. ``match=None`` is money play with the Jacoby rule and a
    centred cube; the mover is ``match.on_roll``, whose chequers are
    ``position.board[1]``. ``level`` is a name, a Level or an EvalSettings.

    ``verify`` checks every file against the digest of gnubg's published file (a
    corrupt file is an error, not wrong answers); turn it off to load other
    weights of the same format. ``weights`` picks another weights file (see
    :func:`engine.data.locate`): ``Engine(weights=engine.data.GNUBG_107_WEIGHTS)``
    answers like Debian's gnubg 1.07 (its nets, and the arithmetic of its SSE
    build). ``cache_log2`` sizes the shared position cache
    (2**n entries of 64 bytes; 0 disables it).
    """

    def __init__(self, data_dir: str | os.PathLike[str] | None = None, *, verify: bool = True,
                 cache_log2: int = 16, weights: str | os.PathLike[str] | None = None) -> None:
        self.files = data.locate(data_dir, weights)
        # the loaded C engine and its cache (engine.native's handle)
        self.native = native.EngineHandle(self.files.weights, self.files.bearoff_os, self.files.bearoff_ts,
                                          verify, cache_log2)
        # the C engine and cache as engine._fast takes them (kept alive by the handle)
        self._engine_addr, self._cache_addr = self.native.address, self.native.cache_address

    @functools.cached_property
    def met(self) -> MatchEquityTable:
        """The match equity table of the data folder (a folder without one: the default table)."""
        return met_at(str(self.files.met)) if self.files.met is not None else default_met()

    @property
    def kernel(self) -> str:
        """The forward-pass kernel chosen for this CPU ("avx512", "avx2", "sse2", "generic")."""
        return self.native.kernel()

    def clear_cache(self) -> None:
        """Empties the position cache (safe while other threads evaluate)."""
        self.native.clear_cache()

    def evaluate(self, position: PositionLike) -> Probabilities:
        """0-ply cubeless probabilities of a Position (or raw 2x25 board) for the side on roll."""
        probs = native.evaluate(self._engine_addr, self._cache_addr, board_bytes(position))
        if probs is None:
            raise ValueError("a side has more than 15 checkers")
        return probs

    @overload
    def evaluate_many(self, positions: Iterable[PositionLike] | npt.NDArray[np.integer],
                      *, with_classes: Literal[False] = False) -> npt.NDArray[np.float64]: ...

    @overload
    def evaluate_many(self, positions: Iterable[PositionLike] | npt.NDArray[np.integer],
                      *, with_classes: Literal[True]) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.int32]]: ...

    def evaluate_many(self, positions: Iterable[PositionLike] | npt.NDArray[np.integer], *,
                      with_classes: bool = False
                      ) -> npt.NDArray[np.float64] | tuple[npt.NDArray[np.float64], npt.NDArray[np.int32]]:
        """Evaluates a batch in one C call: an (N, 5) float64 array of probabilities
        (and an (N,) int32 array of class codes with ``with_classes=True``). Accepts
        positions, raw 2x25 boards, or an (N, 2, 25) / (N, 50) integer array."""
        import numpy as np

        out, classes = native.evaluate_many(self.native, *boards_bytes(positions))
        probs = out.astype(np.float64)
        return (probs, classes) if with_classes else probs

    def classify(self, position: PositionLike) -> PositionClass:
        """gnubg's class of a position (which evaluator applies)."""
        try:
            return PositionClass(native.classify(board_bytes(position)))
        except ValueError:
            raise ValueError("a side has more than 15 checkers") from None

    @overload
    def evaluate_ids(self, position_ids: Iterable[str], *, threads: int = 0,
                     with_classes: Literal[False] = False) -> npt.NDArray[np.float64]: ...

    @overload
    def evaluate_ids(self, position_ids: Iterable[str], *, threads: int = 0,
                     with_classes: Literal[True]) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.int32]]: ...

    def evaluate_ids(self, position_ids: Iterable[str], *, threads: int = 0, with_classes: bool = False
                     ) -> npt.NDArray[np.float64] | tuple[npt.NDArray[np.float64], npt.NDArray[np.int32]]:
        """:meth:`evaluate_many` of gnubg position IDs, decoded and evaluated in one
        C call on ``threads`` threads (0: every core); BoardParseError names a bad ID."""
        import numpy as np

        ids = list(position_ids)
        raw = "".join(ids).encode("ascii", "replace")
        result = native.evaluate_ids(self.native, raw, len(ids), threads) if len(raw) == 14 * len(ids) else None
        if result is None:
            boards_from_ids(ids)  # raises, naming the bad ID
            raise MemoryError("cannot evaluate the positions")
        out, classes = result
        probs = out.astype(np.float64)
        return (probs, classes) if with_classes else probs

    def classify_many(self, positions: Iterable[PositionLike] | npt.NDArray[np.integer]) -> npt.NDArray[np.int32]:
        """Class codes of a batch, in one C call."""
        return native.classify_many(*boards_bytes(positions))

    # ---- decisions (engine/search.py, csrc/search.c): position, dice, match, level -----------

    # gnubg's play at ``level``: a MoveDecision (``.move``, ranked ``.candidates``); the
    # function itself (no second frame: a decision's Python cost is part of the API's speed)
    best_move = search.best_move

    def best_moves(self, positions: Sequence[PositionLike], dice: Dice | Sequence[Dice],
                   match: MatchState | None | Sequence[MatchState | None] = None, level: LevelLike = "expert",
                   *, threads: int | None = None) -> list[search.MoveDecision]:
        """:meth:`best_move` of many positions in one C call, threads inside (a list of
        MoveDecision; ``dice`` and ``match``: one for all or one per position)."""
        return search.best_moves(self, positions, dice, match, level, threads=threads)

    def cube_decisions(self, positions: Sequence[PositionLike],
                       match: MatchState | None | Sequence[MatchState | None] = None, level: LevelLike = "expert",
                       *, threads: int | None = None, beavers: bool = True) -> list[CubeDecision]:
        """:meth:`cube_decision` of many positions in one C call, threads inside."""
        return search.cube_decisions(self, positions, match, level, threads=threads, beavers=beavers)

    # gnubg's cube decision for the side on roll before rolling (a CubeDecision), as best_move
    cube_decision = search.cube_decision

    def resign_offer(self, position: PositionLike, match: MatchState | None = None, level: LevelLike = "expert",
                     declined: int = 0) -> int:
        """The resignation the side on roll offers: 0 none, 1 single, 2 gammon, 3 backgammon."""
        return search.resign_offer(self, position, match, level, declined)

    def accept_resignation(self, position: PositionLike, match: MatchState | None, level: LevelLike,
                           value: int) -> bool:
        """Whether the side on roll (offered ``value``) accepts the other side's resignation."""
        return search.accept_resignation(self, position, match, level, value)

    def rollout(self, position: Position, match: MatchState | None = None, *,
                candidates: rollout.Candidates = None, trials: int = DEFAULT_TRIALS,
                level: rollout.LevelSpec = "expert", cube_level: rollout.LevelSpec | None = None,
                truncate: int | None = None, seed: int = 0, quasi_random: bool = True,
                variance_reduction: bool = True, cubeful: bool = True, threads: int | None = None,
                progress: rollout.Progress | None = None,
                **settings: rollout.SettingValue) -> rollout.RolloutResult:
        """gnubg's rollout of the position (``candidates=None``), of plays (Moves) or of
        the cube decision (``"cube"``): a RolloutResult (engine/rollout.py; more
        settings, e.g. ``stop_se``, ``late_level``, as keywords). ``threads``: None =
        every core; ``progress(done, total, partial_result)`` after each chunk."""
        from engine import rollout

        s = rollout.RolloutSettings(trials=trials, level=level, cube_level=cube_level, truncate=truncate,
                                    seed=seed, quasi_random=quasi_random,
                                    variance_reduction=variance_reduction, cubeful=cubeful,
                                    **settings)  # type: ignore[arg-type]
        job = rollout.RolloutJob.of(position, match, candidates, s)
        return rollout.run(self, job, threads=threads, progress=progress)

    def evaluate_nply(self, position: PositionLike, match: MatchState | None = None, level: LevelLike = "expert",
                      *, threads: int | None = None) -> search.NplyEvaluation:
        """n-ply evaluation before the roll at the level's cube context (an NplyEvaluation)."""
        return search.evaluate_nply(self, position, match, level, threads=threads)
