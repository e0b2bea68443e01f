"""FIBS ``board:`` lines (boardstyle 3) <-> engine positions, and FIBS move syntax.

A board line has 53 colon-separated fields (numbered 0-52 in the ``board:``
field list of FIBS's CLIP documentation, E. McLean, fibs.com/fibs_interface.html). :func:`parse`
validates every field and :meth:`FibsBoard.format` gives the line back
exactly. The engine sees the board from the player named first in the line
(``You`` when the bot plays): ``board[1]`` is that player whoever is on turn,
and in :attr:`FibsBoard.match` that player is gnubg's player 1.

FIBS numbers points absolutely for both sides: O moves 24 -> 1, X moves
1 -> 24. Engine moves are in the mover's own points (25 = bar, 0 = off).

>>> b = parse("board:You:bob:3:0:0:0:-2:0:0:0:0:5:0:3:0:0:0:-5:5:0:0:0:-3:0:-5:0:0:0:0:2:0:"
...           "-1:4:2:0:0:1:1:1:0:-1:1:25:0:0:0:0:0:2:0:0:0")
>>> b.player_on_turn, b.dice, b.position == Position.initial()
(True, (4, 2), True)
>>> move_command(b, Move.parse("24/20 13/11"))
'move 1-5 12-14'
>>> str(parse_move_line(b, "You moves 1-5 12-14 ."))
'24/20 13/11'
"""

from __future__ import annotations

import re
from dataclasses import dataclass, fields
from itertools import accumulate
from typing import NoReturn

from engine.errors import BoardParseError, IllegalMoveError
from engine.match import CENTRED, GAME_OVER, GAME_PLAYING, MatchState
from engine.position import BAR, CHECKERS, OFF, Move, Position, Step

UNLIMITED = 9999
"""The match length FIBS shows for unlimited matches (money play: MatchState length 0)."""

_INT = re.compile(r"0|-?[1-9]\d{0,8}")  # canonical only, so that format() round-trips
_NAME = re.compile(r"[!-~]+")  # printable ASCII, no blank


@dataclass(frozen=True, slots=True)
class FibsBoard:
    """The 53 fields of a board line, typed (field numbers as in the ``board:`` field list of FIBS's
    CLIP documentation)."""

    player: str
    opponent: str
    match_length: int
    player_score: int
    opponent_score: int
    points: tuple[int, ...]
    """Positions 0..25: 0 = X's bar, 1..24 absolute points, 25 = O's bar; O > 0, X < 0."""
    turn: int
    """Colour to act: -1 X, 1 O, 0 nobody (between games)."""
    player_dice: tuple[int, int]
    opponent_dice: tuple[int, int]
    cube: int
    player_may_double: bool
    opponent_may_double: bool
    was_doubled: bool
    colour: int
    direction: int
    home: int
    bar: int
    player_off: int
    opponent_off: int
    player_bar: int
    opponent_bar: int
    can_move: int
    forced_move: int
    did_crawford: int
    redoubles: int

    def __post_init__(self) -> None:
        for name in ("player", "opponent"):
            if not _NAME.fullmatch(getattr(self, name)) or ":" in getattr(self, name):
                _fail(name, "a name is printable ASCII without blanks or colons")
        _check_range("match_length", self.match_length, 1, UNLIMITED)
        _check_range("player_score", self.player_score, 0, 99999)
        _check_range("opponent_score", self.opponent_score, 0, 99999)
        # Positions 0 and 25 (the bars) are not used: fields 47/48 are reliable.
        if len(self.points) != 26 or any(abs(n) > CHECKERS for n in self.points):
            _fail("points", "26 counts of at most 15 checkers")
        _check_range("turn", self.turn, -1, 1)
        for name in ("player_dice", "opponent_dice"):
            dice = getattr(self, name)
            if len(dice) != 2 or not (dice == (0, 0) or all(1 <= d <= 6 for d in dice)):
                _fail(name, f"dice {dice} are neither 0 0 nor two of 1..6")
        if self.cube < 1 or self.cube & (self.cube - 1) or self.cube > 1 << 15:
            _fail("cube", f"{self.cube} is not a power of two up to 32768")
        for name in ("colour", "direction"):
            if getattr(self, name) not in (-1, 1):
                _fail(name, "must be -1 or 1")
        for name in ("home", "bar"):
            if getattr(self, name) not in (0, 25):
                _fail(name, "must be 0 or 25")
        for name in ("player_off", "opponent_off", "player_bar", "opponent_bar"):
            _check_range(name, getattr(self, name), 0, CHECKERS)
        _check_range("can_move", self.can_move, 0, 4)
        _check_range("forced_move", self.forced_move, 0, 99)
        _check_range("did_crawford", self.did_crawford, 0, 1)
        _check_range("redoubles", self.redoubles, 0, 99999)
        mine, theirs = self._rows()
        if sum(mine) + self.player_off != CHECKERS:
            _fail("player_off", f"{self.player} has {sum(mine) + self.player_off} checkers, not 15")
        if sum(theirs) + self.opponent_off != CHECKERS:
            _fail("opponent_off", f"{self.opponent} has {sum(theirs) + self.opponent_off} checkers, not 15")

    @property
    def player_on_turn(self) -> bool:
        """The first-named player is to act (roll, move or answer)."""
        return self.turn == self.colour

    @property
    def dice(self) -> tuple[int, int] | None:
        """The dice rolled by the side on turn, None before the roll."""
        dice = self.player_dice if self.player_on_turn else self.opponent_dice
        return None if self.turn == 0 or dice == (0, 0) else dice

    @property
    def position(self) -> Position:
        """The board with the first-named player in ``board[1]``."""
        mine, theirs = self._rows()
        return Position.from_board((theirs, mine))

    @property
    def match(self) -> MatchState:
        """The match state; the first-named player is player 1.

        FIBS's Crawford fields are unreliable: the Crawford game is inferred as
        "one side 1-away and field 51 clear"; a caller that tracks it should
        override ``crawford_game``. Raises BoardParseError for a finished match.
        """
        length = 0 if self.match_length == UNLIMITED else self.match_length
        score = (self.opponent_score, self.player_score)
        side = 1 if self.player_on_turn else 0
        owner = CENTRED
        if self.player_may_double != self.opponent_may_double:
            owner = 1 if self.player_may_double else 0
        elif not self.player_may_double and self.cube > 1:
            owner = 1 - side  # a pending redouble: the doubler owns the cube
        one_away = [length - s == 1 for s in score] if length else [False, False]
        return MatchState(
            length=length, score=score, cube=self.cube, cube_owner=owner,
            on_roll=1 - side if self.was_doubled else side, turn=side,
            crawford_game=sum(one_away) == 1 and not self.did_crawford,
            jacoby=False, crawford_rule=length > 0, dice=self.dice, doubled=self.was_doubled,
            game_state=GAME_PLAYING if self.turn else GAME_OVER,
        )

    def format(self) -> str:
        """The board line (exactly the parsed text)."""
        values: list[object] = ["board"]
        for field in fields(self):
            value = getattr(self, field.name)
            values.extend(value if isinstance(value, tuple) else [value])
        return ":".join(str(int(v)) if isinstance(v, bool) else str(v) for v in values)

    @classmethod
    def from_state(cls, position: Position, match: MatchState, *, player: str, opponent: str,
                   colour: int = 1, direction: int | None = None, can_move: int = 0,
                   redoubles: int = 0) -> FibsBoard:
        """The board line FIBS would send to ``player`` (``board[1]``, match player 1).

        ``direction`` defaults to FIBS's coupling: O (colour 1) moves 24 -> 1.
        """
        direction = -colour if direction is None else direction
        mine, theirs = position.board[1], position.board[0]
        points = [0] * 26
        for own in range(1, 25):
            points[_absolute(own, direction)] += colour * mine[own - 1]
            points[_absolute(own, -direction)] -= colour * theirs[own - 1]
        x_bar, o_bar = (mine[24], theirs[24]) if colour == -1 else (theirs[24], mine[24])
        points[0], points[25] = -x_bar, o_bar
        side = match.on_roll
        dice = match.dice or (0, 0)
        centred = match.cube_owner == CENTRED and not match.doubled
        return cls(
            player=player, opponent=opponent, match_length=match.length or UNLIMITED,
            player_score=match.score[1], opponent_score=match.score[0], points=tuple(points),
            turn=0 if match.game_state != GAME_PLAYING else colour if match.turn == 1 else -colour,
            player_dice=dice if side == 1 else (0, 0), opponent_dice=dice if side == 0 else (0, 0),
            cube=match.cube, player_may_double=centred or match.cube_owner == 1 and not match.doubled,
            opponent_may_double=centred or match.cube_owner == 0 and not match.doubled,
            was_doubled=match.doubled, colour=colour, direction=direction,
            home=0 if colour == 1 else 25, bar=25 if colour == 1 else 0,
            player_off=CHECKERS - sum(mine), opponent_off=CHECKERS - sum(theirs),
            player_bar=mine[24], opponent_bar=theirs[24], can_move=can_move, forced_move=0,
            did_crawford=int(match.post_crawford), redoubles=redoubles,
        )

    def _rows(self) -> tuple[tuple[int, ...], tuple[int, ...]]:
        """(player's row, opponent's row), each in its own coordinates."""
        mine, theirs = [0] * 25, [0] * 25
        for p in range(1, 25):
            count = self.points[p] * self.colour
            if count > 0:
                mine[_own(p, self.direction) - 1] = count
            elif count < 0:
                theirs[_own(p, -self.direction) - 1] = -count
        mine[24], theirs[24] = self.player_bar, self.opponent_bar
        return tuple(mine), tuple(theirs)


# Each field with the number of line tokens it takes (after the leading "board").
_LAYOUT = [(f.name, 26 if f.name == "points" else 2 if f.name.endswith("dice") else 1)
           for f in fields(FibsBoard)]
# accumulate(initial=1) yields one more offset (the end) than there are fields: the zip drops it
_FIRST_TOKEN = dict(zip((name for name, _ in _LAYOUT), accumulate((w for _, w in _LAYOUT), initial=1), strict=False))
_TOKENS = 1 + sum(width for _, width in _LAYOUT)


def _fail(name: str, problem: str) -> NoReturn:
    raise BoardParseError(f"board field {_FIRST_TOKEN[name]} ({name}): {problem}")


def _check_range(name: str, value: int, low: int, high: int) -> None:
    if not low <= value <= high:
        _fail(name, f"{value} is not in {low}..{high}")


def _own(point: int, direction: int) -> int:
    """A side's own point number for absolute ``point``, given its direction."""
    return point if direction == -1 else 25 - point


_absolute = _own  # the mapping is its own inverse


def parse(line: str) -> FibsBoard:
    """Read a ``board:`` line; BoardParseError names the first bad field.

    >>> parse("board:You:bob:3:0:0" + ":0" * 47)
    Traceback (most recent call last):
    ...
    engine.errors.BoardParseError: board field 37 (cube): 0 is not a power of two up to 32768
    >>> parse("board:You:bob:3:0:0" + ":0" * 46)
    Traceback (most recent call last):
    ...
    engine.errors.BoardParseError: board line has 52 fields, not 53
    """
    tokens = line.rstrip("\r\n").split(":")
    if len(tokens) != _TOKENS:
        raise BoardParseError(f"board line has {len(tokens)} fields, not {_TOKENS}")
    if tokens[0] != "board":
        raise BoardParseError("board field 0: the line does not start with 'board:'")
    values: dict[str, object] = {}
    for name, width in _LAYOUT:
        start = _FIRST_TOKEN[name]
        texts = tokens[start:start + width]
        if name in ("player", "opponent"):
            values[name] = texts[0]
            continue
        for i, text in enumerate(texts):
            if not _INT.fullmatch(text):
                raise BoardParseError(f"board field {start + i} ({name}): {text!r} is not an integer")
        numbers = tuple(int(t) for t in texts)
        if name in ("player_may_double", "opponent_may_double", "was_doubled"):
            if numbers[0] not in (0, 1):
                _fail(name, f"{numbers[0]} is not 0 or 1")
            values[name] = bool(numbers[0])
        else:
            values[name] = numbers if width > 1 else numbers[0]
    return FibsBoard(**values)  # type: ignore[arg-type]


def check_in_play(board: FibsBoard) -> None:
    """BoardParseError if ``board`` shows a game running in a match already won: a score
    at or past the length (a final board, turn 0, may show the end)."""
    if board.turn and board.match_length != UNLIMITED:
        for name in ("player_score", "opponent_score"):
            if getattr(board, name) >= board.match_length:
                _fail(name, f"{getattr(board, name)} is not below the match length {board.match_length}")


def _mover(board: FibsBoard) -> tuple[Position, int]:
    """The position seen from the side on turn, and that side's direction."""
    if board.turn == 0:
        raise IllegalMoveError("nobody is on turn on this board")
    if board.player_on_turn:
        return board.position, board.direction
    return board.position.swap(), -board.direction


def _resolve(position: Position, move: Move, dice: tuple[int, int] | None, *, by_text: bool) -> Move:
    """The legal play (one step per die, hits marked) that ``move`` stands for.

    ``by_text`` first looks for a play written the same way; otherwise (and
    always for server text, which marks no hits: 6/4*/3 and 6/5/3 both print
    as 6-4 4-3 or 6-5 5-3) the play is found by its resulting position.
    """
    if dice is None:
        raise IllegalMoveError("the side on turn has not rolled")
    plays = position.legal_plays(*dice)
    for legal, _ in plays if by_text else ():
        if legal == move:
            return legal
    result = position.play(move)
    for legal, after in plays:
        if after == result:
            return legal
    raise IllegalMoveError(f"{move or 'no move'} is not legal for {dice[0]}-{dice[1]} in {position.position_id()}")


def move_command(board: FibsBoard, move: Move) -> str:
    """The FIBS ``move`` command for the side on turn playing ``move``.

    The move must be legal for the board's dice (IllegalMoveError); a move
    written with fewer steps (``24/13``) is sent one sub-move per die.
    """
    position, direction = _mover(board)
    legal = _resolve(position, move, board.dice, by_text=True)
    if not legal.steps:
        raise IllegalMoveError("no checker can move: FIBS passes the turn itself")
    parts = [f"{_fibs_point(s.src, direction)}-{_fibs_point(s.dst, direction)}" for s in legal.steps]
    return "move " + " ".join(parts)


def _fibs_point(own: int, direction: int) -> str:
    return "bar" if own == BAR else "off" if own == OFF else str(_absolute(own, direction))


_MOVE_TEXT = re.compile(
    r"\s*(?:(?P<name>\S+) moves|The only possible move is|move)?"
    r"(?P<steps>(?:\s+(?:bar|b|\d{1,2})-(?:off|o|\d{1,2}))*)\s*\.?\s*")


def parse_move_line(board: FibsBoard, text: str) -> Move:
    """The play in ``<name> moves 24-18 13-11 .`` (or just ``24-18 13-11``).

    ``board`` is the board before the move, with the mover's dice; the result
    is the matching legal play (IllegalMoveError if there is none).
    """
    m = _MOVE_TEXT.fullmatch(" " + text)
    if not m:
        raise IllegalMoveError(f"not a FIBS move: {text!r}")
    position, direction = _mover(board)
    name = m["name"]
    if name is not None and name != (board.player if board.player_on_turn else board.opponent):
        raise IllegalMoveError(f"{name} is not on turn")
    steps = []
    for token in m["steps"].split():
        src, dst = token.split("-")
        steps.append(Step(_own_point(src, direction, BAR), _own_point(dst, direction, OFF)))
    return _resolve(position, Move(steps), board.dice, by_text=False)


def _own_point(text: str, direction: int, special: int) -> int:
    if not text.isdigit():
        return special
    if not 1 <= int(text) <= 24:
        raise IllegalMoveError(f"point {text} is not on the board")
    return _absolute(int(text), direction)
