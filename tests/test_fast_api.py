"""engine._fast, the CPython functions behind the per-position API (engine/native.py):
they equal the cffi paths they replace, refuse bad input with the API's errors, and
keep one scratch per thread."""

from __future__ import annotations

import os
import random
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np
import pytest

from engine import native
from engine.errors import BoardParseError
from engine.levels import level
from engine.position import Position, boards_from_ids
from engine.probabilities import Probabilities
from engine.sampling import random_game_positions


def _decision(d):
    return str(d.move), [(str(c.move), c.equity, c.probabilities, c.position) for c in d.candidates]


ROOT = Path(__file__).resolve().parent.parent


def test_per_position_calls_load_no_numpy():
    # numpy is imported where arrays are made (the bulk calls), not by `import engine`
    code = """import sys
from engine import Engine, MatchState, Position
engine = Engine()
p = Position.from_position_id("4HPwATDgc/ABMA")
d = engine.best_move(p, (3, 1))
assert str(d.move) == "8/5 6/5" and len(d.candidates) == 16, d
engine.cube_decision(p)
engine.evaluate(p).equity, engine.classify(p), p.legal_plays(6, 6)
print(sorted(m for m in sys.modules if m.split('.')[0] == 'numpy' or m == 'engine.rollout'))
engine.evaluate_many([p])
engine.best_move(p, (3, 1), MatchState(length=7))
print('numpy' in sys.modules)
"""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    done = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == ["[]", "True"], done.stdout


def test_equity_is_gnubgs_float32_sum():
    rng = random.Random(33)
    f32 = np.float32
    for _ in range(20000):
        p = Probabilities(*(rng.random() * rng.choice((1.0, 1e-3, 1e-7)) for _ in range(5)))
        w, wg, wbg, lg, lbg = (f32(v) for v in p)
        assert p.equity == float((w * f32(2) - f32(1)) + (wg - lg) + (wbg - lbg)), p


def test_key_from_id_equals_the_batch_decoder():
    positions = random_game_positions(500, seed=31)
    ids = [p.position_id() for p in positions]
    assert b"".join(native.key_from_id(i) for i in ids) == boards_from_ids(ids)
    assert [Position.from_position_id(f"  {i}\n") for i in ids[:20]] == positions[:20]


@pytest.mark.parametrize("bad", [None, b"4HPwATDgc/ABMA", 14, "é" * 14, "4HPwATDgc/AB\0A", "4HPwATDgc/ABMA" * 2])
def test_bad_ids_raise_board_parse_error(bad):
    assert native.key_from_id(bad) is None
    with pytest.raises(BoardParseError):
        Position.from_position_id(bad)  # type: ignore[arg-type]


def test_evaluate_equals_evaluate_many(engine):
    positions = random_game_positions(400, seed=32)
    one = np.array([engine.evaluate(p) for p in positions])
    assert np.array_equal(one, engine.evaluate_many(positions))
    # rows, not keys: the same numbers
    assert engine.evaluate(positions[7].board) == engine.evaluate(positions[7])
    with pytest.raises(ValueError):
        engine.evaluate(((16,) + (0,) * 24, (15,) + (0,) * 24))


def test_bad_keys_are_type_errors_not_crashes(engine):
    with pytest.raises(TypeError):
        native.evaluate(engine._engine_addr, engine._cache_addr, "x" * 50)  # type: ignore[arg-type]
    with pytest.raises(ValueError):
        native.evaluate(engine._engine_addr, engine._cache_addr, b"\0" * 49)
    with pytest.raises(TypeError):
        native.evaluate(engine._engine_addr, engine._cache_addr)  # type: ignore[call-arg]
    with pytest.raises(TypeError):
        native.cube(engine._engine_addr, engine._cache_addr, b"\0" * 50)  # type: ignore[call-arg]
    with pytest.raises(TypeError):
        native.best(engine._engine_addr)  # type: ignore[call-arg]


def test_best_move_in_threads_equals_one_thread(engine):
    """Each thread's search writes its own scratch: four threads at once give the
    sequential answers, candidate lists included."""
    rng = random.Random(33)
    positions = random_game_positions(120, seed=33)
    dice = [(rng.randint(1, 6), rng.randint(1, 6)) for _ in positions]
    expert = level("expert")
    alone = [_decision(engine.best_move(p, d, None, expert, threads=1)) for p, d in zip(positions, dice, strict=True)]

    def decide(i: int):
        d = engine.best_move(positions[i], dice[i], None, expert, threads=1)
        return _decision(d)  # candidates read after other threads searched

    with ThreadPoolExecutor(4) as pool:
        assert list(pool.map(decide, range(len(positions)))) == alone


def test_max_candidates_keeps_the_choice(engine):
    p, expert = Position.initial(), level("expert")
    full = engine.best_move(p, (6, 2), None, expert)
    one = engine.best_move(p, (6, 2), None, expert, max_candidates=1)
    assert one.move == full.move and len(one.candidates) == 1
    assert _decision(one)[1][0] == _decision(full)[1][0]


def test_cube_decision_is_a_value(engine):
    d = engine.cube_decision(Position.from_position_id("4HPwATDgc/ABMA"))
    assert d == engine.cube_decisions([Position.initial()])[0]
    assert not d.should_double and d.should_take and d.equities.nd == d.optimal
    with pytest.raises(AttributeError):
        d.code = 1  # type: ignore[misc]
