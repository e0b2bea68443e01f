"""Invariants of 0-ply outputs: all in [0, 1], win >= win gammon >= win
backgammon and lose >= lose gammon >= lose backgammon.

For the net classes gnubg's sanity check clamps these exactly, in float32
(lg <= float32(1 - win)). The bearoff databases are not clamped: their
float sums can overshoot by an ulp (gnubg gives e.g. win 0.99999994, wg 1.0),
so those get a 1e-6 slack."""

import json
import pathlib
import threading

import numpy as np
import pytest

from engine.evaluator import Engine, PositionClass
from engine.sampling import random_game_positions

GOLDEN = json.loads((pathlib.Path(__file__).parent / "data" / "golden-0ply.json").read_text())["positions"]
NET_CLASSES = (PositionClass.RACE, PositionClass.CRASHED, PositionClass.CONTACT)


@pytest.fixture(scope="module")
def boards() -> list:
    return [p.board for p in random_game_positions(4000, seed=99)] + [p["board"] for p in GOLDEN]


def test_invariants(engine, boards):
    probs, classes = engine.evaluate_many(boards, with_classes=True)
    p = probs.astype(np.float32)
    win, wg, wbg, lg, lbg = p.T
    assert p.min() >= 0.0 and p.max() <= 1.0
    net = np.isin(classes, NET_CLASSES)
    assert net.sum() > 1000 and (~net).sum() > 50
    slack = np.where(net, 0.0, 1e-6).astype(np.float32)
    assert np.all(wg <= win + slack)
    assert np.all(wbg <= wg + slack)
    assert np.all(lg <= (np.float32(1) - win) + slack)
    assert np.all(lbg <= lg + slack)
    # no backgammons without gammons, none at all from the two-sided database
    assert np.all(probs[classes == PositionClass.BEAROFF2][:, 1:] == 0)


def test_threads_share_one_engine(engine, boards):
    """One Engine (and its lock-free cache) used by several threads at once gives
    the same numbers as a serial run."""
    serial = Engine(cache_log2=0).evaluate_many(boards)
    results: dict[int, np.ndarray] = {}

    def work(k: int) -> None:
        order = np.random.default_rng(k).permutation(len(boards))
        out = np.empty_like(serial)
        for start in range(0, len(order), 97):
            chunk = order[start:start + 97]
            out[chunk] = engine.evaluate_many([boards[i] for i in chunk])
        results[k] = out

    threads = [threading.Thread(target=work, args=(k,)) for k in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for out in results.values():
        assert np.array_equal(out, serial)
    engine.clear_cache()
    assert np.array_equal(engine.evaluate_many(boards), serial)
