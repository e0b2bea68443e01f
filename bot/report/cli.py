"""``fibsbot diagram``: a position (and plays) as an SVG or PNG picture."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from bot.cli.ids import parse_dice, parse_gnubg_id

if TYPE_CHECKING:
    from engine.position import Move, Position

HELP = "draw a position (and plays) as an SVG or PNG board diagram"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    from bot.report.diagram import WIDTH

    parser.add_argument("id", help="gnubg position ID, POSITIONID:MATCHID, or XGID=...")
    parser.add_argument("-o", "--output", required=True, type=Path, help="the picture to write: FILE.svg or FILE.png")
    parser.add_argument("--dice", type=parse_dice, help="the roll to show, e.g. 31 (default: the match ID's)")
    parser.add_argument("--play", help='a play to draw as arrows, in gnubg notation, e.g. "8/5 6/5"')
    parser.add_argument("--best", action="store_true", help="also draw the engine's best play for the dice "
                                                            "(in another colour)")
    parser.add_argument("--level", default="expert", help="the level that finds --best (default expert)")
    parser.add_argument("--home", choices=("right", "left"), default="right",
                        help="the side on roll's home board on the right (default) or the left")
    parser.add_argument("--names", help="the players' names, player 0 then player 1: NAME0,NAME1")
    parser.add_argument("--width", type=int, default=WIDTH,
                        help=f"the picture's width in pixels (default {WIDTH}; height follows)")


def _legal(position: Position, move: Move, dice: tuple[int, int] | None) -> Move:
    """``move`` as the legal play it is (hits marked), or IllegalMoveError."""
    after = position.play(move, dice)
    if dice is None:
        return move
    legal = position.legal_play_to(dice[0], dice[1], after)
    return legal if legal is not None else move


def build(args: argparse.Namespace) -> str:
    """The SVG the arguments ask for."""
    from bot.report.diagram import Play, render_svg
    from bot.report.errors import ReportError
    from engine.match import MatchState
    from engine.position import Move

    position, match = parse_gnubg_id(args.id)
    dice = args.dice or (match.dice if match else None)
    plays: list[Play] = []
    if args.play:
        plays.append(Play(_legal(position, Move.parse(args.play), dice), "played"))
    if args.best:
        if dice is None:
            raise ReportError("--best needs the dice: --dice 31, or a match ID with dice")
        from engine.evaluator import Engine

        view = (match or MatchState()).with_(dice=dice)
        choice = Engine().best_move(position, dice, view, args.level)
        plays.append(Play(choice.move, "best"))
    names = ("", "")
    if args.names:
        first, _, second = args.names.partition(",")
        names = (first.strip(), second.strip())
    return render_svg(position, match, names=names, dice=dice, plays=tuple(plays), home_right=args.home == "right",
                      width=args.width)


def run(args: argparse.Namespace) -> int:
    from bot.report.errors import ReportError
    from bot.report.files import atomic_write_bytes
    from engine.errors import BoardParseError, IllegalMoveError

    output: Path = args.output
    suffix = output.suffix.lower()
    try:
        if suffix not in (".svg", ".png"):
            raise ReportError(f"{output}: the output must end in .svg or .png")
        if not 16 <= args.width <= 8000:
            raise ReportError(f"--width {args.width} is outside 16..8000 pixels")
        svg = build(args)
        if suffix == ".png":
            from bot.report.png import svg_to_png

            data = svg_to_png(svg, args.width)
        else:
            data = svg.encode()
        atomic_write_bytes(output, data)
    except (BoardParseError, IllegalMoveError, ReportError, ValueError, OSError) as exc:
        print(f"fibsbot diagram: {exc}", file=sys.stderr)
        return 2
    print(f"wrote {output}")
    return 0


def write_analyse_html(out: str, paths: list[str], analyses: list[Any], level: Any) -> int:
    """``fibsbot analyse --html OUT``: write the report(s); 0, or 2 after saying why not."""
    from bot.report.errors import ReportError
    from bot.report.match_report import write_reports
    from engine.errors import BoardParseError, IllegalMoveError

    try:
        written = write_reports(out, paths, analyses, level)
    except (ReportError, BoardParseError, IllegalMoveError, ValueError, OSError) as exc:
        print(f"fibsbot analyse: no HTML report: {exc}", file=sys.stderr)
        return 2
    print(f"wrote {written[0]}" + (f" and {len(written) - 1} match pages" if len(written) > 1 else ""),
          file=sys.stderr)
    return 0
