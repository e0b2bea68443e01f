"""Noise inside rollouts, found by experiment with the `gnubg` package.

A noisy level's play in a trial is its plain 0-ply decision: each candidate's
resulting position (opponent on roll) is evaluated once, with the deterministic
noise of that board (MD5 of the board), by the chequer context's evaluator;
the variance-reduction plays stay noiseless. What the rollouts showed (one trial
of an Advanced rollout took another play, 9e-5 apart) is a fact of gnubg's 0-ply
evaluators, the same in plain decisions: its *cubeful* evaluator adds the noise
to the sanity-checked outputs, its *cubeless* one to the raw net outputs; both
clamp and sanity-check again after. They differ where the check zeroed a small
gammon output in contact (under 1e-4) that noise would have lifted back over
1e-4. Noisy levels play and double cubefully, so their plays and cube decisions
see the first.
"""

import pytest

from engine._core import ffi, lib
from engine.levels import level
from engine.match import MatchState
from engine.noise import apply_noise
from engine.position import Position
from engine.sampling import random_game_positions

MONEY = MatchState(length=0, jacoby=True)


@pytest.fixture(scope="module")
def gnubg():
    g = pytest.importorskip("gnubg")
    from engine.bench.parity import flush_gnubg, silently

    silently(g.command, "set threads 1")
    flush_gnubg(g)
    return g


def raw_outputs(engine, position):
    """Our net outputs before the sanity check, and the position class."""
    flat = ffi.new("unsigned int[50]", [c for row in position.board for c in row])
    out, cls = ffi.new("float[5]"), ffi.new("int[1]")
    lib.bg_evaluate_raw_many(engine.native._c, flat, 1, out, cls)
    return list(out), cls[0]


def test_cubeful_noise_starts_from_checked_outputs(engine, gnubg):
    settings = level("beginner", flavour="gnubg-1.1").checker  # noise 0.06, centred as the package
    ci = gnubg.cubeinfo(1, -1, 0, 0, (0, 0), 0, 0)
    telling = 0
    for p in random_game_positions(400, seed=2424):
        raw, cls = raw_outputs(engine, p)
        checked = list(engine.evaluate(p))
        board = (tuple(p.board[0]), tuple(p.board[1]))
        cubeless = gnubg.evaluate(board, ci, gnubg.evalcontext(0, 0, 1, 0, settings.noise))[:5]
        cubeful = gnubg.evaluate(board, ci, gnubg.evalcontext(1, 0, 1, 0, settings.noise))[:5]
        from_raw = apply_noise(raw, p.board, cls, settings, engine=engine.native, cubeful=False)
        from_checked = apply_noise(checked, p.board, cls, settings, engine=engine.native, cubeful=True)
        assert list(cubeless) == pytest.approx(from_raw, abs=1e-6), p.position_id()
        assert list(cubeful) == pytest.approx(from_checked, abs=1e-6), p.position_id()
        telling += from_raw != pytest.approx(from_checked, abs=1e-6)
    assert telling >= 10  # positions where the two ways give different noisy outputs


def test_noisy_play_of_the_differing_trial_equals_gnubg(engine, gnubg):
    # trial 36 of the parity bench's "bar position money advanced noVR" case, ply 10:
    # 18/13(2) 15/10 6/1 (gnubg, +0.365426) against 18/8 18/13 15/10 (+0.365394);
    # noise on the raw outputs gave the latter the first place (+0.365307)
    from engine.bench.decide import gnubg_tuple_board
    from engine.bench.parity import flush_gnubg, gnubg_context, gnubg_cubeinfo

    lv = level("advanced", flavour="gnubg-1.1")
    pos = Position.from_position_id("mp7B4AA458TEAA")
    ours = engine.best_move(pos, (5, 5), MONEY, lv)
    flush_gnubg(gnubg)
    theirs = gnubg.findbestmoves(pos.board, gnubg_cubeinfo(gnubg, MONEY), gnubg_context(gnubg, lv), (5, 5))
    assert ours.candidates[0].position == Position(gnubg_tuple_board(pos, theirs[0]["move"]))
    assert ours.candidates[0].equity == pytest.approx(theirs[0]["score"], abs=1e-6)
    assert ours.candidates[1].equity == pytest.approx(theirs[1]["score"], abs=1e-6)


def test_noisy_rollout_without_variance_reduction_equals_gnubg(engine, gnubg):
    from engine.bench import rollout_gnubg
    from engine.bench.rollout_parity import compare, make_cases
    from engine.rollout import run

    # the parity bench's case (python -m engine.bench.rollout_parity --only 24): trial 36 took the other play
    job = dict(make_cases(engine, seed=20261126, count=36, trials=40))["bar position money advanced noVR"]
    agreement = compare(run(engine, job, threads=1), rollout_gnubg.rollout(job, cache=0), exact=True)
    assert agreement.ok, agreement
