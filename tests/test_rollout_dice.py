"""gnubg's rollout dice: the quasi-random tables and generators checked against
gnubg, and every roll of gnubg's own rollout logs (tests/data)."""

import json
import pathlib

from engine._core import ffi, lib
from engine.rollout import RNGS

DATA = pathlib.Path(__file__).parent / "data" / "rollout_dice_gnubg.json"


def rolls(seed, trials, plies, *, quasi=True, initial=False, rng="sfmt", first=0):
    out = ffi.new("int[]", trials * plies * 2)
    lib.bg_rollout_dice(seed, int(quasi), int(initial), RNGS.index(rng), first, trials, plies, out)
    return [[f"{out[(t * plies + p) * 2]}{out[(t * plies + p) * 2 + 1]}" for p in range(plies)]
            for t in range(trials)]


def test_isaac_test_vector():
    r = ffi.new("bg_isaac *")
    lib.bg_isaac_seed(r, 1)
    assert [lib.bg_isaac_next(r) for _ in range(6)] == [3423417137, 17862171, 3951211379, 1190656558,
                                                       235895503, 3432856557]


def test_quasi_random_tables_of_the_spec():
    got = rolls(1, 10, 4)
    assert [" ".join(t) for t in got] == [
        "63 52 64 63", "54 32 51 11", "43 42 62 54", "55 11 65 52", "42 62 42 42",
        "33 31 22 31", "51 54 61 32", "53 66 62 55", "21 63 21 42", "61 41 41 43"]
    first = " ".join(t[0] for t in rolls(1, 36, 1))
    assert first == ("63 54 43 55 42 33 51 53 21 61 32 66 43 52 53 62 62 63 42 11 51 52 21 44 65 31 "
                     "54 31 61 22 41 64 64 65 32 41")


def test_generators_of_the_spec():
    assert [" ".join(t) for t in rolls(7, 3, 4, quasi=False)] == ["51 33 62 66", "54 63 66 62", "52 43 52 33"]
    assert [" ".join(t) for t in rolls(7, 3, 4, quasi=False, rng="mt19937")] == [
        "21 52 63 53", "42 65 44 54", "42 44 41 44"]
    assert [" ".join(t) for t in rolls(12345, 3, 3, initial=True)] == ["63 41 21", "41 31 53", "61 41 11"]
    assert [" ".join(t) for t in rolls(12345, 3, 3, initial=True, rng="mt19937")] == [
        "21 21 52", "42 32 53", "21 62 53"]


def test_stratification():
    # every aligned block of 36 trials sees each ordered roll once at every ply;
    # every block of 1296 sees each pair (ply 0, ply 1) once
    got = rolls(424242, 1296, 3)
    for block in range(0, 1296, 36):
        for p in range(3):
            seen = sorted(t[p] for t in got[block:block + 36])
            assert seen == sorted(f"{max(a, b)}{min(a, b)}" for a in range(1, 7) for b in range(1, 7))
    pairs = {}
    for t in got:
        pairs[(t[0], t[1])] = pairs.get((t[0], t[1]), 0) + 1
    assert pairs[("11", "11")] == 1 and pairs[("21", "21")] == 4 and sum(pairs.values()) == 1296


def test_dice_equal_gnubg_logs():
    cases = json.loads(DATA.read_text())["cases"]
    for case in cases:
        logged = [t.split() for t in case["trials"]]
        plies = max(map(len, logged))
        ours = rolls(case["seed"], len(logged), plies, quasi=case["quasi_random"], initial=case["initial"],
                     rng=case["rng"])
        for t, trial in enumerate(logged):
            assert ours[t][:len(trial)] == trial, f"seed {case['seed']} trial {t}"
        assert sum(map(len, logged)) >= 1000
