"""Board diagrams as SVG: any position with its match state, optionally with plays drawn.

The picture is seen from the side on roll: its points 1-24 run from its home
board (bottom row, on the right or the left) round to its opponent's home
board (top row). The SVG is readable by a program (:mod:`bot.report.readback`):

* the root ``<svg>`` carries ``data-position-id``, ``data-match-id`` (when a
  match state is given) and ``data-on-roll`` (the player on roll, 0 or 1);
* each point, each bar and each borne-off tray is a ``<g>`` with
  ``data-point`` (``1``..``24`` from the side on roll's view, ``bar-0``/``bar-1``,
  ``off-0``/``off-1``) and ``data-side`` (the owning player, ``none`` on an
  empty point) holding one ``class="checker"`` element per checker drawn; a
  stack too tall to draw whole also carries ``data-count`` and shows its count;
* the cube is ``class="cube"`` with ``data-value`` and ``data-owner`` (0, 1 or
  ``centre``), each die ``class="die"`` with ``data-value``;
* names, scores, pip counts and the match length are text elements with
  ``data-player`` / ``data-value``.

Players are gnubg's 0 and 1 (player 0 draws light, player 1 dark). Nothing
here uses element IDs, so many diagrams can sit in one HTML page.
"""

from __future__ import annotations

from dataclasses import dataclass
from html import escape

from engine.match import CENTRED, MatchState
from engine.position import BAR, OFF, Move, Position

WIDTH, HEIGHT = 600, 480
_LEFT = 54  # board frame's left edge (the cube's margin lies left of it)
_POINT_W = 36
_QUARTER = 6 * _POINT_W
_BAR_W = 40
_TRAY_X = _LEFT + 2 * _QUARTER + _BAR_W + 8  # borne-off tray (home side)
_TRAY_W = 46
_TOP, _BOTTOM = 44, 436  # board's playing area
_POINT_LEN = 160
_R = 17  # checker radius
_DRAWN = 5  # checkers drawn in full on a point; taller stacks show their count
_BAR_DRAWN = 4
_SLAB = 10  # height of a borne-off checker in the tray
_COLOURS = (("#f4efe1", "#5b4a2f"), ("#2b2b2b", "#d9d9d9"))  # (fill, stroke) for player 0, 1
_PLAY_COLOURS = {"played": "#c0392b", "best": "#1f77d0"}


@dataclass(frozen=True)
class Play:
    """A play to draw as arrows: ``role`` is ``played`` or ``best``."""

    move: Move
    role: str = "played"


def _mirror(x: float, home_right: bool) -> float:
    return x if home_right else WIDTH - x


def point_x(point: int, home_right: bool = True) -> float:
    """The centre x of the side on roll's ``point`` (1..24)."""
    if point <= 6:
        x = _LEFT + _QUARTER + _BAR_W + _QUARTER - (point - 0.5) * _POINT_W
    elif point <= 12:
        x = _LEFT + _QUARTER - (point - 6.5) * _POINT_W
    elif point <= 18:
        x = _LEFT + (point - 12.5) * _POINT_W
    else:
        x = _LEFT + _QUARTER + _BAR_W + (point - 18.5) * _POINT_W
    return _mirror(x, home_right)


def _stack_y(point: int, index: int) -> float:
    """Centre y of the ``index``-th checker (0 = at the edge) on ``point``."""
    if point <= 12:
        return _BOTTOM - _R - index * 2 * _R
    return _TOP + _R + index * 2 * _R


def _fmt(value: float) -> str:
    return f"{value:.1f}".rstrip("0").rstrip(".")


class _Svg:
    def __init__(self) -> None:
        self.parts: list[str] = []

    def add(self, text: str) -> None:
        self.parts.append(text)


def _checker(svg: _Svg, x: float, y: float, player: int, label: str = "") -> None:
    fill, stroke = _COLOURS[player]
    svg.add(f'<circle class="checker" cx="{_fmt(x)}" cy="{_fmt(y)}" r="{_R - 1}" fill="{fill}" '
            f'stroke="{stroke}" stroke-width="1.5"/>')
    if label:
        svg.add(f'<text class="count" x="{_fmt(x)}" y="{_fmt(y + 5)}" text-anchor="middle" font-size="15" '
                f'font-weight="bold" fill="{stroke}">{label}</text>')


def _point_group(svg: _Svg, point: int, count: int, player: int | None, home_right: bool) -> None:
    x = point_x(point, home_right)
    side = "none" if player is None else str(player)
    extra = f' data-count="{count}"' if count > _DRAWN else ""
    svg.add(f'<g data-point="{point}" data-side="{side}"{extra}>')
    base, tip = (_BOTTOM, _BOTTOM - _POINT_LEN) if point <= 12 else (_TOP, _TOP + _POINT_LEN)
    colour = "#b5651d" if point % 2 else "#e8c48a"
    half = _POINT_W / 2
    svg.add(f'<polygon class="point" points="{_fmt(x - half)},{base} {_fmt(x + half)},{base} {_fmt(x)},{tip}" '
            f'fill="{colour}"/>')
    label_y = _BOTTOM + 14 if point <= 12 else _TOP - 5
    svg.add(f'<text class="point-number" x="{_fmt(x)}" y="{label_y}" text-anchor="middle" font-size="11" '
            f'fill="#444">{point}</text>')
    if player is not None:
        for i in range(min(count, _DRAWN)):
            label = str(count) if count > _DRAWN and i == _DRAWN - 1 else ""
            _checker(svg, x, _stack_y(point, i), player, label)
    svg.add("</g>")


def _bar_group(svg: _Svg, player: int, count: int, top: bool, home_right: bool) -> None:
    x = _mirror(_LEFT + _QUARTER + _BAR_W / 2, home_right)
    extra = f' data-count="{count}"' if count > _BAR_DRAWN else ""
    svg.add(f'<g data-point="bar-{player}" data-side="{player}"{extra}>')
    middle = (_TOP + _BOTTOM) / 2
    for i in range(min(count, _BAR_DRAWN)):
        # a side's bar checkers stack from the middle towards its own half
        y = middle - 40 - _R - i * 2 * _R if top else middle + 40 + _R + i * 2 * _R
        label = str(count) if count > _BAR_DRAWN and i == _BAR_DRAWN - 1 else ""
        _checker(svg, x, y, player, label)
    svg.add("</g>")


def _off_group(svg: _Svg, player: int, count: int, top: bool, home_right: bool) -> None:
    x = _mirror(_TRAY_X + _TRAY_W / 2, home_right)
    fill, stroke = _COLOURS[player]
    svg.add(f'<g data-point="off-{player}" data-side="{player}">')
    for i in range(count):
        y = _TOP + 4 + i * (_SLAB + 1) if top else _BOTTOM - 4 - _SLAB - i * (_SLAB + 1)
        svg.add(f'<rect class="checker" x="{_fmt(x - _TRAY_W / 2 + 4)}" y="{_fmt(y)}" width="{_TRAY_W - 8}" '
                f'height="{_SLAB}" rx="2" fill="{fill}" stroke="{stroke}"/>')
    svg.add("</g>")


_PIPS = {1: [(0, 0)], 2: [(-1, -1), (1, 1)], 3: [(-1, -1), (0, 0), (1, 1)],
         4: [(-1, -1), (1, -1), (-1, 1), (1, 1)], 5: [(-1, -1), (1, -1), (0, 0), (-1, 1), (1, 1)],
         6: [(-1, -1), (1, -1), (-1, 0), (1, 0), (-1, 1), (1, 1)]}


def _die(svg: _Svg, x: float, y: float, value: int, player: int) -> None:
    fill, stroke = _COLOURS[player]
    size = 30
    svg.add(f'<g class="die" data-value="{value}">')
    svg.add(f'<rect x="{_fmt(x - size / 2)}" y="{_fmt(y - size / 2)}" width="{size}" height="{size}" rx="5" '
            f'fill="{fill}" stroke="{stroke}" stroke-width="1.5"/>')
    for dx, dy in _PIPS[value]:
        svg.add(f'<circle cx="{_fmt(x + dx * 8)}" cy="{_fmt(y + dy * 8)}" r="2.8" fill="{stroke}"/>')
    svg.add("</g>")


def _cube(svg: _Svg, value: int, owner: int, on_roll: int, home_right: bool) -> None:
    x = _mirror(_LEFT / 2, home_right)
    middle = (_TOP + _BOTTOM) / 2
    y = middle if owner == CENTRED else (_BOTTOM - 24 if owner == on_roll else _TOP + 24)
    shown = 64 if owner == CENTRED and value == 1 else value
    owner_text = "centre" if owner == CENTRED else str(owner)
    svg.add(f'<g class="cube" data-value="{value}" data-owner="{owner_text}">')
    svg.add(f'<rect x="{_fmt(x - 19)}" y="{_fmt(y - 19)}" width="38" height="38" rx="4" fill="#fff" '
            f'stroke="#222" stroke-width="2"/>')
    svg.add(f'<text x="{_fmt(x)}" y="{_fmt(y + 6)}" text-anchor="middle" font-size="{16 if shown < 1000 else 11}" '
            f'font-weight="bold" fill="#222">{shown}</text>')
    svg.add("</g>")


def _anchor(point: int, mover_top: bool, home_right: bool, count: int) -> tuple[float, float]:
    """Where an arrow starts or ends on the mover's ``point`` (25 = bar, 0 = off)."""
    middle = (_TOP + _BOTTOM) / 2
    if point == BAR:
        return _mirror(_LEFT + _QUARTER + _BAR_W / 2, home_right), middle + (-60 if mover_top else 60)
    if point == OFF:
        return _mirror(_TRAY_X + _TRAY_W / 2, home_right), _BOTTOM - 40
    index = max(0, min(count, _DRAWN) - 1)
    return point_x(point, home_right), _stack_y(point, index)


def _arrow(svg: _Svg, start: tuple[float, float], end: tuple[float, float], colour: str, src: int, dst: int,
           hit: bool, offset: float) -> None:
    (x1, y1), (x2, y2) = start, end
    x1, x2 = x1 + offset, x2 + offset
    length = max(1e-6, ((x2 - x1) ** 2 + (y2 - y1) ** 2) ** 0.5)
    ux, uy = (x2 - x1) / length, (y2 - y1) / length
    bx, by = x2 - ux * 12, y2 - uy * 12  # the head's base
    head = f"{_fmt(x2)},{_fmt(y2)} {_fmt(bx - uy * 6)},{_fmt(by + ux * 6)} {_fmt(bx + uy * 6)},{_fmt(by - ux * 6)}"
    svg.add(f'<g class="arrow" data-from="{src}" data-to="{dst}" data-hit="{str(hit).lower()}">')
    svg.add(f'<line x1="{_fmt(x1)}" y1="{_fmt(y1)}" x2="{_fmt(bx)}" y2="{_fmt(by)}" stroke="{colour}" '
            f'stroke-width="3.5" stroke-linecap="round" opacity="0.85"/>')
    svg.add(f'<polygon points="{head}" fill="{colour}" opacity="0.9"/>')
    if hit:
        svg.add(f'<g class="hit"><circle cx="{_fmt(x2)}" cy="{_fmt(y2)}" r="{_R + 2}" fill="none" stroke="{colour}" '
                f'stroke-width="3" stroke-dasharray="4 3"/></g>')
    svg.add("</g>")


def _plays(svg: _Svg, position: Position, plays: tuple[Play, ...], home_right: bool) -> None:
    mover = position.board[1]
    for number, play in enumerate(plays):
        colour = _PLAY_COLOURS.get(play.role, "#8e44ad")
        svg.add(f'<g class="play" data-role="{escape(play.role)}" data-move="{escape(str(play.move))}">')
        for step in play.move.steps:
            src_count = mover[step.src - 1] if step.src != OFF else 0
            dst_count = mover[step.dst - 1] + 1 if step.dst != OFF else 0
            start = _anchor(step.src, False, home_right, src_count)
            end = _anchor(step.dst, False, home_right, dst_count)
            _arrow(svg, start, end, colour, step.src, step.dst, step.hit, 4 * number - 2 * (len(plays) - 1))
        svg.add("</g>")


def render_svg(position: Position, match: MatchState | None = None, *, names: tuple[str, str] = ("", ""),
               dice: tuple[int, int] | None = None, plays: tuple[Play, ...] = (), home_right: bool = True,
               width: int | None = None) -> str:
    """The SVG of ``position`` (side on roll in ``board[1]`` = ``match.on_roll``).

    ``dice`` default to the match state's; ``names``: players 0 and 1;
    ``width``: the rendered width in pixels (default: scales to its container).
    """
    state = match if match is not None else MatchState()
    on_roll = state.on_roll
    dice = dice if dice is not None else state.dice
    pid = position.position_id()
    mid = match.match_id() if match is not None else None
    pips = position.pip_counts()  # (on roll, opponent)
    off = position.off()
    labels = [names[p] or f"player {p}" for p in (0, 1)]
    title = f"Position ID {pid}" + (f", match ID {mid}" if mid else "")
    size = f' width="{width}" height="{round(width * HEIGHT / WIDTH)}"' if width else ""
    svg = _Svg()
    svg.add(f'<svg xmlns="http://www.w3.org/2000/svg" class="board" viewBox="0 0 {WIDTH} {HEIGHT}"{size} '
            f'role="img" data-position-id="{pid}"' + (f' data-match-id="{mid}"' if mid else "")
            + f' data-on-roll="{on_roll}" data-home="{"right" if home_right else "left"}">')
    svg.add(f"<title>{escape(title)}</title>")
    desc = (f"{labels[on_roll]} on roll ({pips[0]} pips) against {labels[1 - on_roll]} ({pips[1]} pips)"
            + (f"; {state.length}-point match, score {state.score[0]}-{state.score[1]}" if state.length else "")
            + (f"; dice {dice[0]}{dice[1]}" if dice else ""))
    svg.add(f"<desc>{escape(desc)}</desc>")
    svg.add(f'<rect x="0" y="0" width="{WIDTH}" height="{HEIGHT}" fill="#f7f3ea"/>')
    frame_x = _mirror(_LEFT if home_right else _TRAY_X + _TRAY_W, home_right)
    svg.add(f'<rect x="{_fmt(frame_x - 4)}" y="{_TOP - 4}" width="{_TRAY_X + _TRAY_W - _LEFT + 8}" '
            f'height="{_BOTTOM - _TOP + 8}" fill="#6b4226" rx="4"/>')
    for quarter in (_LEFT, _LEFT + _QUARTER + _BAR_W):
        qx = quarter if home_right else WIDTH - quarter - _QUARTER
        svg.add(f'<rect x="{qx}" y="{_TOP}" width="{_QUARTER}" height="{_BOTTOM - _TOP}" fill="#2e7d4f"/>')
    tray_x = _TRAY_X if home_right else WIDTH - _TRAY_X - _TRAY_W
    svg.add(f'<rect x="{tray_x}" y="{_TOP}" width="{_TRAY_W}" height="{_BOTTOM - _TOP}" fill="#3e2a1a"/>')
    board = position.board
    for point in range(1, 25):
        mine, theirs = board[1][point - 1], board[0][24 - point]
        if mine:
            _point_group(svg, point, mine, on_roll, home_right)
        elif theirs:
            _point_group(svg, point, theirs, 1 - on_roll, home_right)
        else:
            _point_group(svg, point, 0, None, home_right)
    for player, row, top in ((on_roll, board[1], False), (1 - on_roll, board[0], True)):
        _bar_group(svg, player, row[24], top, home_right)
    _off_group(svg, on_roll, off[0], False, home_right)
    _off_group(svg, 1 - on_roll, off[1], True, home_right)
    _cube(svg, state.cube, state.cube_owner, on_roll, home_right)
    if dice:
        middle = (_TOP + _BOTTOM) / 2
        centre = _LEFT + _QUARTER + _BAR_W + _QUARTER / 2
        for i, value in enumerate(dice):
            _die(svg, _mirror(centre - 20 + 40 * i, home_right), middle, value, on_roll)
    _plays(svg, position, plays, home_right)
    _info(svg, state, labels, pips, on_roll)
    svg.add("</svg>")
    return "".join(svg.parts)


def _info(svg: _Svg, state: MatchState, labels: list[str], pips: tuple[int, int], on_roll: int) -> None:
    """Names, scores and pips: the opponent above the board, the side on roll below."""
    for player, y in ((1 - on_roll, 28), (on_roll, HEIGHT - 14)):
        pip = pips[0] if player == on_roll else pips[1]
        marker = " \u25c0 on roll" if player == on_roll else ""
        svg.add(f'<text class="name" data-player="{player}" x="{_LEFT}" y="{y}" font-size="16" '
                f'font-weight="bold" fill="#222">{escape(labels[player])}{marker}</text>')
        svg.add(f'<text class="pips" data-player="{player}" data-value="{pip}" x="{_LEFT + 2 * _QUARTER - 60}" '
                f'y="{y}" font-size="14" fill="#333">pips {pip}</text>')
        if state.length:
            svg.add(f'<text class="score" data-player="{player}" data-value="{state.score[player]}" '
                    f'x="{_TRAY_X + _TRAY_W}" y="{y}" text-anchor="end" font-size="14" fill="#333">'
                    f'score {state.score[player]}</text>')
    crawford = " Crawford" if state.crawford_game else ""
    text = f"{state.length}-point match{crawford}" if state.length else "money game"
    svg.add(f'<text class="match-length" data-value="{state.length}" '
            f'data-crawford="{str(state.crawford_game).lower()}" '
            f'x="{WIDTH / 2}" y="12" text-anchor="middle" font-size="11" fill="#333">{text}</text>')
