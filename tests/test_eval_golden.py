"""0-ply evaluation against gnubg's golden outputs (tests/data/golden-0ply.json:
200 positions, PyPI gnubg 1.1.0a16 = gnubg 1.08 sources, weights 1.01)."""

import hashlib
import json
import pathlib
import struct

import numpy as np
import pytest

from engine.evaluator import Engine, PositionClass
from engine.position import Position
from engine.probabilities import Probabilities

GOLDEN = json.loads((pathlib.Path(__file__).parent / "data" / "golden-0ply.json").read_text())["positions"]
TOLERANCE = 1e-6


def test_golden_set_shape():
    assert len(GOLDEN) == 200
    assert {p["class_code"] for p in GOLDEN} == {4, 6, 8, 9, 10}


@pytest.mark.parametrize("case", GOLDEN, ids=[p["position_id"] for p in GOLDEN])
def test_golden_position(engine, case):
    position = Position.from_board(case["board"])
    assert position.position_id() == case["position_id"]
    assert engine.classify(position) == case["class_code"]
    probs = engine.evaluate(position)
    assert max(abs(a - b) for a, b in zip(probs, case["probs"], strict=True)) <= TOLERANCE
    assert abs(probs.equity - case["cubeless_equity_money"]) <= TOLERANCE


def test_golden_batch_matches_one_at_a_time_and_is_bit_exact(engine):
    positions = [Position.from_board(p["board"]) for p in GOLDEN]
    batch, classes = engine.evaluate_many(positions, with_classes=True)
    reference = np.array([p["probs"] for p in GOLDEN])
    assert batch.shape == (200, 5) and batch.dtype == np.float64
    assert classes.tolist() == [p["class_code"] for p in GOLDEN]
    single = np.array([engine.evaluate(p) for p in positions])
    assert np.array_equal(batch, single)
    # Not required (1e-6 is the bar), but this build reproduces gnubg's floats exactly.
    diff = np.abs(batch - reference).max()
    print(f"golden max abs diff {diff:.3g}, exact floats {np.mean(batch == reference):.1%}")
    assert diff <= TOLERANCE


def test_inputs_accepted(engine):
    board = GOLDEN[0]["board"]
    expected = engine.evaluate(Position.from_board(board))
    assert engine.evaluate(board) == expected
    assert engine.evaluate(tuple(tuple(r) for r in board)) == expected
    assert engine.evaluate(np.array(board)) == expected
    arr = np.array([p["board"] for p in GOLDEN[:5]])
    assert np.array_equal(engine.evaluate_many(arr), engine.evaluate_many(arr.reshape(5, 50)))
    assert engine.evaluate_many([]).shape == (0, 5)
    assert engine.classify_many(arr).tolist() == [p["class_code"] for p in GOLDEN[:5]]


@pytest.mark.parametrize("bad", [
    [[0] * 25, [16] + [0] * 24],          # 16 chequers
    [[0] * 25, [-1] + [0] * 24],          # negative
    [[0] * 24, [0] * 25],                 # short row
    [[0] * 25],                           # one row
])
def test_bad_boards_raise(engine, bad):
    with pytest.raises(ValueError):
        engine.evaluate(bad)
    with pytest.raises(ValueError):
        engine.evaluate_many([bad])


def test_probabilities_value_type():
    p = Probabilities(0.6, 0.2, 0.01, 0.1, 0.005)
    assert p == Probabilities(*p.as_tuple())
    assert p.inverted().inverted() == p
    assert p.inverted().win_gammon == p.lose_gammon
    w, wg, wbg, lg, lbg = p
    assert abs(p.equity - (2 * w - 1 + wg - lg + wbg - lbg)) < 1e-6
    with pytest.raises(AttributeError):
        p.win = 0.5  # type: ignore[misc]


def test_position_class_codes():
    assert PositionClass.CONTACT == 10 and PositionClass.BEAROFF1 == 6 and PositionClass.OVER == 0


def test_game_over_positions(engine):
    empty = [0] * 25
    lost_bg = [0] * 25
    lost_bg[20], lost_bg[5] = 3, 12
    assert tuple(engine.evaluate([empty, lost_bg])) == (0, 0, 0, 1, 1)
    won_single = [0] * 25
    won_single[0] = 3
    assert tuple(engine.evaluate([won_single, empty])) == (1, 0, 0, 0, 0)
    assert engine.classify([won_single, empty]) == PositionClass.OVER


def test_sigmoid_table_and_function():
    from engine._core import ffi, lib

    table = ffi.new("float[101]")
    lib.bg_sigmoid_table(table)
    raw = b"".join(struct.pack("<f", table[i]) for i in range(101))
    assert hashlib.sha256(raw).hexdigest() == "101b3998654b1c7434a663373c61819f4c67a3c71a94e9ef9a0f8e0c89880ef1"
    assert lib.bg_sigmoid_value(0.0) == 0.5
    assert lib.bg_sigmoid_value(20.0) == np.float32(1) / np.float32(19931.370438230298)


@pytest.mark.parametrize("side,index", [
    ([0] * 6, 0), ([1, 0, 0, 0, 0, 0], 1), ([0, 0, 0, 0, 0, 1], 6),
    ([3, 2, 1, 0, 0, 0], 484), ([15, 0, 0, 0, 0, 0], 38760), ([0, 0, 0, 0, 0, 15], 54263),
])
def test_bearoff_index(side, index):
    from engine._core import ffi, lib

    assert lib.bg_bearoff_id(ffi.new("unsigned int[25]", side + [0] * 19), 6, 15) == index


@pytest.mark.parametrize("kernel", ["generic", "sse2", "avx2"])
def test_every_kernel_gives_the_same_floats(engine, monkeypatch, kernel):
    """The SIMD kernels only vectorise across hidden units/outputs: same floats."""
    monkeypatch.setenv("FIBSBOT_KERNEL", kernel)
    other = Engine(cache_log2=0)
    if kernel == "avx2" and other.kernel != "avx2":
        pytest.skip("no AVX2 on this CPU")
    assert other.kernel in (kernel, "generic")
    boards = [p["board"] for p in GOLDEN]
    assert np.array_equal(other.evaluate_many(boards), engine.evaluate_many(boards))


def test_vector_hitting_heuristic_gives_the_scalar_floats(engine, monkeypatch):
    """On AVX-512 CPUs the contact inputs' hitting heuristic runs in vectors
    (with the AVX-512 kernel); the SSE2 kernel keeps the scalar form. Both
    must give the same outputs on thousands of real contact positions
    (bar, blots, primes), not only the golden set."""
    from engine.sampling import random_game_positions

    positions = random_game_positions(3000, seed=8)
    boards = [p.board for p in positions]
    monkeypatch.setenv("FIBSBOT_KERNEL", "sse2")
    scalar = Engine(cache_log2=0)
    assert scalar.kernel in ("sse2", "generic")
    classes = engine.evaluate_many(boards, with_classes=True)[1]
    assert (classes == int(PositionClass.CONTACT)).sum() > 1000
    assert np.array_equal(scalar.evaluate_many(boards), engine.evaluate_many(boards))
