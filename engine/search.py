"""Decisions at gnubg's levels: the n-ply search (csrc/search.c) and its Python face.

One C call per decision, the GIL released while it runs (gnubg's levels,
n-ply search, cube decisions and resignations):

* :func:`best_move` ranks every legal play as gnubg's bot does at a level
  (move filters, k-ply evaluation over the 21 rolls, pruning nets inside the
  search, cubeful propagation over the cube positions, noise at the leaves);
* :func:`cube_decision` is gnubg's cube decision at the level's cube context,
  with the bot's market-window pre-check;
* :func:`evaluate_nply` evaluates a position before the roll (analysis);
* :func:`resign_offer` / :func:`accept_resignation` are gnubg's resignation
  rules (0-ply, cubeless; engine/resign.py);
* :func:`format_hint` prints a gnubg-style hint (``fibsbot hint``).

Plies use gnubg's numbering (0-ply = the raw net). ``match=None`` means money
play with the Jacoby rule and a centred cube; otherwise the decision is for
``match.on_roll``, whose chequers are ``position.board[1]``. ``level`` is a
level name (``"expert"``, ``"world class"``...), an :class:`engine.levels.Level`
or an :class:`engine.levels.EvalSettings` (used for chequer play and cube).

Threads: searches of 1 ply or more split the rolls below each candidate over
``threads`` threads (default: every core this process may use); results do not
depend on the thread count. A random-noise context runs on one thread.

Cancelling: :func:`best_move` and :func:`cube_decision` take ``cancel``, a
:class:`Cancel`; setting it from another thread stops the search within one
roll of a node and the call raises :class:`engine.errors.SearchCancelled` (a
search that ends anyway may raise it too: a set flag never yields a result).

>>> from engine.evaluator import Engine
>>> from engine.position import Position
>>> d = best_move(Engine(), Position.initial(), (3, 1))
>>> str(d.move), d.candidates[0].plies, d.level
('8/5 6/5', 0, 'expert')
"""

from __future__ import annotations

import array
import functools
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import NamedTuple

from engine import native
from engine import resign as _resign
from engine.boards import board_bytes
from engine.cube import CubeDecision, cube_info, decision_from_c
from engine.kinds import Board, Dice, EngineCore, LevelLike, PositionLike
from engine.levels import EvalSettings, Level
from engine.levels import level as named_level
from engine.match import MatchState
from engine.native import CubeInfo, Handle, SearchSettings
from engine.native import check as _check
from engine.position import Move, Position, move_from_c
from engine.probabilities import Probabilities

_MAX_MOVES = 4096
_new = object.__new__


# ---- levels and settings ---------------------------------------------------------------


class Cancel:
    """A search's cancel flag, one-shot: :meth:`set` (from any thread) stops the
    searches given it within one roll of a node; they raise SearchCancelled."""

    __slots__ = ("_flag", "address")

    def __init__(self) -> None:
        self._flag = array.array("i", [0])  # the C int the search polls (never resized: it stays put)
        self.address: int = self._flag.buffer_info()[0]

    def set(self) -> None:
        self._flag[0] = 1

    @property
    def is_set(self) -> bool:
        return bool(self._flag[0])


def resolve_level(level: LevelLike) -> Level:
    """A :class:`Level` for a name, a Level or an EvalSettings (both contexts = it)."""
    if isinstance(level, Level):
        return level
    if isinstance(level, EvalSettings):
        return Level(name="custom", label=_describe(level), checker=level, cube=level)
    if isinstance(level, str):
        return named_level(level)
    raise TypeError(f"level must be a name, a Level or an EvalSettings, not {type(level).__name__}")


def _describe(s: EvalSettings) -> str:
    text = f"{s.plies}-ply {'cubeful' if s.cubeful else 'cubeless'}"
    if s.uses_pruning:
        text += " prune"
    if s.noise:
        text += f", noise {s.noise:g}" + (" (d)" if s.deterministic else "")
    return text


def default_threads() -> int:
    """Threads a search uses unless told otherwise: every core this process may use."""
    return native.default_threads()


def _threads_for(settings: EvalSettings, threads: int | None) -> int:
    if threads is not None:
        if threads < 0:
            raise ValueError("threads must be 0 (all cores) or more")
        return threads
    return settings.threads if settings.threads > 1 else 0


@functools.lru_cache(maxsize=256)
def c_settings(settings: EvalSettings, threads: int = 0) -> SearchSettings:
    """The C search settings for an EvalSettings (cached; read-only, shareable)."""
    return SearchSettings(settings, threads)


# (id(settings), threads) -> (settings, C settings): c_settings without hashing
# the settings' fields on every decision (the entry keeps the settings, so the id stays theirs)
_SETTINGS_BY_ID: dict[tuple[int, int], tuple[EvalSettings, SearchSettings]] = {}


def _settings_for_call(settings: EvalSettings, threads: int | None) -> SearchSettings:
    """The C settings of a call (their ``address`` for engine._fast)."""
    n = _threads_for(settings, threads)
    if settings.noise and not settings.deterministic and settings.seed is None:
        # random noise seeded from the clock, as gnubg (a fresh draw per decision)
        return SearchSettings(settings, n, (time.time_ns() ^ threading.get_ident()) & 0xFFFFFFFF)
    hit = _SETTINGS_BY_ID.get((id(settings), n))
    if hit is not None and hit[0] is settings:
        return hit[1]
    cs = c_settings(settings, n)
    if len(_SETTINGS_BY_ID) > 256:
        _SETTINGS_BY_ID.clear()
    _SETTINGS_BY_ID[(id(settings), n)] = (settings, cs)
    return cs


_MONEY = MatchState(length=0, jacoby=True)
# (id(engine), id(match), mover, beavers) -> (engine, match, C cube info), as above
_CUBE_INFOS: dict[tuple[int, int, int, bool], tuple[EngineCore, MatchState, CubeInfo]] = {}


def _cube_info(engine: EngineCore, match: MatchState, mover: int, beavers: bool = True) -> CubeInfo:
    """The C cube info of a decision (read-only for the C calls: kept and reused)."""
    k = (id(engine), id(match), mover, beavers)
    hit = _CUBE_INFOS.get(k)
    if hit is not None and hit[0] is engine and hit[1] is match:
        return hit[2]
    # a money decision needs no MET: it is loaded for the first match decision
    ci = cube_info(match, mover, beavers=beavers, met=engine.met if match.length else None)
    if len(_CUBE_INFOS) > 1024:
        _CUBE_INFOS.clear()
    _CUBE_INFOS[k] = (engine, match, ci)
    return ci


class _CallContext(NamedTuple):
    """What a one-decision C call needs besides the board, looked up once per
    (engine, level, match, threads, beavers) and kept: the level, its settings for
    the call, the C settings and cube info with their addresses for engine._fast."""

    level: Level
    settings: EvalSettings
    c_settings: SearchSettings
    c_settings_addr: int
    cube_info: CubeInfo
    cube_info_addr: int


# (id(engine), id(level), id(match), threads, beavers, cube) -> ((engine, level, match), context)
_CONTEXTS: dict[tuple[int, int, int, int | None, bool, bool],
                tuple[tuple[EngineCore, LevelLike, MatchState | None], _CallContext]] = {}


def _call_context(engine: EngineCore, level: LevelLike, match: MatchState | None, threads: int | None,
                  beavers: bool, cube: bool) -> _CallContext:
    """The context of a chequer-play (``cube`` false) or cube call. Random-noise
    settings get a fresh seed per call, as :func:`_settings_entry` gives them."""
    k = (id(engine), id(level), id(match), threads, beavers, cube)
    hit = _CONTEXTS.get(k)
    if hit is not None and hit[0][0] is engine and hit[0][1] is level and hit[0][2] is match:
        return hit[1]
    lv = resolve_level(level)
    settings = lv.cube if cube else lv.checker
    state, mover = _mover(match)
    cs = _settings_for_call(settings, threads)
    ci = _cube_info(engine, state, mover, beavers)
    context = _CallContext(lv, settings, cs, cs.address, ci, ci.address)
    if not (settings.noise and not settings.deterministic and settings.seed is None):
        if len(_CONTEXTS) > 1024:
            _CONTEXTS.clear()
        _CONTEXTS[k] = ((engine, level, match), context)
    return context


def _flat(position: PositionLike) -> list[int]:
    board: Board = position.board if isinstance(position, Position) else position
    try:
        flat = [int(c) for c in list(board[0]) + list(board[1])]
    except (TypeError, OverflowError, IndexError, ValueError) as exc:
        raise ValueError(f"bad board: {exc}") from None
    if len(flat) != 50 or not all(0 <= c < 2**32 for c in flat):
        raise ValueError("bad board: 2 rows of 25 counts")
    return flat


def _mover(match: MatchState | None) -> tuple[MatchState, int]:
    if match is None:
        return _MONEY, 0
    return match, match.on_roll


# ---- chequer play ----------------------------------------------------------------------------


@dataclass(frozen=True)
class Candidate:
    """One play with its evaluation, from the mover's side.

    ``equity``: the score the play is ranked by (cubeful equity normalised to
    the cube, EMG in match play; the cubeless score for cubeless settings);
    ``cubeless_equity``: the cubeless score; ``probabilities``: the mover's
    cubeless outcome probabilities after the play; ``plies``: the depth it was
    evaluated at (plays dropped by the move filter keep their shallower score).
    """

    move: Move
    equity: float
    probabilities: Probabilities
    plies: int
    cubeless_equity: float
    position: Position  # the board after the play, seen from the mover



class MoveDecision:
    """The chosen play (``.move``; the empty Move when there is none) and the
    ranked ``.candidates`` (built on first access), at ``.level``."""

    __slots__ = ("move", "level", "settings", "_blob", "_count", "_candidates")

    def __init__(self, move: Move, level: str, settings: EvalSettings, blob: bytes | None, count: int = 0) -> None:
        self.move = move
        self.level = level
        self.settings = settings
        # the C search's outputs for count candidates, each array end to end:
        # moves, result boards (50 uints), equity, equity2, probabilities (5), plies
        self._blob = blob
        self._count = count
        self._candidates: list[Candidate] | None = None

    @property
    def candidates(self) -> list[Candidate]:
        if self._candidates is None:
            out: list[Candidate] = []
            if self._blob is not None:
                for move, r, eq, eq2, probs, plies in native.decode_plays(self._blob, self._count):
                    out.append(Candidate(move_from_c(move), eq, probs, plies, eq2,
                                         Position((r[:25], r[25:]))))
            self._candidates = out
        return self._candidates

    def __repr__(self) -> str:
        return f"MoveDecision(move={str(self.move)!r}, level={self.level!r})"


def best_move(engine: EngineCore, position: PositionLike, dice: tuple[int, int], match: MatchState | None = None,
              level: LevelLike = "expert", *, threads: int | None = None,
              max_candidates: int = _MAX_MOVES, cancel: Cancel | None = None) -> MoveDecision:
    """gnubg's play at ``level`` for ``match.on_roll`` (``position.board[1]``) and ``dice``.

    ``max_candidates`` limits the ranked list kept (the choice is unaffected);
    ``cancel``: a flag that stops the search (it raises SearchCancelled).
    """
    c = _call_context(engine, level, match, threads, True, False)
    d1, d2 = dice
    key = board_bytes(position)
    held = None if cancel is None else c.c_settings.polling(cancel.address)
    n, blob = native.best(engine._engine_addr, engine._cache_addr, key, d1, d2,
                          c.c_settings_addr if held is None else held.address, c.cube_info_addr,
                          max_candidates if type(max_candidates) is int else int(max_candidates))
    if n <= 0:
        _check(n)
        return MoveDecision(Move(), c.level.name, c.settings, None)
    d = _new(MoveDecision)  # the fields set directly: __init__'s call is a tenth of a 0-ply decision's Python
    d.move, d.level, d.settings = move_from_c(blob), c.level.name, c.settings
    d._blob, d._count, d._candidates = blob, n, None
    return d


# ---- evaluation and cube ------------------------------------------------------------------------


@dataclass(frozen=True)
class NplyEvaluation:
    """A position evaluated before the roll for the side on roll."""

    probabilities: Probabilities
    equity: float  # cubeless score (money: gammons count; match: EMG utility)
    cubeful_equity: float  # the side on roll may double (EMG in match play)
    plies: int


def evaluate_nply(engine: EngineCore, position: PositionLike, match: MatchState | None = None,
                  level: LevelLike = "expert", *, threads: int | None = None) -> NplyEvaluation:
    """n-ply evaluation of ``position`` (side on roll = ``match.on_roll``) with the
    level's cube-decision context (an EvalSettings is used as given)."""
    lv = resolve_level(level)
    settings = lv.cube
    match, mover = _mover(match)
    ci = _cube_info(engine, match, mover)
    probs, equity, cubeful = native.evaluate_nply(engine.native, _flat(position),
                                                  _settings_for_call(settings, threads), ci)
    return NplyEvaluation(probs, equity, cubeful, settings.plies)


def cube_decision(engine: EngineCore, position: PositionLike, match: MatchState | None = None,
                  level: LevelLike = "expert", *, threads: int | None = None,
                  beavers: bool = True, cancel: Cancel | None = None) -> CubeDecision:
    """gnubg's cube decision for ``match.on_roll`` (``position.board[1]``, before rolling).

    The side that was doubled reads ``.should_take`` (the position seen from the
    doubler). ``beavers``: money play allows beavers (gnubg's default).
    ``cancel``: a flag that stops the search (it raises SearchCancelled).
    """
    c = _call_context(engine, level, match, threads, beavers, True)
    key = board_bytes(position)
    held = None if cancel is None else c.c_settings.polling(cancel.address)
    code, optimal, equities, pre_win, available, double_point, beavering = native.cube(
        engine._engine_addr, engine._cache_addr, key, c.c_settings_addr if held is None else held.address,
        c.cube_info_addr)
    return decision_from_c(_check(code), optimal, equities, pre_win, available, double_point, beavering,
                           c.settings.plies)


# ---- many decisions in one call ------------------------------------------------------------


def _cube_infos(engine: EngineCore, match: MatchState | None | Sequence[MatchState | None], n: int,
                beavers: bool = True) -> tuple[Handle, int]:
    """One C cube info for all decisions (step 0) or an array of one each (step 1)."""
    if match is None or isinstance(match, MatchState):
        m, mover = _mover(match)
        return _cube_info(engine, m, mover, beavers), 0
    states = list(match)
    if len(states) != n:
        raise ValueError(f"{len(states)} match states for {n} positions")
    infos = []
    for state in states:
        m, mover = _mover(state)
        infos.append(_cube_info(engine, m, mover, beavers))
    return native.cube_infos(infos), 1


def _keys(positions: Sequence[PositionLike]) -> bytes:
    return b"".join([board_bytes(p) for p in positions])


def best_moves(engine: EngineCore, positions: Sequence[PositionLike], dice: Dice | Sequence[Dice],
               match: MatchState | None | Sequence[MatchState | None] = None, level: LevelLike = "expert",
               *, threads: int | None = None) -> list[MoveDecision]:
    """:func:`best_move` for many positions in one C call, the decisions shared out
    to ``threads`` threads (default: every core), each searched on one thread.

    ``dice``: one roll for all or one per position; ``match``: one cube state for
    all or one per position. Each decision's ``.candidates`` holds the chosen play
    only; ``.move`` and that candidate equal :func:`best_move`'s.
    """
    lv = resolve_level(level)
    settings = lv.checker
    n = len(positions)
    rolls: list[Sequence[int]] = ([dice] * n if len(dice) == 2 and isinstance(dice[0], int)  # type: ignore[list-item]
                                  else list(dice))  # type: ignore[arg-type]
    if len(rolls) != n:
        raise ValueError(f"{len(rolls)} rolls for {n} positions")
    if any(len(roll) != 2 for roll in rolls):
        raise ValueError("each roll is two dice")
    flat_dice = [int(d) for roll in rolls for d in roll]
    cis, step = _cube_infos(engine, match, n)
    blobs = native.best_moves(engine.native, _keys(positions), flat_dice, n, _settings_for_call(settings, 1),
                              cis, step, _threads_for(settings, threads))
    return [MoveDecision(Move(), lv.name, settings, None) if blob is None
            else MoveDecision(move_from_c(blob), lv.name, settings, blob, 1) for blob in blobs]


def cube_decisions(engine: EngineCore, positions: Sequence[PositionLike],
                   match: MatchState | None | Sequence[MatchState | None] = None,
                   level: LevelLike = "expert", *, threads: int | None = None,
                   beavers: bool = True) -> list[CubeDecision]:
    """:func:`cube_decision` for many positions in one C call (threads as
    :func:`best_moves`); ``match``: one cube state for all or one per position."""
    lv = resolve_level(level)
    settings = lv.cube
    n = len(positions)
    cis, step = _cube_infos(engine, match, n, beavers)
    plies = settings.plies
    return [decision_from_c(code, optimal, equities, win, available, point, beavers, plies)
            for code, optimal, equities, win, available, point, beavers in native.cube_decide_many(
                engine.native, _keys(positions), n, _settings_for_call(settings, 1), cis, step,
                _threads_for(settings, threads))]


# ---- resignation ------------------------------------------------------------------------------------


def resign_offer(engine: EngineCore, position: PositionLike, match: MatchState | None = None,
                 level: LevelLike = "expert", declined: int = 0) -> int:
    """The resignation gnubg's bot offers on its turn (0 none, 1 single, 2 gammon,
    3 backgammon): only in races, and only when the 0-ply cubeless evaluation is
    certain. The level does not matter (gnubg uses 0 ply)."""
    resolve_level(level)
    match, mover = _mover(match)
    probs, classes = native.evaluate_many(engine.native, board_bytes(position), 1)
    return _resign.resign_offer(probs.astype(float)[0], int(classes[0]), match, mover, declined)


def accept_resignation(engine: EngineCore, position: PositionLike, match: MatchState | None, level: LevelLike,
                       value: int) -> bool:
    """Whether the bot accepts a resignation of ``value`` (1 single, 2 gammon, 3 backgammon).

    ``position`` and ``match`` are seen by the bot (``position.board[1]``,
    ``match.on_roll``), the side offered the resignation; the resigner is the
    other player, taken to be about to roll (as gnubg: 0-ply, cubeless,
    accept when the resignation gives the bot at least its equity).
    """
    resolve_level(level)
    match, mover = _mover(match)
    resigner_view = position.swap() if hasattr(position, "swap") else Position.from_board(position).swap()
    probs = engine.evaluate(resigner_view)
    return _resign.accept_resignation(probs, value, match, 1 - mover)


# ---- hint ---------------------------------------------------------------------------------------------


def _probs_line(p: Probabilities) -> str:
    return (f"{p.win:.6f} {p.win_gammon:.6f} {p.win_backgammon:.6f} - "
            f"{1.0 - p.win:.6f} {p.lose_gammon:.6f} {p.lose_backgammon:.6f}")


def _context_line(lv: Level, settings: EvalSettings) -> str:
    label = f" [{lv.label}]" if lv.name != "custom" else ""
    return _describe(settings) + label


def _header(position: PositionLike, match: MatchState | None) -> str:
    pid = position.position_id() if hasattr(position, "position_id") else Position.from_board(position).position_id()
    if match is None:
        return f"Position ID: {pid}  (money game, Jacoby, centred cube)"
    if match.length:
        where = (f"{match.length}-point match, score {match.score[0]}-{match.score[1]}"
                 + (", Crawford game" if match.crawford_game else ""))
    else:
        where = "money game" + (", Jacoby" if match.jacoby else "")
    owner = "centred" if match.cube_owner == -1 else f"owned by player {match.cube_owner}"
    return (f"Position ID: {pid}  Match ID: {match.match_id()}\n"
            f"{where}, cube {match.cube} {owner}, player {match.on_roll} on roll")


def format_hint(engine: EngineCore, position: PositionLike, dice: Dice | None = None,
                match: MatchState | None = None, level: LevelLike = "expert",
                *, max_moves: int = 10) -> str:
    """gnubg-style hint text: with ``dice``, the ranked plays (equity, the
    difference to the best, probabilities, depth); without, the cube analysis."""
    lv = resolve_level(level)
    lines = [_header(position, match)]
    if dice is not None:
        d = best_move(engine, position, dice, match, lv)
        if not d.move:  # a dance (the one "play" is the empty move): gnubg's hint words it so
            lines.append(f"Dice {dice[0]}{dice[1]}: There are no legal moves.")
            return "\n".join(lines)
        lines.append(f"Dice {dice[0]}{dice[1]}: {len(d.candidates)} legal plays; "
                     f"{_context_line(lv, lv.checker)}")
        best = d.candidates[0].equity if d.candidates else 0.0
        for rank, c in enumerate(d.candidates[:max_moves], 1):
            kind = "Cubeful" if lv.checker.cubeful else "Cubeless"
            diff = "" if rank == 1 else f" ({c.equity - best:+.6f})"
            lines.append(f"{rank:5d}. {kind} {c.plies}-ply  {str(c.move):<28} Eq.: {c.equity:+.6f}{diff}")
            lines.append(f"       {_probs_line(c.probabilities)}")
        return "\n".join(lines)
    settings = lv.cube
    ev = evaluate_nply(engine, position, match, lv)
    cd = cube_decision(engine, position, match, lv)
    lines.append(f"Cube analysis; {_context_line(lv, settings)}")
    lines.append(f"  {_probs_line(ev.probabilities)}")
    lines.append(f"  Cubeless equity {ev.equity:+.6f}")
    nd, dt, dp = cd.equities
    owned = match is not None and match.cube_owner != -1
    rows = [("No redouble" if owned else "No double", nd),
            ("Redouble, take" if owned else "Double, take", dt),
            ("Redouble, pass" if owned else "Double, pass", dp)]
    lines.append("Cubeful equities:")
    for i, (name, value) in enumerate(rows, 1):
        diff = "" if value == cd.optimal else f"  ({value - cd.optimal:+.6f})"
        lines.append(f"  {i}. {name:<16} {value:+.6f}{diff}")
    lines.append(f"Proper cube action: {cd.action}")
    return "\n".join(lines)


__all__ = ["Cancel", "Candidate", "MoveDecision", "NplyEvaluation", "accept_resignation", "best_move",
           "best_moves", "c_settings", "cube_decision", "cube_decisions", "default_threads", "evaluate_nply",
           "format_hint", "resign_offer", "resolve_level"]
