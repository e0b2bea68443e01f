"""The ASCII board of boardstyles 1 and 2, drawn from a style-3 board.

The viewer sits at the bottom with the home board on the right; the layout
is the one in the example of FIBS's CLIP documentation (5 checkers per column, a column with
more shows its count in the fifth row).
"""

from __future__ import annotations

from bot.fibsboard import UNLIMITED, FibsBoard

_LOW = "+12-11-10--9--8--7--------6--5--4--3--2--1-+"
_HIGH = "+13-14-15-16-17-18-------19-20-21-22-23-24-+"


def _cell(count: int, row: int) -> str:
    """Row 0..4 counted from the board's edge; count > 0 = O, < 0 = X."""
    n = abs(count)
    if n > 5 and row == 4:
        return f"{n:^3}"
    return "   " if n <= row else " O " if count > 0 else " X "


def _row(board: FibsBoard, points: list[int], row: int, margin: str) -> str:
    cells = [_cell(board.points[p], row) for p in points]
    return f"{margin}|{''.join(cells[:6])}|   | {''.join(cells[6:])}|"


def render(board: FibsBoard, player_name: str) -> list[str]:
    """The lines of the board as ``player_name`` (the board's first player) sees it."""
    opponent_colour = "X" if board.colour == 1 else "O"
    own_colour = "O" if board.colour == 1 else "X"
    top, bottom = (list(range(13, 25)), list(range(12, 0, -1)))
    top_label, bottom_label = _HIGH, _LOW
    if board.colour == -1:  # X's home (19-24) goes to the bottom right
        top, bottom = bottom, top
        top_label, bottom_label = bottom_label, top_label
    length = "unlimited match" if board.match_length == UNLIMITED else f"{board.match_length}-point match"
    lines = [f"  {top_label} {opponent_colour}: {board.opponent} - score: {board.opponent_score}"]
    lines += [_row(board, top, row, "  ") for row in range(5)]
    lines.append(f" v|                  |BAR|                   |    {length}")
    lines += [_row(board, bottom, row, "  ") for row in range(4, -1, -1)]
    lines.append(f"  {bottom_label} {own_colour}: {player_name} - score: {board.player_score}")
    lines.append("")
    # colour 1: the player is O, so (player, opponent) is (O, X); colour -1 reverses it
    o_bar, x_bar = (board.player_bar, board.opponent_bar)[::board.colour]
    o_off, x_off = (board.player_off, board.opponent_off)[::board.colour]
    status = f"  BAR: O-{o_bar} X-{x_bar}   OFF: O-{o_off} X-{x_off}   Cube: {board.cube}"
    if board.dice:
        roller = board.player if board.player_on_turn else board.opponent
        status += f"  {roller} rolled {board.dice[0]} {board.dice[1]}."
    lines.append(status)
    return lines
