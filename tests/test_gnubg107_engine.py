"""gnubg 1.07's weights as the package ships them, and the engine's 1.07 arithmetic.

Loaded with 1.07's weights (engine/gnubg_data/gnubg-1.07.wd, format 1.00) the
engine evaluates its nets as Debian's gnubg 1.07 does (its SSE build: the
hidden sigmoid by approximate reciprocal, the output sums paired (0+1)+(2+3))
and adds its one-sided bear-off sums term by term; every kernel of the CPU gives
the same bits. ``fibsbot serve --external``
answers as gnubg 1.07 by default (bot.serve.emulation). The comparison with
Debian's gnubg itself is tests/test_serve_gnubg.py.
"""

from __future__ import annotations

import pathlib
import shutil

import numpy as np
import pytest

from bot.serve.emulation import DEBIAN_WEIGHTS, EXTERNAL_FLAVOUR, Emulation, emulation
from engine import Engine, Position
from engine.data import GNUBG_107_WEIGHTS, packaged_data_dir, packaged_gnubg107_weights

DATA = pathlib.Path(__file__).parent / "data"


def positions() -> list[Position]:
    ids = []
    for name in ("serve_gnubg_positions.txt", "serve_gnubg_race_positions.txt"):
        ids += [i.strip() for i in (DATA / name).read_text().splitlines() if i.strip() and not i.startswith("#")]
    return [Position.from_position_id(i) for i in ids]


def test_shipped_weights_load_verified() -> None:
    engine = Engine(weights=GNUBG_107_WEIGHTS)  # verify=True: the digest of 1.07's nets
    assert engine.files.weights == packaged_gnubg107_weights()
    assert packaged_gnubg107_weights().read_bytes()[4:8] == bytes([0, 0, 0x80, 0x3F])  # version 1.00 as shipped
    assert engine.kernel.endswith("-rcp") or engine.kernel == "generic"
    assert not Engine().kernel.endswith("-rcp")


@pytest.mark.skipif(not DEBIAN_WEIGHTS.is_file(), reason="Debian's gnubg is not installed (apt-get install gnubg)")
def test_shipped_weights_equal_debians() -> None:
    assert packaged_gnubg107_weights().read_bytes() == DEBIAN_WEIGHTS.read_bytes()


def test_every_kernel_gives_the_same_bits(monkeypatch: pytest.MonkeyPatch) -> None:
    boards = positions()
    reference = Engine(weights=GNUBG_107_WEIGHTS)
    if reference.kernel == "generic":
        pytest.skip("no x86 SIMD: the approximate reciprocal is an x86 instruction")
    want = reference.evaluate_many(boards)
    seen = {reference.kernel}
    for forced in ("sse2", "avx2", "generic"):
        monkeypatch.setenv("FIBSBOT_KERNEL", forced)
        engine = Engine(weights=GNUBG_107_WEIGHTS, cache_log2=0)
        seen.add(engine.kernel)
        assert np.array_equal(engine.evaluate_many(boards), want), engine.kernel
    assert "sse2-rcp" in seen and len(seen) >= 2


def test_every_kernel_searches_alike(monkeypatch: pytest.MonkeyPatch) -> None:
    """World class plays through each kernel: the pruning nets' batched finishes and the
    paired contact evaluations of a search give the same equities to the bit."""
    from engine.levels import level
    lv = level("world class", flavour="gnubg-1.07")
    boards = [p for p in positions() if p.legal_moves(6, 3)][::12]
    assert len(boards) >= 20

    def equities(engine: Engine) -> list[list[float]]:
        return [[c.equity for c in engine.best_move(p, (6, 3), None, lv, max_candidates=8).candidates]
                for p in boards]
    reference = Engine(weights=GNUBG_107_WEIGHTS)
    if reference.kernel == "generic":
        pytest.skip("no x86 SIMD: the approximate reciprocal is an x86 instruction")
    want = equities(reference)
    for forced in ("sse2", "avx2"):
        monkeypatch.setenv("FIBSBOT_KERNEL", forced)
        assert equities(Engine(weights=GNUBG_107_WEIGHTS, cache_log2=0)) == want, forced


def test_the_rule_changes_race_evaluations() -> None:
    """Both weights files hold the same race net; the 1.07 arithmetic moves its outputs by up
    to ~1e-3 (gnubg 1.07's numbers: tests/test_serve_gnubg.py)."""
    race = [p for p in positions() if Engine().classify(p).name == "RACE"]
    assert len(race) >= 200
    gaps = np.abs(Engine(weights=GNUBG_107_WEIGHTS).evaluate_many(race) - Engine().evaluate_many(race)).max(axis=1)
    assert (gaps > 1e-5).sum() >= len(race) // 5
    assert 1e-4 < gaps.max() < 5e-3


def test_external_default_is_gnubg_107(tmp_path: pathlib.Path) -> None:
    assert EXTERNAL_FLAVOUR == "gnubg-1.07"
    assert emulation(None, None, None, external=True) == Emulation(packaged_gnubg107_weights(), "gnubg-1.07")
    assert emulation(None, None, None, external=False) == Emulation(None, None)  # HTTP: the library's default
    assert emulation("gnubg-1.1", None, None, external=True) == Emulation(None, "gnubg-1.1")
    assert emulation("gnubg-1.07", None, None, external=False) == Emulation(packaged_gnubg107_weights(), "gnubg-1.07")
    other = tmp_path / "other.wd"
    shutil.copyfile(packaged_data_dir() / "gnubg.wd", other)
    assert emulation(None, other, None, external=True) == Emulation(other, "gnubg-1.07", verify=False)
    folder = tmp_path / "data"
    folder.mkdir()
    shutil.copyfile(packaged_gnubg107_weights(), folder / GNUBG_107_WEIGHTS)
    assert emulation(None, None, folder, external=True).weights == folder / GNUBG_107_WEIGHTS
