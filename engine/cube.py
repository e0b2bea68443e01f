"""Cube decisions: cubeful equities (Janowski), gnubg's decision classes, take/pass/beaver.

All arithmetic is in C (csrc/cube.c, csrc/met.c); this module builds the C cube
info from a :class:`~engine.match.MatchState` and names the result.

Equities are *normalised*: per unit of the current cube, from the side on roll
(money), or match winning chances converted to money-equivalent equity (EMG:
``(2 MWC - (M_w + M_l)) / (M_w - M_l)`` for winning / losing the cube's points), so "double, pass" is always +1.

>>> d = cube_decision_from_probabilities((0.80, 0.10, 0.0, 0.02, 0.0), 10, None, 0)
>>> d.action, d.should_double, d.should_take
('Double, pass', True, False)
>>> d = cube_decision_from_probabilities((0.60, 0.12, 0.0, 0.08, 0.0), 10, None, 0)
>>> d.action, round(d.equities.nd, 4), d.should_double
('No double, take', 0.3269, False)
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from typing import NamedTuple

from engine import native
from engine.match import MatchState
from engine.met import MatchEquityTable, default_met
from engine.native import CubeInfo
from engine.probabilities import CubeEquities, f32

# gnubg's position classes
CLASS_OVER, CLASS_BEAROFF2, CLASS_BEAROFF_TS, CLASS_BEAROFF1, CLASS_BEAROFF_OS = 0, 4, 5, 6, 7
CLASS_RACE, CLASS_CRASHED, CLASS_CONTACT = 8, 9, 10

# gnubg's cubedecision enum, in order, with the names gnubg prints.
ACTIONS: tuple[str, ...] = (
    "Double, take",
    "Double, pass",
    "No double, take",
    "Too good to double, take",
    "Too good to double, pass",
    "Double, beaver",
    "No double, beaver",
    "Redouble, take",
    "Redouble, pass",
    "No redouble, take",
    "Too good to redouble, take",
    "Too good to redouble, pass",
    "No redouble, beaver",
    "Never double, take (dead cube)",
    "Never redouble, take (dead cube)",
    "No double (cube not available)",
    "Optional double, take",
    "Optional redouble, take",
    "Optional double, beaver",
    "Optional double, pass",
    "Optional redouble, pass",
)
CANNOT_DOUBLE = "You cannot double"
(DOUBLE_TAKE, DOUBLE_PASS, NODOUBLE_TAKE, TOOGOOD_TAKE, TOOGOOD_PASS, DOUBLE_BEAVER,
 NODOUBLE_BEAVER, REDOUBLE_TAKE, REDOUBLE_PASS, NO_REDOUBLE_TAKE, TOOGOODRE_TAKE,
 TOOGOODRE_PASS, NO_REDOUBLE_BEAVER, NODOUBLE_DEADCUBE, NO_REDOUBLE_DEADCUBE, NOT_AVAILABLE,
 OPTIONAL_DOUBLE_TAKE, OPTIONAL_REDOUBLE_TAKE, OPTIONAL_DOUBLE_BEAVER, OPTIONAL_DOUBLE_PASS,
 OPTIONAL_REDOUBLE_PASS) = range(len(ACTIONS))

_DOUBLES = frozenset({DOUBLE_TAKE, DOUBLE_PASS, REDOUBLE_TAKE, REDOUBLE_PASS, DOUBLE_BEAVER})
_OPTIONAL = frozenset({OPTIONAL_DOUBLE_TAKE, OPTIONAL_REDOUBLE_TAKE, OPTIONAL_DOUBLE_BEAVER,
                       OPTIONAL_DOUBLE_PASS, OPTIONAL_REDOUBLE_PASS})
_PASSES = frozenset({DOUBLE_PASS, REDOUBLE_PASS, TOOGOOD_PASS, TOOGOODRE_PASS,
                     OPTIONAL_DOUBLE_PASS, OPTIONAL_REDOUBLE_PASS})
_BEAVERS = frozenset({DOUBLE_BEAVER, NODOUBLE_BEAVER, NO_REDOUBLE_BEAVER, OPTIONAL_DOUBLE_BEAVER})


class CubeDecision(NamedTuple):
    """A cube decision for the side on roll, as gnubg classifies it (a frozen value:
    a named tuple, which the API builds in one step).

    ``action`` is gnubg's wording ("Double, take", "Too good to redouble, pass",
    ...). ``should_double`` is what gnubg's bot does on its turn (doubling
    classes; optional doubles only at 0 ply with a win chance above 0.001; never
    below the dead-cube double point, the market-window pre-check).
    ``should_take`` is the answer to a double of this position (beaver classes
    count as takes; ``should_beaver`` tells them apart).
    """

    code: int
    equities: CubeEquities
    optimal: float
    cube_available: bool
    should_double: bool
    should_take: bool
    should_beaver: bool
    double_point: float  # dead-cube double point (market-window pre-check)

    @property
    def action(self) -> str:
        """gnubg's words: its hint says "You cannot double" where the side on roll
        may not double (``code`` still tells why: dead cube, the opponent's cube)."""
        return ACTIONS[self.code] if self.cube_available else CANNOT_DOUBLE

    @property
    def is_optional(self) -> bool:
        return self.code in _OPTIONAL

    def __str__(self) -> str:
        nd, dt, dp = self.equities
        return f"{self.action} (ND {nd:+.4f}, DT {dt:+.4f}, DP {dp:+.4f})"


def _clamp_match(length: int, score: tuple[int, int]) -> tuple[int, tuple[int, int]]:
    """Matches longer than 64 points map to 64, keeping each side's away count up to 64."""
    if length <= 64:
        return length, score
    away = [min(length - s, 64) for s in score]
    return 64, (64 - away[0], 64 - away[1])


def cube_info(match: MatchState | None, player: int = 0, *, beavers: bool = True,
              met: MatchEquityTable | None = None, cube: int | None = None,
              owner: int | None = None) -> CubeInfo:
    """A C ``bg_cubeinfo`` for ``player`` on roll (``match=None``: money, Jacoby, centred).

    Beavers are allowed where both ``beavers`` and ``match.beavers`` say so.
    ``cube``/``owner`` override the match's cube. The MET must outlive the result
    (the default MET is kept for the life of the process).
    """
    if match is None:
        match = MatchState(length=0, jacoby=True)
    cube = match.cube if cube is None else cube
    owner = match.cube_owner if owner is None else owner
    if match.length:
        length, score = _clamp_match(match.length, match.score)
        return CubeInfo((met or default_met()).c_table(), cube, owner, player, length, score,
                        match.crawford_game, False, False)
    return CubeInfo(None, cube, owner, player, 0, (0, 0), False, match.jacoby, beavers and match.beavers)


def _probs5(probs: object) -> list[float]:
    for attr in ("as_tuple", "to_tuple"):
        fn = getattr(probs, attr, None)
        if callable(fn):
            probs = fn()
            break
    values = list(probs)[:5]  # type: ignore[call-overload]
    if len(values) != 5 or not all(math.isfinite(v) for v in values):
        raise ValueError(f"need 5 finite probabilities (W, WG, WBG, LG, LBG), got {probs!r}")
    return [float(v) for v in values]


def efficiency(board: Sequence[Sequence[int]] | None, position_class: int,
               low_ply: bool = False) -> float:
    """gnubg's cube efficiency (Janowski's x) of a leaf position, by its class."""
    if position_class == CLASS_RACE and board is None:
        raise ValueError("race positions need the board (pip count) for the cube efficiency")
    return native.cube_efficiency([c for row in board for c in row] if board else [0] * 50, position_class,
                                  low_ply)


def cube_decision_from_probabilities(
    probs: Iterable[float] | object,
    position_class: int,
    match: MatchState | None,
    player: int | None = None,
    *,
    position: object | None = None,
    efficiency_x: float | None = None,
    exact_money: Sequence[float] | None = None,
    engine_ctx: native.EngineHandle | None = None,
    beavers: bool = True,
    plies: int = 0,
    efficiency_set: str = "gnubg-1.07",
    precheck_probs: Iterable[float] | None = None,
    met: MatchEquityTable | None = None,
) -> CubeDecision:
    """Cube decision for ``player`` on roll from cubeless probabilities (a leaf).

    ``probs``: (W, WG, WBG, LG, LBG) for the side on roll. ``position_class``:
    gnubg's class code. ``match=None`` is money with Jacoby (centred cube);
    ``player`` defaults to ``match.on_roll`` (0 for money). Race positions need
    ``position`` (a :class:`~engine.position.Position` or a 2x25 board) or
    ``efficiency_x``. Two-sided bearoff classes use ``exact_money`` (the
    database's money cubeful equities centred / owned / opponent owns) when
    given, or read them through ``engine_ctx`` (an engine's ``native.EngineHandle``) and
    ``position``. ``plies``/``precheck_probs`` feed the bot's optional-double and
    market-window rules (defaults: a 0-ply decision, the same probabilities).
    ``efficiency_set``: see :data:`engine.levels.EFFICIENCY_SETS` ("gnubg-1.1" matches the
    `gnubg` PyPI package).
    """
    p = _probs5(probs)
    if player is None:
        player = match.on_roll if match is not None else 0
    ci = cube_info(match, player, beavers=beavers, met=met)
    if efficiency_x is None:
        board = getattr(position, "board", position)
        efficiency_x = efficiency(board, position_class,  # type: ignore[arg-type]
                                  native.low_ply_efficiency(efficiency_set, plies))
    if exact_money is None and engine_ctx is not None and position_class in (CLASS_BEAROFF2, CLASS_BEAROFF_TS):
        board = getattr(position, "board", position)
        if board is not None:
            exact_money = native.cube_exact_money(engine_ctx, [c for row in board for c in row])  # type: ignore[union-attr]
    code, optimal, equities = native.cube_decision(p, efficiency_x, position_class, exact_money, ci)
    pre = _probs5(precheck_probs) if precheck_probs is not None else p
    return decision_of(code, optimal, equities, ci, pre, plies)


_new_tuple = tuple.__new__


def decision_from_c(code: int, optimal: float, equities: CubeEquities, pre_win: float,
                    available: float, double_point: float, beavers: float, plies: int) -> CubeDecision:
    """The decision of a C cube call (bg_cube_decide8): the optimal and the no double,
    double/take, double/pass equities; the precheck's win chance; the call's info
    (availability, dead-cube double point, money with beavers, non-zero for yes)."""
    can = available != 0.0
    return _new_tuple(CubeDecision, (
        code, equities, optimal, can,
        can and pre_win >= double_point
        and (code in _DOUBLES or (code in _OPTIONAL and plies == 0 and pre_win > 0.001)),
        code not in _PASSES, beavers != 0.0 and code in _BEAVERS, double_point))


def decision_of(code: int, optimal: float, equities: CubeEquities, ci: CubeInfo, pre: Sequence[float],
                plies: int) -> CubeDecision:
    """The decision for gnubg's cube-decision ``code`` with its optimal and no-double,
    double/take, double/pass equities; ``pre`` the probabilities its double-point
    check reads; ``plies`` the evaluation's depth."""
    available = ci.available()
    double_point = ci.double_point_dead(pre)
    win = f32(pre[0])  # the check reads the C float
    should_double = available and win >= double_point and (
        code in _DOUBLES or (code in _OPTIONAL and plies == 0 and win > 0.001))
    return CubeDecision(
        code=code,
        equities=equities,
        optimal=optimal,
        cube_available=available,
        should_double=should_double,
        should_take=code not in _PASSES,
        should_beaver=ci.match_to == 0 and ci.beavers and code in _BEAVERS,
        double_point=double_point,
    )


# ---- answering a double or a beaver (as gnubg's bot does) ---------------------------------

_TAKES = frozenset({DOUBLE_TAKE, REDOUBLE_TAKE, NODOUBLE_TAKE, NO_REDOUBLE_TAKE, TOOGOOD_TAKE,
                    TOOGOODRE_TAKE, NODOUBLE_DEADCUBE, NO_REDOUBLE_DEADCUBE, NOT_AVAILABLE,
                    OPTIONAL_DOUBLE_TAKE, OPTIONAL_REDOUBLE_TAKE})
BEAVER_LIMIT = 3
MAX_BEAVER_CUBE = 2048


def answer_double(decision: CubeDecision, *, money: bool, beavers_used: int = 0, cube: int = 1,
                  beaver_limit: int = BEAVER_LIMIT) -> str:
    """gnubg's bot answer to a double: "take", "pass" or "beaver".

    ``decision`` is the cube decision evaluated from the **doubler's** side.
    Beaver classes beaver in money play while beavers remain (fewer than
    ``beaver_limit`` this game and the cube below 2048), else take.
    """
    if decision.code in _BEAVERS:
        if money and beavers_used < beaver_limit and cube < MAX_BEAVER_CUBE:
            return "beaver"
        return "take"
    return "take" if decision.code in _TAKES else "pass"


def answer_beaver(decision: CubeDecision, *, money: bool, beavers_used: int = 0, cube: int = 1,
                  beaver_limit: int = BEAVER_LIMIT) -> str:
    """gnubg's bot answer when its own double was beavered: "raccoon", "take" or "pass".

    ``decision``: the bot's own cube decision (the bot on roll). A double it
    should have made (take, pass or too-good classes) is raccooned when allowed,
    else taken; "no double, take" is dropped only if DT <= -1; beaver classes
    are taken.
    """
    own_double = decision.code in (_DOUBLES | _PASSES | {TOOGOOD_TAKE, TOOGOODRE_TAKE,
                                                          OPTIONAL_DOUBLE_TAKE, OPTIONAL_REDOUBLE_TAKE})
    if decision.code in _BEAVERS:
        return "take"
    if own_double:
        if money and beavers_used < beaver_limit and cube < MAX_BEAVER_CUBE:
            return "raccoon"
        return "take"
    if decision.code in (NODOUBLE_TAKE, NO_REDOUBLE_TAKE) and decision.equities.dt <= -1.0:
        return "pass"
    return "take"
