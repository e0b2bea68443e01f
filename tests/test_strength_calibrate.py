"""fibsbot calibrate: the estimates, a tiny calibration that resumes after an interruption and gives
the same table, verification, the machine-readable outputs, and choosing a bot by FIBS rating."""

from __future__ import annotations

import json
import logging
import math
from collections.abc import Iterator, Sequence
from pathlib import Path

import pytest
from rich.console import Console

from bot.cli import main
from bot.config import BotConfig
from bot.tournament import calibrate as cal
from bot.tournament import calibration_stats as cs
from bot.tournament.config import TournamentConfig
from bot.tournament.executors import LocalExecutor, Outcome
from bot.tournament.schedule import MatchSpec
from bot.tournament.stats import Z95
from bot.yamlconfig import ConfigError
from engine.levels import Level
from engine.strength import Setting, StrengthTable, fibs_win_probability, shipped_table

from botkit import Dialogue, config


def _errors(chequer: float, moves: int, cube: float, decisions: int) -> dict[str, float]:
    return {"chequer_error": chequer, "unforced_moves": moves, "cube_error": cube, "close_cube_decisions": decisions}


def test_error_rating_pools_matches_and_weighs_them_as_units() -> None:
    # EPM = (1 + 3) / 200 = 0.02, EPC = 0.2 / 20 = 0.01; N = 5: 2050 - 0.02 x 13903.2 - 0.01 x 759.2
    matches = [_errors(-1.0, 100, -0.2, 10), _errors(-3.0, 100, 0.0, 10)]
    e = cs.error_rating(matches, 5)
    assert e.value == pytest.approx(2050 - 278.064 - 7.592, abs=1e-3)
    # influences: chequer (1 - 0.02 x 100) / 200 = -0.005 and +0.005, cube (0.2 - 0.1) / 20 = +-0.005;
    # each match: 13903.2 x -+0.005 + 759.2 x +-0.005 = -+65.72; se = sqrt(2 x 65.72^2 x 2 / 1)
    assert e.se == pytest.approx(math.sqrt(2 * 65.72 ** 2 * 2), abs=1e-6)
    assert cs.error_rating(matches[:1], 5).se == math.inf  # one match: no spread to measure
    rate = cs.error_rate(matches)
    assert rate.value == pytest.approx(4.2 / 220 * 1000)


def test_head_to_head_difference_and_its_interval() -> None:
    d = cs.rating_difference(70, 100, 5)
    assert d.value == pytest.approx(-2000 / math.sqrt(5) * math.log10(0.3 / 0.7))
    assert d.low < d.value < d.high and d.se > 0
    assert cs.rating_difference(100, 100, 5).se == math.inf  # a sweep bounds nothing
    assert cs.rating_difference(0, 0, 5).se == math.inf
    combined = cs.combine([cs.Estimate(1500, 30), cs.Estimate(2000, math.inf), cs.Estimate(1560, 40)])
    assert combined.value == pytest.approx((1500 / 900 + 1560 / 1600) / (1 / 900 + 1 / 1600))


def test_matches_needed_reaches_the_half_width() -> None:
    for p, n, ref_se in ((0.5, 5, 0.0), (0.3, 5, 10.0), (0.8, 1, 5.0)):
        m = cs.matches_needed(60, p, n, ref_se)
        assert m is not None
        slope = math.log(10) * math.sqrt(n) / 2000 * p * (1 - p)
        half = Z95 * math.hypot(ref_se, math.sqrt(p * (1 - p) / m) / slope)
        assert half <= 60 < Z95 * math.hypot(ref_se, math.sqrt(p * (1 - p) / (m - 2)) / slope)
    assert cs.matches_needed(60, 0.5, 5, 40.0) is None  # the reference alone is wider


# ---- a tiny calibration -------------------------------------------------------------------------

_TINY = cal.Plan((Setting(), Setting(noise=0.05)), seed=5, judge="world class", self_play_lengths=(1,),
                 self_play_matches=3, length=1, matches=(8, 0))


class _Interrupting:
    """A local executor that stops (as Ctrl-C would) after ``after`` results of its run."""

    def __init__(self, after: int) -> None:
        self.inner = LocalExecutor(2)
        self.after = after

    def run(self, config: TournamentConfig, specs: Sequence[MatchSpec]) -> Iterator[Outcome]:
        outcomes = self.inner.run(config, specs)

        def limited() -> Iterator[Outcome]:
            for i, outcome in enumerate(outcomes):
                if i == self.after:
                    raise KeyboardInterrupt
                yield outcome

        return limited()

    def stop(self) -> None:
        self.inner.stop()


def _calibrate(folder: Path, factory: cal.ExecutorFactory) -> cal.PlayedParts:
    return cal.play_parts(cal.parts(_TINY, folder), factory, Console(file=open("/dev/null", "w")), show=False)


def test_a_tiny_calibration_resumes_and_gives_the_same_table(tmp_path: Path) -> None:
    whole = _calibrate(tmp_path / "whole", lambda: LocalExecutor(2))
    assert not whole.interrupted and whole.played == 2 * 3 + 8
    expected = cal.build_table(_TINY, whole.results)

    first = _calibrate(tmp_path / "resumed", lambda: _Interrupting(after=4))
    assert first.interrupted and first.played == 4
    second = _calibrate(tmp_path / "resumed", lambda: LocalExecutor(2))
    assert not second.interrupted and second.played == 2 * 3 + 8 - 4
    assert cal.build_table(_TINY, second.results) == expected

    table = StrengthTable.from_dict(expected)
    assert [r.setting for r in table.rows] == [Setting(), Setting(noise=0.05)]
    assert expected["command"] == _TINY.command() and expected["seed"] == 5
    expert, noisy = expected["settings"]
    # Expert is the reference: its rating is its error-based one; the other is rated through it
    assert expert["rating"] == expert["error_rating"] == expected["references"]["expert"]["value"]
    assert noisy["head_to_head"]["expert"]["matches"] == 8 and noisy["source"] == "head-to-head"
    assert noisy["self_play"]["1"]["matches"] == 3 and noisy["error_rate_memg"] > expert["error_rate_memg"]


def test_the_judge_is_not_its_own_reference() -> None:
    plan = cal.Plan((Setting(), Setting(plies=2)), judge="world class")
    assert cal.is_judge(plan, Setting(plies=2)) and not cal.is_judge(plan, Setting())
    # world class judged by itself errs nowhere: it is rated through Expert (a), by the FIBS formula
    perfect = {"chequer_error": 0.0, "unforced_moves": 50, "cube_error": 0.0, "close_cube_decisions": 5}
    flawed = [{"chequer_error": -0.3 * k, "unforced_moves": 50, "cube_error": -0.05, "close_cube_decisions": 5}
              for k in (1, 2)]
    results = {"self-play-5": [{"analysis": {"expert": m}} for m in flawed]
                              + [{"analysis": {"world-class": perfect}}] * 2,
               "self-play-7": [],
               "vs-world-class": [{"white": "world-class", "black": "expert", "winner": w}
                                  for w in ["world-class"] * 60 + ["expert"] * 40]}
    refs = cal.references(plan, results)
    expert_a = cs.error_rating(flawed, 5)
    assert refs["expert"] == expert_a
    assert refs["world-class"].value == pytest.approx(expert_a.value + cs.rating_difference(60, 100, 5).value)
    table = cal.build_table(plan, results)
    assert any("plays as the judge" in f for f in table["findings"])
    assert table["settings"][1]["rating"] == pytest.approx(refs["world-class"].value)


def test_calibrate_cli_writes_the_table_and_shows_it(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    args = ["calibrate", "--noise", "0,0.05", "--plies", "", "--judge", "expert", "--self-play-lengths", "1",
            "--self-play-matches", "2", "--length", "1", "--matches", "6,0", "--seed", "2",
            "--output", str(tmp_path), "--workers", "2"]
    assert main(args + ["--json"]) == 0
    shown = json.loads(capsys.readouterr().out)
    assert list(shown) == ["settings", "command", "seed"] and shown["seed"] == 2
    assert [list(s) for s in shown["settings"]] == [["noise", "plies", "rating", "low", "high"]] * 2
    written = json.loads((tmp_path / cal.TABLE_JSON).read_text())
    assert main(["calibrate", "--show", "--json", "--table", str(tmp_path / cal.TABLE_JSON)]) == 0
    assert json.loads(capsys.readouterr().out) == StrengthTable.from_dict(written).show() == shown


def _verify_table(path: Path) -> Path:
    """A table whose references are exact, so that a short verify has something to measure against."""
    rows = [{"noise": n, "plies": 0, "rating": r, "low": r - 30, "high": r + 30, "error_rate_memg": 5.0,
             "error_rate_low": 4.0, "error_rate_high": 6.0} for n, r in ((0.0, 2000), (0.06, 1500))]
    data = {"settings": rows, "command": "test", "seed": 1,
            "references": {"expert": {"value": 2000.0, "se": 0.0}, "world-class": {"value": 2100.0, "se": 5.0}},
            "head_to_head": {"length": 1, "matches": {"expert": 100, "world-class": 0}}}
    path.write_text(json.dumps(data))
    return path


def test_verify_plans_match_counts_for_the_half_width(tmp_path: Path) -> None:
    table = StrengthTable.load(_verify_table(tmp_path / "t.json"))
    [target] = cal.plan_verify(table, [1750.0], half_width=60)
    assert target.strength.setting == Setting(noise=0.03) and list(target.matches) == ["expert"]
    p = fibs_win_probability(1750 - 2000, 1)
    assert target.matches["expert"] >= cs.matches_needed(60, p, 1) >= 0.9 * target.matches["expert"]  # type: ignore
    with pytest.raises(ValueError, match="outside"):
        cal.plan_verify(table, [1900.0, 2500.0], half_width=60)
    bare = StrengthTable.from_dict({k: v for k, v in table.data.items() if k != "references"})
    with pytest.raises(ValueError, match="lacks what a verification needs"):
        cal.plan_verify(bare, [1750.0], half_width=60)


def test_verify_cli_json(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    table = _verify_table(tmp_path / "t.json")
    assert main(["calibrate", "--verify", "1500,1750", "--table", str(table), "--seed", "9", "--half-width", "600",
                 "--json", "--output", str(tmp_path / "v"), "--workers", "2"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert list(out) == ["verify", "seconds"] and out["seconds"] > 0
    assert [list(v) for v in out["verify"]] == [["target", "rating", "low", "high", "matches"]] * 2
    assert [v["target"] for v in out["verify"]] == [1500, 1750]
    assert all(v["matches"] >= 10 and v["low"] <= v["rating"] <= v["high"] for v in out["verify"])
    assert main(["calibrate", "--verify", "3000", "--table", str(table), "--json"]) == 2
    assert "outside what the strength table covers" in capsys.readouterr().err


# ---- choosing a bot by rating ------------------------------------------------------------------------

def _inside() -> float:
    noisy = shipped_table().noisy
    return (noisy[0].rating + noisy[-1].rating) / 2


def test_bot_config_by_fibs_rating(tmp_path: Path) -> None:
    rating = _inside()
    cfg = config(tmp_path, engine={"strength": {"fibs_rating": rating}})
    chosen = cfg.engine.playing_level()
    assert isinstance(chosen, Level)
    assert chosen.checker.noise == shipped_table().for_rating(rating).setting.noise > 0
    assert chosen.cube.noise == chosen.checker.noise and cfg.engine.level_name == f"fibs-{rating:g}"
    assert f"FIBS rating {rating:g}" in cfg.engine.describe_level()
    with pytest.raises(ConfigError, match=r"engine.level.*outside what the strength table covers: \d"):
        config(tmp_path, engine={"strength": {"fibs_rating": 5000}})  # the old shape, still read
    with pytest.raises(ConfigError, match=r"engine.level.*outside what the strength table covers: \d"):
        config(tmp_path, engine={"level": {"fibs_rating": 5000}})
    with pytest.raises(ConfigError, match="not both"):
        config(tmp_path, engine={"level": "beginner", "strength": {"fibs_rating": rating}})
    with pytest.raises(ConfigError, match="fibs_ratin: unknown key"):
        BotConfig.model_validate({"engine": {"strength": {"fibs_ratin": 1600}}})


async def test_the_bot_plays_and_tells_its_rating(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    rating = _inside()
    with caplog.at_level(logging.INFO, logger="bot.player"):
        d = Dialogue(config(tmp_path, engine={"strength": {"fibs_rating": rating}}))
    expected = shipped_table().for_rating(rating)
    assert f"playing at FIBS rating {rating:g}" in caplog.text  # the startup log: rating and interval
    assert f"(95% {expected.low:.0f}..{expected.high:.0f})" in caplog.text
    await d.login()
    [told] = await d.say("12 bob level")
    assert told.startswith(f"tell bob I play at FIBS rating {rating:g}, 0-ply noise")
    assert "expected FIBS rating" in told and "(95% " in told
    assert isinstance(d.player.play_level, Level) and d.player.play_level.checker.noise > 0


def test_tournament_player_by_fibs_rating() -> None:
    rating = _inside()
    cfg = TournamentConfig.model_validate({"players": [{"name": "a", "level": "expert"},
                                                       {"name": "b", "fibs_rating": rating}]})
    assert cfg.players[1].build().checker.noise == shipped_table().for_rating(rating).setting.noise
    with pytest.raises(ConfigError, match="outside what the strength table covers"):
        TournamentConfig.model_validate({"players": [{"name": "a", "level": "expert"},
                                                     {"name": "b", "fibs_rating": 9000}]})
    with pytest.raises(ConfigError, match="not both"):
        TournamentConfig.model_validate({"players": [{"name": "a", "level": "expert"},
                                                     {"name": "b", "level": "expert", "fibs_rating": rating}]})
    # players without a rating dump as before (old folders keep their fingerprint); a rated
    # player's fingerprint holds the setting the table chose
    assert cfg.model_dump()["players"][1]["level"] == {"fibs_rating": rating}
    again = TournamentConfig.model_validate(cfg.model_dump())
    assert again.fingerprint() == cfg.fingerprint()
    other = TournamentConfig.model_validate({"players": [{"name": "a", "level": "expert"},
                                                         {"name": "b", "fibs_rating": rating + 20}]})
    assert other.fingerprint() != cfg.fingerprint()


def test_hint_by_rating(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["hint", "4HPwATDgc/ABMA", "--dice", "31", "--rating", str(_inside())]) == 0
    out = capsys.readouterr().out
    assert out.startswith(f"FIBS rating {_inside():g}: 0-ply noise") and "Cubeful 0-ply" in out
    assert main(["hint", "4HPwATDgc/ABMA", "--dice", "31", "--rating", "9000"]) == 2
    assert "outside what the strength table covers" in capsys.readouterr().err
