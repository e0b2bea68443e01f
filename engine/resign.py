"""Resignations as gnubg's bot handles them: when the bot offers one, and whether it accepts.

Both decisions use 0-ply, cubeless, noiseless probabilities and gnubg's cubeless
utility (money: Jacoby-adjusted gammon price; match: gammon prices from the
MET), computed in single precision as gnubg does (the offer test is an exact
float comparison).

Resignation levels: 1 = single game, 2 = gammon, 3 = backgammon (gnubg's and
the match ID's numbering).

>>> resign_offer((0.0, 0.0, 0.0, 1.0, 0.0), 8, MatchState(length=0, jacoby=False), 0)
2
>>> accept_resignation((0.2, 0.0, 0.0, 0.3, 0.0), 1, None, 0)   # resigner keeps 20% wins
True
>>> accept_resignation((0.0, 0.0, 0.0, 0.9, 0.0), 1, MatchState(length=0, jacoby=False), 0)
False
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from engine.cube import CLASS_RACE, _probs5, cube_info
from engine.match import MatchState
from engine.native import CubeInfo
from engine.probabilities import f32

SINGLE, GAMMON, BACKGAMMON = 1, 2, 3
RESIGN_NAMES = {1: "single", 2: "gammon", 3: "backgammon"}

# the resigner's outputs for each resignation level: W, WG, WBG, LG, LBG
_RESULT = {
    SINGLE: (0.0, 0.0, 0.0, 0.0, 0.0),
    GAMMON: (0.0, 0.0, 0.0, 1.0, 0.0),
    BACKGAMMON: (0.0, 0.0, 0.0, 1.0, 1.0),
}


def _utility(p: Iterable[float], ci: CubeInfo) -> float:
    return ci.utility(list(p))


_f32 = f32


@dataclass(frozen=True)
class ResignationCheck:
    """Equities (resigner's view, normalised) before and after an offered resignation."""

    level: int
    before: float  # the resigner's cubeless equity of playing on
    after: float  # the resigner's equity of the resignation
    accept: bool


def resign_offer(probs: Iterable[float] | object, position_class: int, match: MatchState | None,
                 player: int | None = None, declined: int = 0) -> int:
    """The resignation the bot (``player``, on roll, probabilities ``probs``) offers: 0 = none.

    Only for races and bearoffs (``position_class`` <= RACE), and only when the
    evaluation is certain (its utility equals that of losing the given level,
    exact float comparison). Money with Jacoby and a centred cube offers only
    singles. ``declined``: the highest level the opponent already declined this
    game; the bot does not repeat an offer at or below it.
    """
    if position_class > CLASS_RACE:
        return 0
    p = [_f32(v) for v in _probs5(probs)]
    if player is None:
        player = match.on_roll if match is not None else 0
    ci = cube_info(match, player)
    u = _utility(p, ci)
    level = 0
    if p[4] > 0.0 and u == _utility(_RESULT[BACKGAMMON], ci):
        level = BACKGAMMON
    elif p[3] > 0.0 and u == _utility(_RESULT[GAMMON], ci):
        level = GAMMON
    elif u == _utility(_RESULT[SINGLE], ci):
        level = SINGLE
    if level and ci.match_to == 0 and ci.jacoby and ci.owner == -1:
        level = SINGLE
    return level if level > declined else 0


def check_resignation(probs: Iterable[float] | object, level: int, match: MatchState | None,
                      resigner: int | None = None) -> ResignationCheck:
    """gnubg's test of a resignation offered by ``resigner``.

    ``probs``: 0-ply cubeless probabilities from the resigner's side (the
    position with the resigner on roll, or, if the resigner already rolled,
    after his best 0-ply move for that roll, inverted back to him). Accept iff
    the resignation gives the resigner no more than playing on (within 1e-6).
    """
    if level not in _RESULT:
        raise ValueError(f"resignation level must be 1 (single), 2 (gammon) or 3 (backgammon), got {level!r}")
    p = _probs5(probs)
    if resigner is None:
        resigner = match.on_roll if match is not None else 0
    ci = cube_info(match, resigner)
    before = _utility(p, ci)
    after = _utility(_RESULT[level], ci)
    return ResignationCheck(level, before, after, (after - before) < 1e-6)


def accept_resignation(probs: Iterable[float] | object, level: int, match: MatchState | None,
                       resigner: int | None = None) -> bool:
    """Whether the bot accepts ``resigner``'s resignation at ``level`` (see check_resignation)."""
    return check_resignation(probs, level, match, resigner).accept
