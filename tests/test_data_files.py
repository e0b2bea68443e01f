"""Data files: where they are found, and missing / truncated / corrupted files
giving DataFileError naming the file (never a crash or silently wrong numbers)."""

import importlib.util
import os
import shutil
from pathlib import Path

import pytest

from engine import data
from engine._core import ffi, lib
from engine.errors import DataFileError
from engine.evaluator import Engine
from engine.match import MatchState
from engine.position import Position

SOURCE = data.locate()


def gnubg_package_data_dir() -> Path | None:
    """The gnubg package's data folder (the test oracle; it also has the text weights)."""
    spec = importlib.util.find_spec("gnubg")
    for location in (spec.submodule_search_locations or ()) if spec else ():
        if (Path(location) / "data").is_dir():
            return Path(location) / "data"
    return None


PACKAGE_DIR = gnubg_package_data_dir()
NAMES = {"wd": "gnubg.wd", "weights": "gnubg.weights", "os": "gnubg_os0.bd", "ts": "gnubg_ts0.bd"}


def make_dir(tmp_path, weights: str = "wd", skip: str | None = None):
    """A data folder with one weights format and both bearoff files (copies)."""
    folder = tmp_path / "data"
    folder.mkdir(exist_ok=True)
    for key in (weights, "os", "ts"):
        if key != skip:
            shutil.copyfile(PACKAGE_DIR / NAMES[key], folder / NAMES[key])
    return folder


def corrupt(path, offset: int | None = None, xor: int = 0xFF, truncate: int | None = None):
    raw = bytearray(path.read_bytes())
    if truncate is not None:
        raw = raw[:truncate]
    if offset is not None:
        raw[offset % len(raw)] ^= xor
    path.write_bytes(bytes(raw))


def assert_load_fails(folder, name: str, verify: bool = True) -> str:
    with pytest.raises(DataFileError) as info:
        Engine(folder, verify=verify)
    assert name in str(info.value), str(info.value)
    return str(info.value)


@pytest.mark.skipif(PACKAGE_DIR is None, reason="gnubg package data not installed")
class TestCorruptFiles:
    @pytest.mark.parametrize("weights", ["wd", "weights"])
    def test_both_weights_formats_load_the_same_nets(self, tmp_path, weights):
        engine = Engine(make_dir(tmp_path, weights))
        assert engine.files.weights.name == NAMES[weights]
        digests = ffi.new("unsigned long long[3]")
        lib.bg_engine_digests(engine.native._c, digests)
        reference = Engine()
        ref_digests = ffi.new("unsigned long long[3]")
        lib.bg_engine_digests(reference.native._c, ref_digests)
        assert list(digests) == list(ref_digests)
        p = Position.initial()
        assert engine.evaluate(p) == reference.evaluate(p)

    @pytest.mark.parametrize("skip,message", [("wd", "gnubg.wd or gnubg.weights"),
                                              ("os", "gnubg_os0.bd"), ("ts", "gnubg_ts0.bd")])
    def test_missing(self, tmp_path, skip, message):
        assert_load_fails(make_dir(tmp_path, "wd", skip=skip), message)

    @pytest.mark.parametrize("key", ["wd", "weights", "os", "ts"])
    @pytest.mark.parametrize("fraction", [0.0, 0.001, 0.5, 0.999])
    def test_truncated(self, tmp_path, key, fraction):
        folder = make_dir(tmp_path, "weights" if key == "weights" else "wd")
        path = folder / NAMES[key]
        corrupt(path, truncate=int(path.stat().st_size * fraction))
        for verify in (True, False):  # structural checks catch it even without digests
            assert_load_fails(folder, NAMES[key], verify=verify)

    @pytest.mark.parametrize("key", ["wd", "weights", "os", "ts"])
    @pytest.mark.parametrize("where", [0, 5, 9, 13, 24, 41, 1000, 0.25, 0.5, 0.75, -2])
    def test_byte_flipped(self, tmp_path, key, where):
        folder = make_dir(tmp_path, "weights" if key == "weights" else "wd")
        path = folder / NAMES[key]
        size = path.stat().st_size
        offset = int(size * where) if isinstance(where, float) else where % size
        if key == "weights":
            # text: make sure the flip lands on a digit of a number and changes it
            raw = path.read_bytes()
            while not (chr(raw[offset]).isdigit() and raw[offset - 1:offset] not in (b"", b"\n")):
                offset += 1
            corrupt(path, offset, xor=0x04)  # '1'<->'5', '2'<->'6', ...: still a digit
        else:
            corrupt(path, offset)
        assert_load_fails(folder, NAMES[key])

    def test_unverified_load_accepts_other_numbers(self, tmp_path):
        folder = make_dir(tmp_path, "weights")
        path = folder / "gnubg.weights"
        text = path.read_text().splitlines(keepends=True)
        text[3] = "0.0000000\n"  # the second hidden weight of input 0
        path.write_text("".join(text))
        assert_load_fails(folder, "gnubg.weights")  # verified: not gnubg's 1.01 weights
        Engine(folder, verify=False)  # a well-formed file of another net loads on request

    def test_wrong_files(self, tmp_path):
        folder = make_dir(tmp_path, "wd")
        shutil.copyfile(folder / "gnubg_ts0.bd", folder / "gnubg_os0.bd")
        assert_load_fails(folder, "gnubg_os0.bd", verify=False)
        (tmp_path / "b").mkdir()
        folder2 = make_dir(tmp_path / "b", "wd")
        (folder2 / "gnubg.wd").write_bytes(b"GNU Backgammon 0.99\n250 128 5 0 0.1 1.0\n")
        assert "0.99" in assert_load_fails(folder2, "gnubg.wd", verify=False)
        (folder2 / "gnubg.wd").write_bytes(b"")
        assert_load_fails(folder2, "gnubg.wd", verify=False)

    def test_unreadable_path(self, tmp_path):
        folder = make_dir(tmp_path, "wd")
        os.remove(folder / "gnubg.wd")
        (folder / "gnubg.wd").mkdir()  # a folder where the file should be
        assert_load_fails(folder, "gnubg.wd")


class TestLocate:
    def test_default_is_the_data_shipped_in_the_package(self, monkeypatch):
        monkeypatch.delenv(data.ENV_VAR, raising=False)
        files = data.locate()
        assert files.weights.parent == data.packaged_data_dir()
        assert files.weights.name in data.WEIGHTS_NAMES
        assert files.bearoff_os.name == "gnubg_os0.bd" and files.bearoff_ts.name == "gnubg_ts0.bd"
        assert files.met is not None and data.find_met() == files.met

    @pytest.mark.skipif(PACKAGE_DIR is None, reason="gnubg package data not installed")
    def test_shipped_files_equal_gnubgs_published_files(self):
        shipped = data.packaged_data_dir()
        for name in ("gnubg.wd", "gnubg_os0.bd", "gnubg_ts0.bd", "met/Kazaross-XG2.xml"):
            assert (shipped / name).read_bytes() == (PACKAGE_DIR / name).read_bytes(), name

    def test_engine_uses_the_met_of_its_data_dir(self, tmp_path):
        good, broken = tmp_path / "good", tmp_path / "broken"
        for folder in (good, broken):
            shutil.copytree(data.packaged_data_dir(), folder)
        assert Engine(good).met.path == str(good / data.MET_NAME)
        (broken / data.MET_NAME).write_text("not xml")
        with pytest.raises(DataFileError, match="Kazaross-XG2.xml"):
            Engine(broken).cube_decision(Position.initial(), MatchState(length=5))

    def test_explicit_and_environment_folders_win(self, tmp_path, monkeypatch):
        if PACKAGE_DIR is None:
            pytest.skip("gnubg package data not installed")
        folder = make_dir(tmp_path, "weights")
        assert data.locate(folder).weights == folder / "gnubg.weights"
        monkeypatch.setenv(data.ENV_VAR, str(folder))
        assert data.locate().weights == folder / "gnubg.weights"
        assert data.locate().met is None  # no MET copied there, and no fallback to elsewhere
        with pytest.raises(DataFileError, match="Kazaross-XG2.xml"):
            data.find_met()
        assert Engine().files.weights == folder / "gnubg.weights"

    def test_empty_folder(self, tmp_path):
        with pytest.raises(DataFileError, match="not found"):
            data.locate(tmp_path)
