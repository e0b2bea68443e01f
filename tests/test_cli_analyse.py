"""`fibsbot analyse`: the IDs of every decision (a gnubg user pastes them into `hint`), one JSON
shape for one record or several; `analyse --levels` words; `calibrate --show` rows."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bot.cli import main
from bot.tournament.calibrate_cli import row_name
from bot.tournament.cli import _ranking_line, verdict_text
from engine.evaluator import Engine
from engine.match import MatchState
from engine.position import Position
from engine.strength import Setting
from engine.xgid import from_xgid

GOLDEN = Path(__file__).parent / "data" / "golden-sgf"


def _analyse(capsys: pytest.CaptureFixture[str], *paths: Path) -> dict:  # type: ignore[type-arg]
    assert main(["analyse", *map(str, paths), "--json", "-"]) == 0
    return json.loads(capsys.readouterr().out)  # type: ignore[no-any-return]


def test_every_decision_has_its_ids_and_hint_agrees(capsys: pytest.CaptureFixture[str]) -> None:
    data = _analyse(capsys, GOLDEN / "match_3pt.sgf")
    decisions = data["matches"][0]["decisions"]
    assert decisions and all({"position_id", "match_id", "xgid"} <= d.keys() for d in decisions)
    engine = Engine()
    moves = [d for d in decisions if d["kind"] == "move" and d["played"] != d["best"]]
    assert moves
    for d in moves[:6]:
        position = Position.from_position_id(d["position_id"])
        match = MatchState.from_match_id(d["match_id"])
        assert match.dice == tuple(d["dice"]) and match.length == 3
        assert from_xgid(d["xgid"]) == (position, match)
        best = engine.best_move(position=position, dice=match.dice, match=match, level="expert").candidates[0].move
        assert str(best) == d["best"]  # the analysis's best play, found again from the IDs alone
    for d in decisions:
        if d["kind"] in ("take", "pass"):
            match = MatchState.from_match_id(d["match_id"])
            assert match.doubled and match.turn == d["player"] != match.on_roll


def test_the_table_shows_the_ids(capsys: pytest.CaptureFixture[str]) -> None:
    data = _analyse(capsys, GOLDEN / "match_3pt.sgf")
    shown = [d for d in data["matches"][0]["decisions"] if d["skill"] != "none"]
    assert shown
    assert main(["analyse", str(GOLDEN / "match_3pt.sgf")]) == 0
    out = capsys.readouterr().out
    assert all(f"{d['position_id']}:{d['match_id']}" in out for d in shown)


def test_one_json_shape_for_one_record_or_several(capsys: pytest.CaptureFixture[str]) -> None:
    one = _analyse(capsys, GOLDEN / "match_3pt.sgf")
    two = _analyse(capsys, GOLDEN / "match_3pt.sgf", GOLDEN / "match_5pt.sgf")
    assert one.keys() == two.keys() == {"level", "matches", "players", "error_rate_order"}
    assert one["matches"][0] == two["matches"][0]
    assert [m["match"] for m in two["matches"]] == [str(GOLDEN / "match_3pt.sgf"), str(GOLDEN / "match_5pt.sgf")]
    assert one["players"] == one["matches"][0]["players"]


def _pair(low: float | None, high: float | None, verdict: str = "undecided", looks: int = 1,
          leaning: str = "in order") -> dict[str, object]:
    return {"weaker": "a", "stronger": "b", "interval_memg": [low, high], "verdict": verdict, "looks": looks,
            "leaning": leaning, "positions": 40, "differing": 12, "mean_difference_memg": 1.0}


def test_an_open_pair_is_never_undecided_beside_an_interval_without_zero() -> None:
    excludes = _pair(0.2, 1.8)
    text = verdict_text(excludes)
    assert "undecided" not in text and "in order at 95%" in text and "98.75%" in text  # look 2 of 5%/2^k
    assert "undecided" not in _ranking_line([excludes])
    assert verdict_text(_pair(-1.8, -0.2, leaning="reversed")).startswith("reversed at 95%")
    assert verdict_text(_pair(-0.5, 1.5)) == "undecided, leans in order"
    assert verdict_text(_pair(None, None, leaning="tied")) == "undecided"
    assert verdict_text(_pair(0.2, 1.8, verdict="in order")) == "in order"


def test_calibrate_show_names_rows_by_level_or_rating(capsys: pytest.CaptureFixture[str]) -> None:
    assert row_name(Setting(), 2009.4) == "expert"
    assert row_name(Setting(noise=0.02), 1649.3) == "rating 1649"
    assert row_name(Setting(plies=2), 1978.0) == "world class"
    assert main(["calibrate", "--show"]) == 0
    rows = [line for line in capsys.readouterr().out.splitlines() if "noise-0.0200" in line and line.startswith("│")]
    assert len(rows) == 1
    cells = [c.strip() for c in rows[0].strip("│ ").split("│")]
    assert cells[0] == f"rating {cells[1]}"  # named by the FIBS rating it plays at
