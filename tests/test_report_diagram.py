"""Board diagrams: 2,000 positions of every kind drawn and read back from the SVG to the
same position and match state; plays as arrows; PNG at the stated size; `fibsbot diagram`."""

from __future__ import annotations

import random
import xml.etree.ElementTree as ET
from collections import Counter
from pathlib import Path

import pytest

from bot.cli import main
from bot.report.diagram import HEIGHT, WIDTH, Play, render_svg
from bot.report.png import png_size, svg_to_png
from bot.report.readback import DiagramReadError, read_svg
from engine import MatchState, Move, Position
from engine.match import CENTRED

NS = "{http://www.w3.org/2000/svg}"
LENGTHS = (0, 1, 3, 5, 7, 11, 25)


def _random_game(rng: random.Random) -> list[Position]:
    """Positions of a game of random legal plays (contact, hits and bar, race, bear-off)."""
    position, seen = Position.initial(), []
    for _ in range(400):
        if position.winner() is not None:
            break
        seen.append(position)
        plays = position.legal_plays(rng.randint(1, 6), rng.randint(1, 6))
        position = rng.choice(plays)[1].swap()
    return seen


def _bear_off(rng: random.Random) -> Position:
    """Both sides bearing off with some checkers already off."""
    rows = []
    for _ in range(2):
        row = [0] * 25
        for _ in range(rng.randint(1, 14)):
            row[rng.randint(0, 5)] += 1
        rows.append(row)
    return Position.from_board(rows)


def _race(rng: random.Random) -> Position:
    """No contact: each side's fifteen checkers in its own first twelve points."""
    rows = []
    for _ in range(2):
        row = [0] * 25
        for _ in range(15):
            row[rng.randint(0, 11)] += 1
        rows.append(row)
    return Position.from_board(rows)


def _match(rng: random.Random, on_roll: int) -> MatchState:
    length = rng.choice(LENGTHS)
    score = (rng.randrange(length), rng.randrange(length)) if length else (0, 0)
    crawford = bool(length > 1 and length - 1 in score and rng.random() < 0.5)
    cube = 1 if crawford else rng.choice((1, 2, 4, 8, 16, 32, 64))
    owner = CENTRED if cube == 1 or crawford else rng.choice((0, 1))
    dice = rng.choice((None, (rng.randint(1, 6), rng.randint(1, 6))))
    return MatchState(length=length, score=score, cube=cube, cube_owner=owner, on_roll=on_roll, turn=on_roll,
                      crawford_game=crawford, jacoby=length == 0, dice=dice)


def _kind(position: Position) -> str:
    board = position.board
    if board[0][24] or board[1][24]:
        return "bar"
    if min(position.off()) > 0:
        return "both off"
    if position.off() != (0, 0):
        return "bear-off"
    return "race" if position.is_race() else "contact"


def _samples(count: int) -> list[tuple[Position, MatchState, bool]]:
    rng = random.Random(33)
    positions: list[Position] = []
    while len(positions) < count * 3 // 4:
        game = _random_game(rng)
        positions += rng.sample(game, min(len(game), 40))
    positions = positions[:count * 3 // 4]
    positions += [_race(rng) for _ in range(100)]
    positions += [_bear_off(rng) for _ in range(count - len(positions))]
    return [(p, _match(rng, rng.randint(0, 1)), rng.random() < 0.5) for p in positions]


def test_two_thousand_diagrams_read_back_to_their_position_and_match_state() -> None:
    samples = _samples(2000)
    kinds = Counter(_kind(p) for p, _, _ in samples)
    cubes = Counter((m.cube, m.cube_owner) for _, m, _ in samples)
    assert min(kinds[k] for k in ("contact", "race", "bear-off", "bar", "both off")) >= 50, kinds
    assert {owner for _, owner in cubes} == {CENTRED, 0, 1} and len({v for v, _ in cubes}) == 7
    assert sum(m.crawford_game for _, m, _ in samples) >= 20
    for position, match, home_right in samples:
        svg = render_svg(position, match, names=("alice", "bob"), home_right=home_right)
        drawn = read_svg(svg)
        assert drawn.position == position, (position, match)
        assert drawn.on_roll == match.on_roll
        assert drawn.position_id == position.position_id()
        assert drawn.match_id == match.match_id()
        # a match ID keeps the dice high die first
        high_first = tuple(sorted(match.dice, reverse=True)) if match.dice else None
        assert MatchState.from_match_id(drawn.match_id) == match.with_(dice=high_first)
        assert (drawn.cube, drawn.cube_owner) == (match.cube, match.cube_owner)
        assert drawn.dice == (match.dice or ())
        assert drawn.length == match.length and drawn.crawford == match.crawford_game
        assert drawn.score == (match.score if match.length else None)
        mine, theirs = position.off()
        assert drawn.off[match.on_roll] == mine and drawn.off[1 - match.on_roll] == theirs
        assert drawn.names == ("alice", "bob")


def _groups(svg: str) -> dict[str, ET.Element]:
    root = ET.fromstring(svg)
    return {g.get("data-point", ""): g for g in root.iter(f"{NS}g") if g.get("data-point")}


def test_structure_title_groups_and_tall_stacks() -> None:
    rows = [[0] * 25, [0] * 25]
    rows[1][5] = 15  # fifteen on the six point
    rows[0][24], rows[0][0] = 7, 8  # seven on the bar
    position = Position.from_board(rows)
    svg = render_svg(position, MatchState(on_roll=1, turn=1))
    root = ET.fromstring(svg)
    assert root.find(f"{NS}title") is not None and position.position_id() in (root.findtext(f"{NS}title") or "")
    groups = _groups(svg)
    assert set(groups) == {str(p) for p in range(1, 25)} | {"bar-0", "bar-1", "off-0", "off-1"}
    six = groups["6"]
    drawn = [e for e in six.iter() if e.get("class") == "checker"]
    assert six.get("data-count") == "15" and len(drawn) < 15 and six.get("data-side") == "1"
    assert "15" in "".join(six.itertext())
    assert groups["bar-0"].get("data-count") == "7" and groups["24"].get("data-side") == "0"
    assert groups["12"].get("data-side") == "none"
    assert read_svg(svg).position == position


def test_a_play_and_the_best_play_are_drawn_as_arrows_with_hits() -> None:
    position = Position.from_position_id("4HPwATDgc/ABMA").play(Move.parse("13/9 6/5")).swap()
    dice = (6, 4)
    hitting = next(m for m in position.legal_moves(*dice) if any(s.hit for s in m.steps))
    quiet = next(m for m in position.legal_moves(*dice) if not any(s.hit for s in m.steps))
    svg = render_svg(position, MatchState(dice=dice), plays=(Play(hitting), Play(quiet, "best")))
    root = ET.fromstring(svg)
    plays = {g.get("data-role"): g for g in root.iter(f"{NS}g") if g.get("class") == "play"}
    assert set(plays) == {"played", "best"}
    assert plays["played"].get("data-move") == str(hitting)
    arrows = [g for g in plays["played"].iter(f"{NS}g") if g.get("class") == "arrow"]
    assert [(int(a.get("data-from", "")), int(a.get("data-to", "")), a.get("data-hit") == "true") for a in arrows] \
        == [(s.src, s.dst, s.hit) for s in hitting.steps]
    assert any(g.get("class") == "hit" for g in plays["played"].iter(f"{NS}g"))
    colours = {g.get("data-role"): {e.get("stroke") for e in g.iter(f"{NS}line")} for g in plays.values()}
    assert colours["played"].isdisjoint(colours["best"])
    assert read_svg(svg).position == position  # arrows are no checkers


def test_not_a_diagram_is_a_named_error() -> None:
    for text in ("<svg xmlns='http://www.w3.org/2000/svg'/>", "not xml", "<html/>"):
        with pytest.raises(DiagramReadError):
            read_svg(text)


def test_png_renders_at_the_stated_size() -> None:
    pytest.importorskip("cairosvg", reason="the png extra (CairoSVG) is not installed")
    svg = render_svg(Position.initial(), MatchState(length=5, dice=(3, 1)))
    data = svg_to_png(svg, 300)
    assert png_size(data) == (300, round(300 * HEIGHT / WIDTH))
    import io

    from PIL import Image

    image = Image.open(io.BytesIO(data)).convert("RGB")
    assert image.size == (300, 240) and len(image.getcolors(1 << 20) or ()) > 20  # a drawing, not a blank


def test_fibsbot_diagram_writes_svg_and_png(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    svg_path = tmp_path / "board.svg"
    assert main(["diagram", "4HPwATDgc/ABMA:cInqACAAIAAE", "--play", "13/8 13/11", "--best",
                 "--names", "alice,bob", "--home", "left", "-o", str(svg_path)]) == 0
    drawn = read_svg(svg_path.read_text())
    assert drawn.position == Position.initial() and drawn.dice == (5, 2) and drawn.names == ("alice", "bob")
    roles = {g.get("data-role") for g in ET.fromstring(svg_path.read_text()).iter(f"{NS}g") if g.get("class") == "play"}
    assert roles == {"played", "best"}
    xgid = tmp_path / "x.svg"
    assert main(["diagram", "XGID=-b----E-C---eE---c-e----B-:0:0:1:52:0:0:0:0:10", "-o", str(xgid)]) == 0
    assert read_svg(xgid.read_text()).position == Position.initial()
    if pytest.importorskip("cairosvg", reason="the png extra (CairoSVG) is not installed"):
        png_path = tmp_path / "board.png"
        assert main(["diagram", "4HPwATDgc/ABMA", "--width", "450", "-o", str(png_path)]) == 0
        assert png_size(png_path.read_bytes()) == (450, 360)


@pytest.mark.parametrize("argv, words", [
    (["nonsense"], "position ID"),
    (["4HPwATDgc/ABMA:nonsense"], "match ID"),
    (["XGID=zz"], "XGID"),
    (["4HPwATDgc/ABMA", "--dice", "31", "--play", "13/1"], "13/1"),
    (["4HPwATDgc/ABMA", "--best"], "dice"),
])
def test_bad_input_is_a_named_error_and_no_file(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                argv: list[str], words: str) -> None:
    out = tmp_path / "x.svg"
    assert main(["diagram", *argv, "-o", str(out)]) == 2
    assert words in capsys.readouterr().err and not out.exists() and not list(tmp_path.iterdir())


def test_held_out_gnubg_positions_read_back_point_by_point() -> None:
    """The 200 positions of the gnubg golden set (boards as gnubg lists them) drawn and read back."""
    import json

    golden = json.loads((Path(__file__).parent / "data" / "golden-0ply.json").read_text())["positions"]
    classes = Counter(p["class"] for p in golden)
    assert len(golden) == 200 and len(classes) >= 3
    for number, entry in enumerate(golden):
        position = Position.from_position_id(entry["position_id"])
        match = MatchState(length=7, score=(number % 7, (number // 7) % 7), on_roll=number % 2, turn=number % 2)
        drawn = read_svg(render_svg(position, match, home_right=number % 3 > 0))
        assert [list(row) for row in drawn.position.board] == entry["board"], entry["position_id"]
        assert drawn.position_id == entry["position_id"] and drawn.score == match.score
