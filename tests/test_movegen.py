"""Legal play generation: oracle against gnubg, perft counts, properties."""

from collections import Counter

import gnubg
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.errors import IllegalMoveError
from engine.position import Move, Position, Step
from engine.sampling import ALL_ROLLS, random_game_positions

gnubg.command("set threads 1")


def gnubg_plays(position: Position, dice: tuple[int, int]) -> list[tuple[int, ...]]:
    context = gnubg.evalcontext(0, 0, 1, 0, 0.0)
    return [e["move"] for e in gnubg.findbestmoves(position.board, gnubg.cubeinfo(), context, dice)]


def agrees_with_gnubg(position: Position, dice: tuple[int, int]) -> bool:
    """Same set of resulting positions as gnubg.

    gnubg's move tuples stop at the first bear-off (a known quirk of the
    package), so a cut tuple is matched by its known steps instead.
    """
    ours = position.legal_plays(*dice)
    theirs = gnubg_plays(position, dice)
    if not theirs:
        return len(ours) == 1 and not ours[0][0].steps
    if len(theirs) != len(ours):
        return False
    n_steps = max(len(m.steps) for m, _ in ours)
    complete, cut = set(), []
    for t in theirs:
        if len(t) == 2 * n_steps and 0 not in t[1:-1:2]:
            complete.add(position.play(Move.from_pairs(zip(t[::2], t[1::2], strict=True))))
        else:
            cut.append(t)
    results = {r for _, r in ours}
    if not complete <= results:
        return False
    rest = [m for m, r in ours if r not in complete]
    if len(rest) != len(cut):
        return False
    for t in cut:
        known = Counter([(t[i], t[i + 1]) for i in range(0, len(t) - 1, 2)] + ([(t[-1], 0)] if len(t) % 2 else []))
        if not any(not known - Counter((s.src, s.dst) for s in m.steps) for m in rest):
            return False
    return True


def test_oracle_2000_positions_all_rolls():
    positions = random_game_positions(2000, seed=2024)
    kinds = Counter()
    failures = []
    for p in positions:
        kinds["bar" if p.board[1][24] else "race" if p.is_race() else "contact"] += 1
        for dice in ALL_ROLLS:
            if not agrees_with_gnubg(p, dice):
                failures.append((p.position_id(), dice))
    print(f"\nmovegen oracle: {len(positions)} positions x 21 rolls, kinds {dict(kinds)}, "
          f"{len(failures)} disagreements")
    assert kinds["bar"] > 50 and kinds["race"] > 50
    assert failures == []


# Perft-style signature: total plays over all 21 rolls for fixed positions.
PERFT = {
    "4HPwATDgc/ABMA": 447,   # opening position, equal to gnubg's count
    "4HPwATDgc/ABMA#31": 16,
    "4HPwATDgc/ABMA#66": 11,
}


@pytest.mark.parametrize("key,count", sorted(PERFT.items()))
def test_perft_counts(key, count):
    pid, _, roll = key.partition("#")
    p = Position.from_position_id(pid)
    rolls = [(int(roll[0]), int(roll[1]))] if roll else ALL_ROLLS
    assert sum(len(p.legal_moves(*r)) for r in rolls) == count


def test_perft_signature_random_set():
    positions = random_game_positions(200, seed=7)
    total = sum(len(p.legal_moves(*r)) for p in positions for r in ALL_ROLLS)
    assert total == 110247  # verified by the gnubg oracle above; moves only with a reason


def test_bar_enters_first_and_blocked_bar_has_no_play():
    closed = [2, 2, 2, 2, 2, 2] + [0] * 19
    me = [0] * 25
    me[24], me[12] = 1, 14
    p = Position.from_board([closed, me])
    assert [str(m) for m in p.legal_moves(6, 5)] == [""]


def test_larger_die_when_only_one_can_be_played():
    # Our only checker on the 24-point; the 6 (to 18) and the 5 (to 19) are open,
    # but 24/18/17 and 24/19/13 are blocked: only one die can be played, the 6.
    me = [0] * 25
    me[23] = 1
    opp = [0] * 25
    for our_point in (17, 13):
        opp[24 - our_point] = 2
    p = Position.from_board([opp, [c if i != 0 else 14 for i, c in enumerate(me)]])
    assert [str(m) for m in p.legal_moves(6, 5)] == ["24/18"]


def test_play_rejects_illegal():
    p = Position.initial()
    with pytest.raises(IllegalMoveError):
        p.play(Move.parse("24/18 24/13"), dice=(3, 1))
    with pytest.raises(IllegalMoveError):
        p.play(Move.parse("6/off"))
    with pytest.raises(IllegalMoveError):
        Move.parse("24/xx")


positions_strategy = st.integers(0, 10_000).map(lambda s: random_game_positions(1, seed=s)[0])
dice_strategy = st.tuples(st.integers(1, 6), st.integers(1, 6))


@settings(max_examples=200, deadline=None)
@given(positions_strategy, dice_strategy)
def test_plays_keep_15_checkers(position, dice):
    before = [sum(position.board[s]) for s in (0, 1)]
    for move, result in position.legal_plays(*dice):
        off = sum(1 for s in move.steps if s.dst == 0)
        hits = sum(1 for s in move.steps if s.hit)
        assert sum(result.board[1]) == before[1] - off
        assert sum(result.board[0]) == before[0]
        assert result.board[0][24] == position.board[0][24] + hits
        assert Move.parse(str(move)) == move
        assert position.play(move) == result
        assert position.play(Move.parse(str(move))) == result
        assert position.play(move, dice) == result


@settings(max_examples=300, deadline=None)
@given(st.lists(st.tuples(st.integers(1, 25), st.integers(1, 6), st.booleans()), min_size=0, max_size=4))
def test_move_text_round_trip(raw):
    move = Move(Step(src, max(src - d, 0), hit and src - d > 0) for src, d, hit in raw)
    assert Move.parse(str(move)) == move


def test_legal_play_to_finds_each_play_by_its_result():
    for position in random_game_positions(60, seed=11):
        for dice in ALL_ROLLS:
            plays = position.legal_plays(*dice)
            for move, result in plays:
                assert position.legal_play_to(*dice, result) == move
            # a position no play of this roll reaches (the one before it) is not found
            if plays and plays[0][1] != position:
                assert position.legal_play_to(*dice, position) is None
