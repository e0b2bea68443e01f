"""The n-ply search and the decision API (engine/search.py, csrc/search.c) against the
`gnubg` package (gnubg 1.1): chequer play at Expert, World class and the noisy levels,
cube decisions at 0 and 2 plies, resignations, thread independence.

gnubg's findbestmoves lists every play with its score, sorted by score alone (plays
dropped by the move filter keep their shallower score); gnubg plays the best of those
evaluated deepest, which is what our ranking puts first. Two quirks of the package:

* a play's tuple is cut at its first bear-off ((6, 0, 5, 0) comes back as (6,)); such
  a play is matched by that prefix of its steps;
* when the best plays tie exactly (every play loses to a double/pass, or all win),
  its order among them is arbitrary: a different choice with the same score counts as
  a tie, reported apart.

gnubg's evaluation cache is emptied before each query: its content can shift later
answers (gnubg evaluates incrementally, so a cached value differs in the last bits).
"""

from __future__ import annotations

import itertools
import random
import time
from collections import Counter

import pytest

from engine.bench.decide import gnubg_filter, gnubg_tuple_board
from engine.bench.parity import cube_round, flush_gnubg, gnubg_cubeinfo, play_round, random_match_state, steps_fit
from engine.levels import MOVE_FILTERS, EvalSettings, level
from engine.match import MatchState
from engine.position import Move, Position
from engine.sampling import random_bearoff_positions, random_game_positions
from engine.search import best_move, c_settings, cube_decision, default_threads, format_hint

EQ_TOL = 1e-4  # equities of searches (World class) and of 0-ply cube decisions
# gnubg scores 0-ply plays with incremental net evaluations (a play's hidden layer
# updated from another's), which drift from its own fresh evaluate() (ours equals that
# to 1e-6, test_eval_oracle) by up to a few 1e-4 in a probability; cubeful equities
# magnify it. Searches average it out.
EQ_TOL_0PLY_PLAY = 3e-3


@pytest.fixture(scope="module")
def oracle():
    pytest.importorskip("gnubg")
    import gnubg_oracle

    gnubg_oracle.gnubg()
    return gnubg_oracle


def _flush(oracle):
    flush_gnubg(oracle.gnubg())


def _gnubg_filter(name):
    return gnubg_filter(MOVE_FILTERS[name])


_gnubg_cubeinfo = gnubg_cubeinfo


def _map(position, candidates, theirs):
    """Our candidate index for each gnubg entry (None where it cannot be told).

    A complete tuple is matched by the resulting position; a cut one by its steps
    (the order of the steps may differ), and among several fitting plays by the
    closest equity."""
    out, used = [], set()
    for t in theirs:
        tup = t["move"]
        if len(tup) % 2 == 0:
            after = Position(gnubg_tuple_board(position, tup))
            hits = [i for i, c in enumerate(candidates) if c.position == after]
            out.append(hits[0] if len(hits) == 1 else None)
            used.add(out[-1])
            continue
        fits = [i for i, c in enumerate(candidates) if steps_fit(c.move, tup)] or range(len(candidates))
        fits = [i for i in fits if i not in used]
        best = min(fits, key=lambda i: abs(candidates[i].equity - t["score"]), default=None)
        out.append(best if best is not None and abs(candidates[best].equity - t["score"]) < 1e-3 else None)
        used.add(out[-1])
    return out


def compare_play(oracle, eng, position, dice, match, lv, ctx, mf):
    """('agree' | 'tie' | 'differ' | 'unknown' | 'forced', plies searched, the
    |equity differences| of the plays both evaluated deepest)."""
    g = oracle.gnubg()
    ours = best_move(eng, position, dice, match, lv)
    _flush(oracle)
    theirs = g.findbestmoves(position.board, _gnubg_cubeinfo(g, match), ctx, dice, mf)
    if len(ours.candidates) <= 1:
        return "forced", 0, []
    cands = ours.candidates
    deepest = cands[0].plies
    mapped = list(zip(_map(position, cands, theirs), (t["score"] for t in theirs), strict=True))
    if any(i is None for i, _ in mapped) or len({i for i, _ in mapped}) != len(mapped):
        return "unknown", deepest, []
    scores = dict(mapped)
    diffs = [abs(cands[i].equity - s) for i, s in scores.items() if cands[i].plies == deepest]
    top = max(s for i, s in scores.items() if cands[i].plies == deepest)
    choice = [i for i, s in mapped if cands[i].plies == deepest and s == top][0]
    if choice == 0:
        return "agree", deepest, diffs
    if scores[0] == top:
        return "tie", deepest, diffs
    return "differ", deepest, diffs


class Diffs:
    """Equity differences, apart for searched (>= 1 ply) and 0-ply scores."""

    def __init__(self):
        self.searched, self.static = [], []

    def add(self, plies, diffs):
        (self.searched if plies else self.static).extend(diffs)

    def text(self):
        parts = []
        for name, d in (("searched", self.searched), ("0-ply", self.static)):
            if d:
                parts.append(f"{name} plays {len(d)}: max |diff| {max(d):.2e}, "
                             f"> {EQ_TOL:g}: {sum(x > EQ_TOL for x in d)}")
        return "; ".join(parts)

    def check(self):
        assert all(x < EQ_TOL for x in self.searched), max(self.searched)
        # gnubg's 0-ply scores carry its incremental-evaluation drift (see EQ_TOL_0PLY_PLAY)
        assert sum(x > EQ_TOL for x in self.static) <= 0.01 * max(len(self.static), 1)
        assert all(x < EQ_TOL_0PLY_PLAY for x in self.static), max(self.static)


def _report(name, tally, diffs, elapsed):
    decided = tally["agree"] + tally["tie"] + tally["differ"]
    print(f"\n{name}: {dict(tally)}; same play {tally['agree'] / max(decided, 1):.2%}, "
          f"same or tied {(tally['agree'] + tally['tie']) / max(decided, 1):.2%} of {decided}; "
          f"{diffs.text()}; {elapsed:.1f} s")


_money_or_match = random_match_state


# ---- chequer play ----------------------------------------------------------------------------


def test_expert_play_equals_gnubg(oracle, engine):
    g = oracle.gnubg()
    rng = random.Random(11)
    lv = level("expert", flavour="gnubg-1.1")
    ctx, mf = g.evalcontext(1, 0, 1, 0, 0.0), _gnubg_filter("normal")
    tally, diffs, start = Counter(), Diffs(), time.time()
    for p in random_game_positions(2000, seed=101):
        dice = (rng.randint(1, 6), rng.randint(1, 6))
        match = MatchState(length=0, jacoby=True) if rng.random() < 0.7 else _money_or_match(rng)
        verdict, plies, d = compare_play(oracle, engine, p, dice, match, lv, ctx, mf)
        tally[verdict] += 1
        diffs.add(plies, d)
    _report("Expert (0-ply) vs gnubg", tally, diffs, time.time() - start)
    decided = tally["agree"] + tally["tie"] + tally["differ"]
    assert decided >= 1500
    assert tally["differ"] == 0
    assert tally["agree"] >= 0.9 * decided
    assert tally["unknown"] <= 0.01 * decided
    diffs.check()


def test_world_class_play_equals_gnubg(oracle, engine):
    g = oracle.gnubg()
    rng = random.Random(12)
    lv = level("world class", flavour="gnubg-1.1")
    ctx, mf = g.evalcontext(1, 2, 1, 1, 0.0), _gnubg_filter("normal")
    tally, diffs, start = Counter(), Diffs(), time.time()
    for p in random_game_positions(300, seed=102):
        dice = (rng.randint(1, 6), rng.randint(1, 6))
        match = MatchState(length=0, jacoby=True) if rng.random() < 0.6 else _money_or_match(rng)
        verdict, plies, d = compare_play(oracle, engine, p, dice, match, lv, ctx, mf)
        tally[verdict] += 1
        diffs.add(plies, d)
    _report("World class (2-ply, prune, Normal filter) vs gnubg", tally, diffs, time.time() - start)
    decided = tally["agree"] + tally["tie"] + tally["differ"]
    assert decided >= 200
    assert tally["differ"] == 0
    assert tally["agree"] >= 0.9 * decided
    assert len(diffs.searched) >= 500
    diffs.check()


def _dance_positions(n, seed):
    """The side on roll holds four or five home points and the opponent has one
    or two chequers on the bar: many of the opponent's replies are dances, so
    the search meets children equal to an earlier roll's (evaluated once)."""
    rng = random.Random(seed)
    out = []
    while len(out) < n:
        me, opp = [0] * 25, [0] * 25
        for i in rng.sample(range(6), rng.choice([4, 5])):
            me[i] = 2
        while sum(me) < 15:
            me[rng.randrange(6, 24)] += 1
        opp[24] = rng.choice([1, 2])
        while sum(opp) < 15:
            j = rng.randrange(0, 24)
            if me[23 - j] == 0:  # our point 23 - j is its point j
                opp[j] += 1
        out.append(Position.from_board((tuple(opp), tuple(me))))
    return out


@pytest.mark.parametrize("name,n", [("world class", 16), ("grandmaster", 3)])
def test_searches_with_dances_equal_gnubg(oracle, engine, name, n):
    """Rolls whose plays leave the same board (dances against a closed board)
    share one child evaluation: the equities must still be gnubg's."""
    g = oracle.gnubg()
    rng = random.Random(77)
    lv = level(name, flavour="gnubg-1.1")
    ctx, mf = g.evalcontext(1, lv.checker.plies, 1, 1, 0.0), _gnubg_filter(lv.checker.move_filter)
    tally, diffs = Counter(), Diffs()
    for p in _dance_positions(n, seed=5 + n):
        dice = (rng.randint(1, 6), rng.randint(1, 6))
        verdict, searched, d = compare_play(oracle, engine, p, dice, MatchState(length=0, jacoby=True), lv, ctx, mf)
        tally[verdict] += 1
        diffs.add(searched, d)
    assert tally["differ"] == tally["unknown"] == 0, tally
    assert len(diffs.searched) >= n, diffs.text()
    diffs.check()


# (level, chequer decisions, cube decisions): a seeded sample of `python -m engine.bench
# parity`'s sets; gnubg's choice is its findbestmove, a tie is within 1e-6 of it
_ORACLE_SAMPLE = [("world class", 150, 40), ("supremo", 60, 0), ("grandmaster", 8, 6), ("4ply", 3, 1)]


@pytest.mark.parametrize("name,n_play,n_cube", _ORACLE_SAMPLE)
def test_searching_levels_equal_gnubg(oracle, engine, name, n_play, n_cube):
    """Chequer play and cube decisions at the searching levels: money, matches,
    Crawford and post-Crawford, the cube centred and owned; one disagreement fails."""
    g = oracle.gnubg()
    lv = level(name, flavour="gnubg-1.1")
    start = time.time()
    plays = play_round(g, engine, lv, n_play, seed=300 + n_play)
    print(f"\n{plays.line(name + ' chequer play', time.time() - start)} {dict(plays.kinds)}")
    assert not plays.misses, plays.misses[:5]
    decided = plays.counts["agree"] + plays.counts["tie"]
    assert decided >= 0.6 * n_play and plays.counts["differ"] == plays.counts["unknown"] == 0
    if n_cube:
        cubes = cube_round(g, engine, lv, n_cube, seed=400 + n_cube)
        print(cubes.line(f"{name} cube", time.time() - start), dict(cubes.kinds))
        assert not cubes.misses, cubes.misses[:5]
        assert cubes.counts["agree"] == n_cube and cubes.worst < EQ_TOL


@pytest.mark.parametrize("name", ["beginner", "casual", "intermediate", "advanced"])
def test_noisy_levels_equal_gnubg(oracle, engine, name):
    """Deterministic noise, centred as in the `gnubg` package (flavour gnubg-1.1)."""
    g = oracle.gnubg()
    lv = level(name, flavour="gnubg-1.1")
    rng = random.Random(13)
    ctx, mf = g.evalcontext(1, 0, 1, 0, lv.checker.noise), _gnubg_filter("normal")
    tally, diffs, start = Counter(), Diffs(), time.time()
    for p in random_game_positions(500, seed=103):
        dice = (rng.randint(1, 6), rng.randint(1, 6))
        match = MatchState(length=0, jacoby=True) if rng.random() < 0.7 else _money_or_match(rng)
        verdict, plies, d = compare_play(oracle, engine, p, dice, match, lv, ctx, mf)
        tally[verdict] += 1
        diffs.add(plies, d)
    _report(f"{name} (noise {lv.checker.noise}) vs gnubg", tally, diffs, time.time() - start)
    decided = tally["agree"] + tally["tie"] + tally["differ"]
    assert decided >= 350
    assert tally["differ"] == 0
    assert tally["agree"] >= 0.9 * decided
    diffs.check()


def test_biased_noise_changes_play(engine):
    """The default flavour keeps gnubg's x86 bias: a Beginner plays differently from
    the centred one on some positions, and from Expert on many."""
    rng = random.Random(14)
    positions = random_game_positions(200, seed=104)
    differ_flavour = differ_expert = 0
    for p in positions:
        dice = (rng.randint(1, 6), rng.randint(1, 6))
        biased = engine.best_move(p, dice, level="beginner").move
        centred = engine.best_move(p, dice, level=level("beginner", flavour="gnubg-1.1")).move
        expert = engine.best_move(p, dice, level="expert").move
        differ_flavour += biased != centred
        differ_expert += biased != expert
    assert differ_flavour >= 10 and differ_expert >= 20


# ---- cube decisions -----------------------------------------------------------------------------


@pytest.mark.parametrize("plies", [0, 2])
def test_cube_decisions_equal_gnubg(oracle, engine, plies):
    rng = random.Random(20 + plies)
    lv = level("expert" if plies == 0 else "world class", flavour="gnubg-1.1")
    oracle.command(f"set evaluation cubedecision evaluation plies {plies}")
    oracle.command(f"set evaluation cubedecision evaluation prune {'on' if plies else 'off'}")
    positions = random_game_positions(820, seed=105 + plies) + random_bearoff_positions(80, rng)
    rng.shuffle(positions)
    tally, kinds = Counter(), Counter()
    compared = unavailable = 0
    worst, big = 0.0, []
    mismatches = []
    beavers_now = None
    start = time.time()
    try:
        for p in positions:
            match = _money_or_match(rng)
            beavers = match.length == 0 and rng.random() < 0.5
            if beavers != beavers_now:
                oracle.command(f"set beavers {3 if beavers else 0}")
                beavers_now = beavers
            ours = engine.cube_decision(p, match, lv, beavers=beavers)
            _flush(oracle)
            ref = oracle.cube_hint(p.position_id(), match.match_id())
            if ref is None:  # gnubg: "You cannot double."
                unavailable += 1
                assert not ours.cube_available, (p.position_id(), match)
                assert ours.action == "You cannot double"
                continue
            assert ours.cube_available, (p.position_id(), match)
            compared += 1
            tally[ref["proper"]] += 1
            kinds["money" if match.length == 0 else "post-Crawford" if match.post_crawford
                  else "2-away/2-away" if match.away(0) == match.away(1) == 2 else "match"] += 1
            kinds["cube owned"] += match.cube_owner != -1
            diff = max(abs(a - b) for a, b in zip(ours.equities, (ref["nd"], ref["dt"], ref["dp"]), strict=True))
            worst = max(worst, diff)
            if diff > EQ_TOL:
                big.append((p.position_id(), match.match_id(), diff))
            if ours.action != ref["proper"]:
                mismatches.append((p.position_id(), match.match_id(), ours.action, ref["proper"]))
    finally:
        oracle.command("set beavers 3")
        oracle.command("set evaluation cubedecision evaluation plies 0")
        oracle.command("set evaluation cubedecision evaluation prune off")
    print(f"\ncube {plies}-ply vs gnubg: compared {compared}, cube unavailable {unavailable}, "
          f"same action {1 - len(mismatches) / compared:.2%}, max |diff| {worst:.2e} "
          f"(> {EQ_TOL}: {len(big)}), {time.time() - start:.1f} s")
    print(dict(tally))
    print(dict(kinds))
    assert not mismatches, mismatches[:5]
    assert compared >= 500
    assert len(tally) >= 6
    assert kinds["money"] >= 150 and kinds["post-Crawford"] >= 30 and kinds["2-away/2-away"] >= 15
    assert kinds["cube owned"] >= 100
    assert worst < EQ_TOL, big[:5]


# ---- resignation -------------------------------------------------------------------------------------


def test_resignation_through_engine(oracle, engine):
    g = oracle.gnubg()
    rng = random.Random(30)
    hopeless = []
    while len(hopeless) < 12:
        me, opp = [0] * 25, [0] * 25
        for _ in range(rng.randint(1, 3)):
            opp[rng.randrange(3)] += 1
        low = rng.choice([0, 6, 12, 18])
        for _ in range(rng.choice([15, 15, 14])):
            me[rng.randrange(low, min(low + 6, 21))] += 1
        hopeless.append(Position.from_board((tuple(opp), tuple(me))))
    races = [p for p in random_game_positions(600, seed=106) if g.classify(p.board) <= 8][:12]
    offered, accepted = Counter(), Counter()
    for p in hopeless + races:
        mover = rng.randrange(2)
        match = MatchState(length=0, on_roll=mover, turn=mover, jacoby=False) if rng.random() < 0.5 else \
            MatchState(length=7, score=(rng.randrange(7), rng.randrange(7)), on_roll=mover, turn=mover,
                       jacoby=False)
        ours = engine.resign_offer(p, match, "world class")
        assert ours == oracle.bot_resigns(p.position_id(), match.match_id()), (p.position_id(), match)
        offered[ours] += 1
        # the other side (the bot) is offered a resignation: its view is swapped
        value = ours or rng.choice([1, 2, 3])
        bot_view = p.swap()
        bot_match = match.with_(on_roll=1 - mover, turn=1 - mover)
        before, after, accept = oracle.resign_hint(p.position_id(), match.match_id(), value)
        assert engine.accept_resignation(bot_view, bot_match, "expert", value) == accept
        accepted[accept] += 1
    print("\noffers", dict(offered), "accepts", dict(accepted))
    assert offered[0] >= 3 and sum(offered[k] for k in (1, 2, 3)) >= 8
    assert accepted[True] >= 5 and accepted[False] >= 2
    p = Position.initial()
    assert engine.resign_offer(p) == 0
    # a resignation at the start is a gift: accepted
    assert engine.accept_resignation(p, MatchState(length=0, jacoby=False), "expert", 1)
    # the resigner (the other side, on roll) loses a gammon for sure: a single is refused,
    # except with the Jacoby rule and a centred cube, where gammons do not count
    resigner = Position.from_board(((1,) + (0,) * 24, (0,) * 12 + (15,) + (0,) * 12))
    bot_view = resigner.swap()
    assert not engine.accept_resignation(bot_view, MatchState(length=0, jacoby=False), "expert", 1)
    assert engine.accept_resignation(bot_view, MatchState(length=0, jacoby=False), "expert", 2)
    assert engine.accept_resignation(bot_view, None, "expert", 1)


# ---- API, threads, determinism -------------------------------------------------------------------


def test_results_do_not_depend_on_threads(engine):
    rng = random.Random(40)
    lv = level("world class")
    for p in random_game_positions(12, seed=107):
        dice = (rng.randint(1, 6), rng.randint(1, 6))
        match = _money_or_match(rng)
        one = best_move(engine, p, dice, match, lv, threads=1)
        two = best_move(engine, p, dice, match, lv, threads=2)
        four = best_move(engine, p, dice, match, lv, threads=4)
        assert [(c.move, c.equity, c.probabilities, c.plies) for c in one.candidates] == \
            [(c.move, c.equity, c.probabilities, c.plies) for c in two.candidates] == \
            [(c.move, c.equity, c.probabilities, c.plies) for c in four.candidates]
        a = cube_decision(engine, p, match, lv, threads=1)
        b = cube_decision(engine, p, match, lv, threads=2)
        assert a == b
    assert default_threads() >= 1


def test_decision_api(engine):
    p = Position.initial()
    d = engine.best_move(p, (3, 1))
    assert str(d.move) == "8/5 6/5" and d.level == "expert"
    assert d.candidates[0].move == d.move and d.candidates[0].plies == 0
    assert len(d.candidates) == len(p.legal_moves(3, 1))
    assert all(a.equity >= b.equity for a, b in itertools.pairwise(d.candidates))
    assert d.candidates[0].position == p.play(d.move)
    # a gnubg match ID: the mover is match.on_roll
    match = MatchState.from_match_id("cInqACAAIAAE")
    d2 = engine.best_move(Position.from_position_id("4HPwATDgc/ABMA"), match.dice, match, "world class")
    assert d2.level == "world class" and d2.move.steps
    # Level and EvalSettings objects
    s = EvalSettings(plies=1, move_filter="tiny", prune=True)
    d3 = engine.best_move(p, (6, 5), level=s)
    assert str(d3.move) == "24/13" and d3.candidates[0].plies == 1
    assert engine.best_move(p, (6, 5), level=level("supremo")).move == Move.parse("24/13")
    # no legal play: the empty move
    blocked = Position.from_board(((2,) * 6 + (0,) * 19, (0,) * 24 + (15,)))
    d4 = engine.best_move(blocked, (6, 6))
    assert d4.move == Move() and [c.move for c in d4.candidates] == [Move()]
    # cube decisions and n-ply evaluation
    cd = engine.cube_decision(p, None, "world class")
    assert not cd.should_double and cd.should_take and cd.cube_available
    ev = engine.evaluate_nply(p, None, "world class")
    assert 0.45 < ev.probabilities.win < 0.55 and ev.plies == 2
    with pytest.raises(ValueError):
        engine.best_move(p, (7, 1))
    with pytest.raises(ValueError):
        engine.best_move(p, (3, 1), level="grand master")
    assert c_settings(level("world class").checker) is c_settings(level("world class").checker)


def test_format_hint(engine):
    p = Position.initial()
    text = format_hint(engine, p, (3, 1), None, "world class")
    assert "8/5 6/5" in text and "Eq.:" in text and "[world class]" in text
    text = format_hint(engine, p, None, MatchState(length=7, score=(2, 4), on_roll=1, turn=1), "expert")
    assert "Proper cube action:" in text and "No double" in text and "7-point match" in text


def test_hint_of_a_dance_says_there_is_no_legal_move(engine, capsys):
    """gnubg 1.07 (``set board 27YBADjg8+ADQA``, ``set dice 3 1``, ``hint``) prints
    "There are no legal moves." for this checker on the bar against a closed board."""
    from bot.cli import main

    dance = Position.from_position_id("27YBADjg8+ADQA")
    assert not engine.best_move(dance, (3, 1)).move
    text = format_hint(engine, dance, (3, 1), None, "expert")
    assert text.splitlines()[1:] == ["Dice 31: There are no legal moves."]
    assert main(["hint", "27YBADjg8+ADQA", "--dice", "31"]) == 0
    assert "There are no legal moves." in capsys.readouterr().out


def test_search_internals_match_references(engine):
    from engine._core import ffi, lib

    boards = [list(p.board[0]) + list(p.board[1]) for p in random_game_positions(400, seed=108)]
    rng = random.Random(50)
    for _ in range(300):  # stacks and bars
        b = [0] * 50
        for side in range(2):
            for _ in range(rng.randint(0, 15)):
                b[25 * side + rng.choice([24, 0, 5, 7, rng.randrange(25)])] += 1
        boards.append(b)
    flat = ffi.new("unsigned int[]", [c for b in boards for c in b])
    assert lib.bg_search_selftest_prune(engine.native._c, flat, len(boards)) == 0
    assert lib.bg_search_selftest_results(flat, 400) == 0
