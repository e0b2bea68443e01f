"""Tournament statistics on synthetic results, against values worked out by hand."""

from __future__ import annotations

import doctest
import math
from types import ModuleType
from typing import Any

import pytest

from bot.tournament import config, report, schedule, stats
from bot.tournament.config import TournamentConfig


@pytest.mark.parametrize("module", [stats, config, schedule])
def test_doctests(module: ModuleType) -> None:
    # pytest's --doctest-modules only sees bot/ when bot/ is on the command line
    failures, tried = doctest.testmod(module)
    assert tried and not failures


def test_wilson_interval() -> None:
    # p = 0.7, z = 1.959964, z^2 = 3.841459: centre (0.7 + z^2/20) / (1 + z^2/10) = 0.644493,
    # half-width z/(1 + z^2/10) * sqrt(0.021 + z^2/400) = 0.247715
    iv = stats.wilson(7, 10)
    assert (iv.value, iv.low, iv.high) == pytest.approx((0.7, 0.396778, 0.892209), abs=1e-6)
    assert stats.wilson(0, 5).low == pytest.approx(0.0, abs=1e-12)


def test_mean_interval() -> None:
    # mean 0.5, sample sd sqrt(5/3) = 1.290994, se 0.645497, z se = 1.265151
    iv = stats.mean_interval([1.0, -1.0, 2.0, 0.0])
    assert (iv.value, iv.low, iv.high) == pytest.approx((0.5, -0.765151, 1.765151), abs=1e-6)


def test_two_player_fit_is_the_closed_form() -> None:
    outcomes = [stats.Outcome(0, 1, 1.0)] * 30 + [stats.Outcome(0, 1, 0.0)] * 10
    fit = stats.fit_ratings(2, outcomes, anchor=1, anchor_rating=1500.0)
    # 30 of 40: 400 log10(3) = 190.85 above the anchor; se = 400 / (ln 10 sqrt(40 * 0.75 * 0.25)) = 63.43
    assert fit.ratings == pytest.approx((1690.8485, 1500.0), abs=1e-3)
    assert fit.errors == pytest.approx((63.4328, 0.0), abs=1e-3)
    assert not fit.regularised
    iv = fit.interval(0)
    assert (iv.low, iv.high) == pytest.approx((1690.8485 - 124.3257, 1690.8485 + 124.3257), abs=1e-3)
    fibs = stats.fit_ratings(2, outcomes, anchor=1, scale=stats.fibs_scale(5))
    assert fibs.ratings[0] == pytest.approx(426.7502, abs=1e-3)
    assert fibs.errors[0] == pytest.approx(141.8400, abs=1e-3)


def test_three_player_fit_recovers_consistent_ratings() -> None:
    # A beats B and B beats C 75% (190.85 each); A beats C 90% (= 381.70 apart)
    outcomes = ([stats.Outcome(0, 1, 1.0)] * 75 + [stats.Outcome(0, 1, 0.0)] * 25
                + [stats.Outcome(1, 2, 1.0)] * 75 + [stats.Outcome(1, 2, 0.0)] * 25
                + [stats.Outcome(0, 2, 1.0)] * 90 + [stats.Outcome(0, 2, 0.0)] * 10)
    fit = stats.fit_ratings(3, outcomes, anchor=2)
    assert fit.ratings == pytest.approx((381.697, 190.8485, 0.0), abs=1e-3)


def test_a_clean_sweep_is_regularised() -> None:
    fit = stats.fit_ratings(2, [stats.Outcome(0, 1, 1.0)] * 5, anchor=1)
    # five wins plus one virtual draw: 5.5 of 6
    assert fit.regularised
    assert fit.ratings[0] == pytest.approx(400 * math.log10(5.5 / 0.5), abs=1e-3)


def _config(**changes: Any) -> TournamentConfig:
    return TournamentConfig.model_validate({
        "players": [{"name": "a", "level": "expert"}, {"name": "b", "level": "beginner"},
                    {"name": "c", "level": "casual"}],
        "anchor": {"player": "c", "rating": 1000}, **changes})


def _match(pairing: tuple[str, str], index: int, winner: str, length: int = 1,
           games: list[list[Any]] | None = None) -> dict[str, Any]:
    white, black = pairing if index % 2 == 0 else pairing[::-1]
    return {"key": f"{pairing[0]}~{pairing[1]}~{index:04d}", "pairing": list(pairing), "index": index,
            "white": white, "black": black, "length": length,
            "score": [length if winner == white else 0, length if winner == black else 0], "winner": winner,
            "games": games or [[winner, length, 1, False, 1]]}


def test_report_on_synthetic_matches() -> None:
    results = []
    for k in range(10):  # a beats b 7-3, a beats c 8-2, b beats c 6-4
        results.append(_match(("a", "b"), k, "a" if k < 7 else "b"))
        results.append(_match(("a", "c"), k, "a" if k < 8 else "c"))
        results.append(_match(("b", "c"), k, "b" if k < 6 else "c"))
    rep = report.build(_config(matches=10), results)
    a, b, c = rep["players"]
    assert (a["matches"], a["won"], b["won"], c["won"]) == (20, 15, 9, 6)
    assert a["win_rate"]["value"] == 0.75
    assert (a["win_rate"]["low"], a["win_rate"]["high"]) == pytest.approx((0.531299, 0.888138), abs=1e-6)
    assert rep["pairwise"]["a"]["b"] == {"n": 10, "win_rate": 0.7}
    assert rep["pairwise"]["c"]["b"] == {"n": 10, "win_rate": 0.4}
    ratings = rep["ratings"]
    assert ratings["elo"]["c"] == {"value": 1000.0, "low": 1000.0, "high": 1000.0}
    assert ratings["elo"]["a"]["value"] > ratings["elo"]["b"]["value"] > 1000.0
    # the FIBS fit for 1-point matches is the Elo fit stretched by 2000/400
    assert ratings["fibs"]["a"]["value"] - 1000 == pytest.approx(5 * (ratings["elo"]["a"]["value"] - 1000))
    assert not ratings["regularised"]


def test_duplicate_pairs_are_one_unit() -> None:
    # pairs (0,1) and (2,3): a wins both of the first pair, splits the second
    results = [_match(("a", "b"), 0, "a"), _match(("a", "b"), 1, "a"),
               _match(("a", "b"), 2, "a"), _match(("a", "b"), 3, "b")]
    rep = report.build(_config(players=[{"name": "a", "level": "expert"}, {"name": "b", "level": "beginner"}],
                               anchor={"player": "b"}, duplicate_dice=True, matches=4), results)
    a = rep["players"][0]["win_rate"]
    # unit means 1.0 and 0.5: mean 0.75, sd 0.353553, se 0.25, z se = 0.489991, clipped at 1
    assert (a["value"], a["low"], a["high"]) == pytest.approx((0.75, 0.260009, 1.0), abs=1e-6)


def test_money_points_per_game() -> None:
    games_0 = [["a", 2, 1, False, 2], ["b", 1, 1, False, 1]]
    games_1 = [["a", 4, 2, False, 2], ["a", 1, 1, True, 1]]
    results = [_match(("a", "b"), 0, "a", 0, games_0), _match(("a", "b"), 1, "a", 0, games_1)]
    for r in results:
        r["winner"] = None
    cfg = _config(players=[{"name": "a", "level": "expert"}, {"name": "b", "level": "beginner"}],
                  anchor={"player": "b"}, match_length=0, games=2, matches=2)
    rep = report.build(cfg, results)
    a = rep["players"][0]
    # a's net points per game: 2, -1, 4, 1: mean 1.5, sd sqrt(13/3) = 2.081666, z se = 2.039995
    assert (a["ppg"]["value"], a["ppg"]["low"], a["ppg"]["high"]) == pytest.approx((1.5, -0.539995, 3.539995),
                                                                                  abs=1e-6)
    assert (a["points_for"], a["points_against"]) == (7, 1)
    assert rep["pairwise"]["b"]["a"] == {"n": 4, "ppg": -1.5}
    # games as outcomes: a won 3 of 4 -> 190.85 Elo above b, FIBS per game (1-point scale)
    assert rep["ratings"]["elo"]["a"]["value"] == pytest.approx(1500 + 400 * math.log10(3), abs=1e-3)
