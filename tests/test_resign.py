"""Resignation offers and acceptance against gnubg (its bot's offers and its resignation hint)."""

import random
from collections import Counter

import pytest

from engine.match import MatchState
from engine.position import Position
from engine.resign import accept_resignation, check_resignation, resign_offer
from engine.sampling import random_game_positions


def _state(rng, mover):
    if rng.random() < 0.45:
        cube = rng.choice([1, 1, 2, 4])
        owner = -1 if cube == 1 else rng.choice([0, 1])
        return MatchState(length=0, cube=cube, cube_owner=owner, on_roll=mover, turn=mover,
                          jacoby=rng.random() < 0.5)
    length = rng.choice([1, 3, 5, 7, 11])
    score = (rng.randrange(length), rng.randrange(length))
    crawford = length - max(score) == 1 and length - min(score) > 1 and rng.random() < 0.5
    cube = 1 if crawford else rng.choice([1, 1, 2])
    owner = -1 if cube == 1 else rng.choice([0, 1])
    return MatchState(length=length, score=score, cube=cube, cube_owner=owner, on_roll=mover,
                      turn=mover, crawford_game=crawford, jacoby=False)


def _hopeless(rng):
    """Races the side on roll surely loses, often with a certain gammon or backgammon."""
    me, opp = [0] * 25, [0] * 25
    for _ in range(rng.randint(1, 3)):
        opp[rng.randrange(3)] += 1
    low = rng.choice([0, 6, 12, 18])
    for _ in range(rng.choice([15, 15, 14, 9])):
        me[rng.randrange(low, min(low + 6, 21))] += 1
    return Position.from_board((tuple(opp), tuple(me)))


def test_accept_equals_gnubg_hint():
    pytest.importorskip("gnubg")
    import gnubg_oracle as O

    g = O.gnubg()
    rng = random.Random(77)
    tally = Counter()
    n = 0
    for p in random_game_positions(500, seed=23):
        probs = O.evaluate(p.board)
        cls = g.classify(p.board)
        if probs[0] > 0.5 and rng.random() < 0.8:
            continue
        mover = rng.randrange(2)
        match = _state(rng, mover)
        # gammonish positions with a low offer, to get rejections too
        level = 1 if probs[3] > 0.25 and rng.random() < 0.7 else rng.choice([1, 2, 3])
        before, after, accept = O.resign_hint(p.position_id(), match.match_id(), level)
        ours = check_resignation(probs, level, match, mover)
        assert ours.accept == accept, (p.position_id(), match, level, probs, before, after, ours)
        # gnubg prints the accepter's view with 3 decimals
        assert -ours.before == pytest.approx(before, abs=6e-4)
        assert -ours.after == pytest.approx(after, abs=6e-4)
        tally[("race" if cls <= 8 else "contact", "accept" if accept else "reject")] += 1
        n += 1
    print("\n", n, dict(tally))
    assert n >= 150
    assert all(tally[(k, v)] >= 10 for k in ("race", "contact") for v in ("accept", "reject"))


def test_offers_equal_gnubg_bot():
    pytest.importorskip("gnubg")
    import gnubg_oracle as O

    g = O.gnubg()
    rng = random.Random(5)
    races = [p for p in random_game_positions(2500, seed=5) if g.classify(p.board) <= 8][:80]
    contact = [p for p in random_game_positions(100, seed=6) if g.classify(p.board) > 8][:15]
    cases = [_hopeless(rng) for _ in range(50)] + races + contact
    tally = Counter()
    for p in cases:
        mover = rng.randrange(2)
        match = _state(rng, mover)
        probs = O.evaluate(p.board)
        ref = O.bot_resigns(p.position_id(), match.match_id())
        ours = resign_offer(probs, g.classify(p.board), match, mover)
        assert ours == ref, (p.position_id(), match, probs)
        tally[ref] += 1
    print("\n", dict(tally))
    assert tally[0] >= 20 and tally[1] >= 10 and tally[2] >= 5 and tally[3] >= 3


def test_offer_rules():
    certain_gammon = (0.0, 0.0, 0.0, 1.0, 0.0)
    money = MatchState(length=0, jacoby=False)
    assert resign_offer(certain_gammon, 8, money, 0) == 2
    assert resign_offer(certain_gammon, 8, money.with_(jacoby=True), 0) == 1  # Jacoby, centred
    assert resign_offer(certain_gammon, 8, money.with_(jacoby=True, cube=2, cube_owner=1), 0) == 2
    assert resign_offer(certain_gammon, 10, money, 0) == 0  # never with contact
    assert resign_offer((0.0, 0.0, 0.0, 1.0, 1.0), 6, money, 0) == 3
    assert resign_offer((0.0, 0.0, 0.0, 0.0, 0.0), 6, money, 0) == 1
    assert resign_offer((0.0, 0.0, 0.0, 0.5, 0.0), 8, money, 0) == 0  # gammon uncertain
    assert resign_offer((0.001, 0.0, 0.0, 0.0, 0.0), 8, money, 0) == 0
    assert resign_offer(certain_gammon, 8, money, 0, declined=2) == 0
    assert resign_offer(certain_gammon, 8, money, 0, declined=1) == 2
    # match: at DMP a gammon is worth no more than a single game, the utilities tie
    dmp = MatchState(length=5, score=(4, 4))
    assert resign_offer(certain_gammon, 8, dmp, 0) == 2  # gnubg tries the highest level first


def test_accept_rules():
    money = MatchState(length=0, jacoby=False)
    # the resigner still has chances: a single resignation is worth accepting
    assert accept_resignation((0.2, 0.0, 0.0, 0.1, 0.0), 1, money, 0)
    # a likely gammon: refuse a single, accept a gammon
    assert not accept_resignation((0.02, 0.0, 0.0, 0.6, 0.0), 1, money, 0)
    assert accept_resignation((0.02, 0.0, 0.0, 0.6, 0.0), 2, money, 0)
    # Jacoby with a centred cube: gammons do not count, a single always suffices
    assert accept_resignation((0.0, 0.0, 0.0, 0.9, 0.5), 1, None, 0)
    with pytest.raises(ValueError):
        accept_resignation((0.0, 0.0, 0.0, 0.9, 0.5), 4, None, 0)
