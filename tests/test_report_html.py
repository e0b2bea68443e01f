"""HTML match reports: every decision of a real match with the numbers of
`fibsbot analyse --json`, one self-contained valid page, and bad input refused whole."""

from __future__ import annotations

import json
import shutil
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import pytest

from bot.cli import main
from bot.report.errors import ReportError
from bot.report.match_report import report_html, write_report
from bot.report.readback import read_svg
from bot.report.source import analyse_match
from engine import Engine, Position
from engine.records import MatchRecord, Roll, load

DATA = Path(__file__).parent / "data" / "golden-sgf"
VOID = {"meta", "br", "img", "input", "link", "hr", "col", "area", "base", "wbr", "source", "track"}
SVG_EMPTY = {"circle", "rect", "polygon", "line", "path"}


class Page(HTMLParser):
    """Collects decisions and checks the tags nest, IDs are unique, nothing is fetched."""

    def __init__(self) -> None:
        super().__init__()
        self.stack: list[str] = []
        self.ids: list[str] = []
        self.decisions: list[dict[str, str]] = []
        self.svgs_in: dict[int, list[str]] = {}
        self.problems: list[str] = []
        self.doctype = False

    def handle_decl(self, decl: str) -> None:
        self.doctype = decl.lower() == "doctype html"

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = {k: v or "" for k, v in attrs}
        if "id" in a:
            self.ids.append(a["id"])
        for key in ("src", "href"):
            if key in a and not a[key].startswith(("#", "data:")) and "://" in a[key]:
                self.problems.append(f"external {key} {a[key]}")
        if tag == "link" and not a.get("href", "").startswith("data:"):
            self.problems.append("a <link> fetches a file")
        if tag == "article" and "decision" in a.get("class", "").split():
            self.decisions.append(a)
            self.svgs_in[len(self.decisions)] = []
        if tag == "svg" and self.decisions and "article" in self.stack:
            self.svgs_in[len(self.decisions)].append(a.get("data-position-id", ""))
        if tag not in VOID:
            self.stack.append(tag)

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.handle_starttag(tag, attrs)
        if tag not in VOID:
            self.stack.pop()

    def handle_endtag(self, tag: str) -> None:
        if not self.stack or self.stack[-1] != tag:
            self.problems.append(f"</{tag}> closes {self.stack[-1:]}")
            return
        self.stack.pop()


def parse(text: str) -> Page:
    page = Page()
    page.feed(text)
    page.close()
    assert page.doctype and not page.problems and not page.stack, (page.problems, page.stack)
    assert len(page.ids) == len(set(page.ids)), "duplicate element IDs"
    return page


@pytest.fixture(scope="module")
def analysed(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, Any], str]:
    """match_3pt analysed by `fibsbot analyse --json --html` (one run)."""
    folder = tmp_path_factory.mktemp("report")
    sgf = folder / "match_3pt.sgf"
    shutil.copy(DATA / "match_3pt.sgf", sgf)
    out, data = folder / "match_3pt.html", folder / "match_3pt.json"
    assert main(["analyse", str(sgf), "--json", str(data), "--html", str(out)]) == 0
    return sgf, json.loads(data.read_text())["matches"][0], out.read_text()


def test_report_lists_every_decision_with_the_json_numbers(analysed: tuple[Path, dict[str, Any], str]) -> None:
    sgf, data, html = analysed
    page = parse(html)
    decisions = data["decisions"]
    assert len(page.decisions) == len(decisions) > 100
    record = load(sgf)
    for number, (shown, d) in enumerate(zip(page.decisions, decisions, strict=True), 1):
        assert shown["data-kind"] == ("move" if d["kind"] == "move" else "cube")
        assert shown["data-action"] == d["kind"] and int(shown["data-player"]) == d["player"]
        assert float(shown["data-error"]) == d["error"]
        assert shown["data-played"] == d["played"] and shown["data-best"] == d["best"]
        if d["kind"] == "move":
            assert shown["data-dice"] == f"{d['dice'][0]}{d['dice'][1]}"
            assert float(shown["data-luck"]) == d["luck"]
            game = record.games[d["game"] - 1]
            action = game.actions[d["action"]]
            assert isinstance(action, Roll) and str(action.move) == d["played"]
            before = game.states[d["action"]].position(d["player"])
            assert Position.from_position_id(shown["data-position-id"]) == before
        assert page.svgs_in[number] == [shown["data-position-id"]]  # the board drawn is the decision's
    skills = [d for d in page.decisions if d["data-skill"] != "none"]
    assert [d["data-skill"] for d in skills] == [d["skill"] for d in decisions if d["skill"] != "none"]


def test_report_shows_tables_ids_and_statistics(analysed: tuple[Path, dict[str, Any], str]) -> None:
    _, data, html = analysed
    assert html.count('class="movetable"') == sum(d["kind"] == "move" for d in data["decisions"])
    assert html.count('class="cubetable"') == sum(d["kind"] != "move" for d in data["decisions"])
    assert html.count('class="id xgid">XGID=') == len(data["decisions"])
    for p in data["players"]:
        assert f"<th>{p['name']}</th>" in html
        assert f"{p['chequer_rate_memg']:.1f}" in html and f"{p['luck']:+.3f}" in html
    first = data["decisions"][0]
    assert f'<span class="error">{first["error"]:+.4f}</span>' in html
    assert '<meta name="viewport"' in html and "<style>" in html


def test_each_board_in_the_report_reads_back(analysed: tuple[Path, dict[str, Any], str]) -> None:
    _, _, html = analysed
    start = html.index("<svg")
    svg = html[start:html.index("</svg>", start) + 6]
    drawn = read_svg(svg)
    assert drawn.position == Position.initial() and drawn.dice == (2, 1) and drawn.length == 3


def test_several_records_give_an_index_and_a_page_each(tmp_path: Path) -> None:
    paths = [tmp_path / name for name in ("match_1pt.sgf", "money_session.sgf")]
    for p in paths:
        shutil.copy(DATA / p.name, p)
    out = tmp_path / "reports"
    assert main(["analyse", *map(str, paths), "--html", str(out)]) == 0
    index = parse((out / "index.html").read_text())
    assert index.decisions == []
    pages = sorted(out.glob("0*.html"))
    assert [p.name for p in pages] == ["001-match_1pt.html", "002-money_session.html"]
    for page_path, record in zip(pages, paths, strict=True):
        analysis = analyse_match(Engine(), load(record))
        assert len(parse(page_path.read_text()).decisions) == len(analysis.decisions)
        assert f'href="{page_path.name}"' in (out / "index.html").read_text()


@pytest.mark.parametrize("broken", ["not_sgf.sgf", "truncated.sgf", "illegal_move.sgf", "bad_dice.sgf"])
def test_a_corrupt_record_is_a_named_error_and_leaves_the_old_report(tmp_path: Path, broken: str,
                                                                     capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "report.html"
    out.write_text("the previous report")
    assert main(["analyse", str(DATA / "broken" / broken), "--html", str(out)]) == 2
    assert "fibsbot analyse:" in capsys.readouterr().err
    assert out.read_text() == "the previous report" and [p.name for p in tmp_path.iterdir()] == ["report.html"]


def test_a_record_without_decisions_gives_a_report_saying_so(tmp_path: Path) -> None:
    record = MatchRecord(("alice", "bob"), 5)
    analysis = analyse_match(Engine(), record)
    html = report_html(record, analysis)
    page = parse(html)
    assert page.decisions == [] and 'class="missing"' in html and "nothing to analyse" in html


def test_an_analysis_of_another_record_is_refused_before_writing(tmp_path: Path) -> None:
    record_a, record_b = load(DATA / "match_1pt.sgf"), load(DATA / "match_3pt.sgf")
    analysis = analyse_match(Engine(), record_a)
    out = tmp_path / "r.html"
    with pytest.raises(ReportError):
        write_report(out, record_b, analysis)
    renamed = MatchRecord(("carol", "dave"), 1)
    with pytest.raises(ReportError, match="carol"):
        write_report(out, renamed, analysis)
    assert not out.exists() and not list(tmp_path.iterdir())


def test_a_record_without_gnubg_analysis_is_analysed_and_names_are_escaped() -> None:
    """A plain record (no evaluations saved in it) still gets every decision; hostile names stay text."""
    record = load(DATA / "roundtrip" / "match_1pt.mat2sgf.sgf")
    record.players = ("<script>alert(1)</script>", "bob & co")
    analysis = analyse_match(Engine(), record)
    html = report_html(record, analysis)
    page = parse(html)
    assert len(page.decisions) == len(analysis.decisions) > 10
    assert "<script>alert(1)</script>" not in html and "&lt;script&gt;alert(1)&lt;/script&gt;" in html
    assert "bob &amp; co" in html and "bob & co" not in html
