"""Rollout trials are independent by index: thread counts, trial ranges and a
Dask cluster give the same numbers; stopping on standard error; truncation."""

import numpy as np
import pytest

from engine.levels import EvalSettings
from engine.match import MatchState
from engine.position import Move, Position
from engine.rollout import RolloutJob, RolloutSettings, merge_ranges, run

OPENING = Position.from_position_id("4HPwATDgc/ABMA")
RACE = Position.from_position_id("trsbAADs7jkAAA")


def plays_job(trials=40, **kw):
    """Two plays at a match score, truncated after 12 half-moves (quick, with cube play)."""
    match = MatchState(length=7, score=(2, 3), on_roll=1, turn=1, dice=(3, 1))
    return RolloutJob.of(OPENING, match, [Move.parse("8/5 6/5"), Move.parse("24/23 13/10")],
                         RolloutSettings(trials=trials, seed=99, truncate=12, **kw))


def test_threads_and_ranges_give_the_same_values(engine):
    job = plays_job()
    one = job.run_range(engine, 0, 40, threads=1)
    two = job.run_range(engine, 0, 40, threads=2)
    assert np.array_equal(one, two)
    split = merge_ranges([(15, job.run_range(engine, 15, 25, threads=2)), (0, job.run_range(engine, 0, 15, threads=1))])
    assert np.array_equal(one, split)
    # a candidate rolled out alone gets the same dice and values
    assert np.array_equal(one[:, 1:, :], job.run_range(engine, 0, 40, threads=1, active=[1]))
    assert run(engine, job, threads=1).candidates == run(engine, job, threads=2, chunk=7).candidates


def test_first_plies_shared_within_a_call_equal_each_trial_alone(engine):
    # a call computes the variance reduction and the plays of plies 0 and 1
    # once for all its trials (csrc/rollout.c's memo); a one-trial call
    # computes its own (plays: the variance reduction's, then noisy ones)
    noisy = RolloutSettings(trials=24, seed=6, truncate=4, level="advanced", variance_reduction=False)
    cube = RolloutJob.of(OPENING, None, "cube", RolloutSettings(trials=24, seed=5, truncate=6))
    for job in (plays_job(trials=24), cube, RolloutJob.of(OPENING, None, None, noisy)):
        together = job.run_range(engine, 0, 24, threads=2)
        alone = np.concatenate([job.run_range(engine, i, 1, threads=1) for i in range(24)])
        assert np.array_equal(together, alone)


def test_merge_rejects_gaps_and_overlaps(engine):
    block = np.zeros((5, 1, 7), np.float32)
    with pytest.raises(ValueError):
        merge_ranges([(0, block), (6, block)])
    with pytest.raises(ValueError):
        merge_ranges([(0, block), (4, block)])


def test_dask_ranges_equal_a_local_run(engine):
    distributed = pytest.importorskip("distributed")
    from bot.tournament.executors import DaskRollout

    job = plays_job(trials=30)
    local = run(engine, job, threads=1)
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=False,
                                  dashboard_address=None) as cluster, distributed.Client(cluster) as client:
        remote = DaskRollout(client, range_size=7).run(engine, job)
    assert remote.candidates == local.candidates and remote.trials == 30


def test_resume_equals_an_uninterrupted_run(engine):
    job = plays_job(trials=30)
    whole = run(engine, job, threads=2)
    part = job.run_range(engine, 0, 20, threads=1)
    resumed = run(engine, job, threads=1, done=[part[:, 0, :], part[:, 1, :]])
    assert resumed.candidates == whole.candidates


def test_stop_on_standard_error(engine):
    s = RolloutSettings(trials=1000, seed=3, stop_se=0.06, min_trials=36, variance_reduction=False)
    r = run(engine, RolloutJob.of(RACE, None, None, s), threads=2)
    c = r.candidates[0]
    # gnubg (1.1.0a16, same settings) stopped this rollout after 546 games
    assert r.trials == 546 and c.trials == 546
    assert c.stderr_equity <= 0.06 and c.stderr_cubeful_equity <= 0.06
    shorter = run(engine, RolloutJob.of(RACE, None, None, s.with_(trials=545, stop_se=None)), threads=2)
    c = shorter.candidates[0]
    assert c.stderr_equity > 0.06 or c.stderr_cubeful_equity > 0.06


def test_truncated_at_one_ply_is_the_one_ply_evaluation(engine):
    # each trial plays its roll and evaluates at 0-ply; quasi-random dice give
    # every roll once in 36 trials, so the mean is the 1-ply evaluation
    one_ply = engine.evaluate_nply(RACE, None, EvalSettings(plies=1, cubeful=False))
    s = RolloutSettings(trials=36, seed=5, truncate=1, cubeful=False, variance_reduction=False,
                        bearoff_truncation=False, onesided_truncation=False)
    r = run(engine, RolloutJob.of(RACE, None, None, s), threads=1)
    assert np.allclose(r.candidates[0].probabilities, one_ply.probabilities, atol=2e-6)
    # with variance reduction every trial is that value: the luck cancels the roll
    values = RolloutJob.of(RACE, None, None, s.with_(variance_reduction=True)).run_range(engine, 0, 7, threads=1)
    assert np.allclose(values[:, 0, :5], np.float32(one_ply.probabilities), atol=2e-6)


def test_a_lost_dask_worker_s_range_is_recomputed(engine):
    distributed = pytest.importorskip("distributed")
    import os
    import signal

    from bot.tournament.executors import DaskRollout

    job = RolloutJob.of(OPENING, None, None, RolloutSettings(trials=40, seed=8, truncate=10))
    local = run(engine, job, threads=1)
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  dashboard_address=None) as cluster, distributed.Client(cluster) as client:
        pids = list(client.run(os.getpid).values())
        killed = []

        def kill_one(done, total, partial):
            if not killed:  # after the first merged range: others are running or queued
                os.kill(pids[0], signal.SIGKILL)
                killed.append(done)

        remote = DaskRollout(client, range_size=4).run(engine, job, progress=kill_one)
    assert killed and remote.candidates == local.candidates and remote.trials == 40
