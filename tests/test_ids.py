"""Position and match IDs: known vectors (the opening's 4HPwATDgc/ABMA as in gnubg's manual),
round trips, gnubg as the oracle."""

import random

import gnubg
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.errors import BoardParseError
from engine.match import CENTRED, MatchState
from engine.position import Position
from engine.sampling import random_game_positions

INITIAL = [0, 0, 0, 0, 0, 5, 0, 3, 0, 0, 0, 0, 5, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2, 0]

POSITION_VECTORS = [
    (INITIAL, INITIAL, "4HPwATDgc/ABMA"),
    ([0, 0, 0, 6, 1, 0, 0, 0, 0, 0, 2, 0, 2, 0, 0, 0, 0, 0, 0, 0, 1, 0, 3, 0, 0],
     [2, 0, 5, 0, 0, 5, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 1], "+AVmgBzz8QEQRA"),
    ([0, 1, 0, 0, 0, 6, 0, 2, 1, 1, 0, 0, 2, 0, 0, 0, 0, 0, 0, 1, 0, 0, 1, 0, 0],
     [1, 0, 1, 2, 0, 3, 2, 0, 0, 0, 1, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2, 2], "ws+KARFpbkgAbA"),
    ([6, 0, 2, 0, 2, 0, 3, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0],
     [4, 2, 1] + [0] * 22, "PzMHBARvAQAAAA"),
    ([4] + [0] * 24, [2, 1, 1] + [0] * 22, "DwAAYAUAAAAAAA"),
]


@pytest.mark.parametrize("opp,me,pid", POSITION_VECTORS)
def test_position_id_vectors(opp, me, pid):
    p = Position.from_board([opp, me])
    assert p.position_id() == pid
    assert Position.from_position_id(pid) == p


def test_position_id_round_trip_10000_and_gnubg():
    positions = random_game_positions(10_000, seed=11)
    for i, p in enumerate(positions):
        pid = p.position_id()
        assert Position.from_position_id(pid) == p
        if i % 10 == 0:
            assert pid == gnubg.positionid(p.board)


@pytest.mark.parametrize("bad", ["", "4HPwATDgc/ABM", "4HPwATDgc/AB!A", "////////////AA", "4HPwATDgc/ABMAA"])
def test_bad_position_ids(bad):
    with pytest.raises(BoardParseError):
        Position.from_position_id(bad)


def test_bad_boards():
    with pytest.raises(BoardParseError, match="16 checkers"):
        Position.from_board([INITIAL, [1] + INITIAL[1:]])
    with pytest.raises(BoardParseError, match="negative"):
        Position.from_board([INITIAL, [-1] + INITIAL[1:]])
    with pytest.raises(BoardParseError, match="same point"):
        Position.from_board([[0] * 25, [0] * 24 + [0]] and [[1] + [0] * 24, [0] * 23 + [1, 0]])
    with pytest.raises(BoardParseError):
        Position.from_board([INITIAL])


MATCH_VECTORS = [
    (MatchState(), "MAEAAAAAAAAA"),
    (MatchState(length=7, score=(2, 4), on_roll=1, turn=1, dice=(5, 2)), "cInqACAAIAAE"),
    (MatchState(length=5, score=(4, 2), cube=4, cube_owner=0, dice=(3, 6)), "AgGvAEAAEAAE"),
    (MatchState(length=9, score=(8, 3), cube=2, cube_owner=1, on_roll=1, turn=1, doubled=True), "URkgAYAAGAAE"),
    (MatchState(length=11, score=(10, 7), crawford_game=True, dice=(6, 6)), "sAF7AaAAOAAE"),
]


@pytest.mark.parametrize("state,mid", MATCH_VECTORS)
def test_match_id_vectors(state, mid):
    assert state.match_id() == mid
    back = MatchState.from_match_id(mid)
    assert back.match_id() == mid
    assert ((back.length, back.score, back.cube, back.cube_owner)
            == (state.length, state.score, state.cube, state.cube_owner))


def test_match_ids_against_gnubg():
    rng = random.Random(5)
    compared = 0
    for _ in range(800):
        length = rng.choice([0, 1, 3, 5, 7, 11, 25])
        score = (rng.randrange(length), rng.randrange(length)) if length else (0, 0)
        cube = 1 << rng.randrange(7)
        owner = rng.choice([CENTRED, 0, 1])
        on_roll = rng.randrange(2)
        crawford = bool(length and rng.random() < 0.2)
        dice = (rng.randint(1, 6), rng.randint(1, 6)) if rng.random() < 0.7 else None
        state = MatchState(length=length, score=score, cube=cube, cube_owner=owner, on_roll=on_roll,
                           turn=on_roll, crawford_game=crawford, jacoby=not length, dice=dice)
        try:  # gnubg refuses some cube/score combinations it would never reach
            ci = gnubg.cubeinfo(cube, 2 if owner == CENTRED else owner, on_roll, length, score, int(crawford), 0)
        except RuntimeError:
            continue
        pi = gnubg.posinfo(on_roll, 0, 0, 1, tuple(sorted(dice, reverse=True)) if dice else (0, 0))
        assert state.match_id() == gnubg.matchid(ci, pi), state
        compared += 1
    assert compared >= 400


@pytest.mark.parametrize("bad", ["", "MAEAAAAAAAA", "MAEAAAAAAA!A", "////////////"])
def test_bad_match_ids(bad):
    with pytest.raises(BoardParseError):
        MatchState.from_match_id(bad)


@settings(max_examples=300, deadline=None)
@given(st.integers(0, 100_000))
def test_position_id_property(seed):
    p = random_game_positions(1, seed=seed)[0]
    assert Position.from_position_id(p.position_id()) == p
    assert p.swap().swap() == p
