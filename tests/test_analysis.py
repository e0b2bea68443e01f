"""engine.analysis and `fibsbot analyse`: per-decision errors at 0-ply against the
`gnubg` package (1.1.0a16), and rough agreement with gnubg 1.07's analysis of
the golden match (older nets: error classes and luck only)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from bot.cli import main
from bot.tournament.play import Table, play_match
from bot.tournament.schedule import schedule
from engine.analysis import MatchAnalysis, analyse_match, match_state
from engine.analysis import rates as analysis_rates
from engine.evaluator import Engine
from engine.levels import level
from engine.position import Move, Position
from engine.records import MatchRecord, load_sgf

GOLDEN = Path(__file__).parent / "data" / "golden-sgf"
TOLERANCE = 1e-4


@pytest.fixture(scope="module")
def played(engine: Engine) -> MatchRecord:
    """A 5-point match, expert against beginner: plenty of errors and cube action."""
    spec = schedule(["expert", "beginner"], "round robin", None, 1, seed=6, duplicate=False)[0]
    return play_match(engine, spec, Table((level("expert"), level("beginner")), 5, 1))


def _gnubg_cubeinfo(g, record: MatchRecord, game, state, player: int):
    ms = match_state(record, game, state, player)
    return g.cubeinfo(ms.cube, ms.cube_owner, player, ms.length, ms.score, int(ms.crawford_game), 0)


def _gnubg_play_scores(g, position: Position, dice, ci) -> tuple[list[float], dict[Position, float]]:
    """All gnubg 0-ply scores, and those of the plays whose result is certain
    (gnubg cuts a move tuple at its first bear-off)."""
    found = g.findbestmoves(position.board, ci, g.evalcontext(1, 0, 1, 0, 0.0), dice)
    plays = position.legal_plays(*dice)
    known: dict[Position, float] = {}
    for entry in found:
        flat = entry["move"]
        prefix = sorted(zip(flat[0::2], [*flat[1::2], 0], strict=False))  # odd: the last step open
        matches = [r for m, r in plays if all(prefix.count(s) <= sorted((x.src, x.dst) for x in m.steps).count(s)
                                             for s in prefix)]
        if len(flat) % 2 == 0:
            known[position.play(Move.from_pairs(zip(flat[0::2], flat[1::2], strict=True)))] = entry["score"]
        elif len(matches) == 1:
            known[matches[0]] = entry["score"]
    return [e["score"] for e in found], known


def _compare_with_gnubg(record: MatchRecord, analysis: MatchAnalysis) -> tuple[int, int]:
    """Checks each analysed decision's error against gnubg's scores of the same
    decision; returns how many chequer plays and cube decisions were compared."""
    g = pytest.importorskip("tests.gnubg_oracle").gnubg()
    compared = cube_compared = 0
    for d in analysis.decisions:
        game = record.games[d.game - 1]
        state = game.states[d.action]
        position = state.position(d.player)
        if d.kind == "move" and d.counted:
            ci = _gnubg_cubeinfo(g, record, game, state, d.player)
            scores, known = _gnubg_play_scores(g, position, d.dice, ci)
            played = position.play(game.actions[d.action].move)
            if played in known:
                assert d.error == pytest.approx(known[played] - scores[0], abs=TOLERANCE), d
                compared += 1
        elif d.kind != "move" and (d.counted or d.kind != "no double"):
            from tests.gnubg_oracle import cube_hint

            ms = match_state(record, game, state, game.actions[d.action - (d.kind in ("take", "pass"))].player)
            hint = cube_hint(state.position(ms.on_roll).position_id(), ms.match_id())
            assert hint is not None, d
            errors = analysis_rates.cube_errors(hint["nd"], hint["dt"], hint["dp"])
            key = {"no double": "missed_double", "double": "wrong_double", "take": "wrong_take",
                   "pass": "wrong_pass"}[d.kind]
            assert d.error == pytest.approx(errors[key], abs=TOLERANCE), (d, hint["text"])
            cube_compared += 1
    return compared, cube_compared


def test_errors_match_gnubg_on_a_played_match(engine: Engine, played: MatchRecord) -> None:
    analysis = analyse_match(engine, played, "expert")
    unforced = sum(1 for d in analysis.decisions if d.kind == "move" and d.counted)
    compared, cube_compared = _compare_with_gnubg(played, analysis)
    assert compared >= 0.8 * unforced and cube_compared >= 10
    assert any(d.error < -0.03 for d in analysis.decisions if d.kind != "move")
    beginner = analysis.players[1]
    assert beginner.rates.overall_rate < analysis.players[0].rates.overall_rate <= 0.0
    assert sum(beginner.chequer_skills.values()) > 0


def test_errors_match_gnubg_on_the_golden_match(engine: Engine) -> None:
    record = load_sgf(GOLDEN / "match_3pt.sgf")
    analysis = analyse_match(engine, record, "expert")
    compared, _ = _compare_with_gnubg(record, analysis)
    assert compared >= 90


def _gnubg_107_analysis(path: Path) -> dict[tuple[int, int], tuple[float, float | None]]:
    """(game, action) -> (chequer error, luck) from gnubg's A[...] and LU[...] properties."""
    out = {}
    for number, tree in enumerate(path.read_text().split("(;FF")[1:], 1):
        for k, node in enumerate(tree.split("\n;")[1:]):
            a = re.search(r"A\[(\d+)\]((?:\[[^\]]*\])+)", node)
            lu = re.search(r"LU\[([-0-9.]+)\]", node)
            if a:
                equities = [float(c.split()[8]) for c in re.findall(r"\[([^\]]*)\]", a.group(2))]
                out[(number, k)] = (equities[int(a.group(1))] - equities[0], float(lu.group(1)) if lu else None)
    return out


def test_rough_agreement_with_gnubg_107_analysis(engine: Engine) -> None:
    path = GOLDEN / "match_3pt_analysed.sgf"
    theirs = _gnubg_107_analysis(path)
    analysis = analyse_match(engine, load_sgf(path), "expert")
    moves = [d for d in analysis.decisions if d.kind == "move" and (d.game, d.action) in theirs]
    unforced = [d for d in moves if d.counted]
    assert len(unforced) > 100
    same_class = sum(d.skill == analysis_rates.skill(theirs[(d.game, d.action)][0]) for d in unforced)
    assert same_class >= 0.9 * len(unforced)
    luck = [abs(d.luck - theirs[(d.game, d.action)][1]) for d in moves
            if d.luck is not None and theirs[(d.game, d.action)][1] is not None]
    assert len(luck) > 100 and sum(luck) / len(luck) < 0.005 and max(luck) < 0.05


def test_analyse_cli_json(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "analysis.json"
    assert main(["analyse", str(GOLDEN / "match_3pt.sgf"), "--json", str(out)]) == 0
    shown = capsys.readouterr().out
    assert "chequer error rate" in shown and "alice" in shown
    data = json.loads(out.read_text())
    assert [p["name"] for p in data["players"]] == ["alice", "bob"]
    alice = data["players"][0]
    assert alice["rating"] == analysis_rates.rating_label(alice["overall_rate_memg"] / 1000)
    decision = data["matches"][0]["decisions"][0]
    assert {"kind", "error", "skill", "luck", "position_id", "match_id", "xgid"} <= decision.keys()
    assert main(["analyse", str(GOLDEN / "match_3pt.sgf"), "--level", "nonsense"]) == 2


def test_analyse_cli_totals_over_several_matches(engine: Engine, capsys: pytest.CaptureFixture[str]) -> None:
    paths = [str(GOLDEN / "match_3pt.sgf"), str(GOLDEN / "match_5pt.sgf")]
    assert main(["analyse", *paths, "--workers", "2", "--json", "-"]) == 0
    data = json.loads(capsys.readouterr().out)
    singles = [analyse_match(engine, load_sgf(Path(p)), "expert") for p in paths]
    for p in data["players"]:
        mine = [q for a in singles for q in a.players if q.name == p["name"]]
        assert len(mine) == 2
        assert p["unforced_moves"] == sum(q.rates.unforced_moves for q in mine)
        assert p["chequer_error"] == pytest.approx(sum(q.rates.chequer_error for q in mine), abs=1e-9)
        assert p["cube_skills"] == {k: sum(q.cube_skills[k] for q in mine) for k in p["cube_skills"]}
        assert p["luck"] == pytest.approx(sum(q.luck for q in mine), abs=1e-9)
    rates = {p["name"]: abs(p["overall_rate_memg"]) for p in data["players"]}
    assert data["error_rate_order"] == sorted(rates, key=rates.__getitem__)
    assert [m["match"] for m in data["matches"]] == paths
    # one process gives the same numbers
    assert main(["analyse", *paths, "--json", "-"]) == 0
    assert json.loads(capsys.readouterr().out) == data
    assert main(["analyse", paths[0], "missing.sgf"]) == 2
    assert "missing.sgf" in capsys.readouterr().err
