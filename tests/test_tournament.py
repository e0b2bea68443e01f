"""Local self-play tournaments: reproducible, resumable, interruptible, strict config."""

from __future__ import annotations

import json
import math
import os
import re
import signal
import subprocess
import sys
import time
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import pytest
import yaml
from rich.console import Console

from bot.cli import main
from bot.tournament import config as tconfig
from bot.tournament.executors import LocalExecutor, Outcome
from bot.tournament.play import Table, play_match
from bot.tournament.results import RESULTS
from bot.tournament.runner import run
from bot.tournament.schedule import MatchSpec, schedule
from bot.yamlconfig import ConfigError
from engine.analysis import analyse_match
from engine.evaluator import Engine
from engine.levels import level
from engine.records import Double, Roll, load_sgf

ROOT = Path(__file__).resolve().parent.parent
THREE_LEVELS = [{"name": "expert", "level": "expert"}, {"name": "advanced", "level": "advanced"},
                {"name": "beginner", "level": "beginner"}]


def _config(output: Path, **changes: Any) -> tconfig.TournamentConfig:
    return tconfig.TournamentConfig.model_validate(
        {"players": THREE_LEVELS, "match_length": 1, "matches": 6, "seed": 11, "output": output, **changes})


def _results(folder: Path) -> dict[str, dict[str, Any]]:
    lines = [json.loads(line) for line in (folder / RESULTS).read_text().splitlines()]
    for line in lines:
        del line["wall_s"]
    return {line["key"]: line for line in lines}


def _sgfs(folder: Path) -> dict[str, str]:
    return {p.name: p.read_text() for p in sorted((folder / "matches").glob("*.sgf"))}


class _Interrupting:
    """A local executor that raises KeyboardInterrupt (as Ctrl-C would) after ``after`` results."""

    def __init__(self, after: int) -> None:
        self.inner = LocalExecutor(2)
        self.after = after
        self.stopped = False

    def run(self, config: tconfig.TournamentConfig, specs: Sequence[MatchSpec]) -> Iterator[Outcome]:
        for n, outcome in enumerate(self.inner.run(config, specs)):
            if n == self.after:
                raise KeyboardInterrupt
            yield outcome

    def stop(self) -> None:
        self.stopped = True
        self.inner.stop()


def test_interrupted_and_resumed_equals_uninterrupted(tmp_path: Path) -> None:
    quiet = Console(file=open(os.devnull, "w"))
    whole = run(_config(tmp_path / "whole"), LocalExecutor(2), quiet, live=False)
    assert (whole.played, whole.skipped, whole.interrupted) == (18, 0, False)

    interrupting = _Interrupting(after=5)
    first = run(_config(tmp_path / "resumed"), interrupting, quiet, live=False)
    assert first.interrupted and interrupting.stopped and first.played == 5
    assert len(_results(tmp_path / "resumed")) == 5
    rest = run(_config(tmp_path / "resumed"), LocalExecutor(1), quiet, live=False)
    assert (rest.played, rest.skipped) == (13, 5)

    assert _results(tmp_path / "resumed") == _results(tmp_path / "whole")
    assert _sgfs(tmp_path / "resumed") == _sgfs(tmp_path / "whole")
    assert rest.report == whole.report
    players = {p["name"]: p for p in whole.report["players"]}
    assert sum(p["won"] for p in players.values()) == 18
    assert all(p["matches"] == 12 for p in players.values())

    # every saved match replays and agrees with its result line
    for key, line in _results(tmp_path / "whole").items():
        record = load_sgf(tmp_path / "whole" / "matches" / f"{key}.sgf")
        assert record.players == (line["white"], line["black"])
        assert list(record.score()) == line["score"]


@pytest.mark.parametrize("stop", ["ctrl-c", "sigterm"])
def test_ctrl_c_stops_cleanly_and_keeps_finished_matches(tmp_path: Path, stop: str) -> None:
    cfg = tmp_path / "t.yaml"
    cfg.write_text(yaml.safe_dump({"players": THREE_LEVELS, "match_length": 1, "matches": 100, "seed": 11,
                                   "output": str(tmp_path / "out")}))
    proc = subprocess.Popen([sys.executable, "-m", "bot.cli", "tournament", str(cfg), "--workers", "2", "--quiet"],
                            cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            start_new_session=True)
    results = tmp_path / "out" / RESULTS
    deadline = time.monotonic() + 120
    while not (results.exists() and results.read_text().count("\n") >= 3) and time.monotonic() < deadline:
        time.sleep(0.05)
    if stop == "ctrl-c":
        os.killpg(proc.pid, signal.SIGINT)  # the whole process group, workers included
    else:
        proc.terminate()  # SIGTERM to the parent alone, as kill or systemd sends it
    out, err = proc.communicate(timeout=120)
    assert proc.returncode == 130, (out, err)
    assert "Traceback" not in err and "run the same command again" in out, (out, err)
    saved = _results(tmp_path / "out")
    assert 3 <= len(saved) < 300
    assert len(_sgfs(tmp_path / "out")) == len(saved)
    # the same seed with fewer matches gives the same result for the same match
    whole = tmp_path / "whole"
    run(_config(whole, matches=2), LocalExecutor(2), Console(file=open(os.devnull, "w")), live=False)
    reference = _results(whole)
    assert all(saved[k] == reference[k] for k in saved.keys() & reference.keys())


def test_torn_last_line_is_replayed(tmp_path: Path) -> None:
    quiet = Console(file=open(os.devnull, "w"))
    folder = tmp_path / "t"
    run(_config(folder, matches=1), LocalExecutor(1), quiet, live=False)
    complete = (folder / RESULTS).read_text()
    lines = complete.splitlines(keepends=True)
    (folder / RESULTS).write_text("".join(lines[:-1]) + lines[-1][:20])
    again = run(_config(folder, matches=1), LocalExecutor(1), quiet, live=False)
    assert (again.played, again.skipped) == (1, 2)
    assert (folder / RESULTS).read_text().count("\n") == 3


def test_a_line_whose_sgf_was_lost_is_replayed(tmp_path: Path) -> None:
    """After a power failure a results line may reach the disk before its .sgf."""
    quiet = Console(file=open(os.devnull, "w"))
    folder = tmp_path / "t"
    run(_config(folder, matches=1), LocalExecutor(1), quiet, live=False)
    before = _results(folder)
    first, second = (folder / "matches" / name for name in sorted(_sgfs(folder))[:2])
    first.unlink()
    second.write_text(second.read_text()[:-5])  # cut short
    again = run(_config(folder, matches=1), LocalExecutor(1), quiet, live=False)
    assert (again.played, again.skipped) == (2, 1)
    assert _results(folder) == before
    assert (folder / RESULTS).read_text().count("\n") == 3
    assert not list(folder.glob("matches/.*"))  # no partial files left behind


def test_fewer_matches_than_the_folder_holds_reports_only_those(tmp_path: Path) -> None:
    quiet = Console(file=open(os.devnull, "w"))
    more = run(_config(tmp_path / "t", matches=2), LocalExecutor(2), quiet, live=False)
    fewer = run(_config(tmp_path / "t", matches=1), LocalExecutor(2), quiet, live=False)
    assert (fewer.played, fewer.skipped) == (0, 3)
    assert sum(p["matches"] for p in more.report["players"]) == 12
    assert sum(p["matches"] for p in fewer.report["players"]) == 6
    first = {k: v for k, v in _results(tmp_path / "t").items() if k.endswith("~0000")}
    assert sum(p["won"] for p in fewer.report["players"]) == len(first) == 3


def test_cli_report_files_and_changed_settings(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    cfg = tmp_path / "t.yaml"
    out = tmp_path / "out"
    cfg.write_text(yaml.safe_dump({"players": THREE_LEVELS[::2], "match_length": 3, "matches": 2, "seed": 5,
                                   "output": str(out), "analysis_level": "expert"}))
    assert main(["tournament", str(cfg), "--workers", "1", "--quiet"]) == 0
    shown = capsys.readouterr().out
    assert "Standings" in shown and "matches/min" in shown and "mEMG" in shown
    data = json.loads((out / "report.json").read_text())
    assert {p["name"] for p in data["players"]} == {"expert", "beginner"}
    assert all("error_rate_memg" in p for p in data["players"])
    assert (out / "ratings.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    # other rules in the same folder are refused; more matches are welcome
    assert main(["tournament", str(cfg), "--seed", "6", "--quiet"]) == 2
    assert "other settings" in capsys.readouterr().err
    assert main(["tournament", str(cfg), "--matches", "3", "--workers", "1", "--quiet"]) == 0
    assert "resuming: 2 of 3" in capsys.readouterr().out


def test_duplicate_dice_swap_seats_on_the_same_rolls(engine: Engine) -> None:
    table = Table((level("expert"), level("beginner")), 0, 2)
    first, second = schedule(["x", "y"], "round robin", None, 2, seed=3, duplicate=True)
    assert (first.white, second.white) == ("x", "y")
    one, two = play_match(engine, first, table), play_match(engine, second, table)
    for g1, g2 in zip(one.games, two.games, strict=True):
        rolls1 = [(a.player, a.dice) for a in g1.actions if isinstance(a, Roll)]
        rolls2 = [(a.player, a.dice) for a in g2.actions if isinstance(a, Roll)]
        n = min(len(rolls1), len(rolls2))
        assert n > 0 and rolls1[:2] == rolls2[:2]  # same seat, same dice: the other player gets them
        assert [d for _, d in rolls1[:n]] == [d for _, d in rolls2[:n]]


def test_money_session_has_cube_action(engine: Engine) -> None:
    table = Table((level("expert"), level("intermediate")), 0, 4)
    spec = schedule(["x", "y"], "round robin", None, 1, seed=2, duplicate=False)[0]
    record = play_match(engine, spec, table)
    assert len(record.games) == 4 and all(g.result is not None for g in record.games)
    actions = [a for g in record.games for a in g.actions]
    assert any(isinstance(a, Double) for a in actions)
    assert record.jacoby and record.length == 0


def test_config_is_strict(shipped_configs: dict[str, Path]) -> None:
    tconfig.load()  # the shipped, commented files are valid
    bar = tconfig.load(shipped_configs["expert-vs-beginner.yaml"])
    assert [p.name for p in bar.players] == ["expert", "beginner"] and bar.matches == 200
    close = tconfig.load(shipped_configs["close-levels.yaml"])
    assert [p.level for p in close.players] == ["world class", "supremo"] and close.format == "self play"
    with pytest.raises(ConfigError, match=r"rules\.crawfod: unknown key"):
        tconfig.TournamentConfig.model_validate({"players": THREE_LEVELS, "rules": {"crawfod": False}})
    with pytest.raises(ConfigError, match="player names must be unique"):
        tconfig.TournamentConfig.model_validate({"players": THREE_LEVELS + THREE_LEVELS[:1]})
    with pytest.raises(ConfigError, match="make matches even"):
        tconfig.TournamentConfig.model_validate({"players": THREE_LEVELS, "duplicate_dice": True, "matches": 3})
    with pytest.raises(ConfigError, match="unknown level"):
        tconfig.TournamentConfig.model_validate({"players": [{"name": "a", "level": "godlike"}, THREE_LEVELS[0]]})
    with pytest.raises(ConfigError, match="players.1.checker.plies"):
        tconfig.TournamentConfig.model_validate({"players": [THREE_LEVELS[0], {"name": "b", "checker": {"plies": 9}}]})


def test_dask_executor(tmp_path: Path) -> None:
    distributed = pytest.importorskip("distributed")
    from bot.tournament.executors import DaskExecutor

    quiet = Console(file=open(os.devnull, "w"))
    with distributed.LocalCluster(n_workers=1, threads_per_worker=2, processes=False,
                                  dashboard_address=None) as cluster:
        dask = run(_config(tmp_path / "dask", matches=2), DaskExecutor(cluster.scheduler_address), quiet,
                   live=False)
    run(_config(tmp_path / "local", matches=2), LocalExecutor(2), quiet, live=False)
    assert dask.played == 6 and _results(tmp_path / "dask") == _results(tmp_path / "local")


def test_dask_missing_is_a_clear_error(monkeypatch: pytest.MonkeyPatch) -> None:
    from bot.tournament.executors import DaskExecutor

    monkeypatch.setitem(sys.modules, "distributed", None)  # import fails as if not installed
    with pytest.raises(RuntimeError, match=r"fibsbot\[cluster\]"):
        DaskExecutor("tcp://127.0.0.1:1")


def test_schedule_formats_and_seeds() -> None:
    names = ["a", "b", "c", "d"]
    assert {s.pairing for s in schedule(names, "round robin", None, 1, seed=1, duplicate=False)} == {
        ("a", "b"), ("a", "c"), ("a", "d"), ("b", "c"), ("b", "d"), ("c", "d")}
    gauntlet = schedule(names, "gauntlet", "c", 2, seed=1, duplicate=False)
    assert [s.pairing for s in gauntlet[:3]] == [("c", "a"), ("c", "b"), ("c", "d")]
    assert [s.white for s in gauntlet if s.pairing == ("c", "a")] == ["c", "a"]
    # a match's dice depend on the seed, its pairing and its index only
    seeds = {s.key: s.dice_seed for s in schedule(names, "round robin", None, 3, seed=1, duplicate=False)}
    first_gauntlet = schedule(names, "gauntlet", None, 3, seed=1, duplicate=False)  # a against each other
    assert len(first_gauntlet) == 9 and all(seeds[s.key] == s.dice_seed for s in first_gauntlet)
    assert len(set(seeds.values())) == len(seeds)
    assert seeds != {s.key: s.dice_seed for s in schedule(names, "round robin", None, 3, seed=2, duplicate=False)}


def test_self_play_ranks_levels_by_error_rate(tmp_path: Path, capsys: pytest.CaptureFixture[str], engine: Engine,
                                              shipped_configs: dict[str, Path]) -> None:
    shipped = tconfig.load(shipped_configs["levels.yaml"])  # the nine levels, analysed at 4ply
    assert shipped.format == "self play" and shipped.analysis_level == "4ply" and len(shipped.players) == 9
    names = ["beginner", "expert"]
    specs = schedule(names, "self play", None, 2, seed=4, duplicate=False)
    assert [s.pairing for s in specs] == [("beginner", "beginner"), ("expert", "expert")] * 2
    # every level plays the same dice in its k-th match
    assert specs[0].dice_seed == specs[1].dice_seed != specs[2].dice_seed == specs[3].dice_seed
    with pytest.raises(ConfigError, match="self play"):
        tconfig.TournamentConfig.model_validate({"players": THREE_LEVELS, "format": "self play",
                                                 "duplicate_dice": True, "matches": 2})
    cfg, out = tmp_path / "levels.yaml", tmp_path / "out"
    cfg.write_text(yaml.safe_dump({"players": [{"name": n, "level": n} for n in names], "format": "self play",
                                   "match_length": 1, "matches": 2, "seed": 4, "output": str(out),
                                   "analysis_level": "expert"}))
    assert main(["tournament", str(cfg), "--workers", "2", "--quiet"]) == 0
    assert "Error rates, lowest first: expert < beginner" in capsys.readouterr().out
    report = json.loads((out / "report.json").read_text())
    assert report["error_rate_order"] == ["expert", "beginner"] and report["ratings"] is None
    assert not (out / "ratings.png").exists()
    # both sides of a self-play match count for the one player
    for key, line in _results(out).items():
        analysis = analyse_match(engine, load_sgf(out / "matches" / f"{key}.sgf"), "expert", threads=1)
        (name, totals), = line["analysis"].items()
        assert totals["unforced_moves"] == sum(p.rates.unforced_moves for p in analysis.players) > 0
        assert totals["chequer_error"] == pytest.approx(sum(p.rates.chequer_error for p in analysis.players))
        assert (totals["chequer_error"] == 0.0) == (name == "expert")  # expert analysed at expert: no errors


def test_a_stop_signal_waits_for_the_match_being_saved() -> None:
    from bot.tournament.runner import _Interrupts

    before = signal.getsignal(signal.SIGTERM)
    steps = []
    with pytest.raises(KeyboardInterrupt):
        with _Interrupts() as interrupts:
            with interrupts.saving():
                os.kill(os.getpid(), signal.SIGTERM)
                time.sleep(0.05)  # the handler runs in here and must not cut the save short
                steps.append("saved")
            steps.append("went on")  # not reached: the deferred stop comes right after the save
    assert steps == ["saved"]
    with pytest.raises(KeyboardInterrupt):
        with _Interrupts():
            os.kill(os.getpid(), signal.SIGTERM)
            time.sleep(5)  # outside a save the stop is immediate
    assert signal.getsignal(signal.SIGTERM) is before


def _failing_play_one(failure: str) -> Any:
    """A play_one that fails on the fourth match of the schedule (workers fork
    from the test process, so they run it)."""
    from bot.tournament import executors

    real = executors.play_one

    def play_one(engine: Engine, config: tconfig.TournamentConfig, spec: MatchSpec) -> Outcome:
        if spec.index == 1 and spec.pairing == ("expert", "advanced"):
            if failure == "raises":
                raise ValueError("boom")
            os._exit(9)  # as if the kernel killed the worker (out of memory)
        return real(engine, config, spec)

    return play_one


@pytest.mark.parametrize("failure", ["raises", "dies"])
def test_a_failing_worker_is_a_clear_error_and_keeps_the_rest(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                              failure: str) -> None:
    from bot.tournament import executors

    monkeypatch.setattr(executors, "play_one", _failing_play_one(failure))
    expected = "(?s)a match failed in a worker process: expert~advanced~0001: .*ValueError: boom" \
        if failure == "raises" else "a tournament worker process died"
    with pytest.raises(RuntimeError, match=expected):
        run(_config(tmp_path / "t", matches=2), LocalExecutor(2), Console(file=open(os.devnull, "w")), live=False)
    saved = _results(tmp_path / "t")
    assert "expert~advanced~0001" not in saved and len(saved) >= 1
    assert len(_sgfs(tmp_path / "t")) == len(saved)
    monkeypatch.undo()
    again = run(_config(tmp_path / "t", matches=2), LocalExecutor(2), Console(file=open(os.devnull, "w")), live=False)
    assert again.skipped == len(saved) and again.skipped + again.played == 6


def _children(pid: int) -> list[int]:
    text = Path(f"/proc/{pid}/task/{pid}/children").read_text()
    return [int(p) for p in text.split()]


def _running(pid: int) -> bool:
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except FileNotFoundError:
        return False
    return "\nState:\tZ" not in status  # a zombie has exited


@pytest.mark.skipif(not Path("/proc/self/task").exists(), reason="reads the process tree from Linux's /proc")
def test_workers_exit_when_the_parent_is_killed_outright(tmp_path: Path) -> None:
    cfg = tmp_path / "t.yaml"
    cfg.write_text(yaml.safe_dump({"players": THREE_LEVELS, "match_length": 1, "matches": 100, "seed": 11,
                                   "output": str(tmp_path / "out")}))
    proc = subprocess.Popen([sys.executable, "-m", "bot.cli", "tournament", str(cfg), "--workers", "2", "--quiet"],
                            cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    results = tmp_path / "out" / RESULTS
    deadline = time.monotonic() + 120
    while not (results.exists() and results.read_text().count("\n") >= 2) and time.monotonic() < deadline:
        time.sleep(0.05)
    workers = _children(proc.pid)
    assert len(workers) == 2
    proc.kill()  # SIGKILL: no handler runs, nobody tells the workers
    proc.wait()
    deadline = time.monotonic() + 10
    while any(_running(w) for w in workers) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not any(_running(w) for w in workers)


def test_worker_bench_command(capsys: pytest.CaptureFixture[str]) -> None:
    from bot.tournament import bench

    assert bench.main(["--runs", "1", "--matches", "3"]) == 0
    out = capsys.readouterr().out
    side = r"(\d+\.\d\d) s \(CPU (\d+\.\d\d) s, cores (\d+)% busy\)"
    found = re.search(rf"run 1: 1 worker {side}, 2 workers {side}: (\d+\.\d\d)x", out)
    assert found, out
    one, cpu_one, busy_one, two, cpu_two, busy_two, ratio = (float(x) for x in found.groups())
    # The arithmetic, whatever the timings were: the printed ratio and CPU growth follow from the
    # printed times, each of which is rounded to 0.01 s.
    low, high = _quotient_range(one, two)
    assert low - 0.005 <= ratio <= high + 0.005  # the ratio is rounded to 0.01 too
    assert 0 <= busy_one <= 100 and 0 <= busy_two <= 100
    assert f"median speed-up with 2 workers: {ratio:.2f}x" in out  # the median of one pair is that pair
    growth = re.search(r"the same matches took ([+-]\d+)% CPU seconds on 2 workers", out)
    assert growth, out
    low, high = _quotient_range(cpu_two, cpu_one)
    assert low - 1 - 0.005 <= int(growth[1]) / 100 <= high - 1 + 0.005  # a whole percent
    assert f"the cores were {busy_two:.0f}% busy" in out


def _quotient_range(top: float, bottom: float) -> tuple[float, float]:
    """Where top / bottom lies when both were printed to two decimals (each off by up to 0.005)."""
    low = max(top - 0.005, 0.0) / (bottom + 0.005)
    high = (top + 0.005) / (bottom - 0.005) if bottom > 0.005 else math.inf
    return low, high


def test_worker_bench_prints_each_pair_and_the_median(capsys: pytest.CaptureFixture[str]) -> None:
    from bot.tournament import bench

    assert bench.main(["--runs", "2", "--matches", "4"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert [line.split(":")[0] for line in lines] == ["run 1", "run 2", "median speed-up with 2 workers", "why"]
    ratios = [float(line.rsplit(" ", 1)[1].rstrip("x")) for line in lines[:2]]
    assert f"{sorted(ratios)[0]:.2f}" in lines[2] and "quartiles" in lines[2]
