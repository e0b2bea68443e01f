"""Error classes, rates, rating labels and FIBS rating estimates of gnubg's analysis."""

import math

import pytest

from engine.analysis.rates import (
    ErrorRates,
    abs_fibs_rating,
    cube_errors,
    fibs_rating_losses,
    historical_rating,
    is_close_cube,
    luck,
    luck_fibs_rating_diff,
    rating_label,
    skill,
    xg_pr,
)


def test_skill_and_luck_classes():
    assert [skill(e) for e in (-0.2, -0.121, -0.12, -0.07, -0.06, -0.031, -0.03, 0.0, 0.5)] == [
        "very bad", "very bad", "bad", "bad", "doubtful", "doubtful", "none", "none", "none"]
    assert [luck(v) for v in (0.7, 0.6, 0.31, 0.3, 0.0, -0.3, -0.31, -0.61)] == [
        "very lucky", "lucky", "lucky", "none", "none", "none", "unlucky", "very unlucky"]


def test_rating_labels_gnubg_107():
    # thresholds 2, 5, 8, 12, 18, 26, 35 mEMG (gnubg 1.07's table)
    cases = {0.0: "Supernatural", 0.0019: "Supernatural", 0.002: "World class", 0.0049: "World class",
             0.005: "Expert", 0.008: "Advanced", 0.0119: "Advanced", 0.012: "Intermediate",
             0.018: "Casual player", 0.026: "Beginner", 0.0349: "Beginner", 0.035: "Awful!",
             -0.01: "Advanced"}
    for err, label in cases.items():
        assert rating_label(err) == label, err


def test_rates():
    r = ErrorRates(chequer_error=-0.30, unforced_moves=30, cube_error=-0.10, close_cube_decisions=5,
                   total_moves=40)
    assert r.chequer_rate == pytest.approx(-0.01)
    assert r.cube_rate == pytest.approx(-0.02)
    assert r.overall_rate == pytest.approx(-0.4 / 35)
    assert r.memg(r.chequer_rate) == pytest.approx(-10.0)
    assert r.snowie_rate(80) == pytest.approx(-5.0)
    assert r.rating == "Advanced"
    assert ErrorRates().overall_rate == 0.0 and ErrorRates().rating == "Supernatural"
    assert xg_pr(-0.01) == pytest.approx(5.0)


def test_cube_helpers():
    assert is_close_cube(0.5, 0.4)
    assert not is_close_cube(1.3, 1.5)  # optimal 1.3 vs min(DT, 1) = 1: far from doubling
    e = cube_errors(nd=0.5, dt=0.7, dp=1.0)  # double, take
    assert e["missed_double"] == pytest.approx(-0.2) and e["wrong_double"] == 0.0
    assert e["wrong_pass"] == pytest.approx(-0.3) and e["wrong_take"] == 0.0
    e = cube_errors(nd=0.6, dt=0.2, dp=1.0)  # no double, take
    assert e["wrong_double"] == pytest.approx(-0.4) and e["missed_double"] == 0.0
    e = cube_errors(nd=0.8, dt=1.4, dp=1.0)  # double, pass
    assert e["wrong_take"] == pytest.approx(-0.4)


def test_fibs_ratings():
    m, c = fibs_rating_losses(0.006, 0.01, 7)
    assert m == pytest.approx(0.006 * (8798 + 25526 / 7))
    assert c == pytest.approx(0.01 * (863 - 519 / 7))
    assert abs_fibs_rating(-0.006, -0.01, 7) == pytest.approx(2050 - m - c)
    with pytest.raises(ValueError):
        abs_fibs_rating(0.01, 0.01, 0)
    assert luck_fibs_rating_diff(0.5, 0.0, 0.0, 9) is None  # r = 1
    assert luck_fibs_rating_diff(0.0, 0.0, 0.0, 9) == pytest.approx(0.0)
    assert luck_fibs_rating_diff(0.2, 0.1, 0.0, 4) == pytest.approx(-1000 * math.log10(1 / 0.6 - 1))
    assert historical_rating(0.0) == 2200 and historical_rating(0.005) == pytest.approx(2050)
    assert historical_rating(0.0125) == pytest.approx(1900)
    assert historical_rating(0.030) == pytest.approx(1500) and historical_rating(0.04) < 1500
