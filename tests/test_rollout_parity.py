"""Rollouts against gnubg: worked examples (rollouts run and printed by the `gnubg`
package 1.1.0a16 with 6 digits, one thread) and a seeded sample
of the parity benchmark's held-out cases run against the package itself."""

import pytest

from engine.bench.rollout_parity import compare, compare_cube_cubeless, gnubg_cubeless_headline, make_cases
from engine.match import MatchState
from engine.position import Move, Position
from engine.rollout import RolloutJob, RolloutSettings, run

MONEY = MatchState.from_match_id("cAkAAAAAAAAA")
R = Position.from_position_id("trsbAADs7jkAAA")
K = Position.from_position_id("trvDAAC2uzMAAA")
OPENING = Position.from_position_id("4HPwATDgc/ABMA")


def printed(result):
    """Each candidate as gnubg prints it: W WG WBG LG LBG CL [CF], then the SEs."""
    out = []
    for c in result.candidates:
        means = list(c.probabilities) + [c.equity] + ([c.cubeful_equity] if c.cubeful_equity is not None else [])
        errs = list(c.stderr_probabilities) + [c.stderr_equity] + (
            [c.stderr_cubeful_equity] if c.stderr_cubeful_equity is not None else [])
        out.append(([round(x, 6) for x in means], [round(x, 6) for x in errs]))
    return out


def close(got, want, tol=1.5e-6):
    return all(abs(a - b) <= tol for a, b in zip(got, want, strict=False)) and len(got) == len(want)


def test_example_a_cubeless_race_without_variance_reduction(engine):
    s = RolloutSettings(trials=36, seed=1, cubeful=False, variance_reduction=False, bearoff_truncation=False,
                        onesided_truncation=False)
    [(m, e)] = printed(run(engine, RolloutJob.of(R, MONEY, None, s)))
    assert close(m, [0.305556, 0, 0, 0, 0, -0.388889]) and close(e, [0.077863, 0, 0, 0, 0, 0.155726])


def test_example_b_variance_reduction_and_bearoff_truncation(engine):
    s = RolloutSettings(trials=36, seed=1, cubeful=False)
    [(m, e)] = printed(run(engine, RolloutJob.of(R, MONEY, None, s)))
    assert close(m, [0.330018, 0, 0, 0, 0, -0.339962]) and close(e, [0.000248, 0, 0, 0.000009, 0, 0.000496])


def test_example_c_cubeful_money_contact(engine):
    [(m, e)] = printed(run(engine, RolloutJob.of(OPENING, MONEY, None, RolloutSettings(trials=72, seed=1))))
    assert close(m, [0.510377, 0.138965, 0.006733, 0.132587, 0.005392, 0.028474, 0.042161])
    assert close(e, [0.006409, 0.006221, 0.001139, 0.005291, 0.002927, 0.018236, 0.037611])


def test_example_d_plays_second_candidate(engine):
    # gnubg's printed first play was rolled out after a 1-ply hint had filled
    # gnubg's cache (its WBG mean 0 with SE 0.035 is gnubg's clamping of the running mean); with
    # an emptied cache gnubg gives ours (the parity sample below); the second
    # play is unaffected
    match = MatchState.from_match_id("cIkFAAAAAAAA")
    job = RolloutJob.of(OPENING, match, [Move.parse("8/5 6/5"), Move.parse("24/23 13/10")],
                        RolloutSettings(trials=36, seed=1))
    first, second = printed(run(engine, job))
    assert close(second[0], [0.475283, 0.140171, 0.006176, 0.149508, 0.005317, -0.057912, -0.094217], 3e-6)
    assert close(second[1], [0.013263, 0.008149, 0.000888, 0.009027, 0.007035, 0.035072, 0.075467], 3e-5)
    assert first[0][2] == 0.0 and first[1][2] > 0.03  # a clamped backgammon mean, inflated SE


def test_example_e_cube_decision_money(engine):
    r = run(engine, RolloutJob.of(K, MONEY, "cube", RolloutSettings(trials=36, seed=1)))
    nd, dt, dp = printed(r)
    assert close(nd[0], [0.689708, 0.000007, 0, 0, 0, 0.379422, 0.598781])
    assert close(dt[0], [0.689379, 0, 0, 0, 0, 0.757516, 0.572409])
    assert close(nd[1][-1:] + dt[1][-1:], [0.013569, 0.012831])
    assert dp[0][-1] == 1.0 and r.action == "No double, take"
    # gnubg's hint after this rollout: "Rollout cubeless equity +0.379422", the no-double
    # row's; the double/take row's CL is the doubled cube's (printed x2 in money)
    assert round(r.cubeless_equity, 6) == 0.379422 and r.as_json()["cubeless_equity"] == r.cubeless_equity


def test_example_f_truncated(engine):
    s = RolloutSettings(trials=36, seed=1, variance_reduction=False, truncate=2)
    [(m, e)] = printed(run(engine, RolloutJob.of(OPENING, MONEY, None, s)))
    assert close(m, [0.521676, 0.148983, 0.006862, 0.126134, 0.005188, 0.067873, 0.090887])
    assert close(e, [0.009699, 0.005308, 0.000515, 0.005166, 0.000350, 0.028299, 0.038453])


def test_example_g_cube_decision_match(engine):
    match = MatchState.from_match_id("cAmgAAAAAAAE")
    nd, dt, _ = printed(run(engine, RolloutJob.of(K, match, "cube", RolloutSettings(trials=36, seed=1))))
    # EMG is gnubg's mwc2eq of the MWC: the last digit may differ by float rounding
    assert close(nd[0], [0.689883, 0.000009, 0, 0, 0, 0.379773, 0.566675], 3e-6)
    assert close(dt[0], [0.689692, 0.000001, 0, 0, 0, 0.725944, 0.509991], 3e-6)
    assert close(nd[1][-1:] + dt[1][-1:], [0.016086, 0.016931], 3e-6)


def test_seeded_sample_agrees_with_gnubg(engine):
    pytest.importorskip("gnubg")
    from engine.bench import rollout_gnubg

    # the bar is on equities (engine/bench/rollout_parity.py says why not probabilities)
    for name, job in make_cases(engine, seed=7, count=6, trials=36):
        agreement = compare(run(engine, job, threads=1), rollout_gnubg.rollout(job, cache=0),
                            exact=not job.settings.variance_reduction)
        assert agreement.ok, (name, agreement)


def test_per_player_and_later_settings_agree_with_gnubg(engine):
    pytest.importorskip("gnubg")
    from engine.bench import rollout_gnubg
    from engine.levels import level

    # player 0 plays Expert then Advanced from ply 3, player 1 the reverse
    # (noise as the package draws it: gnubg 1.1's centred deterministic noise)
    advanced, expert = level("advanced", "gnubg-1.1"), level("expert")
    for vr in (False, True):
        s = RolloutSettings(trials=36, seed=21, level=(expert, advanced), late_level=(advanced, expert), late_ply=3,
                            variance_reduction=vr)
        job = RolloutJob.of(OPENING, None, None, s)
        agreement = compare(run(engine, job, threads=1), rollout_gnubg.rollout(job, cache=0), exact=not vr)
        assert agreement.ok and agreement.diff < 1e-5, agreement


def test_rollout_as_the_opening_position_agrees_with_gnubg(engine):
    pytest.importorskip("gnubg")
    from engine.bench import rollout_gnubg

    # no doubles at ply 0, quasi-random dice off, the luck at ply 0 over 30 rolls
    job = RolloutJob.of(OPENING, None, None, RolloutSettings(trials=30, seed=12345, initial=True))
    agreement = compare(run(engine, job, threads=1), rollout_gnubg.rollout(job, cache=0), exact=False)
    assert agreement.ok and agreement.diff < 2e-6, agreement


def test_cube_rollouts_cubeless_rows_agree_with_gnubg(engine):
    pytest.importorskip("gnubg")
    from engine.bench import rollout_gnubg

    # money and 5-point match cube rollouts, with and without variance reduction: both
    # rows' cubeless equities and gnubg's "Rollout cubeless equity" line
    cases = [(name, job) for name, job in make_cases(engine, seed=20261126, count=21, trials=36)
             if job.candidates == "cube"]
    assert {job.match.length for _, job in cases} == {0, 5}
    for name, job in cases:
        ours = run(engine, job, threads=1)
        theirs = rollout_gnubg.rollout(job, cache=0)
        agreement = compare_cube_cubeless(ours, theirs, gnubg_cubeless_headline(),
                                          exact=not job.settings.variance_reduction)
        assert agreement.ok, (name, agreement)
