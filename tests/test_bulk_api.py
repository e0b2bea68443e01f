"""The bulk API (Engine.best_moves, Engine.cube_decisions, Engine.evaluate_ids) equals
the one-at-a-time API on a seeded set, bit for bit, whatever the thread count; and
positions made from IDs carry the engine's key from construction."""

from __future__ import annotations

import random

import numpy as np
import pytest

from engine.bench.parity import random_match_state
from engine.errors import BoardParseError
from engine.levels import level
from engine.position import Position, boards_from_ids
from engine.sampling import random_bearoff_positions, random_game_positions


def _seeded(n, seed):
    rng = random.Random(seed)
    positions = random_game_positions(n, seed=seed) + random_bearoff_positions(n // 10, rng)
    # fresh from their IDs, as a user's code makes them
    positions = [Position.from_position_id(p.position_id()) for p in positions]
    dice = [(rng.randint(1, 6), rng.randint(1, 6)) for _ in positions]
    matches = [random_match_state(rng) for _ in positions]
    return positions, dice, matches


def _play(d):
    c = d.candidates[0] if d.candidates else None
    return (d.move, None if c is None else (c.equity, c.cubeless_equity, c.probabilities, c.plies, c.position))


@pytest.mark.parametrize("name,n", [("expert", 300), ("advanced", 120), ("world class", 12)])
def test_best_moves_equal_best_move(engine, name, n):
    positions, dice, matches = _seeded(n, seed=500 + n)
    lv = level(name)
    one = [_play(engine.best_move(p, d, m, lv, threads=1)) for p, d, m in zip(positions, dice, matches, strict=True)]
    for threads in (1, 2, 3):
        bulk = engine.best_moves(positions, dice, matches, lv, threads=threads)
        assert [_play(d) for d in bulk] == one
    # one roll and one cube state for all
    same = engine.best_moves(positions[:20], (6, 5), None, lv)
    assert [_play(d) for d in same] == [_play(engine.best_move(p, (6, 5), None, lv)) for p in positions[:20]]


def test_best_moves_no_legal_play_and_errors(engine):
    blocked = Position.from_board(((2,) * 6 + (0,) * 19, (0,) * 24 + (15,)))
    d = engine.best_moves([blocked, Position.initial()], [(6, 6), (3, 1)])
    assert d[0].move.steps == () and str(d[1].move) == "8/5 6/5"
    assert _play(d[0]) == _play(engine.best_move(blocked, (6, 6)))
    assert engine.best_moves([], []) == []
    with pytest.raises(ValueError):
        engine.best_moves([Position.initial()], [(3, 1), (4, 2)])
    with pytest.raises(ValueError):
        engine.best_moves([Position.initial()], [(7, 1)])
    with pytest.raises(ValueError):
        engine.cube_decisions([Position.initial()] * 2, [None])


@pytest.mark.parametrize("name,n", [("expert", 300), ("world class", 10)])
def test_cube_decisions_equal_cube_decision(engine, name, n):
    positions, _, matches = _seeded(n, seed=600 + n)
    lv = level(name)
    for beavers in (True, False):
        one = [engine.cube_decision(p, m, lv, threads=1, beavers=beavers)
               for p, m in zip(positions, matches, strict=True)]
        for threads in (1, 2):
            assert engine.cube_decisions(positions, matches, lv, threads=threads, beavers=beavers) == one
    assert engine.cube_decisions(positions[:10]) == [engine.cube_decision(p) for p in positions[:10]]


def test_evaluate_ids_equals_evaluate(engine):
    positions, _, _ = _seeded(400, seed=700)
    ids = [p.position_id() for p in positions]
    one = np.array([engine.evaluate(p) for p in positions])
    for threads in (1, 2):
        probs, classes = engine.evaluate_ids(ids, threads=threads, with_classes=True)
        assert np.array_equal(probs, one)
        assert classes.tolist() == [int(engine.classify(p)) for p in positions]
    assert engine.evaluate_ids([]).shape == (0, 5)
    with pytest.raises(BoardParseError, match="base64"):
        engine.evaluate_ids(ids[:3] + ["4HPwATDgc/AB!A"])
    with pytest.raises(BoardParseError, match="14 characters"):
        engine.evaluate_ids(["4HPwATDgc/ABMA", "4HPwATDgc/ABMAA"])


def test_positions_from_ids_carry_their_key():
    positions = random_game_positions(300, seed=701)
    ids = [p.position_id() for p in positions]
    fresh = [Position.from_position_id(i) for i in ids]
    assert [p._board for p in fresh] == [None] * len(fresh)  # rows built only when asked
    assert [p.key for p in fresh] == [p.key for p in positions]
    assert fresh == positions and [hash(p) for p in fresh] == [hash(p) for p in positions]
    assert [p.board for p in fresh] == [p.board for p in positions]
    assert boards_from_ids(ids) == b"".join(p.key for p in positions)
    assert [p.swap().position_id() for p in fresh] == [p.swap().position_id() for p in positions]


def test_legal_plays_are_lazy_and_equal():
    p = Position.initial()
    plays = p.legal_plays(6, 5)
    assert plays[0][0]._steps is None and plays[0][1]._board is None  # decoded on first use
    assert [str(m) for m, _ in plays] == [str(m) for m in p.legal_moves(6, 5)]
    assert str(plays[0][0]) == "24/13" and plays[0][0].steps[0].src == 24
    assert plays[0][1] == p.play(plays[0][0])
