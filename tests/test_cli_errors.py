"""What a user can get wrong on the command line: exit code 2 and one line naming the file and the problem."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from engine.errors import RecordParseError
from engine.records import convert, mat

ROOT = Path(__file__).parent.parent
DATA = Path(__file__).parent / "data" / "golden-sgf"
MAT = (DATA / "match_3pt.mat").read_text()
ENV = {**os.environ, "PYTHONPATH": str(ROOT)}


def _fibsbot(*args: str | Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "bot.cli", *map(str, args)], cwd=ROOT, env=ENV,
                          capture_output=True, text=True, timeout=120)


def _named_error(result: subprocess.CompletedProcess[str], path: Path, problem: str) -> None:
    assert result.returncode == 2, result.stderr
    assert "Traceback" not in result.stderr
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and str(path) in lines[0] and problem in lines[0], result.stderr


def test_unknown_record_suffix(tmp_path: Path) -> None:
    _named_error(_fibsbot("convert", DATA / "match_3pt.sgf", tmp_path / "out.txt"), tmp_path / "out.txt",
                 "unknown record format '.txt'")
    notes = tmp_path / "notes.txt"
    notes.write_text(MAT)
    _named_error(_fibsbot("convert", notes, tmp_path / "out.sgf"), notes, "unknown record format '.txt'")
    assert not (tmp_path / "out.sgf").exists()


def test_huge_number_in_a_mat(tmp_path: Path) -> None:
    huge = tmp_path / "huge.mat"
    huge.write_text(MAT.replace("24/23 24/20*", "24/23 24/2" + "0" * 5000))
    result = _fibsbot("convert", huge, tmp_path / "out.sgf")
    _named_error(result, huge, "line 7:")
    assert "out of range" in result.stderr and len(result.stderr) < 300


@pytest.mark.parametrize("text, message", [
    (" " + "9" * 5000 + " point match\n", "not a .mat file"),
    (MAT.replace(" alice : 0                      bob : 0", " alice : " + "9" * 5000 + "  bob : 0"),
     "line 6: expected a score line"),
    (MAT.replace("41: 24/23 24/20*", "41: 24/23(" + "9" * 5000 + ")"), "line 7: '41: 24/23("),
])
def test_huge_numbers_anywhere_in_a_mat_are_named(text: str, message: str) -> None:
    with pytest.raises(RecordParseError) as info:
        mat.loads(text)
    assert str(info.value).startswith(message) and len(str(info.value)) < 300


@pytest.mark.parametrize("text", [
    "24/" + "9" * 5000, "9" * 5000 + "/1", "bar/" + "1" * 4301, "24/18(" + "9" * 5000 + ")", "013/7",
])
def test_move_parse_refuses_huge_numbers_as_illegal_moves(text: str) -> None:
    from engine.errors import IllegalMoveError
    from engine.position import Move

    with pytest.raises(IllegalMoveError) as info:
        Move.parse(text)
    assert len(str(info.value)) < 200


def test_truncated_mat_is_reported(tmp_path: Path) -> None:
    lines = MAT.splitlines(keepends=True)
    mid_game = tmp_path / "mid_game.mat"
    mid_game.write_text("".join(lines[:20]))  # cut inside game 1
    _named_error(_fibsbot("convert", mid_game, tmp_path / "out.sgf"), mid_game, "game 1 has no result")
    assert not (tmp_path / "out.sgf").exists()
    partial = _fibsbot("convert", "--partial", mid_game, tmp_path / "out.sgf")
    assert partial.returncode == 0 and (tmp_path / "out.sgf").exists()

    end_of_game_2 = next(i for i, line in enumerate(lines) if line.startswith(" Game 3"))
    between = tmp_path / "between.mat"
    between.write_text("".join(lines[:end_of_game_2]))  # whole games, but the match goes on
    _named_error(_fibsbot("convert", between, tmp_path / "b.sgf"), between, "stops at 1-2 after game 2")


def test_convert_never_writes_over_its_input(tmp_path: Path) -> None:
    record = tmp_path / "m.mat"
    record.write_text(MAT)
    link = tmp_path / "link.mat"
    link.symlink_to(record)
    hard = tmp_path / "hard.mat"
    os.link(record, hard)
    for output in (record, tmp_path / "." / "m.mat", link, hard):
        _named_error(_fibsbot("convert", record, output), output, "is the input file")
        assert record.read_text() == MAT
    with pytest.raises(RecordParseError, match="is the input file"):
        convert(link, record)
    assert record.read_text() == MAT


def test_whole_records_are_not_reported_cut_short(tmp_path: Path) -> None:
    for path in DATA.glob("*.mat"):
        assert mat.cut_short(mat.loads(path.read_text())) is None, path.name
        convert(path, tmp_path / "x.sgf")
    with pytest.raises(RecordParseError):
        convert(DATA / "match_3pt.sgf", tmp_path / "x.doc")


def test_config_that_is_not_utf8(tmp_path: Path) -> None:
    config = tmp_path / "bot.yaml"
    config.write_bytes((ROOT / "config" / "bot.yaml").read_bytes() + b"\n# J\xf6rg's bot\n")
    _named_error(_fibsbot("config", "check", config), config, "not UTF-8 text (byte 0xf6")
    tournament = tmp_path / "t.yaml"
    tournament.write_bytes(b"name: J\xf6rg\n")
    _named_error(_fibsbot("tournament", tournament), tournament, "not UTF-8 text")


def test_password_file_that_is_not_utf8(tmp_path: Path) -> None:
    from bot.config import Account, password
    from bot.yamlconfig import ConfigError

    secret = tmp_path / "password"
    secret.write_bytes(b"s\xe9cret\n")
    with pytest.raises(ConfigError, match="not UTF-8 text$") as info:
        password(Account(user="bot", password_file=secret), environ={})
    assert "cret" not in str(info.value)
