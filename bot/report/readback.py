"""Read a board diagram back from its SVG: the position, the cube, the dice, the score.

Only what is drawn is read (checker elements, the cube and dice elements, the
score texts), so this checks a diagram against the position it should show;
the root's ``data-position-id`` and ``data-match-id`` are returned alongside.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from dataclasses import dataclass

from engine.errors import BoardParseError
from engine.match import CENTRED
from engine.position import CHECKERS, Position

_NS = "{http://www.w3.org/2000/svg}"


class DiagramReadError(ValueError):
    """The SVG is not a board diagram this module can read."""


@dataclass(frozen=True)
class DrawnBoard:
    """What a diagram shows. ``off``: checkers borne off per player (0, 1)."""

    position: Position
    on_roll: int
    position_id: str
    match_id: str | None
    off: tuple[int, int]
    cube: int
    cube_owner: int
    dice: tuple[int, ...]
    score: tuple[int, int] | None
    length: int
    crawford: bool
    names: tuple[str, str]


def _tag(element: ET.Element) -> str:
    return element.tag.removeprefix(_NS)


def _classes(element: ET.Element) -> set[str]:
    return set(element.get("class", "").split())


def _count(group: ET.Element) -> int:
    drawn = sum(1 for e in group.iter() if "checker" in _classes(e))
    stated = group.get("data-count")
    if stated is None:
        return drawn
    if int(stated) < drawn:
        raise DiagramReadError(f"data-count {stated} below the {drawn} checkers drawn")
    return int(stated)


def _int(text: str | None, what: str) -> int:
    try:
        return int(text or "")
    except ValueError:
        raise DiagramReadError(f"{what}: {text!r} is not a number") from None


def read_svg(text: str | bytes) -> DrawnBoard:
    """The board an SVG diagram shows (DiagramReadError if it is not one)."""
    try:
        root = ET.fromstring(text)
    except ET.ParseError as exc:
        raise DiagramReadError(f"not XML: {exc}") from None
    if _tag(root) != "svg" or root.get("data-position-id") is None:
        raise DiagramReadError("not a board diagram: no <svg data-position-id>")
    on_roll = _int(root.get("data-on-roll"), "data-on-roll")
    rows = ([0] * 25, [0] * 25)  # rows[1]: the side on roll, in its own points
    off = [0, 0]
    for group in root.iter(f"{_NS}g"):
        where = group.get("data-point")
        if where is None:
            continue
        side_text = group.get("data-side")
        count = _count(group)
        if side_text == "none":
            if count:
                raise DiagramReadError(f"point {where} has checkers but no side")
            continue
        side = _int(side_text, f"data-side of {where}")
        mine = side == on_roll
        if where.startswith("off-"):
            off[_int(where[4:], "off tray")] = count
        elif where.startswith("bar-"):
            rows[1 if mine else 0][24] = count
        else:
            point = _int(where, "data-point")
            if not 1 <= point <= 24:
                raise DiagramReadError(f"data-point {point} out of range")
            if mine:
                rows[1][point - 1] = count
            else:
                rows[0][24 - point] = count
    try:
        position = Position.from_board(rows)
    except BoardParseError as exc:
        raise DiagramReadError(f"the checkers drawn are no position: {exc}") from None
    for player, row in ((on_roll, rows[1]), (1 - on_roll, rows[0])):
        if off[player] != CHECKERS - sum(row):
            raise DiagramReadError(f"player {player}'s tray shows {off[player]} off, the board {CHECKERS - sum(row)}")
    cube = next((e for e in root.iter() if "cube" in _classes(e)), None)
    if cube is None:
        raise DiagramReadError("no cube")
    owner_text = cube.get("data-owner")
    owner = CENTRED if owner_text == "centre" else _int(owner_text, "cube owner")
    dice = tuple(_int(e.get("data-value"), "die") for e in root.iter() if "die" in _classes(e))
    scores = {_int(e.get("data-player"), "score player"): _int(e.get("data-value"), "score")
              for e in root.iter() if "score" in _classes(e)}
    names = {_int(e.get("data-player"), "name player"): "".join(e.itertext()).removesuffix(" \u25c0 on roll")
             for e in root.iter() if "name" in _classes(e)}
    length_element = next((e for e in root.iter() if "match-length" in _classes(e)), None)
    return DrawnBoard(
        position=position, on_roll=on_roll, position_id=root.get("data-position-id", ""),
        match_id=root.get("data-match-id"), off=(off[0], off[1]),
        cube=_int(cube.get("data-value"), "cube value"), cube_owner=owner, dice=dice,
        score=(scores[0], scores[1]) if len(scores) == 2 else None,
        length=0 if length_element is None else _int(length_element.get("data-value"), "match length"),
        crawford=length_element is not None and length_element.get("data-crawford") == "true",
        names=(names.get(0, ""), names.get(1, "")))
