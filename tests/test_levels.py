"""Levels, move filters and evaluation settings (gnubg's presets)."""

import pytest

from engine.levels import FLAVOURS, LEVEL_NAMES, MOVE_FILTERS, EvalSettings, level
from engine.native import low_ply_efficiency


def test_level_table():
    table = {  # name: (plies, prune, noise, filter) as gnubg's aecSettings
        "beginner": (0, False, 0.06, None), "casual": (0, False, 0.05, None),
        "intermediate": (0, False, 0.04, None), "advanced": (0, False, 0.015, None),
        "expert": (0, False, 0.0, None), "world class": (2, True, 0.0, "normal"),
        "supremo": (2, True, 0.0, "large"), "grandmaster": (3, True, 0.0, "large"),
        "4ply": (4, True, 0.0, "large"),
    }
    assert LEVEL_NAMES == tuple(table)
    for name, (plies, prune, noise, mf) in table.items():
        lv = level(name)
        c = lv.checker
        assert (c.plies, c.prune, c.noise, c.move_filter) == (plies, prune, noise, mf)
        assert c.cubeful and c.deterministic and not c.noise_centred
        assert lv.cube.same_context(c) and lv.cube.move_filter is None
    assert level("world class").cube == level("supremo").cube
    assert level("beginner").label == "beginner" and level("casual").label == "casual play"


@pytest.mark.parametrize("alias", ["World Class", "worldclass", "world_class", "WORLD  CLASS", " world-class "])
def test_aliases(alias):
    assert level(alias).name == "world class"


def test_bad_level_lists_names():
    with pytest.raises(ValueError) as info:
        level("master")
    for name in LEVEL_NAMES:
        assert name in str(info.value)


def test_move_filters_match_gnubg_107_binary():
    # read from the data section of the gnubg 1.07.001 binary; note Huge's 3-ply row: (0, 6, 0.11)
    assert MOVE_FILTERS["huge"][3] == ((0, 20, 0.44), (-1, 0, 0.0), (0, 6, 0.11), (-1, 0, 0.0))
    assert MOVE_FILTERS["tiny"][0] == ((0, 5, 0.08),)
    assert MOVE_FILTERS["narrow"][2] == ((0, 8, 0.12), (-1, 0, 0.0), (0, 2, 0.03))
    assert MOVE_FILTERS["normal"][1] == ((0, 8, 0.16), (-1, 0, 0.0))
    for table in MOVE_FILTERS.values():
        assert [len(row) for row in table] == [1, 2, 3, 4]


def test_eval_settings_validation():
    s = EvalSettings(plies=3, move_filter="Large", noise=0.02, deterministic=False, seed=5)
    assert s.move_filter == "large" and s.filter_table == MOVE_FILTERS["large"]
    assert not s.uses_pruning
    explicit = EvalSettings(plies=1, move_filter=[[(0, 3, 0.1)], [(0, 3, 0.1), (-1, 0, 0)],
                                                  [(0, 3, 0.1), (-1, 0, 0), (0, 2, 0.02)],
                                                  [(0, 3, 0.1), (-1, 0, 0), (0, 2, 0.02), (-1, 0, 0)]],
                            prune=True)
    assert explicit.filter_table[0] == ((0, 3, 0.1),) and explicit.uses_pruning
    assert EvalSettings().filter_table == MOVE_FILTERS["normal"]
    for bad in ({"plies": 5}, {"plies": -1}, {"move_filter": "giant"}, {"noise": -0.1},
                {"threads": 0}, {"move_filter": [[(0, 1, 0.1)]]}, {"seed": -1},
                {"efficiency_set": "gnubg-0.9"}):
        with pytest.raises(ValueError):
            EvalSettings(**bad)


def test_flavours_and_context_comparison():
    assert FLAVOURS == ("gnubg-1.07", "gnubg-1.1")
    modern = level("beginner", flavour="gnubg-1.1")
    assert modern.checker.noise_centred and modern.checker.efficiency_set == "gnubg-1.1"
    for settings, low in ((modern.checker, True), (level("world class", "gnubg-1.1").checker, False),
                          (level("beginner", flavour="gnubg-1.07").checker, False)):
        assert low_ply_efficiency(settings.efficiency_set, settings.plies) is low
    with pytest.raises(ValueError):
        level("expert", flavour="gnubg-2")
    # gnubg ignores prune at 0 plies and determinism without noise
    assert EvalSettings(prune=True).same_context(level("expert").checker)
    assert EvalSettings(deterministic=False).same_context(level("expert").checker)
    assert not EvalSettings(plies=2).same_context(level("world class").checker)
