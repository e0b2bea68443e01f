"""The ``move`` command: FIBS syntax, checked sub-move by sub-move with FIBS's errors.

Points are absolute, as on the board line: O (direction -1) counts its own
points 24 -> 1, X (direction 1) counts 1 -> 24, so X's own point n is 25 - n.
``bar``/``b`` and ``off``/``o``/``home``/``h`` name the special places; 25
and 0 are accepted for them too. Sub-moves are applied in the order given,
one die each, so a 6-5 run is ``24-18 18-13``.

>>> from engine.position import Position
>>> start = Position.initial()
>>> plays = start.legal_plays(6, 2)
>>> str(parse_move("24-18 13-11", start, (6, 2), -1, plays)), str(parse_move("1 7 12 14", start, (6, 2), 1, plays))
('24/18 13/11', '24/18 13/11')
>>> parse_move("24-20 13-11", start, (6, 2), -1, plays)
Traceback (most recent call last):
...
bot.server.moves.MoveRejected: ** You can't move 4 points in your first move.
"""

from __future__ import annotations

from collections.abc import Sequence

from engine.position import BAR, OFF, Move, Position, Step

_ORDINALS = ("first", "second", "third", "fourth", "fifth", "sixth", "seventh", "eighth")


class MoveRejected(ValueError):
    """The move is refused; ``str()`` is FIBS's error line."""


def _nth(index: int) -> str:
    return _ORDINALS[index] if index < len(_ORDINALS) else f"{index + 1}th"


def _own_point(word: str, direction: int) -> int | None:
    """The mover's own point (25 bar, 0 off) for a FIBS word, None if no legal word."""
    if word in ("bar", "b"):
        return BAR
    if word in ("off", "o", "home", "h"):
        return OFF
    if not word.isdigit() or int(word) > 25:
        return None
    number = int(word)
    if number in (0, 25):  # the edges: O enters from 25 and bears off below 1, X the reverse
        return BAR if (number == 25) == (direction == -1) else OFF
    return number if direction == -1 else 25 - number


def fibs_point(own: int, direction: int) -> str:
    """How FIBS prints the mover's own point ``own`` in a moves line."""
    return "bar" if own == BAR else "off" if own == OFF else str(own if direction == -1 else 25 - own)


def fibs_steps(move: Move, direction: int) -> str:
    """``24-18 13-11`` for a play (steps in the order played)."""
    return " ".join(f"{fibs_point(s.src, direction)}-{fibs_point(s.dst, direction)}" for s in move.steps)


def parse_move(text: str, position: Position, dice: tuple[int, int], direction: int,
               plays: Sequence[tuple[Move, Position]]) -> Move:
    """The legal play ``text`` describes for the side on roll, or MoveRejected."""
    words = text.lower().replace("-", " ").split()
    points: list[int] = []
    for i, word in enumerate(words):
        point = _own_point(word, direction)
        if point is None:
            raise MoveRejected(f"** {_nth(i // 2)} move: legal words are 'bar', 'home', 'off', 'b', 'h' and 'o'.")
        points.append(point)
    need = len(plays[0][0].steps)
    if len(words) % 2 or len(words) // 2 < need:
        raise MoveRejected(f"** You must give {need} moves.")
    if len(words) // 2 > need:
        raise MoveRejected(f"** Please don't give more than {need} moves.")
    mine, theirs = list(position.board[1]), list(position.board[0])
    free = [dice[0]] * 4 if dice[0] == dice[1] else list(dice)
    steps = []
    for i in range(need):
        src, dst = points[2 * i], points[2 * i + 1]
        nth, src_word, dst_word = _nth(i), words[2 * i], words[2 * i + 1]
        if mine[BAR - 1] and src != BAR:
            raise MoveRejected(f"** You have to remove pieces from the bar in your {nth} move.")
        if src == OFF or not mine[src - 1]:
            raise MoveRejected(f"** You can't move from {src_word} in your {nth} move.")
        if dst == BAR:
            raise MoveRejected(f"** You can't move to {dst_word} in your {nth} move.")
        hit = False
        if dst == OFF:
            die = _bear_off_die(mine, src, free, nth)
        else:
            die = src - dst
            if die not in free:
                raise MoveRejected(f"** You can't move {die} points in your {nth} move.")
            blot = BAR - 1 - dst  # the opponent's index of our point dst
            if theirs[blot] >= 2:
                raise MoveRejected(f"** You can't move to {dst_word} in your {nth} move.")
            if theirs[blot] == 1:
                hit = True
                theirs[blot], theirs[BAR - 1] = 0, theirs[BAR - 1] + 1
            mine[dst - 1] += 1
        mine[src - 1] -= 1
        free.remove(die)
        steps.append(Step(src, dst, hit))
    result = Position((tuple(theirs), tuple(mine)))
    if not any(after == result for _, after in plays):
        # Each sub-move was possible but the whole is not: the larger die had to be played.
        first = steps[0]
        raise MoveRejected(f"** You can't move {first.src - first.dst} points in your first move.")
    return Move(steps)


def _bear_off_die(mine: list[int], src: int, free: list[int], nth: str) -> int:
    """The die that bears off a checker from ``src``, or MoveRejected."""
    if any(mine[6:BAR]):
        raise MoveRejected(f"** You can't move home in your {nth} move.")
    if src in free:
        return src
    bigger = [d for d in free if d > src]
    if not bigger:
        raise MoveRejected(f"** You can't move {src} points in your {nth} move.")
    if any(mine[src:6]):
        raise MoveRejected(f"** You can't remove this piece in your {nth} move.")
    return min(bigger)
