"""Thinking-time levels (engine/think.py): node budgets, depth, decisions, notes, hints."""

import json
import random
import threading
import time

import pytest

from engine.evaluator import Engine
from engine.levels import MOVE_FILTERS, THINK_LEVELS, Think, is_think_level, think_level
from engine.match import MatchState
from engine.position import Position
from engine.records import MatchRecord, Roll, sgf
from engine.sampling import random_game_positions
from engine.think import CostModel, Thinker, _within, search_nodes, search_plan, subtree_nodes, think_cube, think_move

BUDGETS = (20, 300, 3000, 30000)


@pytest.fixture(scope="module")
def engine():
    return Engine()


@pytest.fixture(scope="module")
def spots():
    """Seeded decisions with more than one legal play."""
    rng = random.Random(34)
    out = []
    for p in random_game_positions(60, seed=3434):
        dice = (rng.randint(1, 6), rng.randint(1, 6))
        if len(p.legal_plays(*dice)) > 3:
            out.append((p, dice))
    return out[:8]


@pytest.fixture(scope="module")
def ladders(engine, spots):
    """For each spot, the think result at each node budget."""
    return [[think_move(engine, p, d, think=Think(b, mode="nodes")) for b in BUDGETS] for p, d in spots]


def test_subtree_nodes():
    assert [subtree_nodes(k) for k in range(4)] == [1, 22, 463, 9724]


def test_depth_grows_with_the_node_budget(ladders):
    for results in ladders:
        depths = [r.plies for r in results]
        assert depths == sorted(depths)
    # 20 nodes: no evaluation deeper than 1 ply fits (a deeper depth is reached only
    # where gnubg's filters leave one play at 0 ply, and its decision is then known)
    assert all(results[0].searched <= 1 for results in ladders)
    assert any(results[-1].plies >= 3 for results in ladders)
    assert sum(r[-1].plies for r in ladders) > sum(r[0].plies for r in ladders)


def test_node_budget_is_respected(ladders):
    for results, budget in zip(zip(*ladders, strict=True), BUDGETS, strict=True):
        for r in results:
            # the first depth always runs; every deeper one was predicted to fit, exactly
            assert r.nodes <= budget or len([s for s in r.steps if s.nodes]) == 1, r.as_json()


def test_decision_equals_the_fixed_depth_decision(engine, spots, ladders):
    for (p, d), results in zip(spots, ladders, strict=True):
        for r in results:
            fixed = engine.best_move(p, d, match=None, level=Think(1, mode="nodes").checker(r.plies))
            assert r.decision.move == fixed.move
            assert r.decision.level.endswith(f"{r.plies}-ply")


def test_node_mode_repeats(engine, spots):
    p, d = spots[0]
    a = think_move(engine, p, d, think=Think(5000, mode="nodes"))
    b = think_move(engine, p, d, think=Think(5000, mode="nodes"))
    assert a.plies == b.plies and a.nodes == b.nodes and a.decision.move == b.decision.move
    assert [(s.plies, s.nodes, s.choice) for s in a.steps] == [(s.plies, s.nodes, s.choice) for s in b.steps]


def test_the_next_depth_is_counted_before_it_runs(engine, spots):
    """From a 2-ply search's candidates, the 3-ply search's nodes are known exactly."""
    t = Think(1, mode="nodes")
    table = MOVE_FILTERS["normal"]
    for p, d in spots:
        two = engine.best_move(p, d, match=None, level=t.checker(2)).candidates
        three = engine.best_move(p, d, match=None, level=t.checker(3)).candidates
        n = len(two)
        assert search_nodes(table, 3, two, n) == search_nodes(table, 3, three, n)
        runs = search_plan(table, 3, two, n)[1]
        assert runs == any(c.plies == 3 for c in three)


def test_two_plies_whenever_their_nodes_fit(engine, spots):
    """A budget that covers the 0-ply round and the 2-ply search reaches 2 plies
    (no 1-ply search spends it first); one node less stops short of 2 plies."""
    t = Think(1, mode="nodes")
    table = MOVE_FILTERS["normal"]
    for p, d in spots:
        zero = engine.best_move(p, d, match=None, level=t.checker(0)).candidates
        n = len(zero)
        two, scores = search_plan(table, 2, zero, n)
        if not scores:
            continue
        r = think_move(engine, p, d, think=Think(n + two, mode="nodes"))
        # (deeper too where the 2-ply search leaves one play for the 3-ply round)
        assert r.plies >= 2 and r.nodes == n + two and [s.plies for s in r.steps if s.nodes] == [0, 2]
        assert r.decision.move == engine.best_move(p, d, match=None, level=t.checker(2)).move
        short = think_move(engine, p, d, think=Think(n + two - 1, mode="nodes"))
        assert short.plies <= 1 and short.searched <= 1


def test_time_mode_reaches_two_plies_on_a_fresh_model(engine, spots):
    """In time mode a budget of a few times a 2-ply search's cost reaches 2 plies
    from the first decision on (the default rates are priors, not caution)."""
    model = CostModel()
    t = Think(1, mode="nodes")
    for p, d in spots:
        start = time.process_time()
        engine.best_move(p, d, match=None, level=t.checker(2))
        cost = time.process_time() - start
        r = think_move(engine, p, d, think=Think(max(5 * cost, 0.005), max_plies=2), clock=time.process_time,
                       model=model)
        # (or settled: one play left after the 0-ply round every depth starts with)
        assert r.plies == 2 and [s.plies for s in r.steps if s.nodes] in ([0, 2], [0]), r.as_json()


def test_forced_play_and_match_state(engine):
    p = Position.initial()
    r = think_move(engine, p, (6, 6), match=MatchState(length=7, score=(2, 4)), think=Think(200, mode="nodes"))
    assert str(r.decision.move) == str(engine.best_move(p, (6, 6), match=MatchState(length=7, score=(2, 4)),
                                                        level=Think(1).checker(r.plies)).move)


def test_cube_depth_grows_and_equals_fixed_depth(engine, spots):
    money = MatchState(length=0, jacoby=True)
    for p, _ in spots[:4]:
        depths = []
        for b in (1, 30, 600, 12000):
            r = think_cube(engine, p, match=money, think=Think(b, mode="nodes"))
            depths.append(r.plies)
            fixed = engine.cube_decision(p, match=money, level=Think(1).cube(r.plies))
            assert r.decision == fixed
            assert r.record_note().level.endswith(f"{r.plies}-ply")
        assert depths == [0, 1, 2, 3]


def test_time_mode_with_a_given_clock_learns_rates(engine, spots, ladders):
    model = CostModel()
    p, d = next(spot for spot, results in zip(spots, ladders, strict=True) if results[-1].searched >= 2)
    r = think_move(engine, p, d, think=Think(10.0), clock=time.process_time, model=model)
    assert r.mode == "time" and r.searched >= 2 and not r.cut
    assert model.rate[2] != CostModel().rate[2]  # learned from the 2-ply search


def test_cube_decisions_learn_their_own_costs(engine, spots):
    model = CostModel()
    r = think_cube(engine, spots[0][0], think=Think(10.0, cube_plies=2), clock=time.process_time, model=model)
    assert r.plies == 2
    assert model.rate == CostModel().rate
    assert model.for_decision(spots[0][0], cube=True).rate[2] != CostModel().rate[2]


def test_a_search_that_overruns_is_cut():
    release = threading.Event()
    done, out = _within(lambda: release.wait(30), 0.05)
    release.set()
    assert (done, out) == (False, None)
    assert _within(lambda: 7, 5.0) == (True, 7)
    with pytest.raises(ZeroDivisionError):
        _within(lambda: 1 // 0, 5.0)


def test_think_levels_parse():
    assert think_level({"think": 1.5}) == Think(1.5)
    assert think_level({"think": 2000, "think_mode": "nodes", "filter": "large"}).move_filter == "large"
    assert think_level(" Fibsbot   STRONG ") is THINK_LEVELS["fibsbot strong"]
    assert think_level(0.5).budget == 0.5
    assert is_think_level("fibsbot strong") and is_think_level({"think": 1}) and not is_think_level("expert")
    for bad in ({"think": -1}, {"think": "x"}, {"thinks": 1}, {"think": 1, "think_mode": "moves"}, "nope",
                {"think": float("nan")}, True, None, {"think": 1, "filter": "wide"}):
        with pytest.raises(ValueError):
            think_level(bad)


def test_thinker_passes_gnubg_levels_through(engine, spots):
    p, d = spots[2]
    thinker = Thinker(engine)
    assert thinker.best_move(p, d, None, "expert").move == engine.best_move(p, d, level="expert").move
    assert thinker.last is None
    decision = thinker.best_move(p, d, None, Think(3000, mode="nodes"))
    assert thinker.last is not None and decision is thinker.last.decision
    assert f"{thinker.last.plies}-ply" in decision.level
    race = Position.from_position_id("bQ0AANauBwAAAA")
    assert thinker.resign_offer(race, None, Think(1)) == engine.resign_offer(race, level="expert")
    assert thinker.accept_resignation(race, None, Think(1), 1) == engine.accept_resignation(
        race, match=None, level="expert", value=1)


def test_match_record_comment_names_the_depth(engine):
    p = Position.initial()
    r = think_move(engine, p, (4, 2), think=Think(30000, mode="nodes", name="fibsbot strong"))
    record = MatchRecord(("fibsbot", "other"), 7)
    game = record.new_game()
    game.append(Roll(0, (4, 2), r.decision.move, note=r.record_note()))
    text = sgf.dumps(record)
    assert f"fibsbot strong, {r.plies}-ply" in text and r.plies >= 2
    again = sgf.loads(text).games[0].actions[0].note
    assert again is not None and again.level == f"fibsbot strong, {r.plies}-ply"


def test_hint_names_the_depth(capsys):
    from bot.cli import main

    assert main(["hint", "4HPwATDgc/ABMA", "--dice", "42", "--think", "30000", "--think-mode", "nodes"]) == 0
    text = capsys.readouterr().out
    assert "think 30000 nodes: thought " in text and "-ply" in text
    assert main(["hint", "4HPwATDgc/ABMA", "--dice", "42", "--think", "30000", "--think-mode", "nodes", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["plies"] == data["think"]["plies"] >= 2
    assert data["chosen"] == data["candidates"][0]["move"] == "8/4 6/4"
    # no 1-ply round where 2 plies fit: gnubg's 2-ply search has none
    assert [s["plies"] for s in data["think"]["steps"]] == [0, *range(2, data["plies"] + 1)]
    assert main(["hint", "4HPwATDgc/ABMA", "--dice", "42", "--level", "world class", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["plies"] == 2


# ---- the equal-time benchmark's parts ------------------------------------------------------------


def test_equal_time_spots_and_judge(engine):
    from engine.bench.equal_time import judge_cube, judge_plays, self_play_spots
    from engine.bench.gnubg_player import interval

    spots = self_play_spots(engine, 6, 2, seed=99)
    assert spots == self_play_spots(engine, 6, 2, seed=99)
    plays, cubes = spots[:6], spots[6:]
    assert all(s.dice is not None and len(s.position.legal_plays(*s.dice)) > 1 for s in plays)
    assert len(cubes) == 2 and all(s.dice is None for s in cubes)
    spot = plays[0]
    ranked = engine.best_move(spot.position, spot.dice, level="expert").candidates
    same = {"a": ranked[0].position, "b": ranked[0].position}
    assert judge_plays(engine, spot, same, 36, 1, 1) == {"a": 0.0, "b": 0.0}
    losses = judge_plays(engine, spot, {"a": ranked[0].position, "b": ranked[-1].position}, 36, 1, 1)
    assert min(losses.values()) == 0.0 and max(losses.values()) > 0.0
    both = judge_cube(engine, cubes[0], {"a": (True, True), "b": (False, True)}, 36, 1, 1)
    assert min(both.values()) == 0.0 and max(both.values()) > 0.0
    mean, half = interval([1.0, 2.0, 3.0])
    assert mean == 2.0 and half == pytest.approx(1.96 / 3 ** 0.5)


def test_think_wall_plays_each_decision_as_the_bot(engine):
    from engine.bench.equal_time import self_play_spots, think_variants
    from engine.bench.equal_time_wall import wall_times

    spots = self_play_spots(engine, 3, 1, seed=98)
    think = Think(600, mode="nodes")
    rows = wall_times(engine, spots, think)
    money = MatchState(length=0, jacoby=True)
    want = [think_move(engine, s.position, s.dice, match=money, think=think).plies if s.dice else
            think_cube(engine, s.position, match=money, think=think).plies for s in spots]
    assert [d for _, d, _ in rows] == want and not any(cut for _, _, cut in rows)
    assert set(think_variants("fibsbot strong,0.5,large")) == {"fibsbot strong", "think 0.5s", "think, large filter"}


def test_a_cut_gnubg_tuple_is_settled(engine):
    pytest.importorskip("gnubg")
    from engine.bench.gnubg_player import Gnubg

    g = Gnubg(engine)
    p = Position.from_position_id("uJsDDGDb3Q0AAA")  # a bear-off: the package's tuple stops at the first 0
    after, _ = g.move(p, (1, 1))
    assert after is not None and after in [r for _, r in p.legal_plays(1, 1)]
    ours = engine.best_move(p, (1, 1), match=g.money, level="world class")
    assert after == ours.candidates[0].position


def test_hint_refuses_a_bad_budget(capsys):
    from bot.cli import main

    assert main(["hint", "4HPwATDgc/ABMA", "--dice", "42", "--think", "0"]) == 2
    assert "think budget" in capsys.readouterr().err
