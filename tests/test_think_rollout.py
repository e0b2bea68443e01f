"""The rollout step of a thinking level (engine/think_rollout.py): node budgets,
repeatability, the numbers against a plain rollout, the switching rule, notes."""

import random
from dataclasses import replace

import numpy as np
import pytest

from engine.evaluator import Engine
from engine.levels import Settle, Think, think_level
from engine.match import MatchState
from engine.sampling import random_game_positions
from engine.think import think_move
from engine.think_rollout import CF, _ranking, close_plays, seed_of, trial_nodes

MONEY = MatchState(length=0, jacoby=True)
SETTLE = Settle(truncate=3, switch_se=0.0)


@pytest.fixture(scope="module")
def engine():
    return Engine()


@pytest.fixture(scope="module")
def close_spots(engine):
    """Seeded contact decisions whose World class search leaves two plays or more within the window."""
    rng = random.Random(3434)
    out = []
    for p in random_game_positions(200, seed=343):
        dice = (rng.randint(1, 6), rng.randint(1, 6))
        if p.is_race() or len(p.legal_plays(*dice)) < 3:
            continue
        wc = engine.best_move(p, dice, match=MONEY, level="world class", threads=1)
        if close_plays(wc, SETTLE):
            out.append((p, dice, wc))
        if len(out) == 4:
            break
    assert len(out) == 4
    return out


def nodes_of_two_plies(engine, p, dice):
    bare = think_move(engine, p, dice, MONEY, Think(10**6, mode="nodes", max_plies=2), threads=1)
    assert bare.plies == 2
    return bare


def test_no_nodes_left_means_the_search_alone(engine, close_spots):
    for p, dice, wc in close_spots:
        bare = nodes_of_two_plies(engine, p, dice)
        # a budget of exactly the search's nodes, plus less than one trial of the plays
        plays = len(close_plays(wc, SETTLE))
        budget = bare.nodes + trial_nodes(SETTLE) * plays - 1
        t = think_move(engine, p, dice, MONEY, Think(budget, mode="nodes", max_plies=2, settle=SETTLE), threads=1)
        assert t.settled is not None and t.settled.trials == 0
        assert t.decision.move == wc.move and t.depth == "2-ply" and t.nodes == bare.nodes


def test_trials_grow_with_the_nodes_and_the_budget_is_kept(engine, close_spots):
    for p, dice, wc in close_spots:
        bare = nodes_of_two_plies(engine, p, dice)
        plays = len(close_plays(wc, SETTLE))
        trials = []
        for extra in (10, 40, 100):
            budget = bare.nodes + extra * trial_nodes(SETTLE) * plays
            t = think_move(engine, p, dice, MONEY, Think(budget, mode="nodes", max_plies=2, settle=SETTLE),
                           threads=1)
            assert t.settled is not None and t.nodes <= budget
            assert t.settled.trials == extra  # every trial that fits, none more
            assert t.settled.nodes == extra * trial_nodes(SETTLE) * plays
            trials.append(t.settled.trials)
        assert trials == sorted(trials)


def test_a_node_budget_repeats(engine, close_spots):
    p, dice, _ = close_spots[0]
    level = Think(40000, mode="nodes", max_plies=2, settle=SETTLE)
    a = think_move(engine, p, dice, MONEY, level, threads=1)
    b = think_move(engine, p, dice, MONEY, level, threads=1)
    assert a.settled is not None and b.settled is not None and a.settled.trials > 0
    assert (a.settled.trials, a.settled.nodes, a.settled.changed) == (b.settled.trials, b.settled.nodes,
                                                                      b.settled.changed)
    assert [(str(c.move), c.equity) for c in a.decision.candidates] == [
        (str(c.move), c.equity) for c in b.decision.candidates]


def test_the_rolled_out_equities_are_those_of_a_rollout_of_the_same_trials(engine, close_spots):
    for p, dice, wc in close_spots:
        plays = close_plays(wc, SETTLE)
        bare = nodes_of_two_plies(engine, p, dice)
        t = think_move(engine, p, dice, MONEY,
                       Think(bare.nodes + 24 * trial_nodes(SETTLE) * len(plays), mode="nodes", max_plies=2,
                             settle=SETTLE), threads=1)
        assert t.settled is not None and t.settled.trials == 24
        plain = engine.rollout(p, MatchState(length=0, jacoby=True, dice=dice), candidates=[c.move for c in plays],
                               trials=24, truncate=3, seed=seed_of(p, dice), threads=1)
        rolled = {str(c.move): c.equity for c in t.decision.candidates[:len(plays)]}
        for label, c in zip([str(c.move) for c in plays], plain.candidates, strict=True):
            assert rolled[label] == pytest.approx(c.cubeful_equity, abs=1e-6)
        # z = 0: the play with the best rolled-out equity is chosen
        assert str(t.decision.move) == max(rolled, key=lambda k: rolled[k])
        assert t.decision.candidates[len(plays):] == wc.candidates[len(plays):]


def test_the_switching_rule():
    rng = np.random.default_rng(5)
    n = 100
    values = np.zeros((n, 3, 7))
    values[:, 0, CF] = rng.normal(0.0, 0.05, n)
    values[:, 1, CF] = values[:, 0, CF] + 0.01 + rng.normal(0.0, 0.02, n)  # leads by five standard errors
    values[:, 2, CF] = values[:, 0, CF] - 0.03
    assert _ranking(values, Settle(switch_se=1.0)) == [1, 0, 2]
    assert _ranking(values, Settle(switch_se=8.0)) == [0, 1, 2]  # not by eight: the search's play stays
    assert _ranking(values[:5], Settle(min_trials=12)) == [0, 1, 2]  # too few trials to overrule the search


def test_notes_and_json_name_the_trials(engine, close_spots):
    p, dice, _ = close_spots[0]
    t = think_move(engine, p, dice, MONEY, Think(40000, mode="nodes", max_plies=2, settle=SETTLE, name="x"),
                   threads=1)
    assert t.settled is not None and t.settled.trials > 0
    assert t.record_note().level == t.decision.level == f"x, 2-ply + {t.settled.trials} trials"
    assert f"rolled out {t.settled.trials} trials" in t.note
    assert t.as_json()["rollout"]["trials"] == t.settled.trials


def test_settle_parses_and_refuses_nonsense():
    assert think_level({"think": 0.06, "rollout": {"truncate": 3, "plays": 2}}).settle == Settle(truncate=3, plays=2)
    for bad in ({"plays": 1}, {"truncate": 0}, {"window": -1}, {"nonsense": 1}, "yes"):
        with pytest.raises(ValueError):
            think_level({"think": 0.06, "rollout": bad})


def test_the_equal_time_report_counts_the_rollout_step():
    from engine.bench.equal_time import Tally, report

    tally = Tally(gnubg=[0.0, 0.004, 0.0], ours={"s": [0.0, 0.0, 0.002]}, depths={"s": [2, 2, 2]},
                  used={"s": [0.5, 0.9, 1.0]}, over={"s": [0.0, 0.0, 0.0]}, budgets=[0.05, 0.06, 0.04],
                  differing={"s": 2}, spent={"s": 0.12}, rolled={"s": [(30, False), (12, True)]})
    text = "\n".join(report(tally))
    assert "rollout step: ran in 2 decisions, trials median 30 (fewest 12, most 30), changed the search's play in 1" \
        in text
    assert "paired gnubg - ours: +0.67 mEMG" in text


def test_a_close_cube_decision_is_rolled_out(engine):
    from engine.bench.equal_time import self_play_spots
    from engine.think import think_cube
    from engine.think_rollout import settle_cube

    settle = Settle(cubes=True)
    spot = next(s.position for s in self_play_spots(engine, 1, 40, seed=77) if s.dice is None and settle_cube(
        engine, s.position, MONEY, engine.cube_decision(s.position, match=MONEY, level="world class"), settle,
        lambda: 0.0, nodes_mode=True, rate=1.0)[1].plays)
    bare = think_cube(engine, spot, MONEY, Think(10**6, mode="nodes", cube_plies=2), threads=1)
    level = Think(bare.nodes + 30 * trial_nodes(settle) * 2, mode="nodes", cube_plies=2, settle=settle)
    t = think_cube(engine, spot, MONEY, level, threads=1)
    assert t.settled is not None and t.settled.trials == 30 and t.nodes == level.budget
    assert "no double and double/take rolled out 30 trials" in t.note and t.depth == "2-ply + 30 trials"
    plain = engine.rollout(spot, MONEY, candidates="cube", trials=30, truncate=3, seed=seed_of(spot, (0, 0)),
                           threads=1)
    assert t.decision.equities == pytest.approx([c.cubeful_equity for c in plain.candidates[:3]], abs=1e-6)
    assert t.decision.action.lower() == plain.action.lower()
    assert think_cube(engine, spot, MONEY, level, threads=1).decision == t.decision  # a node budget repeats
    # without the cube step, or without nodes for it, the search's decision stands
    assert think_cube(engine, spot, MONEY, replace(level, settle=Settle()), threads=1).decision == bare.decision


def test_the_bot_warms_up_a_thinking_level(engine):
    from bot.player.thinking import ThinkingDecider

    decider = ThinkingDecider(engine)
    decider.warm_up("world class")
    assert decider.model.seen == {1: 0, 2: 0, 3: 0, 4: 0}  # a gnubg level: nothing to learn
    decider.warm_up(Think(5.0, max_plies=2, cube_plies=2))
    assert decider.model.seen[2] == 1 and decider.model.part("cube").seen[2] == 1
