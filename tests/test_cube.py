"""Cube decisions (Janowski money and match, classification) against gnubg's 0-ply cube hint.

gnubg's own 0-ply probabilities (gnubg.evaluate) are fed to our cube code, so
this measures the cube layer alone. The `gnubg` PyPI package is gnubg 1.1: its
0-1 ply cube efficiencies differ from 1.07's, hence efficiency_set="gnubg-1.1".
"""

import random
from collections import Counter

import pytest

from engine.cube import ACTIONS, CLASS_CONTACT, CLASS_RACE, cube_decision_from_probabilities, cube_info, efficiency
from engine.match import MatchState
from engine.native import cube_exact_money
from engine.position import Position
from engine.sampling import random_bearoff_positions, random_game_positions


def _scenario(rng):
    """A random cube state: (MatchState, beavers) with the side on roll = on_roll."""
    mover = rng.randrange(2)
    kind = rng.random()
    if kind < 0.4:  # money
        cube = rng.choice([1, 1, 2, 4])
        owner = -1 if cube == 1 else rng.choice([mover, mover, 1 - mover])
        return MatchState(length=0, cube=cube, cube_owner=owner, on_roll=mover, turn=mover,
                          jacoby=rng.random() < 0.5), rng.random() < 0.5
    length = rng.choice([1, 2, 3, 4, 5, 7, 9, 11, 13, 17, 25])
    score = [rng.randrange(length), rng.randrange(length)]
    special = rng.random()
    if special < 0.1 and length >= 2:
        score = [length - 2, length - 2]  # 2-away / 2-away
    elif special < 0.3 and length >= 2:  # post-Crawford, the trailer on roll mostly
        lead = rng.randrange(2)
        score[lead] = length - 1
        score[1 - lead] = rng.randrange(length - 1)
        if rng.random() < 0.8:
            mover = 1 - lead
    crawford = (length - max(score) == 1 and length - min(score) > 1 and rng.random() < 0.3)
    cube = 1 if crawford else rng.choice([1, 1, 1, 2, 4, 8])
    owner = -1 if cube == 1 else rng.choice([mover, mover, 1 - mover])
    return MatchState(length=length, score=tuple(score), cube=cube, cube_owner=owner, on_roll=mover,
                      turn=mover, crawford_game=crawford, jacoby=False), False


def test_cube_decisions_equal_gnubg_0ply():
    pytest.importorskip("gnubg")
    import gnubg_oracle as O

    g = O.gnubg()
    engine = O.c_engine()
    assert engine is not None
    rng = random.Random(2024)
    positions = random_game_positions(850, seed=99) + random_bearoff_positions(100, rng)
    rng.shuffle(positions)
    tally, kinds = Counter(), Counter()
    compared = unavailable = 0
    worst = 0.0
    mismatches = []
    beavers_now = None
    try:
        for p in positions:
            match, beavers = _scenario(rng)
            if beavers != beavers_now:
                O.command(f"set beavers {3 if beavers else 0}")
                beavers_now = beavers
            board = p.board
            cls = g.classify(board)
            probs = O.evaluate(board)
            ours = cube_decision_from_probabilities(probs, cls, match, match.on_roll, position=p,
                                                    beavers=beavers, engine_ctx=engine,
                                                    efficiency_set="gnubg-1.1")
            ref = O.cube_hint(p.position_id(), match.match_id())
            if ref is None:  # gnubg: "You cannot double."
                unavailable += 1
                assert not ours.cube_available, (match, ours)
                continue
            assert ours.cube_available, match
            compared += 1
            tally[ref["proper"]] += 1
            kinds["money" if match.length == 0 else "crawford-later" if match.post_crawford
                  else "2a-2a" if match.away(0) == match.away(1) == 2 else "match"] += 1
            kinds["owned cube"] += match.cube_owner != -1
            kinds[f"class {cls}"] += 1
            diff = max(abs(ours.equities.nd - ref["nd"]), abs(ours.equities.dt - ref["dt"]),
                       abs(ours.equities.dp - ref["dp"]))
            worst = max(worst, diff)
            if ours.action != ref["proper"] or diff > 1e-4:
                mismatches.append((p.position_id(), match.match_id(), beavers, ours, ref["proper"],
                                   ref["nd"], ref["dt"], ref["dp"]))
    finally:
        O.command("set beavers 3")
    print(f"\ncompared {compared}, cube unavailable {unavailable}, worst |diff| {worst:.2e}")
    print(dict(tally))
    print(dict(kinds))
    assert not mismatches, mismatches[:5]
    assert compared >= 500
    assert unavailable >= 50
    assert len(tally) >= 8  # a spread of decision classes
    assert kinds["crawford-later"] >= 30 and kinds["2a-2a"] >= 10 and kinds["money"] >= 150
    assert kinds["class 4"] + kinds["class 5"] >= 30


def test_spec_example_money_race_owned_cube():
    # as printed by gnubg 1.07.001 (`eval`): race, 69 pips for the side on roll, W 0.755, no gammons, cube owned
    # by the side on roll, gnubg 1.07 efficiency x = 0.63625
    me = [0] * 25
    me[5], me[4], me[3], me[2] = 9, 2, 1, 1  # 54 + 10 + 4 + 3 = 71 pips ... adjust below
    me[5], me[4], me[3], me[2], me[1] = 7, 4, 1, 2, 1  # 42 + 20 + 4 + 6 + 2 = 74
    me = [0] * 25
    me[5], me[4], me[3] = 5, 6, 1  # 30 + 30 + 4 = 64; plus 5 more pips below
    me[4] += 1  # 69
    opp = [0] * 25
    opp[0] = 3
    board = (tuple(opp), tuple(me))
    assert sum((i + 1) * n for i, n in enumerate(me)) == 69
    assert efficiency(board, CLASS_RACE) == pytest.approx(0.63625)
    match = MatchState(length=0, cube=2, cube_owner=0, on_roll=0, turn=0, jacoby=True)
    d = cube_decision_from_probabilities((0.755, 0, 0, 0, 0), CLASS_RACE, match, 0, position=board)
    assert d.equities.nd == pytest.approx(0.750, abs=6e-4)
    assert d.equities.dt == pytest.approx(0.864, abs=6e-4)
    assert d.equities.dp == 1.0
    assert d.action == "Redouble, take" and d.should_double


def _classify(match, nd, dt, dp, wg=0.1, beavers=True):
    ci = cube_info(match, match.on_roll, beavers=beavers)
    code, optimal = ci.classify(nd, dt, dp, wg)
    return ACTIONS[code], optimal


def test_classification_rules():
    money = MatchState(length=0, jacoby=False)
    owned = MatchState(length=0, cube=2, cube_owner=0, jacoby=False)
    m7 = MatchState(length=7)
    assert _classify(money, 0.3, 0.5, 1.0) == ("Double, take", pytest.approx(0.5))
    assert _classify(owned, 0.3, 0.5, 1.0)[0] == "Redouble, take"
    assert _classify(m7, 0.3, 0.3 + 5e-6, 1.0)[0] == "Optional double, take"
    assert _classify(m7, 0.6, 1.3, 1.0) == ("Double, pass", pytest.approx(1.0))
    assert _classify(m7, 1.0 - 5e-6, 1.3, 1.0)[0] == "Optional double, pass"
    assert _classify(m7, 1.0 - 5e-6, 1.3, 1.0, wg=0.0)[0] == "Double, pass"
    assert _classify(m7, 1.2, 1.5, 1.0)[0] == "Too good to double, pass"
    assert _classify(m7, 1.2, 1.5, 1.0, wg=0.0)[0] == "Double, pass"
    assert _classify(m7, 1.2, 0.9, 1.0)[0] == "Too good to double, take"
    assert _classify(owned, 1.2, 0.9, 1.0)[0] == "Too good to redouble, take"
    assert _classify(m7, 0.2, 0.1, 1.0)[0] == "No double, take"
    assert _classify(money, 0.2, -0.1, 1.0)[0] == "No double, beaver"
    assert _classify(money, 0.2, -0.1, 1.0, beavers=False)[0] == "No double, take"
    assert _classify(money, -0.5, -0.4, 1.0)[0] == "No double, beaver"  # 2 DT < ND
    assert _classify(money, -0.1, -0.04, 1.0)[0] == "Double, beaver"
    # cube not available
    crawford = MatchState(length=5, score=(4, 2), crawford_game=True, on_roll=1)
    assert _classify(crawford, 0.2, 0.5, 1.0)[0] == "Never double, take (dead cube)"
    leader = MatchState(length=5, score=(4, 2), cube=2, cube_owner=0, on_roll=0)
    assert _classify(leader, 0.2, 0.5, 1.0)[0] == "Never redouble, take (dead cube)"
    theirs = MatchState(length=0, cube=2, cube_owner=1, on_roll=0)
    assert _classify(theirs, 0.2, 0.5, 1.0)[0] == "No double (cube not available)"


def test_cube_decision_api():
    # money default: Jacoby, centred, player 0
    d = cube_decision_from_probabilities((0.80, 0.10, 0.0, 0.02, 0.0), CLASS_CONTACT, None)
    assert d.action == "Double, pass" and d.should_double and not d.should_take
    assert d.equities.dp == 1.0 and str(d).startswith("Double, pass")
    # the side on roll's take of a hopeless position: pass
    d = cube_decision_from_probabilities((0.95, 0.0, 0.0, 0.0, 0.0), CLASS_CONTACT,
                                         MatchState(length=7, score=(2, 3), on_roll=1, turn=0), 1)
    assert not d.should_take and d.should_double
    # beaver classes count as takes
    d = cube_decision_from_probabilities((0.40, 0.1, 0.0, 0.1, 0.0), CLASS_CONTACT,
                                         MatchState(length=0, jacoby=False))
    assert d.action == "No double, beaver" and d.should_take and d.should_beaver and not d.should_double
    # market-window pre-check: below the dead-cube double point the bot rolls
    assert 0.0 < d.double_point < 1.0
    # races need the board (pip count) for the efficiency
    with pytest.raises(ValueError):
        cube_decision_from_probabilities((0.5, 0, 0, 0, 0), CLASS_RACE, None)
    with pytest.raises(ValueError):
        cube_decision_from_probabilities((0.5, 0, 0), CLASS_CONTACT, None)


def test_efficiency_sets():
    board = Position.initial().board
    assert efficiency(board, CLASS_CONTACT) == pytest.approx(0.68)
    assert efficiency(board, CLASS_CONTACT, low_ply=True) == pytest.approx(0.76)
    race = ((0,) * 25, (0,) * 20 + (15, 0, 0, 0, 0))  # 15 on the 21-point: 315 pips
    assert efficiency(race, CLASS_RACE) == pytest.approx(0.70)
    assert efficiency(race, CLASS_RACE, low_ply=True) == pytest.approx(0.80)
    assert efficiency(board, 0) == 0.0 and efficiency(board, 6) == pytest.approx(0.6)


def test_long_match_is_clamped_to_64():
    m = MatchState(length=101, score=(10, 90))
    ci = cube_info(m, 0)
    assert ci.match_to == 64 and (ci.match_to - ci.score[0], ci.match_to - ci.score[1]) == (64, 11)


def test_exact_bearoff_values_read_from_database():
    """bg_cube_exact_money against gnubg_ts0.bd read here (4 uint16 per position:
    cubeless, owned, centred, opponent owns; equity = v / 32767.5 - 1)."""
    pytest.importorskip("gnubg")
    import struct
    from math import comb

    from engine.data import find_file

    import gnubg_oracle as O

    engine = O.c_engine()
    data = find_file("gnubg_ts0.bd").read_bytes()
    assert data[:16] == b"gnubg-TS-06-06-1"

    def index(side):  # gnubg's bearoff position index, 6 points x 6 chequers
        j = 5 + sum(side[:6])
        bits = 1 << j
        for i in range(5):
            j -= side[i] + 1
            bits |= 1 << j
        idx, n, r = 0, 12, 6
        while n != r:
            if bits & (1 << (n - 1)):
                idx += comb(n - 1, r)
                r -= 1
            n -= 1
        return idx

    rng = random.Random(3)
    for p in random_bearoff_positions(200, rng):
        opp, me = p.board
        pos = index(me) * 924 + index(opp)
        v = [x / 32767.5 - 1 for x in struct.unpack("<4H", data[40 + 8 * pos:48 + 8 * pos])]
        out = cube_exact_money(engine, [c for row in p.board for c in row])
        assert out is not None
        assert list(out) == pytest.approx([v[2], v[1], v[3]], abs=1e-6)
    assert cube_exact_money(engine, [c for row in Position.initial().board for c in row]) is None


def test_answers_to_double_and_beaver():
    from engine.cube import ACTIONS, CubeDecision, CubeEquities, answer_beaver, answer_double

    def d(name, dt=0.5):
        return CubeDecision(ACTIONS.index(name), CubeEquities(0.0, dt, 1.0), 0.0, True, False, True,
                            False, 0.5)

    assert answer_double(d("Double, take"), money=True) == "take"
    assert answer_double(d("Too good to redouble, pass"), money=False) == "pass"
    assert answer_double(d("Optional double, pass"), money=False) == "pass"
    assert answer_double(d("Never double, take (dead cube)"), money=False) == "take"
    assert answer_double(d("No double, beaver"), money=True) == "beaver"
    assert answer_double(d("No double, beaver"), money=True, beavers_used=3) == "take"
    assert answer_double(d("No double, beaver"), money=True, cube=2048) == "take"
    assert answer_beaver(d("Double, pass"), money=True) == "raccoon"
    assert answer_beaver(d("Double, pass"), money=True, beavers_used=3) == "take"
    assert answer_beaver(d("No double, take", dt=-1.2), money=True) == "pass"
    assert answer_beaver(d("No double, take", dt=-0.4), money=True) == "take"
    assert answer_beaver(d("Double, beaver"), money=True) == "take"
