"""The match record: players, rules and every action of every game.

Players are gnubg's 0 (White in SGF, the left .mat column) and 1 (Black).
Moves are :class:`engine.position.Move` in the mover's points (25 = bar,
0 = off). Every action is checked when it is appended, so a record always
replays: the dice are real, each play is legal, the cube moves by the rules.

>>> from engine.position import Move
>>> record = MatchRecord(("alice", "bob"), length=3)
>>> state = record.append_action(Roll(WHITE, (3, 1), Move.parse("8/5 6/5")))
>>> state.turn, state.cube
(1, 1)
>>> record.append_action(Double(BLACK)).turn
0
>>> record.append_action(Drop(WHITE)).result
GameResult(winner=1, points=1, resigned=False)
>>> record.score(), len(record.games)
((0, 1), 1)
"""

from __future__ import annotations

import datetime
import math
from collections.abc import Sequence
from dataclasses import KW_ONLY, dataclass, field
from typing import Any, TypeVar

from engine.errors import IllegalMoveError
from engine.position import CHECKERS, Move, Position, Step

WHITE, BLACK = 0, 1
COLOURS = "WB"
CENTRED = -1
MAX_CUBE = 4096  # gnubg ignores doubles beyond this
MAX_LENGTH = 999
NOTE_PREFIX = "fibsbot: "


@dataclass(frozen=True)
class EngineNote:
    """The engine's view of one decision, kept as a line of the SGF comment.

    ``equity`` is that of the action taken; ``best``/``best_equity`` name the
    engine's preferred action (gnubg notation, "double", "take", ...) when it
    differs.

    >>> note = EngineNote("expert", 0.25, "24/18 13/11", 0.5)
    >>> str(note)
    'fibsbot: level=expert; equity=0.25; best=24/18 13/11; best_equity=0.5'
    >>> EngineNote.parse(str(note)) == note
    True
    """

    level: str
    equity: float
    best: str = ""
    best_equity: float | None = None

    def __post_init__(self) -> None:
        for text in (self.level, self.best):
            if any(c in text for c in ";\n\r"):
                raise ValueError(f"engine note text {text!r} cannot hold ';' or line breaks")
        for value in (self.equity, self.best_equity):
            if value is not None and not math.isfinite(value):
                raise ValueError(f"engine note equity {value} is not finite")

    def __str__(self) -> str:
        parts = [f"level={self.level}", f"equity={self.equity!r}"]
        if self.best:
            parts.append(f"best={self.best}")
        if self.best_equity is not None:
            parts.append(f"best_equity={self.best_equity!r}")
        return NOTE_PREFIX + "; ".join(parts)

    @classmethod
    def parse(cls, line: str) -> EngineNote:
        """Read the text form; ValueError if ``line`` is not one."""
        if not line.startswith(NOTE_PREFIX):
            raise ValueError(f"not an engine note: {line!r}")
        parts = line[len(NOTE_PREFIX):].split("; ")
        fields = {key: value for key, _, value in (part.partition("=") for part in parts)}
        if not {"level", "equity"} <= fields.keys() <= {"level", "equity", "best", "best_equity"}:
            raise ValueError(f"not an engine note: {line!r}")
        best_equity = fields.get("best_equity")
        return cls(fields["level"], float(fields["equity"]), fields.get("best", ""),
                   None if best_equity is None else float(best_equity))


@dataclass(frozen=True)
class _Action:
    player: int
    _: KW_ONLY
    comment: str = ""
    note: EngineNote | None = None

    def __post_init__(self) -> None:
        if self.player not in (WHITE, BLACK):
            raise IllegalMoveError(f"player must be 0 or 1, got {self.player!r}")


@dataclass(frozen=True)
class Roll(_Action):
    """The player rolls ``dice`` and plays ``move`` (the empty move if none)."""

    dice: tuple[int, int]
    move: Move

    def __post_init__(self) -> None:
        super().__post_init__()
        if len(self.dice) != 2 or not all(isinstance(d, int) and 1 <= d <= 6 for d in self.dice):
            raise IllegalMoveError(f"dice must be two numbers 1..6, got {self.dice!r}")


@dataclass(frozen=True)
class Double(_Action):
    """The player on roll offers the cube."""


@dataclass(frozen=True)
class Take(_Action):
    """The doubled player accepts (after a beaver: the original doubler)."""


@dataclass(frozen=True)
class Drop(_Action):
    """The doubled player passes and loses the cube value before the double."""


@dataclass(frozen=True)
class Beaver(_Action):
    """The doubled player takes and at once redoubles, keeping the cube (money only)."""


@dataclass(frozen=True)
class Resign(_Action):
    """The player offers to resign a single (1), gammon (2) or backgammon (3)."""

    value: int

    def __post_init__(self) -> None:
        super().__post_init__()
        if self.value not in (1, 2, 3):
            raise IllegalMoveError(f"a resignation is worth 1, 2 or 3, got {self.value!r}")


@dataclass(frozen=True)
class AcceptResign(_Action):
    """The opponent of the resigning player accepts; the game ends."""


@dataclass(frozen=True)
class RejectResign(_Action):
    """The opponent of the resigning player refuses; play goes on."""


Action = Roll | Double | Take | Drop | Beaver | Resign | AcceptResign | RejectResign


@dataclass(frozen=True)
class GameResult:
    """``points`` already include the cube and gammons, as in SGF's ``RE``."""

    winner: int
    points: int
    resigned: bool = False


def board_outcome(position: Position) -> int:
    """0 while the mover (``board[1]``) has checkers left, else 1/2/3 = single/gammon/backgammon."""
    if any(position.board[1]):
        return 0
    loser = position.board[0]
    if sum(loser) < CHECKERS:
        return 1
    # the loser's 19..24 points and bar lie in the winner's home board
    return 3 if any(loser[18:]) else 2


def _with_hits(position: Position, steps: Sequence[Step]) -> Move:
    """Mark hits as gnubg does: the first step landing on an opponent's blot."""
    opponent = position.board[0]
    landed: set[int] = set()
    marked = []
    for step in steps:
        marked.append(Step(step.src, step.dst, step.dst != 0 and opponent[24 - step.dst] > 0
                           and step.dst not in landed))
        landed.add(step.dst)
    return Move.from_valid(tuple(marked))


_T = TypeVar("_T")


def _evolve(value: _T, **changes: Any) -> _T:
    """A copy of a frozen dataclass with ``changes``, for fields that need no
    re-validation: dataclasses.replace reruns __init__ and __post_init__, a
    noticeable share of a tournament's time at 50 actions a match."""
    new = object.__new__(type(value))
    new.__dict__.update(value.__dict__, **changes)
    return new


def _checked_play(position: Position, dice: tuple[int, int], move: Move) -> tuple[Move, Position]:
    """The legal play meaning ``move`` and its result; one step per die, hits marked.

    The given order of steps is kept when each step uses one die (so .mat
    export repeats gnubg's order); combined steps (``24/13``) are split.
    """
    steps = move.steps
    target = position.play(move)  # in a playable order whatever the text's (bar/23*/21 bar/23)
    legal = position.legal_play_to(*dice, target)
    if legal is not None:
        per_die = len(steps) == len(legal.steps) and all(
            s.src - s.dst in dice or (s.dst == 0 and s.src - s.dst < max(dice)) for s in steps)
        return _with_hits(position, steps if per_die else legal.steps), target
    raise IllegalMoveError(f"{move or 'no move'} is not a legal play for {dice[0]}{dice[1]}")


@dataclass(frozen=True)
class GameState:
    """Where a game stands; :meth:`after` checks and applies one action."""

    length: int = 0
    jacoby: bool = False
    crawford_game: bool = False
    white: Position = field(default_factory=Position.initial)  # player 0's checkers in board[1]
    on_roll: int | None = None  # who rolls next (or doubled); None before the opening roll
    cube: int = 1
    cube_owner: int = CENTRED
    doubled: bool = False
    beavers: int = 0
    resignation: Resign | None = None
    result: GameResult | None = None

    def position(self, player: int) -> Position:
        """The board with ``player``'s checkers in ``board[1]``."""
        return self.white if player == WHITE else self.white.swap()

    @property
    def turn(self) -> int | None:
        """Who must act now (None before the opening roll: either may roll)."""
        if self.resignation is not None:
            return 1 - self.resignation.player
        if self.doubled and self.on_roll is not None:
            return 1 - self.on_roll if self.beavers % 2 == 0 else self.on_roll
        return self.on_roll

    @property
    def may_double(self) -> bool:
        """The player on roll may offer the cube now, before rolling."""
        return (self.result is None and self.resignation is None and not self.doubled
                and self.on_roll is not None and not self.crawford_game
                and self.cube_owner in (CENTRED, self.on_roll) and 2 * self.cube <= MAX_CUBE)

    def after(self, action: Action) -> tuple[Action, GameState]:
        """The action as recorded (move normalised) and the state after it.

        Raises IllegalMoveError when the action is not allowed here.
        """
        if self.result is not None:
            raise IllegalMoveError("the game is over")
        who = COLOURS[action.player]
        if isinstance(action, AcceptResign | RejectResign):
            if self.resignation is None or action.player == self.resignation.player:
                raise IllegalMoveError(f"{who} has no resignation to answer")
            if isinstance(action, RejectResign):
                return action, _evolve(self, resignation=None)
            result = GameResult(action.player, self.resignation.value * self.cube, resigned=True)
            return action, _evolve(self, resignation=None, result=result)
        if self.resignation is not None:
            raise IllegalMoveError("a resignation awaits an answer")
        if isinstance(action, Resign):
            return action, _evolve(self, resignation=action)
        if self.turn is not None and action.player != self.turn:
            raise IllegalMoveError(f"it is {COLOURS[self.turn]}'s turn, not {who}'s")
        if isinstance(action, Roll):
            if self.doubled:
                raise IllegalMoveError("a double awaits an answer")
            position = self.position(action.player)
            move, played = _checked_play(position, action.dice, action.move)
            outcome = board_outcome(played)
            if outcome and self.jacoby and self.cube_owner == CENTRED:
                outcome = 1  # Jacoby: no gammons before the cube is turned
            return _evolve(action, move=move), _evolve(
                self, white=played if action.player == WHITE else played.swap(),
                on_roll=1 - action.player,
                result=GameResult(action.player, self.cube * outcome) if outcome else None)
        if self.on_roll is None:
            raise IllegalMoveError("a game starts with a roll")
        if isinstance(action, Double):
            if not self.may_double:
                raise IllegalMoveError(f"{who} may not double now (cube {self.cube}"
                                       f"{', Crawford game' if self.crawford_game else ''})")
            return action, _evolve(self, doubled=True)
        if not self.doubled:
            raise IllegalMoveError(f"{type(action).__name__} without a double")
        if isinstance(action, Beaver):
            if self.length or 4 * self.cube > MAX_CUBE:
                raise IllegalMoveError("beavers are for money play, up to the cube limit")
            return action, _evolve(self, beavers=self.beavers + 1, cube=2 * self.cube,
                                   cube_owner=1 - self.on_roll)
        if isinstance(action, Take):
            return action, _evolve(self, doubled=False, beavers=0, cube=2 * self.cube,
                                   cube_owner=1 - self.on_roll)
        return action, _evolve(self, doubled=False, beavers=0,
                               result=GameResult(1 - action.player, self.cube))


class GameRecord:
    """One game: the score before it, the Crawford flag and its checked actions.

    Made by :meth:`MatchRecord.new_game`, which knows the rules.
    """

    def __init__(self, score: tuple[int, int], start: GameState) -> None:
        self.score = score
        self._actions: list[Action] = []
        self._states = [start]

    @property
    def crawford_game(self) -> bool:
        return self._states[0].crawford_game

    @property
    def actions(self) -> tuple[Action, ...]:
        return tuple(self._actions)

    @property
    def states(self) -> tuple[GameState, ...]:
        """The state before the first action, then after each action."""
        return tuple(self._states)

    @property
    def state(self) -> GameState:
        return self._states[-1]

    @property
    def result(self) -> GameResult | None:
        return self._states[-1].result

    def append(self, action: Action) -> GameState:
        """Check and record ``action`` (IllegalMoveError if not allowed)."""
        recorded, state = self._states[-1].after(action)
        self._actions.append(recorded)
        self._states.append(state)
        return state

    def __eq__(self, other: object) -> bool:
        return (isinstance(other, GameRecord) and self.score == other.score
                and self._states[0] == other._states[0] and self._actions == other._actions)

    def __repr__(self) -> str:
        return (f"<GameRecord score={self.score} crawford_game={self.crawford_game} "
                f"actions={len(self._actions)} result={self.result}>")


class MatchRecord:
    """A match (``length`` > 0) or money session (``length`` 0) and its games.

    ``crawford`` only applies to matches longer than 1 point and ``jacoby``
    only to money play; both are normalised so, as gnubg writes them.
    """

    def __init__(self, players: tuple[str, str] = ("White", "Black"), length: int = 0, *,
                 crawford: bool = True, jacoby: bool = False, date: datetime.date | None = None,
                 event: str = "", round: str = "", place: str = "", annotator: str = "",
                 comment: str = "", ratings: tuple[str, str] = ("", "")) -> None:
        if not 0 <= length <= MAX_LENGTH:
            raise ValueError(f"match length must be 0 (money) to {MAX_LENGTH}, got {length}")
        self.players = players
        self.length = length
        self.crawford = crawford and length > 1
        self.jacoby = jacoby and length == 0
        self.date = date
        self.event = event
        self.round = round
        self.place = place
        self.annotator = annotator
        self.comment = comment
        self.ratings = ratings
        self._games: list[GameRecord] = []

    @property
    def games(self) -> tuple[GameRecord, ...]:
        return tuple(self._games)

    def score(self) -> tuple[int, int]:
        """The score after the finished games."""
        if not self._games:
            return (0, 0)
        last = self._games[-1]
        score = list(last.score)
        if last.result is not None:
            score[last.result.winner] += last.result.points
        return score[0], score[1]

    def is_over(self) -> bool:
        return self.length > 0 and max(self.score()) >= self.length

    def new_game(self, score: tuple[int, int] | None = None,
                 crawford_game: bool | None = None) -> GameRecord:
        """Start the next game; by default its score and Crawford flag follow from the record.

        A given ``score`` must agree with earlier games (it is free for the
        first game, so a record may start mid-match). After an unfinished game
        it may only be as high or higher: that game is abandoned without a
        result, and gnubg loads such a match (each game carries its score).
        ValueError otherwise.
        """
        if self.is_over():
            raise ValueError("the match is over")
        expected = self.score()
        unfinished = bool(self._games) and self._games[-1].result is None
        if unfinished and score is None:
            raise ValueError(f"game {len(self._games)} is not finished")
        if score is None:
            score = expected
        elif unfinished:
            if score[0] < expected[0] or score[1] < expected[1]:
                raise ValueError(f"game {len(self._games) + 1} starts at {score[0]}-{score[1]}, below the "
                                 f"{expected[0]}-{expected[1]} of the unfinished game {len(self._games)}")
        elif self._games and score != expected:
            raise ValueError(f"game {len(self._games) + 1} starts at {score[0]}-{score[1]} "
                             f"but the earlier games give {expected[0]}-{expected[1]}")
        if min(score) < 0 or (self.length and max(score) >= self.length):
            raise ValueError(f"score {score[0]}-{score[1]} is outside a {self.length}-point match")
        if crawford_game is None:
            at_one_away = [s == self.length - 1 for s in score]
            crawford_game = at_one_away[0] != at_one_away[1] and not any(g.crawford_game for g in self._games)
        game = GameRecord(score, GameState(self.length, self.jacoby, crawford_game and self.crawford))
        self._games.append(game)
        return game

    def append_action(self, action: Action) -> GameState:
        """Record ``action`` in the current game, starting the next game if needed."""
        if not self._games or self._games[-1].result is not None:
            self.new_game()
        return self._games[-1].append(action)

    def _fields(self) -> tuple[object, ...]:
        return (self.players, self.length, self.crawford, self.jacoby, self.date, self.event,
                self.round, self.place, self.annotator, self.comment, self.ratings, self._games)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, MatchRecord) and self._fields() == other._fields()

    def __repr__(self) -> str:
        kind = f"{self.length}-point match" if self.length else "money session"
        return f"<MatchRecord {self.players[0]} vs {self.players[1]}, {kind}, {len(self._games)} games>"
