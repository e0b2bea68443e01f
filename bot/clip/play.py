"""Events of play: invitations, the start, resume and end of a match, turns, moves, the cube, resignations,
the end of a game, interruptions, and ``board:`` lines.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from bot.clip.event import Event, Steps

# -- invitations and match start ----------------------------------------------


@dataclass(frozen=True, slots=True)
class Invitation(Event):
    """``<user> wants to play a <n> point match / an unlimited match /
    to resume a saved match with you.`` Length 0 = unlimited, None = resume."""

    user: str
    length: int | None

    @property
    def resume(self) -> bool:
        return self.length is None


@dataclass(frozen=True, slots=True)
class JoinHint(Event):
    """``Type 'join <user>' to accept.`` (always follows an invitation)."""

    user: str


@dataclass(frozen=True, slots=True)
class SavedMatchWarning(Event):
    """``WARNING: Don't accept if you want to continue the saved ... match!``; 0 = unlimited."""

    length: int


@dataclass(frozen=True, slots=True)
class InviteSent(Event):
    """``** You invited <user> to ...``; length as in :class:`Invitation`."""

    user: str
    length: int | None


@dataclass(frozen=True, slots=True)
class UserAway(Event):
    """``<user> is away: <msg>`` (after inviting an away user)."""

    user: str
    message: str


@dataclass(frozen=True, slots=True)
class NewMatch(Event):
    """A new match began (we joined, or the opponent joined us); 0 = unlimited."""

    opponent: str
    length: int


@dataclass(frozen=True, slots=True)
class MatchResumed(Event):
    """A saved match with ``opponent`` was loaded."""

    opponent: str


@dataclass(frozen=True, slots=True)
class ResumeTurn(Event):
    """``turn: <user>.`` in the summary of a loaded match."""

    user: str


@dataclass(frozen=True, slots=True)
class ResumeLength(Event):
    """``match length: <n>`` / ``unlimited matchlength`` (0)."""

    length: int


@dataclass(frozen=True, slots=True)
class ResumePoints(Event):
    """``points for <user>: <n>``."""

    user: str
    points: int


@dataclass(frozen=True, slots=True)
class GameStart(Event):
    """``Starting a new game with <opponent>.``"""

    opponent: str


@dataclass(frozen=True, slots=True)
class OpeningRoll(Event):
    """``You rolled 3, bob rolled 5`` (re-rolled while equal)."""

    player: str
    die: int
    opponent: str
    opponent_die: int


@dataclass(frozen=True, slots=True)
class FirstMove(Event):
    """``<player> makes the first move.``; ``It's your turn to move.`` gives YOU."""

    player: str


@dataclass(frozen=True, slots=True)
class AutoDouble(Event):
    """``The number on the doubling cube is now <n>`` (opening doublet, autodouble)."""

    cube: int


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


@dataclass(frozen=True, slots=True)
class MatchScore(Event):
    """``score in <n> point match: <p1>-<a> <p2>-<b>``; length 0 = unlimited."""

    length: int
    player1: str
    score1: int
    player2: str
    score2: int


@dataclass(frozen=True, slots=True)
class JoinNextGame(Event):
    """``Type 'join' if you want to play the next game, ...``: send ``join``."""


@dataclass(frozen=True, slots=True)
class WaitingForJoin(Event):
    """``** Please wait for <user> to join too.``"""

    user: str


@dataclass(frozen=True, slots=True)
class MatchWon(Event):
    """``<winner> wins the <n> point match <a>-<b> .`` (winner's score first)."""

    winner: str
    length: int
    score: tuple[int, int]


@dataclass(frozen=True, slots=True)
class ReportMatchStart(Event):
    """``<a> and <b> start a <n> point match.`` (toggle report); 0 = unlimited."""

    player1: str
    player2: str
    length: int


@dataclass(frozen=True, slots=True)
class ReportMatchResume(Event):
    """``<a> and <b> are resuming their <n>-point match.``"""

    player1: str
    player2: str
    length: int


@dataclass(frozen=True, slots=True)
class ReportMatchWin(Event):
    """``<w> wins a <n> point match against <l>  <a>-<b> .``"""

    winner: str
    loser: str
    length: int
    score: tuple[int, int]


@dataclass(frozen=True, slots=True)
class LeftGame(Event):
    """``<player> has left the game with <opponent>.`` (report line)."""

    player: str
    opponent: str


SaveReason = Literal["leave", "logout", "drop", "timeout"]


@dataclass(frozen=True, slots=True)
class GameSaved(Event):
    """An unfinished match was saved because ``player`` left, logged out, dropped or timed out."""

    player: str
    reason: SaveReason


# -- boards -------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Board(Event):
    """A ``board:`` line (boardstyle 3); decode it with :func:`bot.fibsboard.parse`."""

    line: str


def steps_text(steps: Steps) -> str:
    return " ".join(f"{a}-{b}" for a, b in steps)
