"""The real gnubg reads what we write: no warning, and its .mat export equals ours.

Uses the Debian gnubg program (CI installs it: ``apt-get install gnubg``). One
gnubg run loads every file; commands are fed on stdin with ``-t -q -r`` (text mode, no
sound, no ``.gnubgrc``).
"""

from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from pathlib import Path

import pytest

from engine.records import Beaver, MatchRecord, RejectResign, Resign, load_sgf, mat, sgf
from engine.records.validate import complaints, gnubg_program, run_gnubg

from recordkit import game_summary, random_match

GNUBG = gnubg_program()
pytestmark = pytest.mark.skipif(GNUBG is None, reason="the gnubg program is not installed (apt-get install gnubg)")

DATA = Path(__file__).parent / "data" / "golden-sgf"

def abandoned_game() -> MatchRecord:
    """A 5-point match whose first game stops after six actions (the recorder lost it):
    it stays without a result and the next games go on at their own scores."""
    base = random_match(4, 5)
    record = MatchRecord(base.players, base.length, crawford=base.crawford)
    for number, game in enumerate(base.games):
        record.new_game(game.score, game.crawford_game)
        for action in game.actions[:6] if number == 0 else game.actions:
            record.games[-1].append(action)
    assert record.games[0].result is None and record.games[1].score != record.games[0].score
    return record


RANDOM: dict[str, Callable[[], MatchRecord]] = {
    "match3": partial(random_match, 1, 3),
    "match1": partial(random_match, 3, 1),
    "match5": partial(random_match, 4, 5),
    "match7_no_crawford": partial(random_match, 9, 7, crawford=False),
    "money_jacoby_beavers": partial(random_match, 2, 0, jacoby=True, games=4),
    "money_beavers": partial(random_match, 6, 0, games=5),
    "unfinished_match": partial(random_match, 7, 5, max_actions=70),
    "unfinished_money": partial(random_match, 8, 0, games=3, max_actions=45),
    "abandoned_game": abandoned_game,
}
GOLDEN = ["match_1pt", "match_3pt", "match_5pt", "money_session", "match_3pt_analysed", "beaver_session"]


def _records() -> dict[str, MatchRecord]:
    records = {name: make() for name, make in RANDOM.items()}
    records.update({name: load_sgf(DATA / f"{name}.sgf") for name in GOLDEN})
    return records


@dataclass
class Run:
    records: dict[str, MatchRecord]
    folder: Path
    stdout: str
    stderr: str


@pytest.fixture(scope="module")
def gnubg_run(tmp_path_factory: pytest.TempPathFactory) -> Run:
    folder = tmp_path_factory.mktemp("gnubg")
    records = _records()
    commands = ["set confirm new off", "set confirm save off"]
    for name, record in records.items():
        (folder / f"{name}.sgf").write_text(sgf.dumps(record), encoding="utf-8")
        (folder / f"{name}.mat").write_text(mat.dumps(record), encoding="utf-8")
        # a .mat does not carry Jacoby; gnubg's import takes it from this setting
        commands += [f"load match {name}.sgf", f"export match mat {name}.gnubg.mat",
                     f"set jacoby {'on' if record.jacoby else 'off'}", f"import mat {name}.mat",
                     f"save match {name}.back.sgf"]
    done = run_gnubg(commands, folder, timeout_s=120)
    return Run(records, folder, done.stdout, done.stderr)


def test_the_cases_cover_every_action(gnubg_run: Run) -> None:
    games = [g for r in gnubg_run.records.values() for g in r.games]
    assert {Beaver, Resign, RejectResign} <= {type(a) for g in games for a in g.actions}
    assert any(g.result is None for g in games) and any(g.crawford_game for g in games)


def test_gnubg_loads_our_files_without_complaint(gnubg_run: Run) -> None:
    assert gnubg_run.stderr == ""
    assert complaints(gnubg_run.stdout) == []


@pytest.mark.parametrize("name", [*RANDOM, *GOLDEN])
def test_gnubg_mat_export_equals_ours(gnubg_run: Run, name: str) -> None:
    theirs = (gnubg_run.folder / f"{name}.gnubg.mat").read_bytes()
    assert theirs == mat.dumps(gnubg_run.records[name]).encode()


@pytest.mark.parametrize("name", [*RANDOM, *GOLDEN])
def test_gnubg_imports_our_mat(gnubg_run: Run, name: str) -> None:
    record = gnubg_run.records[name]
    if not record.crawford and record.length > 1:
        pytest.skip("a .mat cannot say that a match is played without the Crawford rule")
    back = load_sgf(gnubg_run.folder / f"{name}.back.sgf")
    ours = game_summary(record, refusals=False)
    # gnubg does not save a double that is the very last action (it takes it for a hint)
    if ours[-1][3] and ours[-1][3][-1][0] == "Double":
        ours[-1][3].pop()
    assert game_summary(back) == ours
    assert back.players == record.players


def test_validate_command(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from engine.records.validate import main

    good = tmp_path / "good.sgf"
    good.write_text((DATA / "match_1pt.sgf").read_text(encoding="utf-8"), encoding="utf-8")
    assert main([str(tmp_path)]) == 0
    assert capsys.readouterr().out.strip().endswith("1 files: clean")
    # a record whose last move gnubg cannot play: gnubg complains, the command fails
    text = good.read_text(encoding="utf-8")
    bad = tmp_path / "bad.sgf"
    cut = text.rindex(";B[") if text.rfind(";B[") > text.rfind(";W[") else text.rindex(";W[")
    bad.write_text(text[:cut + 3] + "zzzz" + text[cut + 3 + 4:], encoding="utf-8")
    assert main([str(bad)]) == 1
