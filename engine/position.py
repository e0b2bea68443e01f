"""Backgammon positions and moves in gnubg's conventions.

A board is two rows of 25 checker counts: ``board[1]`` is the side on roll,
``board[0]`` its opponent. Each row counts in its own side's coordinates:
index 0..23 is that side's point 1..24 and index 24 its bar. Moves are written
in the mover's 1-based points (25 = bar, 0 = off), as gnubg writes them.

>>> p = Position.initial()
>>> p.position_id()
'4HPwATDgc/ABMA'
>>> [str(m) for m in p.legal_moves(3, 1)][:3]
['24/23 24/21', '24/20', '24/21 8/7']
>>> str(p.play(Move.parse("8/5 6/5")).swap().legal_moves(6, 6)[0])
'24/18(2) 13/7(2)'
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Iterable, Sequence
from typing import NamedTuple

from engine import native
from engine.errors import BoardParseError, IllegalMoveError
from engine.native import MOVE_SIZE as C_MOVE_SIZE
from engine.native import key_from_id

BAR = 25
OFF = 0
CHECKERS = 15

_new = object.__new__

Row = tuple[int, ...]
Board = tuple[Row, Row]


class Step(NamedTuple):
    """One checker step in the mover's points (25 = bar, 0 = off)."""

    src: int
    dst: int
    hit: bool = False


def _point_text(point: int) -> str:
    return "bar" if point == BAR else "off" if point == OFF else str(point)


def _chains(steps: Sequence[Step]) -> list[list[Step]]:
    """Join steps of one checker (13/7 7/5 -> 13/7/5) as gnubg does."""
    ordered = sorted(steps, key=lambda s: (-s.src, -s.dst))
    chains: list[list[Step]] = []
    for step in ordered:
        for chain in chains:
            if chain[-1].dst == step.src and step.src != OFF:
                chain.append(step)
                break
        else:
            chains.append([step])
    return chains


def _chain_text(chain: list[Step]) -> str:
    parts = [_point_text(chain[0].src)]
    for i, step in enumerate(chain):
        if step.hit or i == len(chain) - 1:
            parts.append(_point_text(step.dst) + ("*" if step.hit else ""))
    return "/".join(parts)


_TOKEN = re.compile(r"^((?:bar|off|\d+)\*?(?:/(?:bar|off|\d+)\*?)+)(?:\((\d)\))?$")


def _shorten(text: str, limit: int = 40) -> str:
    """``text`` cut for an error message (a hostile file may hold a 5,000-digit "point")."""
    return text if len(text) <= limit else f"{text[:limit]}..."


def _parse_point(text: str, whole: str) -> int:
    if text == "bar":
        return BAR
    if text == "off":
        return OFF
    if len(text) > 2 or not 0 <= int(text) <= 25:  # a 5,000-digit number never reaches int()
        raise IllegalMoveError(f"point {_shorten(text, 6)} out of range 0..25 in move {_shorten(whole)!r}")
    return int(text)


class Move:
    """A play: checker steps, written and compared as gnubg's notation.

    Two moves are equal when they consist of the same checker paths, whatever
    their order: ``24/23 24/21*`` equals ``24/21* 24/23``.

    >>> m = Move.parse("bar/22* 13/7*/5")
    >>> str(m), m.steps[0]
    ('bar/22* 13/7*/5', Step(src=25, dst=22, hit=True))
    >>> Move.parse(str(m)) == m
    True
    >>> str(Move.from_pairs([(8, 5), (6, 5), (8, 5), (6, 5)]))
    '8/5(2) 6/5(2)'
    """

    __slots__ = ("_steps", "_raw", "_text", "_key")

    def __init__(self, steps: Iterable[Step] = ()) -> None:
        self._steps: tuple[Step, ...] | None = tuple(s if type(s) is Step else Step(*s) for s in steps)
        if len(self._steps) > 4:
            raise IllegalMoveError(f"a play has at most 4 steps, got {len(self._steps)}")
        for s in self._steps:
            if not (0 < s.src <= BAR and 0 <= s.dst < s.src and s.dst < BAR):
                raise IllegalMoveError(f"step {_point_text(s.src)}/{_point_text(s.dst)} does not move forward")
        self._raw = b""
        self._text: str | None = None
        self._key: tuple[str, ...] = ()

    @classmethod
    def from_valid(cls, steps: tuple[Step, ...]) -> Move:
        """A Move of steps known to be valid (the C generator's): skips the checks."""
        move = object.__new__(cls)
        move._steps, move._raw, move._text, move._key = steps, b"", None, ()
        return move

    @property
    def steps(self) -> tuple[Step, ...]:
        """The checker steps (a play from the C generator decodes them on first use)."""
        if self._steps is None:
            self._steps = tuple([Step(*step) for step in native.move_steps(self._raw)])
        return self._steps

    def _format(self) -> str:
        # formatted on first use: move lists are built far more often than printed
        if self._text is None:
            texts = [_chain_text(c) for c in _chains(self.steps)]
            self._key = tuple(sorted(texts))
            grouped: list[tuple[str, int]] = []
            for t in texts:
                for i, (g, n) in enumerate(grouped):
                    if g == t:
                        grouped[i] = (g, n + 1)
                        break
                else:
                    grouped.append((t, 1))
            self._text = " ".join(g if n == 1 else f"{g}({n})" for g, n in grouped)
        return self._text

    @classmethod
    def from_pairs(cls, pairs: Iterable[tuple[int, int]]) -> Move:
        return cls(Step(a, b) for a, b in pairs)

    @classmethod
    def parse(cls, text: str) -> Move:
        """Read gnubg notation; raises IllegalMoveError on anything else."""
        steps: list[Step] = []
        for token in text.lower().split():
            match = _TOKEN.match(token)
            if not match:
                raise IllegalMoveError(f"cannot parse {_shorten(token)!r} in move {_shorten(text)!r}")
            fields = match.group(1).split("/")
            chain = []
            for a, b in itertools.pairwise(fields):
                chain.append(Step(_parse_point(a.rstrip("*"), text), _parse_point(b.rstrip("*"), text),
                                  b.endswith("*")))
            steps.extend(chain * int(match.group(2) or 1))
        return cls(steps)

    def __str__(self) -> str:
        return self._format()

    def __repr__(self) -> str:
        return f"Move.parse({self._format()!r})"

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Move):
            return False
        self._format()
        other._format()
        return other._key == self._key

    def __hash__(self) -> int:
        self._format()
        return hash(self._key)

    def __len__(self) -> int:
        return len(self.steps)


def move_from_c(raw: bytes, k: int = 0) -> Move:
    """The ``k``-th Move of an array of the C engine's bg_move copied out as bytes
    (0-based points there)."""
    move = object.__new__(Move)
    move._steps, move._raw, move._text, move._key = None, raw[k * C_MOVE_SIZE:(k + 1) * C_MOVE_SIZE], None, ()
    return move


def boards_from_ids(ids: Sequence[str]) -> bytes:
    """The 50-byte keys of gnubg position IDs, end to end, decoded in one C call.

    >>> boards_from_ids(["4HPwATDgc/ABMA"]) == Position.initial().key
    True
    """
    try:
        raw = "".join(ids).encode("ascii")
    except UnicodeEncodeError:
        raw = b""
    if len(raw) != 14 * len(ids) or not all(len(i) == 14 for i in ids):
        bad = next((i for i in ids if len(i) != 14 or not i.isascii()), "")
        raise BoardParseError(f"bad position ID {bad!r}: a position ID has 14 characters")
    keys = native.boards_from_ids(raw, len(ids))
    if isinstance(keys, int):
        for i in ids:  # name the first bad one
            code = native.boards_from_ids(i.encode("ascii"), 1)
            if isinstance(code, int):
                raise BoardParseError(f"bad position ID {i!r}: {native.error_text(code)}")
        raise BoardParseError(f"bad position IDs: {native.error_text(keys)}")
    return keys


def _flat(board: Board) -> list[int]:
    return list(board[0]) + list(board[1])


def _check(board: Board) -> None:
    for side in board:
        for count in side:
            if count < 0:
                raise BoardParseError(f"negative checker count {count}")
        if sum(side) > CHECKERS:
            raise BoardParseError(f"a side has {sum(side)} checkers, more than {CHECKERS}")
    rc = native.check_board(_flat(board))
    if rc:
        raise BoardParseError(native.error_text(rc))


class Position:
    """An immutable board with the side on roll in ``board[1]``.

    A Position holds its board as the engine's 50-byte key (``key``) or as
    rows (``board``), and makes the other on first use: positions decoded from
    IDs or produced by the move generator go to the C engine without building
    the rows.
    """

    __slots__ = ("_board", "_key")

    def __init__(self, board: Board | None, key: bytes | None = None) -> None:
        self._board = board
        self._key = key

    @classmethod
    def from_key(cls, key: bytes) -> Position:
        """A position from its 50-byte key, trusted (the engine's own output)."""
        p = object.__new__(cls)
        p._board, p._key = None, key
        return p

    @property
    def board(self) -> Board:
        """Two rows of 25 counts: ``board[0]`` the opponent, ``board[1]`` the side on roll."""
        if self._board is None:
            key = self._key
            assert key is not None  # one of the two is always set
            self._board = (tuple(key[:25]), tuple(key[25:]))
        return self._board

    @property
    def key(self) -> bytes:
        """The board as 50 bytes (board[0] then board[1]), the engine's C format."""
        if self._key is None:
            board = self.board
            self._key = bytes(board[0]) + bytes(board[1])
        return self._key

    @classmethod
    def from_board(cls, board: Sequence[Sequence[int]]) -> Position:
        """Build from two rows of 25 counts, validated.

        >>> Position.from_board([[0] * 25, [16] + [0] * 24])
        Traceback (most recent call last):
        ...
        engine.errors.BoardParseError: a side has 16 checkers, more than 15
        """
        if len(board) != 2 or any(len(row) != 25 for row in board):
            raise BoardParseError("a board is 2 rows of 25 counts")
        try:
            rows = (tuple(int(c) for c in board[0]), tuple(int(c) for c in board[1]))
        except (TypeError, ValueError) as exc:
            raise BoardParseError(f"checker counts must be integers: {exc}") from None
        _check(rows)
        return cls(rows)

    @classmethod
    def initial(cls) -> Position:
        row = [0] * 25
        row[5], row[7], row[12], row[23] = 5, 3, 5, 2
        return cls((tuple(row), tuple(row)))

    @classmethod
    def from_position_id(cls, position_id: str) -> Position:
        """Decode gnubg's 14-character position ID (surrounding blanks allowed)."""
        key = key_from_id(position_id)
        if key is None:
            key = key_from_id(position_id.strip()) if isinstance(position_id, str) else None
            if key is None:
                boards_from_ids([str(position_id).strip()])  # raises, naming the problem
        p = _new(cls)
        p._board = None
        p._key = key
        return p

    def position_id(self) -> str:
        return native.position_id(self.key)

    def swap(self) -> Position:
        """The same board with the other side on roll."""
        p = object.__new__(Position)
        p._board = self._board and (self._board[1], self._board[0])
        p._key = self._key and self._key[25:] + self._key[:25]
        return p

    def pip_counts(self) -> tuple[int, int]:
        """Pips of (the side on roll, the opponent)."""
        return (sum((i + 1) * n for i, n in enumerate(self.board[1])),
                sum((i + 1) * n for i, n in enumerate(self.board[0])))

    def off(self) -> tuple[int, int]:
        """Checkers borne off by (the side on roll, the opponent)."""
        return CHECKERS - sum(self.board[1]), CHECKERS - sum(self.board[0])

    def is_race(self) -> bool:
        """No contact: every checker of one side is past every checker of the other."""
        key = self.key  # a side's rearmost checker is its row's last non-zero byte
        return len(key[:25].rstrip(b"\0")) + len(key[25:].rstrip(b"\0")) <= 24

    def winner(self) -> int | None:
        """1 if the side on roll has borne off all, 0 if the opponent has, else None."""
        if not any(self.board[1]):
            return 1
        if not any(self.board[0]):
            return 0
        return None

    def legal_moves(self, die1: int, die2: int) -> list[Move]:
        """Every play giving a distinct position, in a fixed order.

        The empty move is returned alone when no checker can move.
        """
        return [m for m, _ in self.legal_plays(die1, die2)]

    def legal_plays(self, die1: int, die2: int) -> list[tuple[Move, Position]]:
        """Each legal play with its resulting position (seen from the mover)."""
        moves, keys, n = self._generate(die1, die2)
        # the plays' steps and boards are decoded from the C bytes on first use
        return [(move_from_c(moves, k), Position.from_key(keys[50 * k:50 * k + 50])) for k in range(n)]

    def legal_play_to(self, die1: int, die2: int, target: Position) -> Move | None:
        """The legal play for the roll that leads to ``target`` (None if none does).

        Cheaper than searching :meth:`legal_plays`: only the match becomes a Move.
        """
        moves, keys, n = self._generate(die1, die2)
        at = keys.find(target.key)
        while at >= 0 and at % 50:  # a hit must start at a result's first point
            at = keys.find(target.key, at + 1)
        return None if at < 0 else move_from_c(moves, at // 50)

    def _generate(self, die1: int, die2: int) -> tuple[bytes, bytes, int]:
        """The C generator's plays for the roll: its bg_move array and the results
        as 50-byte keys, each end to end, and their count."""
        if not (1 <= die1 <= 6 and 1 <= die2 <= 6):
            raise IllegalMoveError(f"dice must be 1..6, got {die1} and {die2}")
        return native.legal_moves(self.key, die1, die2)

    def play(self, move: Move, dice: tuple[int, int] | None = None) -> Position:
        """The position after ``move``, seen from the mover (not swapped).

        With ``dice`` the move must be one of the legal plays for that roll.
        """
        if dice is not None:
            # a play is legal when its result is one of the roll's results (compared
            # as 50-byte keys: a roll of doubles has hundreds of plays to format)
            try:
                result: Position | None = self._apply(move)
            except IllegalMoveError:
                result = None
            if result is not None and self.legal_play_to(*dice, result) is not None:
                return result
            raise IllegalMoveError(f"{move} is not a legal play for {dice[0]}{dice[1]} in {self.position_id()}")
        return self._apply(move)

    def _apply(self, move: Move) -> Position:
        # Highest source first is always a legal order (bar entries before
        # board steps, outer checkers before bear-offs), whatever the text's order.
        steps = [(s.src - 1, s.dst - 1) for s in sorted(move.steps, key=lambda s: -s.src)]
        key = native.apply_move(_flat(self.board), steps)
        if isinstance(key, int):
            raise IllegalMoveError(f"cannot play {move} in {self.position_id()}: {native.error_text(key)}")
        return Position((tuple(key[:25]), tuple(key[25:])), key)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Position) and other.key == self.key

    def __hash__(self) -> int:
        return hash(self.key)

    def __repr__(self) -> str:
        return f"Position.from_position_id({self.position_id()!r})"
