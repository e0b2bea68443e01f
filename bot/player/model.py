"""What the player needs from the engine and the connection, and what it keeps: the value types
every part of :mod:`bot.player` shares."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from bot.clip import WhoInfo
from bot.recorder import Recorder
from engine.levels import Level, Think
from engine.match import MatchState
from engine.position import Move, Position

# -- what the player needs from the engine and the connection -----------------


class MoveChoice(Protocol):
    @property
    def move(self) -> Move: ...


class CubeChoice(Protocol):
    @property
    def should_double(self) -> bool: ...

    @property
    def should_take(self) -> bool: ...


class Decider(Protocol):
    """The decisions of ``engine.evaluator.Engine`` (its public methods): the mover is ``match.on_roll``,
    whose checkers are ``position.board[1]``. A thinking-time level (a Think) needs
    :class:`bot.player.thinking.ThinkingDecider`, whose choices carry the record's engine note."""

    def best_move(self, position: Position, dice: tuple[int, int], match: MatchState | None = None,
                  level: str | Level | Think = "expert") -> MoveChoice: ...

    def cube_decision(self, position: Position, match: MatchState | None = None,
                      level: str | Level | Think = "expert") -> CubeChoice: ...

    def resign_offer(self, position: Position, match: MatchState | None = None, level: str | Level | Think = "expert",
                     declined: int = 0) -> int: ...

    def accept_resignation(self, position: Position, match: MatchState | None, level: str | Level | Think,
                           value: int) -> bool: ...


class Link(Protocol):
    """The connection as the player sees it."""

    def send(self, command: str) -> None: ...

    def close(self) -> None:
        """Log out for good (``bye``) and stop reconnecting."""


# -- bookkeeping ---------------------------------------------------------------


@dataclass
class Stats:
    """Counters for logs, the soak test and the operator."""

    moves_sent: int = 0
    refused_moves: int = 0
    illegal_blocked: int = 0
    deadline_misses: int = 0
    engine_errors: int = 0
    refreshes: int = 0
    games: int = 0
    matches: int = 0
    interruptions: int = 0
    logins: int = 0


@dataclass(frozen=True)
class MatchResult:
    opponent: str
    length: int
    score: tuple[int, int] | None
    """Ours first; None when the match ended while we were disconnected and the record cannot tell."""
    won: bool | None
    record: Path | None


def outcome(result: MatchResult) -> str:
    if result.won is None or result.score is None:
        return "unknown (it ended while we were disconnected)"
    return f"{'won' if result.won else 'lost'} {result.score[0]}-{result.score[1]}"


@dataclass(frozen=True)
class Challenge:
    """Invite ``opponent`` to ``matches`` consecutive ``length``-point matches (local play)."""

    opponent: str
    length: int
    matches: int = 1
    retry_s: float = 3.0


@dataclass
class MatchContext:
    opponent: str
    length: int | None
    """None until the server says (a resume without a saved record)."""
    recorder: Recorder | None = None
    rating_before: float | None = None
    crawford_played: bool = False
    crawford_game: bool = False
    game_known: bool = False
    """The Crawford flag of the running game is settled."""
    between_games: bool = True
    """No game runs (none began yet, or the last ended): the next board of a game begins one."""
    opened: bool = False
    """A board began the running game and nobody has moved yet: a "Starting a new game" line
    now is that game's late announcement (JIBS sends it after the opening roll and board)."""
    resync: bool = False
    resign_declined: int = 0
    indexed: Path | None = None
    """The record file ``records/saved.json`` names for this match."""
    opponent_who: WhoInfo | None = None
    """The opponent's last who line seen during the match (kept if they log out)."""
