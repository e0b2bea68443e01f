"""eXtreme Gammon's position + match text, XGID.

``XGID=<26 chars>:<log2 cube>:<cube owner>:<turn>:<dice>:<score X>:<score O>:<flags>:<length>:<max cube>``

The 26 characters are O's bar, points 1..24 from X's side, then X's bar;
``A``..``O`` count X's checkers, ``a``..``o`` O's. Here X is gnubg's player 1
and O player 0. Owner and turn are 1 for X, -1 for O (owner 0 = centred).
Dice are ``00`` before the roll and ``D`` while a double awaits an answer.
Flags: in a match 1 = the Crawford game; in money play a sum, 1 = the Jacoby
rule, 2 = beavers allowed (gnubg's ``set xgid`` reads them so). The max cube
is log2 of the highest cube value allowed (XG writes 10: 1024).

>>> text = "XGID=-b----E-C---eE---c-e----B-:0:0:1:00:0:0:0:0:10"
>>> position, match = from_xgid(text)
>>> position.position_id(), match.on_roll, match.jacoby, match.beavers
('4HPwATDgc/ABMA', 1, False, False)
>>> to_xgid(position, match) == text
True
"""

from __future__ import annotations

from engine.errors import BoardParseError
from engine.match import CENTRED, MatchState
from engine.position import Position

MAX_CUBE_LOG2 = 10


def _count_char(count: int, upper: bool) -> str:
    if not count:
        return "-"
    return chr((ord("A") if upper else ord("a")) + count - 1)


def to_xgid(position: Position, match: MatchState | None = None) -> str:
    """The XGID of ``position`` (side on roll = ``match.on_roll``; money if None)."""
    match = match or MatchState(on_roll=1, turn=1)
    x_row, o_row = (position.board[1], position.board[0]) if match.on_roll == 1 else position.board
    cells = [_count_char(o_row[24], False)]
    for point in range(1, 25):  # X's point numbering; O's point p is X's 25 - p
        x, o = x_row[point - 1], o_row[24 - point]
        cells.append(_count_char(x, True) if x else _count_char(o, False))
    cells.append(_count_char(x_row[24], True))
    owner = {CENTRED: 0, 1: 1, 0: -1}[match.cube_owner]
    dice = "D" if match.doubled else f"{match.dice[0]}{match.dice[1]}" if match.dice else "00"
    flags = int(match.crawford_game) if match.length else int(match.jacoby) | 2 * int(match.beavers)
    log_cube = match.cube.bit_length() - 1
    fields = ["".join(cells), log_cube, owner, 1 if match.turn == 1 else -1, dice,
              match.score[1], match.score[0], flags, match.length, max(MAX_CUBE_LOG2, log_cube)]
    return "XGID=" + ":".join(str(f) for f in fields)


def from_xgid(text: str) -> tuple[Position, MatchState]:
    """Read an XGID (with or without the ``XGID=`` prefix); BoardParseError if invalid."""
    body = text.strip().removeprefix("XGID=")
    parts = body.split(":")
    if len(parts) != 10 or len(parts[0]) != 26:
        raise BoardParseError(f"bad XGID {text!r}: 26 position characters and 9 fields expected")
    x_row, o_row = [0] * 25, [0] * 25
    for index, char in enumerate(parts[0]):
        if char == "-":
            continue
        if not ("A" <= char <= "O" or "a" <= char <= "o"):
            raise BoardParseError(f"bad XGID {text!r}: position character {char!r}")
        count = ord(char.lower()) - ord("a") + 1
        if index in (0, 25) and (char.isupper() != (index == 25)):
            raise BoardParseError(f"bad XGID {text!r}: the wrong side's checkers on a bar")
        if index == 0:
            o_row[24] = count
        elif index == 25:
            x_row[24] = count
        elif char.isupper():
            x_row[index - 1] = count
        else:
            o_row[24 - index] = count
    try:
        log_cube, owner, turn, _, score_x, score_o, flags, length, max_cube = (
            int(p) if i != 3 else 0 for i, p in enumerate(parts[1:]))
    except ValueError:
        raise BoardParseError(f"bad XGID {text!r}: the fields after the position are numbers") from None
    dice_text = parts[4]
    if owner not in (-1, 0, 1) or turn not in (-1, 1) or not 0 <= log_cube <= max_cube <= 15:
        raise BoardParseError(f"bad XGID {text!r}: cube owner, turn, cube or max cube out of range")
    if not 0 <= flags <= (1 if length else 3):
        raise BoardParseError(f"bad XGID {text!r}: flags {flags} (match: 0/1 Crawford; money: 1 Jacoby + 2 beavers)")
    if dice_text not in ("00", "D") and not (len(dice_text) == 2 and all(c in "123456" for c in dice_text)):
        raise BoardParseError(f"bad XGID {text!r}: dice {dice_text!r}")
    player = 1 if turn == 1 else 0
    rows = (o_row, x_row) if player == 1 else (x_row, o_row)
    position = Position.from_board(rows)
    match = MatchState(
        length=length, score=(score_o, score_x), cube=1 << log_cube,
        cube_owner={0: CENTRED, 1: 1, -1: 0}[owner], on_roll=player, turn=player,
        crawford_game=bool(flags) if length else False, jacoby=bool(flags & 1) if not length else False,
        beavers=bool(flags & 2) if not length else True,
        dice=(int(dice_text[0]), int(dice_text[1])) if dice_text not in ("00", "D") else None,
        doubled=dice_text == "D",
    )
    return position, match
