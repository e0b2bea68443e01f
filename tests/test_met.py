"""MET parsing, extension to 64 points and lookups, against gnubg's own tables."""

import json
import pathlib

import numpy as np
import pytest

from engine.errors import DataFileError
from engine.met import default_met, load_met

DATA = pathlib.Path(__file__).parent / "data"
# gnubg extends in single precision with its own erf rounding: a few cells of the
# computed part differ by one float ulp near 1 (6e-8).
ULP = 1.2e-7


def _gnubg_tables():
    ref = json.loads((DATA / "met-kazaross-xg2-64.json").read_text())
    return np.array(ref["pre"], dtype=np.float32), np.array([ref["post0"], ref["post1"]], dtype=np.float32)


def test_kazaross_extended_equals_gnubg_golden():
    met = default_met()
    pre, post = _gnubg_tables()
    assert met.name == "Kazaross XG2 25 point MET" and met.length == 25
    # the file's 25x25 part is copied exactly
    assert np.array_equal(met.pre[:25, :25], pre[:25, :25])
    assert np.abs(met.pre - pre).max() <= ULP
    # post-Crawford: exact, including gnubg's quirk of regenerating the file's 25th entry
    assert np.array_equal(met.post, post)
    assert round(float(met.post[0][24]) * 100, 4) == 0.1181


def test_kazaross_equals_live_gnubg():
    gnubg = pytest.importorskip("gnubg")
    met = default_met()
    pre, p0, p1 = (np.array(t, dtype=np.float32) for t in gnubg.met(64))
    assert np.abs(met.pre - pre).max() <= ULP
    assert np.array_equal(met.post[0], p0) and np.array_equal(met.post[1], p1)


def test_other_table_equals_gnubg(tmp_path):
    pytest.importorskip("gnubg")
    from gnubg_oracle import command, gnubg

    g = gnubg()
    path = DATA / "met-rockwell-kazaross.xml"
    met = load_met(path)
    try:
        command(f"set matchequitytable {path}")
        pre, p0, p1 = (np.array(t, dtype=np.float32) for t in g.met(64))
    finally:
        command(f"set matchequitytable {default_met().path}")
    assert np.abs(met.pre - pre).max() <= ULP
    assert np.array_equal(met.post[0], p0) and np.array_equal(met.post[1], p1)


def test_lookups_follow_getme():
    met = default_met()
    # pre-Crawford corner and symmetry
    assert met.mwc((0, 0), 5, 0) == pytest.approx(0.5)
    assert met.mwc_away(1, 2) == pytest.approx(0.67736)
    assert met.mwc_away(3, 7) == pytest.approx(1 - met.mwc_away(7, 3), abs=1e-6)
    # winning the match
    assert met.mwc((3, 0), 5, 0, points=2, winner=0) == 1.0
    assert met.mwc((3, 0), 5, 1, points=2, winner=0) == 0.0
    # Crawford game: a result is read from the post-Crawford row of the trailer
    assert met.mwc((4, 2), 5, 1, points=1, winner=1, crawford=True) == pytest.approx(0.48803)  # -> post-Crawford 1a-2a
    # post-Crawford 1-away/2-away: the trailer's MWC is 0.48803 (free drop)
    assert met.mwc((4, 3), 5, 1) == pytest.approx(0.48803)
    assert met.mwc((4, 3), 5, 0) == pytest.approx(1 - 0.48803)
    # gammon prices at 5-point 0-0 (gnubg's `show gammonvalues`): gammon value 0.45674, bg value 1.07521
    from engine.cube import cube_info
    from engine.match import MatchState

    ci = cube_info(MatchState(length=5), 0)
    gp, bp = ci.gammon_price[0], ci.gammon_price[2]
    assert gp / 2 == pytest.approx(0.45674, abs=1e-5)
    assert (gp + bp) / 2 == pytest.approx(1.07521, abs=1e-5)


def test_c_lookup_matches_python():
    from engine._core import lib

    met = default_met()
    table = met.c_table()
    for length in (1, 3, 7, 13, 25, 40, 64):
        for s0 in range(0, length, max(1, length // 5)):
            for s1 in range(0, length, max(1, length // 4)):
                for crawford in (False, True):
                    for pts, w, pl in ((1, 0, 0), (2, 1, 1), (4, 0, 1), (6, 1, 0)):
                        a = lib.bg_met_mwc(table._c, s0, s1, length, pl, pts, w, int(crawford))
                        b = met.mwc((s0, s1), length, pl, pts, w, crawford)
                        assert a == pytest.approx(b, abs=1e-7)


def test_gammon_prices_equal_gnubg():
    gnubg = pytest.importorskip("gnubg")
    from engine.cube import cube_info
    from engine.match import MatchState

    checked = 0
    for length in (2, 3, 5, 7, 9, 15, 25):
        for s0 in range(length):
            for s1 in range(length):
                for cube in (1, 2, 4):
                    crawford = (length - max(s0, s1) == 1) and length - min(s0, s1) > 1 and cube == 1
                    ref = gnubg.cubeinfo(cube, -1, 0, length, (s0, s1), int(crawford), 0)["gammonprice"]
                    ci = cube_info(MatchState(length=length, score=(s0, s1), cube=cube,
                                              crawford_game=crawford), 0)
                    ours = list(ci.gammon_price)
                    want = [ref[0][0], ref[1][0], ref[0][1], ref[1][1]]
                    assert ours == pytest.approx(want, abs=2e-6), (length, s0, s1, cube)
                    checked += 1
    assert checked > 1000


@pytest.mark.parametrize("text, fragment", [
    ("<met><info><length>2</length></info></met>", "lacks"),
    ("not xml at all", "cannot read"),
    ("<met><info><length>2</length></info><pre-crawford-table type='explicit'><row><me>0.5</me>"
     "<me>0.6</me></row><row><me>0.4</me><me>0.5</me></row></pre-crawford-table>"
     "<post-crawford-table type='explicit' player='both'><row><me>0.5</me><me>x</me></row>"
     "</post-crawford-table></met>", "bad MET value"),
    ("<met><info><length>3</length></info><pre-crawford-table type='explicit'><row><me>0.5</me>"
     "</row></pre-crawford-table><post-crawford-table type='explicit'><row><me>0.5</me></row>"
     "</post-crawford-table></met>", "not 3 x 3"),
    ("<met><info><length>-1</length></info><pre-crawford-table type='zadeh'/>"
     "<post-crawford-table type='zadeh'/></met>", "parametric"),
])
def test_corrupt_file_is_a_clear_error(tmp_path, text, fragment):
    path = tmp_path / "bad.xml"
    path.write_text(text)
    with pytest.raises(DataFileError) as info:
        load_met(path)
    assert str(path) in str(info.value) and fragment in str(info.value)


def test_missing_file(tmp_path):
    with pytest.raises(DataFileError, match="not found"):
        load_met(tmp_path / "nope.xml")
