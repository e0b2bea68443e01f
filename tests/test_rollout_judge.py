"""The rollout judge of the paired level comparison (engine/analysis/rollout_judge.py)."""

import pathlib

from engine.analysis.level_compare import Spot, checker_spots, compare_levels
from engine.analysis.rollout_judge import RolloutJudge
from engine.evaluator import Engine
from engine.levels import level
from engine.match import MatchState
from engine.position import Move, Position
from engine.records import load

GOLDEN = pathlib.Path(__file__).parent / "data" / "golden-sgf"


def test_losses_are_rollout_differences(engine: Engine) -> None:
    opening = Position.initial()
    match = MatchState(length=0, jacoby=True, dice=(3, 1))
    spot = Spot("test", opening, (3, 1), match, match)
    a, b = opening.play(Move.parse("8/5 6/5")), opening.play(Move.parse("24/20"))
    judge = RolloutJudge(trials=12, seed=3)
    losses = judge.losses(engine, spot, {0: a, 1: b, 2: a}, threads=1)
    r = engine.rollout(opening, match, candidates=[Move.parse("8/5 6/5"), Move.parse("24/20")], trials=12, seed=3)
    diff = r.candidates[0].cubeful_equity - r.candidates[1].cubeful_equity
    assert losses[0] == losses[2] and min(losses.values()) == 0.0
    assert abs((losses[1] - losses[0]) - diff) < 1e-6


def test_compare_levels_with_a_rollout_judge(engine: Engine) -> None:
    spots = checker_spots(load(str(GOLDEN / "match_3pt.sgf")), "match_3pt")[:4]
    result = compare_levels(engine, spots, [level("beginner"), level("expert")], RolloutJudge(trials=6), threads=1)
    assert result.judge.startswith("rollout") and result.positions == len(spots)
    assert all(lv.loss >= 0 for lv in result.levels)
