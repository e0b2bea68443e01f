"""engine.strength: the FIBS formulas on hand-computed values, the table's interpolation and range
errors, and the shipped table (loadable, monotone, covering Expert to below Beginner)."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import pytest

from engine.analysis.rates import abs_fibs_rating
from engine.errors import DataFileError
from engine.levels import level
from engine.strength import (
    Setting,
    StrengthTable,
    fibs_rating_difference,
    fibs_win_probability,
    shipped_table,
)


def test_fibs_formula_on_hand_computed_values() -> None:
    # D = 100, N = 5: 10^(-100 sqrt(5) / 2000) = 10^-0.111803 = 0.773030; 1 / 1.773030 = 0.564006
    assert fibs_win_probability(100, 5) == pytest.approx(0.564006, abs=1e-6)
    # D = -200, N = 1: 10^0.1 = 1.258925; 1 / 2.258925 = 0.442689
    assert fibs_win_probability(-200, 1) == pytest.approx(0.442689, abs=1e-6)
    # P = 0.75, N = 9: -2000 / 3 log10(1/3) = 666.667 x 0.477121 = 318.081
    assert fibs_rating_difference(0.75, 9) == pytest.approx(318.081, abs=1e-3)
    assert fibs_win_probability(0, 7) == 0.5
    for d, n in ((37.0, 1), (-250.0, 5), (600.0, 11)):
        assert fibs_win_probability(d, n) + fibs_win_probability(-d, n) == pytest.approx(1.0)
        assert fibs_rating_difference(fibs_win_probability(d, n), n) == pytest.approx(d)


@pytest.mark.parametrize("p, n", [(0.0, 5), (1.0, 5), (0.5, 0), (-0.1, 3)])
def test_fibs_formula_rejects_what_has_no_answer(p: float, n: int) -> None:
    with pytest.raises(ValueError):
        fibs_rating_difference(p, n)


def test_error_based_rating_on_hand_computed_values() -> None:
    # N = 7: 2050 - (0.006 (8798 + 25526/7) + 0.01 (863 - 519/7)) = 2050 - (74.6674 + 7.8886)
    assert abs_fibs_rating(0.006, 0.01, 7) == pytest.approx(1967.444, abs=1e-3)
    # N = 1: 2050 - (0.01 x 34324 + 0.02 x 344) = 2050 - 343.24 - 6.88; signs are ignored (errors are negative)
    assert abs_fibs_rating(-0.01, -0.02, 1) == pytest.approx(1699.88, abs=1e-6)
    assert abs_fibs_rating(0.0, 0.0, 5) == 2050.0


def test_settings() -> None:
    assert Setting().level().checker == level("expert").checker
    noisy = Setting(noise=0.06).level()
    assert noisy.checker == level("beginner").checker and noisy.cube == level("beginner").cube
    assert Setting(plies=2).level().checker == level("world class").checker
    assert Setting(noise=0.04).name == "noise-0.0400"
    for bad in ({"plies": 1}, {"noise": -0.01}, {"noise": 0.5}, {"plies": 2, "noise": 0.01}):
        with pytest.raises(ValueError):
            Setting(**bad)


def _row(noise: float, rating: float, half: float, plies: int = 0, error: float = 10.0) -> dict[str, Any]:
    return {"noise": noise, "plies": plies, "rating": rating, "low": rating - half, "high": rating + half,
            "error_rate_memg": error, "error_rate_low": error - 1, "error_rate_high": error + 1}


def _table(**changes: Any) -> dict[str, Any]:
    rows = [_row(0.0, 2000, 20, error=5), _row(0.02, 1800, 30, error=15), _row(0.04, 1500, 40, error=25),
            _row(0.0, 2100, 40, plies=2, error=1)]
    return {"settings": rows, "command": "fibsbot calibrate --seed 4", "seed": 4, **changes}


def test_rating_to_setting_interpolates_on_the_0_ply_part() -> None:
    table = StrengthTable.from_dict(_table())
    s = table.for_rating(1650)  # half way from 1800 (noise 0.02) to 1500 (0.04)
    assert s.setting == Setting(noise=0.03)
    assert (s.rating, s.low, s.high, s.error_rate) == pytest.approx((1650, 1615, 1685, 20))
    assert table.for_rating(2000).setting == Setting()
    assert table.for_rating(1500).setting == Setting(noise=0.04)
    assert table.for_rating(1900).setting.noise == pytest.approx(0.01)


def test_setting_to_rating_interpolates_and_round_trips() -> None:
    table = StrengthTable.from_dict(_table())
    assert table.at(Setting(noise=0.01)).rating == pytest.approx(1900)
    assert table.at(Setting(plies=2)).rating == 2100
    for target in (1520.0, 1777.0, 1999.0):
        assert table.at(table.for_rating(target).setting).rating == pytest.approx(target, abs=0.01)
    with pytest.raises(ValueError, match="outside the calibrated settings"):
        table.at(Setting(noise=0.05))
    with pytest.raises(ValueError, match="outside the calibrated settings"):
        table.at(Setting(plies=3))


def test_n_ply_rows_are_reached_within_their_interval_and_gaps_are_errors() -> None:
    table = StrengthTable.from_dict(_table())
    assert table.for_rating(2100).setting == Setting(plies=2)
    assert table.for_rating(2070).setting == Setting(plies=2)  # inside world class's 95% interval
    assert table.for_rating(2015).setting == Setting()  # inside expert's
    for target in (2040.0, 1400.0, 2200.0):
        with pytest.raises(ValueError) as info:
            table.for_rating(target)
        message = str(info.value)
        assert "1500..2000 (0-ply noise 0..0.04)" in message and "2060..2140 (world class)" in message
    with pytest.raises(ValueError):
        table.for_rating(math.nan)


def test_show_prints_the_issue_format() -> None:
    shown = StrengthTable.from_dict(_table()).show()
    assert list(shown) == ["settings", "command", "seed"]
    assert shown["settings"][1] == {"noise": 0.02, "plies": 0, "rating": 1800.0, "low": 1770.0, "high": 1830.0}
    assert [s["plies"] for s in shown["settings"]] == [0, 0, 0, 2]


@pytest.mark.parametrize("change", [
    {"settings": []},
    {"settings": [_row(0.0, 2000, 20), _row(0.0, 1990, 20)]},  # a setting twice
    {"settings": [{**_row(0.0, 2000, 20), "low": 2010}]},  # estimate outside its interval
    {"settings": [{**_row(0.0, 2000, 20), "rating": float("nan")}]},
    {"settings": [_row(0.0, 2000, 20, plies=1)]},
    {"settings": [{"noise": 0.0, "plies": 0}]},
    {"seed": "many"},
])
def test_broken_tables_are_data_file_errors(change: dict[str, Any]) -> None:
    with pytest.raises(DataFileError, match="strength table"):
        StrengthTable.from_dict(_table(**change))


def test_loading_a_file(tmp_path: Path) -> None:
    path = tmp_path / "t.json"
    path.write_text(json.dumps(_table()))
    assert StrengthTable.load(path).for_rating(1800).setting == Setting(noise=0.02)
    path.write_text("{not json")
    with pytest.raises(DataFileError, match="t.json"):
        StrengthTable.load(path)
    with pytest.raises(DataFileError, match="missing.json"):
        StrengthTable.load(tmp_path / "missing.json")


def test_the_shipped_table_is_monotone_from_expert_to_below_beginner() -> None:
    table = shipped_table()
    noisy = table.noisy
    assert len(noisy) >= 8
    assert noisy[0].setting == Setting() and noisy[-1].setting.noise > level("beginner").checker.noise
    ratings = [r.rating for r in noisy]
    assert ratings == sorted(ratings, reverse=True) and len(set(ratings)) == len(ratings)
    assert all(r.low < r.rating < r.high for r in table.rows)
    assert table.command.startswith("fibsbot calibrate") and isinstance(table.seed, int)
    # every rating of the continuous part has a setting, and it plays at that rating (noise is kept
    # to 6 decimals: a fraction of a rating point)
    for target in range(math.ceil(min(ratings)), math.floor(max(ratings)), 25):
        assert table.at(table.for_rating(target).setting).rating == pytest.approx(target, abs=0.1)
