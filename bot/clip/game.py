"""Events inside a game: turns, moves, the cube, resignations, the end of a game, and ``board:`` lines."""

from __future__ import annotations

from dataclasses import dataclass

from bot.clip.event import Event, Steps


# -- turns --------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class YourTurn(Event):
    """``It's your turn. Please roll or double``: send roll or double."""


@dataclass(frozen=True, slots=True)
class Roll(Event):
    """``You roll 6 and 4.`` / ``<player> rolls 3 and 1.``"""

    player: str
    dice: tuple[int, int]


@dataclass(frozen=True, slots=True)
class PleaseMove(Event):
    """``Please move <n> pieces.``"""

    count: int


@dataclass(frozen=True, slots=True)
class CantMove(Event):
    """``You can't move.`` / ``<player> can't move.``"""

    player: str


@dataclass(frozen=True, slots=True)
class Moves(Event):
    """``<player> moves 24-18 13-11 .`` (may have no sub-moves)."""

    player: str
    steps: Steps

    @property
    def text(self) -> str:
        return steps_text(self.steps)


@dataclass(frozen=True, slots=True)
class OnlyMove(Event):
    """``The only possible move is ... .``: the server moved (automove on)."""

    steps: Steps

    @property
    def text(self) -> str:
        return steps_text(self.steps)


@dataclass(frozen=True, slots=True)
class BearingOff(Event):
    """``Bearing off: ...`` (greedy on): the server bore off."""

    text: str


# -- cube and resignation -----------------------------------------------------


@dataclass(frozen=True, slots=True)
class Doubles(Event):
    """``You double. Please wait ...`` / ``<player> doubles. Type 'accept' or 'reject'.``"""

    player: str


@dataclass(frozen=True, slots=True)
class DoubleAccepted(Event):
    """``<player> accepts the double. The cube shows <n>.``; watchers get no value (None)."""

    player: str
    cube: int | None


@dataclass(frozen=True, slots=True)
class Redoubles(Event):
    """``<player> redoubles to <n>. ...`` (unlimited matches with instant redoubles)."""

    player: str
    cube: int


@dataclass(frozen=True, slots=True)
class AcceptAndRedouble(Event):
    """``You accept the double to <n> and redouble.``"""

    cube: int


@dataclass(frozen=True, slots=True)
class ResignOffer(Event):
    """``<player> wants to resign. <winner> will win <n> points.``; points include the cube."""

    player: str
    winner: str
    points: int


@dataclass(frozen=True, slots=True)
class ResignRejected(Event):
    """``<player> rejects. The game continues.``"""

    player: str


# -- end of game and match ----------------------------------------------------


@dataclass(frozen=True, slots=True)
class GameWon(Event):
    """The game was borne off: ``<winner> wins the game and gets <n> points.``"""

    winner: str
    points: int


@dataclass(frozen=True, slots=True)
class GiveUp(Event):
    """A double was rejected: ``<loser> gives up. <winner> wins <n> points.``"""

    loser: str
    winner: str
    points: int


@dataclass(frozen=True, slots=True)
class ResignAccepted(Event):
    """A resignation was accepted: ``<winner> accepts and wins <n> points.``"""

    winner: str
    points: int


# -- oldmoves and ratings -----------------------------------------------------


@dataclass(frozen=True, slots=True)
class Board(Event):
    """A ``board:`` line (boardstyle 3); decode it with :func:`bot.fibsboard.parse`."""

    line: str


def steps_text(steps: Steps) -> str:
    return " ".join(f"{a}-{b}" for a, b in steps)
