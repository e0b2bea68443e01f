"""engine.analysis.level_compare and `fibsbot analyse --levels`: the paired comparison of
levels, checked against the match analysis of the same decisions."""

from __future__ import annotations

import json
import math
from statistics import NormalDist

import pytest

from bot.cli import main
from bot.tournament.play import Table, play_match
from bot.tournament.schedule import schedule
from engine.analysis import analyse_match
from engine.analysis.level_compare import PairResult, checker_spots, compare_levels, look_z, shuffled
from engine.evaluator import Engine
from engine.levels import level
from engine.records import MatchRecord, sgf

NEVER = 10**6  # a min_differing no pair reaches: every spot is played


@pytest.fixture(scope="module")
def beginner_game(engine: Engine) -> MatchRecord:
    """Beginner against itself, a 3-point match: its plays carry the level's (deterministic) noise."""
    spec = schedule(["beginner"], "self play", None, 1, seed=4, duplicate=False)[0]
    return play_match(engine, spec, Table((level("beginner"), level("beginner")), 3, 1))


def _pair(differences, min_differing=10):
    pair = PairResult("weak", "strong", min_differing)
    for d in differences:
        pair.add(d)
    return pair


def test_pair_statistics_by_hand():
    pair = _pair([0.0, 0.02, 0.02, 0.02, 0.0, 0.02])
    assert (pair.positions, pair.differing) == (6, 4)
    mean = 0.08 / 6
    assert pair.mean == pytest.approx(mean)
    sd = math.sqrt((2 * mean ** 2 + 4 * (0.02 - mean) ** 2) / 5)
    half = 1.959964 * sd / math.sqrt(6)  # 0.00826: the interval is 0.0051 .. 0.0216
    assert pair.interval() == pytest.approx((mean - half, mean + half))
    assert pair.interval(3.0) == pytest.approx((mean - 3.0 * sd / math.sqrt(6), mean + 3.0 * sd / math.sqrt(6)))
    assert _pair([0.01]).interval() == (-math.inf, math.inf)
    assert (_pair([0.02, -0.03]).leaning, _pair([0.0, 0.0]).leaning) == ("reversed", "tied")


def test_looks_split_the_error_rate():
    # look k is two-sided at 5%/2^k: z = 2.241 (97.5%), 2.498, 2.734, ...
    assert [round(look_z(k), 3) for k in (1, 2, 3)] == [2.241, 2.498, 2.734]
    assert look_z(1) == pytest.approx(NormalDist().inv_cdf(1 - 0.0125))
    pair = _pair([0.02, 0.0], min_differing=2)
    assert (pair.looks, pair.verdict) == (0, "undecided")  # one differing position: no look yet
    pair.add(0.02)  # look 1: mean 0.0133, sd 0.0115, half 2.241 * 0.0115 / sqrt(3) = 0.0149
    assert (pair.looks, pair.verdict) == (1, "undecided")
    pair.add(0.02)  # three differing: no look (the next is at four)
    assert pair.looks == 1
    pair.add(0.02)  # look 2: mean 0.016, sd 0.00894, half 2.498 * 0.00894 / sqrt(5) = 0.0100
    assert (pair.looks, pair.verdict) == (2, "in order")
    # a 95% interval excluding zero does not decide at a stricter look
    near = _pair([0.01] * 8 + [-0.0105] * 2, min_differing=10)  # 95%: +0.0005..; 97.5%: -0.0002..
    low, high = near.interval()
    assert low > 0 and near.interval(look_z(1))[0] < 0 and near.verdict == "undecided"
    backwards = _pair([-0.02] * 10, min_differing=10)
    assert backwards.verdict == "reversed"
    done = _pair([0.02] * 10, min_differing=10)
    done.add(-1.0)  # a decided pair keeps its verdict
    assert done.verdict == "in order" and done.looks == 1


def test_spots_are_the_unforced_checker_decisions(engine, beginner_game):
    spots = checker_spots(beginner_game, "m")
    analysis = analyse_match(engine, beginner_game, "expert")
    counted = [d for d in analysis.decisions if d.kind == "move" and d.counted]
    assert [(s.where, s.dice) for s in spots] == [(f"m game {d.game} action {d.action}", d.dice) for d in counted]
    assert sorted(s.where for s in shuffled(spots, 3)) == sorted(s.where for s in spots)
    assert [s.where for s in shuffled(spots, 3)] == [s.where for s in shuffled(spots, 3)]


def test_losses_match_the_analysis_of_the_played_moves(engine, beginner_game):
    """Beginner's noise is deterministic, so on its own game it replays its moves:
    its losses judged at 0-ply are the analysis' chequer errors, decision by decision."""
    spots = checker_spots(beginner_game, "m")
    result = compare_levels(engine, spots, [level("beginner"), level("expert")], level("expert"),
                            min_differing=NEVER)
    analysis = analyse_match(engine, beginner_game, "expert")
    errors = [-d.error for d in analysis.decisions if d.kind == "move" and d.counted]
    beginner, expert = result.levels
    assert result.positions == beginner.positions == len(spots)
    assert expert.loss == 0.0  # expert's settings are the judge's: its play is the best
    assert beginner.loss == pytest.approx(sum(errors), abs=1e-5)
    assert result.pairs[0].differences == pytest.approx(errors, abs=1e-6)
    assert result.judged == beginner.judged == len(spots)  # a judge-equal level is always scored
    assert result.pairs[0].verdict == "undecided"  # min_differing NEVER: no look


def test_a_decided_pair_stops_the_comparison(engine, beginner_game):
    spots = checker_spots(beginner_game, "m")
    result = compare_levels(engine, spots, [level("beginner"), level("expert")], level("expert"), min_differing=3)
    assert result.pairs[0].verdict == "in order"
    assert result.positions < len(spots)
    assert result.in_order


def test_only_differing_plays_are_judged(engine, beginner_game):
    """Where expert and advanced choose the same play, the judge searches nothing."""
    spots = checker_spots(beginner_game, "m")[:12]
    result = compare_levels(engine, spots, [level("advanced"), level("expert")], level("world class"),
                            min_differing=NEVER)

    def play(spot, name):
        return spot.position.play(engine.best_move(spot.position, spot.dice, spot.match, level(name)).move)

    differ = sum(1 for s in spots if play(s, "advanced") != play(s, "expert"))
    assert 0 < differ < len(spots)
    assert result.judged == differ
    assert result.pairs[0].differing <= differ


def test_rejects_bad_level_lists(engine, beginner_game):
    spots = checker_spots(beginner_game, "m")
    with pytest.raises(ValueError, match="at least two"):
        compare_levels(engine, spots, [level("expert")], level("expert"))
    with pytest.raises(ValueError, match="once"):
        compare_levels(engine, spots, [level("expert"), level("expert")], level("expert"))


def test_cli_compares_levels_as_json(beginner_game, tmp_path, capsys):
    path = tmp_path / "beginner.sgf"
    path.write_text(sgf.dumps(beginner_game), encoding="utf-8")
    assert main(["analyse", str(path), "--levels", "beginner, expert", "--level", "expert",
                 "--min-differing", "3", "--json", "-"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["judge"] == "expert"
    assert [(p["weaker"], p["stronger"], p["verdict"]) for p in data["pairs"]] == [("beginner", "expert", "in order")]
    assert data["in_order"] is True
    assert data["pairs"][0]["mean_difference_memg"] > 0


def test_cli_table_and_bad_level(beginner_game, tmp_path, capsys):
    path = tmp_path / "beginner.sgf"
    path.write_text(sgf.dumps(beginner_game), encoding="utf-8")
    assert main(["analyse", str(path), "--levels", "beginner,expert", "--level", "expert",
                 "--max-positions", "8", "--json", str(tmp_path / "out.json")]) == 0
    out = capsys.readouterr().out
    assert "Paired comparison on 8 positions" in out
    assert "weakest first: beginner > expert. Steps decided in order: " in out
    assert json.loads((tmp_path / "out.json").read_text())["positions"] == 8
    assert main(["analyse", str(path), "--levels", "beginner,grandmasta"]) == 2
    assert "unknown level 'grandmasta'" in capsys.readouterr().err
    assert main(["analyse", str(path), "--levels", "expert"]) == 2
