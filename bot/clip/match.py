"""Events around a match: invitations, match start and resume, score, end of match, saving and leaving."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from bot.clip.event import Event


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


# -- end of game and match ----------------------------------------------------


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
