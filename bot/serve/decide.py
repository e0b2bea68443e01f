"""gnubg's external-player answers, computed by our engine.

:func:`situation` reads a board request the way gnubg's external interface
does (the side named by the turn token decides; a double is on the table when
the doubled token is set or both may-double tokens are 0; the own dice, else
the opponent's; the cube owner from the may-double tokens; the Crawford game
when one side is 1-away unless token 51 or 52 is set). :func:`answer_board` and
:func:`answer_evaluation` give the reply text.

gnubg 1.07 (and later) puts the two scores of a board line into its cube model
the wrong way round; bots compensate by swapping them. ``score_order="gnubg"``
(the default) reproduces that, ``"fibs"`` reads the scores as FIBS sends them.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

import numpy as np

from bot.serve.protocol import Board, EvalOptions, SessionOptions
from engine import Engine, MatchState, Position
from engine.cube import (
    ACTIONS,
    BEAVER_LIMIT,
    NO_REDOUBLE_BEAVER,
    NO_REDOUBLE_DEADCUBE,
    NO_REDOUBLE_TAKE,
    NODOUBLE_BEAVER,
    NODOUBLE_DEADCUBE,
    NODOUBLE_TAKE,
    NOT_AVAILABLE,
    TOOGOOD_PASS,
    TOOGOOD_TAKE,
    TOOGOODRE_PASS,
    TOOGOODRE_TAKE,
    answer_double,
)
from engine.levels import EvalSettings, Level, Think
from engine.match import CENTRED
from engine.resign import check_resignation
from engine.think import think_cube, think_move

ScoreOrder = Literal["gnubg", "fibs"]
MONEY_LENGTHS = (0, 9999)
BADLY_FORMED = "badly formed board"

_ROLLS = frozenset({NODOUBLE_TAKE, NO_REDOUBLE_TAKE, TOOGOOD_TAKE, TOOGOODRE_TAKE, TOOGOOD_PASS,
                    TOOGOODRE_PASS, NODOUBLE_BEAVER, NO_REDOUBLE_BEAVER, NODOUBLE_DEADCUBE,
                    NO_REDOUBLE_DEADCUBE})
_OPTIONAL = frozenset(i for i, a in enumerate(ACTIONS) if a.lower().startswith("optional"))


class BadBoard(ValueError):
    """The board line cannot be converted (gnubg: ``Error: badly formed board``)."""


@dataclass(frozen=True)
class Situation:
    """A board request as the engine sees it: the side on turn is ``board[1]``, player 1."""

    position: Position
    match: MatchState
    dice: tuple[int, int] | None
    doubled: bool
    money: bool


@dataclass(frozen=True)
class ServerSettings:
    """What gnubg takes from its global state when ``external`` starts. ``think``: a
    thinking-time level playing the moves and cube decisions (``level`` then judges
    resignations and evaluations)."""

    level: Level
    think: Think | None = None
    jacoby: bool = True  # gnubg's ``set jacoby``: on by default
    beavers: bool = True  # gnubg's ``set beavers``: 3 allowed by default
    score_order: ScoreOrder = "gnubg"
    threads: int = 1  # search threads per request (the pool runs one request per core)


def _padded(board: Board) -> list[int]:
    values = list(board.integers)
    return values + [0] * (50 - len(values))


def situation(board: Board, session: SessionOptions, settings: ServerSettings) -> Situation:
    """The engine's view of a board request, or BadBoard."""
    t = _padded(board)
    length, score_you, score_opp = t[0], t[1], t[2]
    points = t[3:29]
    turn, dice_you, dice_opp, cube = t[29], (t[30], t[31]), (t[32], t[33]), t[34]
    may_you, may_opp, doubled_token, colour, direction = t[35], t[36], t[37], t[38], t[39]
    money = length in MONEY_LENGTHS
    if length < 0 or score_you < 0 or score_opp < 0:
        raise BadBoard("negative match length or score")
    if not money and (length <= score_you or length <= score_opp):
        raise BadBoard("a score is not below the match length")
    if turn == 0 or colour == 0 or direction == 0:
        raise BadBoard("turn, colour and direction must be non-zero")
    if cube < 1 or cube & (cube - 1) or cube > 1 << 15:
        raise BadBoard("the cube is not a power of two")
    you, opp = [0] * 25, [0] * 25
    for p in range(1, 25):
        v = points[p] * (1 if colour > 0 else -1)
        if v > 0:
            you[(p if direction < 0 else 25 - p) - 1] += v
        elif v < 0:
            opp[(25 - p if direction < 0 else p) - 1] -= v
    for end in (0, 25):
        v = points[end] * (1 if colour > 0 else -1)
        if v > 0:
            you[24] += v
        else:
            opp[24] -= v
    you_on_turn = (turn > 0) == (colour > 0)
    try:
        position = Position.from_board((opp, you) if you_on_turn else (you, opp))
    except ValueError as exc:
        raise BadBoard(str(exc)) from None
    dice_pair = dice_you if dice_you != (0, 0) else dice_opp
    dice: tuple[int, int] | None = None
    if dice_pair[0] and dice_pair[1]:
        if not all(1 <= d <= 6 for d in dice_pair):
            raise BadBoard("dice out of range")
        dice = dice_pair
    mover_score, other_score = (score_you, score_opp) if you_on_turn else (score_opp, score_you)
    doubled = bool(doubled_token) or (not may_you and not may_opp)
    # gnubg's swapped reading; its take decision turns the board to the doubled side and back,
    # which puts the scores right again
    if settings.score_order == "gnubg" and not doubled:
        mover_score, other_score = other_score, mover_score
    owner = CENTRED
    if bool(may_you) != bool(may_opp):
        you_own = bool(may_you)
        owner = 1 if you_own == you_on_turn else 0
    crawford = False
    if not money:
        one_away = length - score_you == 1 or length - score_opp == 1
        crawford = one_away and not (t[48] or t[49]) and session.crawford
    jacoby = settings.jacoby if session.jacoby is None else session.jacoby
    try:
        match = MatchState(length=0 if money else length, score=(other_score, mover_score), cube=cube,
                           cube_owner=owner, on_roll=1, turn=1, crawford_game=crawford,
                           jacoby=jacoby and money, crawford_rule=not money and session.crawford, dice=dice)
    except ValueError as exc:
        raise BadBoard(str(exc)) from None
    return Situation(position, _interned(match), dice, doubled, money)


_MATCHES: dict[MatchState, MatchState] = {}


def _interned(match: MatchState) -> MatchState:
    """One object for equal match states: the engine keeps each one's C cube info (by
    identity), so a cube state seen before costs no new one."""
    if len(_MATCHES) > 4096:
        _MATCHES.clear()
    return _MATCHES.setdefault(match, match)


def _step(mover: list[int], opp: list[int], src: int, die: int) -> tuple[list[int], list[int]] | None:
    """One checker moved ``die`` pips from ``src`` (own points, 25 = bar), or None if illegal."""
    if mover[src - 1] == 0 or (mover[24] and src != 25):
        return None
    dst = src - die
    if dst >= 1:
        if opp[24 - dst] > 1:
            return None
    elif any(mover[6:25]) or (dst < 0 and any(mover[src:6])):
        return None
    mover, opp = mover[:], opp[:]
    mover[src - 1] -= 1
    if dst >= 1:
        mover[dst - 1] += 1
        if opp[24 - dst] == 1:
            opp[24 - dst], opp[24] = 0, opp[24] + 1
    return mover, opp


def gnubg_pairs(position: Position, dice: tuple[int, int], steps: int,
                target: tuple[tuple[int, ...], tuple[int, ...]]) -> list[tuple[int, int]]:
    """The first step sequence, in gnubg's generation order, that plays ``position`` to
    ``target`` (the opponent's row and the mover's: hits count), as (from, to) pairs:
    the dice as the board gives them, then reversed; for each die the sources from the
    bar down (doubles never go back up). Empty if none does."""
    opp0, mover0 = list(position.board[0]), list(position.board[1])
    double = dice[0] == dice[1]
    orders = [(dice[0],) * 4] if double else [dice, dice[::-1]]
    for order in orders:
        found = _pairs_in_order(mover0, opp0, order, steps, target, double)
        if found is not None:
            return found
    return []


def _pairs_in_order(mover0: list[int], opp0: list[int], order: tuple[int, ...], steps: int,
                    target: tuple[tuple[int, ...], tuple[int, ...]], double: bool) -> list[tuple[int, int]] | None:
    """gnubg_pairs for one order of the dice: the first step sequence, or None."""
    found: list[tuple[int, int]] = []

    def search(mover: list[int], opp: list[int], depth: int, top: int) -> bool:
        if depth == steps:
            return (tuple(opp), tuple(mover)) == target
        die = order[depth]
        for src in range(top, 0, -1):
            nxt = _step(mover, opp, src, die)
            if nxt is not None:
                found.append((src, max(src - die, 0)))
                if search(nxt[0], nxt[1], depth + 1, src if double else 25):
                    return True
                found.pop()
        return False
    return found if search(mover0, opp0, 0, 25) else None


def format_move(position: Position, move: Any, dice: tuple[int, int] | None = None) -> str:
    """gnubg's plain move format: one ``from/to`` pair per die, ``*`` on a hit, 25 = bar,
    0 = off; fewer than four pairs end in a space. With ``dice`` (as the board gives
    them), the pairs come in the order gnubg's move generator finds them."""
    pairs = [(s.src, s.dst) for s in move.steps]
    if dice is not None and pairs:
        after = position.play(move).board
        target = (tuple(after[0]), tuple(after[1]))
        pairs = gnubg_pairs(position, dice, len(pairs), target) or pairs
    opponent = list(position.board[0])
    texts = []
    for src, dst in pairs:
        hit = ""
        if dst > 0 and opponent[24 - dst] == 1:
            opponent[24 - dst] = 0
            opponent[24] += 1
            hit = "*"
        texts.append(f"{src}/{dst}{hit}")
    text = " ".join(texts)
    return text + " " if 0 < len(texts) < 4 else text


def answer_board(engine: Engine, board: Board, session: SessionOptions, settings: ServerSettings) -> str:
    """The reply to a board request (without the LF)."""
    try:
        s = situation(board, session, settings)
    except BadBoard:
        return "Error: " + BADLY_FORMED
    level = settings.level
    if s.doubled:
        decision = _cube(engine, s, settings)
        if _not_available(decision):
            return "beaver"  # gnubg's take answer for a verdict it does not list
        answer = answer_double(decision, money=s.money, cube=s.match.cube,
                               beaver_limit=BEAVER_LIMIT if settings.beavers else 0)
        return "drop" if answer == "pass" else answer
    if session.resignation:
        return "accept" if resignation_accepted(engine, s, session.resignation, settings) else "reject"
    if s.dice is not None:
        if settings.think is not None:
            thought = think_move(engine, s.position, s.dice, s.match, settings.think, threads=settings.threads)
            move = thought.decision.move
        else:
            move = engine.best_move(s.position, s.dice, s.match, level, threads=settings.threads).move
        return format_move(s.position, move, s.dice)
    decision = _cube(engine, s, settings)
    if _not_available(decision):
        return "double"  # gnubg does not check cube access
    if decision.code in _OPTIONAL:
        # a board request carries no plies: gnubg doubles when the win chance exceeds 0.001
        win = engine.evaluate_nply(s.position, s.match, level, threads=settings.threads).probabilities[0]
        return "double" if win > 0.001 else "roll"
    return "roll" if decision.code in _ROLLS else "double"


def _cube(engine: Engine, s: Situation, settings: ServerSettings) -> Any:
    """The cube decision at the server's level (a thinking-time level deepens as far as its budget goes)."""
    if settings.think is not None:
        return think_cube(engine, s.position, s.match, settings.think, threads=settings.threads,
                          beavers=settings.beavers).decision
    return engine.cube_decision(s.position, s.match, settings.level, beavers=settings.beavers,
                                threads=settings.threads)


def _not_available(decision: Any) -> bool:
    """gnubg's "not available" verdict: the side on roll does not have the cube (a dead
    cube has verdicts of its own)."""
    return bool(decision.code == NOT_AVAILABLE or (
        not decision.cube_available and decision.code not in (NODOUBLE_DEADCUBE, NO_REDOUBLE_DEADCUBE)))


def resignation_accepted(engine: Engine, s: Situation, value: int, settings: ServerSettings) -> bool:
    """gnubg's test: the resigner (on turn) keeps no more than playing on gives (within 1e-6)."""
    probs = engine.evaluate_nply(s.position, s.match, settings.level, threads=settings.threads).probabilities
    if value > 3:
        return True  # gnubg answers ``accept`` to an undefined level
    return check_resignation(probs, value if value > 0 else 1, s.match, 1).accept


def mwc_of(engine: Engine, match: MatchState, emg: float) -> float:
    """Player 1's (the side on turn) match winning chance for an equity in EMG (gnubg's
    conversion: the MWCs of winning and of losing the cube's value, linearly), in single
    precision as gnubg computes it."""
    length, score = match.length, match.score
    if length > 64:  # the table's size: keep each side's away count up to 64
        away = [min(length - s, 64) for s in score]
        length, score = 64, (64 - away[0], 64 - away[1])
    met = engine.met
    win = np.float32(met.mwc(score, length, 1, match.cube, winner=1, crawford=match.crawford_game))
    lose = np.float32(met.mwc(score, length, 1, match.cube, winner=0, crawford=match.crawford_game))
    half = np.float32(0.5)
    return float(half * (np.float32(emg) * (win - lose) + (win + lose)))


def answer_evaluation(engine: Engine, board: Board, session: SessionOptions, options: EvalOptions,
                      settings: ServerSettings) -> str:
    """Six numbers: W WG WBG LG LBG and the equity (MWC in match play) for the side on turn."""
    no_dice = _padded(board)
    no_dice[30:34] = [0, 0, 0, 0]  # gnubg ignores the dice here
    try:
        s = situation(Board(board.player, board.opponent, tuple(no_dice)), session, settings)
    except BadBoard:
        return "Error: " + BADLY_FORMED
    if not 0 <= options.plies <= 4 or not 0.0 <= options.noise <= 1.0:
        return "Error: " + BADLY_FORMED
    ev = EvalSettings(plies=options.plies, cubeful=options.cubeful, prune=options.prune,
                      deterministic=options.deterministic, noise=options.noise,
                      efficiency_set=settings.level.cube.efficiency_set,
                      noise_centred=settings.level.cube.noise_centred)
    position, match = s.position, s.match
    if s.doubled:
        # as for a take decision, gnubg turns the board to the doubled side; the scores stay
        # where its reading put them (so the doubled side gets the doubler's score)
        owner = match.cube_owner if match.cube_owner == CENTRED else 1 - match.cube_owner
        position, match = position.swap(), match.with_(cube_owner=owner)
    result = engine.evaluate_nply(position, match, ev, threads=settings.threads)
    equity = result.cubeful_equity if options.cubeful else result.equity
    if not s.money:
        equity = mwc_of(engine, match, equity)
    values = list(result.probabilities)[:5] + [equity]
    return " ".join(f"{v:f}" for v in values)
