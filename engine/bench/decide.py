"""``python -m engine.bench decide`` and ``python -m engine.bench --signature``.

``decide`` times whole decisions on the fixed seeded position set (random games,
seeded dice), ours against the `gnubg` package (one thread, as gnubg's library
build plays), both caches emptied before each timed run:

* World class chequer play (2-ply, pruning, Normal filter): gnubg ``findbestmove``
  against ``Engine.best_move`` with 1 and 2 threads; Expert (0-ply) too;
* cube decisions at 0 ply (Expert) and 2 plies (World class): gnubg has no cube
  call in its library API, so it is timed two ways: its ``hint`` command (CPU time
  of the process; the wall time adds about 10 ms of waiting per call) and its
  cubeful ``evaluate`` of the position (the search alone, one cube position
  instead of a decision's two); ours is ``Engine.cube_decision``.

It also prints how often the two engines agree on those sets.

``--signature`` prints a checksum of the plays, equities and cube decisions that
every level chooses on a fixed set (like a chess engine's ``bench``): any change
that moves it must say why. The exact float bits enter the checksum.
"""

from __future__ import annotations

import argparse
import hashlib
import random
import struct
import time
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from engine.bench.harness import SEED, Timed, best_rates, captured, gnubg_cubeinfo, quiet_gnubg, row, silently
from engine.sampling import random_game_positions

if TYPE_CHECKING:
    from engine.evaluator import Engine
    from engine.levels import FilterTable, Level
    from engine.match import MatchState
    from engine.position import Board, Position


def gnubg_filter(table: FilterTable) -> list[dict[str, float]]:
    """A move-filter table as the gnubg package's findbestmove takes it."""
    return [{"ply": n + 1, "level": k, "acceptmoves": a, "extramoves": e, "threshold": t}
            for n in range(4) for k, (a, e, t) in enumerate(table[n])]


def gnubg_tuple_board(position: Position, tup: Sequence[int]) -> Board | None:
    """Board after a gnubg move tuple (None when the package cut it at a bear-off)."""
    if len(tup) % 2:
        return None
    opp, me = list(position.board[0]), list(position.board[1])
    for i in range(0, len(tup), 2):
        fr, to = tup[i], tup[i + 1]
        me[fr - 1] -= 1
        if to > 0:
            me[to - 1] += 1
            if opp[24 - to] == 1:
                opp[24 - to] = 0
                opp[24] += 1
    return (tuple(opp), tuple(me))


def match_score(text: str) -> MatchState:
    """``--match LENGTH:A-B``: a match of LENGTH points at score A-B, the side
    on roll on A.

    >>> match_score("7:2-3").score
    (2, 3)
    """
    from engine.match import MatchState

    try:
        length, score = text.split(":")
        a, b = (int(x) for x in score.split("-"))
        return MatchState(length=int(length), score=(a, b))
    except ValueError as exc:
        raise argparse.ArgumentTypeError(f"expected LENGTH:A-B such as 7:2-3, got {text!r} ({exc})") from None


def run_decide(args: argparse.Namespace) -> None:
    from engine.evaluator import Engine
    from engine.levels import level
    from engine.match import MatchState

    gnubg = silently(quiet_gnubg)
    engine = Engine()
    rng = random.Random(SEED)
    positions = random_game_positions(max(args.positions, 300), seed=SEED)
    dice = [(rng.randint(1, 6), rng.randint(1, 6)) for _ in positions]
    if args.match:
        state = args.match
        cube = gnubg_cubeinfo(gnubg, state)
        where = f"a {state.length}-point match at {state.score[0]}-{state.score[1]}"
    else:
        state = MatchState(length=0, jacoby=True)
        cube = gnubg.cubeinfo(1, -1, 0, 0, (0, 0), 0, 0)
        where = "money play, Jacoby"
    repeats = 5

    def flush_gnubg() -> None:
        silently(gnubg.command, "set cache 1024")
        silently(gnubg.command, "set cache 65536")

    print(f"decide: seeded positions from random games (seed {SEED}), {where}, centred cube;")
    print(f"  gnubg {gnubg.version} on 1 thread; ours on {engine.kernel}; best of {repeats} interleaved runs, "
          "caches emptied")

    def chequer(name: str, n: int, ctx: Any, flavour_level: Level) -> None:
        ps, ds = positions[:n], dice[:n]
        mf = gnubg_filter(flavour_level.checker.filter_table)

        def theirs() -> int:
            flush_gnubg()
            for p, d in zip(ps, ds, strict=True):
                gnubg.findbestmove(p.board, cube, ctx, d, mf)
            return n

        def ours(threads: int) -> Callable[[], int]:
            def run() -> int:
                engine.clear_cache()
                for p, d in zip(ps, ds, strict=True):
                    engine.best_move(p, d, state, flavour_level, threads=threads)
                return n
            return run

        same = told = 0
        for p, d in zip(ps, ds, strict=True):
            after = gnubg_tuple_board(p, gnubg.findbestmove(p.board, cube, ctx, d, mf))
            if after is None:
                continue
            told += 1
            same += engine.best_move(p, d, state, flavour_level).candidates[0].position.board == after
        print(f"  {name} on {n} positions (same play as gnubg: {same}/{told} where its tuple is whole)")
        reference, one, two = best_rates([theirs, ours(1), ours(2)], repeats)
        row("gnubg findbestmove", reference)
        row("ours Engine.best_move, 1 thread", one, reference)
        row("ours Engine.best_move, 2 threads", two, reference)

    wc = level("world class", flavour="gnubg-1.1")
    chequer("World class chequer play (2-ply, prune, Normal filter)", min(args.positions, 100),
            gnubg.evalcontext(1, 2, 1, 1, 0.0), wc)
    chequer("Expert chequer play (0-ply)", min(args.positions, 1000),
            gnubg.evalcontext(1, 0, 1, 0, 0.0), level("expert", flavour="gnubg-1.1"))

    def cube_bench(name: str, plies: int, n: int, lv: Level) -> None:
        ps = positions[:n]
        mid = state.match_id()
        for c in (f"set evaluation cubedecision evaluation plies {plies}",
                  f"set evaluation cubedecision evaluation prune {'on' if plies else 'off'}"):
            silently(gnubg.command, c)
        ctx = gnubg.evalcontext(1, plies, 1, int(plies > 0), 0.0)

        def hint() -> int:
            flush_gnubg()
            for p in ps:
                silently(gnubg.setgnubgid, f"{p.position_id()}:{mid}")
                captured(gnubg.command, "hint")
            return n

        def evaluate() -> int:
            flush_gnubg()
            for p in ps:
                gnubg.evaluate(p.board, cube, ctx)
            return n

        def ours(threads: int) -> Callable[[], int]:
            def run() -> int:
                engine.clear_cache()
                for p in ps:
                    engine.cube_decision(p, state, lv, threads=threads)
                return n
            return run

        print(f"  {name} on {n} positions")
        runs: list[Timed | tuple[Timed, Callable[[], float]]] = [(hint, time.process_time), evaluate, ours(1)]
        reference, search, one, *two = best_rates(runs + ([ours(2)] if plies else []), repeats)
        row("gnubg hint (CPU time)", reference)
        row("gnubg evaluate, cubeful (the search alone)", search, reference)
        row("ours Engine.cube_decision, 1 thread", one, reference)
        for rate in two:
            row("ours Engine.cube_decision, 2 threads", rate, reference)
        silently(gnubg.command, "set evaluation cubedecision evaluation plies 0")
        silently(gnubg.command, "set evaluation cubedecision evaluation prune off")

    cube_bench("Cube decisions at 0 ply (Expert)", 0, min(args.positions, 300), level("expert", flavour="gnubg-1.1"))
    cube_bench("Cube decisions at 2 plies (World class)", 2, min(args.positions, 60), wc)


# ---- signature -------------------------------------------------------------------------------

# (level, positions): the deeper levels see fewer positions
_SIGNATURE_SET = (("beginner", 40), ("casual", 40), ("intermediate", 40), ("advanced", 40),
                  ("expert", 40), ("world class", 20), ("supremo", 8), ("grandmaster", 2), ("4ply", 1))


def signature_lines(engine: Engine | None = None) -> list[str]:
    """One line per level (plays, equities and cube decisions hashed), then the total."""
    from engine.evaluator import Engine
    from engine.levels import level
    from engine.match import MatchState

    engine = engine or Engine()
    rng = random.Random(SEED + 1)
    positions = random_game_positions(40, seed=SEED + 1)
    dice = [(rng.randint(1, 6), rng.randint(1, 6)) for _ in positions]
    states = [MatchState(length=0, jacoby=True), MatchState(length=7, score=(3, 5), on_roll=1, turn=1),
              MatchState(length=5, score=(4, 2), cube=2, cube_owner=1, on_roll=1, turn=1)]
    # the 4-ply level searches a short race, roll 42 (a contact position takes many seconds)
    race = [p for p in random_game_positions(3000, seed=SEED + 2)
            if p.is_race() and 60 < sum(p.pip_counts()) < 100][1:2]
    total = hashlib.sha256()
    lines = []
    for name, n in _SIGNATURE_SET:
        lv = level(name)
        h = hashlib.sha256()
        start = time.perf_counter()
        chosen = positions[:n] if name != "4ply" else race
        # the first n rolls; the 4-ply race (one position, or none if the seed finds none) rolls 42
        for i, (p, d) in enumerate(zip(chosen, dice if name != "4ply" else [(4, 2)], strict=False)):
            match = states[i % len(states)]
            decision = engine.best_move(p, d, match, lv)
            best = decision.candidates[0] if decision.candidates else None
            h.update(str(decision.move).encode())
            if best is not None:
                h.update(struct.pack("<6f", best.equity, *best.probabilities))
            if name != "4ply":
                cd = engine.cube_decision(p, match, lv)
                h.update(struct.pack("<i3f", cd.code, *cd.equities))
        digest = h.hexdigest()[:16]
        total.update(digest.encode())
        lines.append(f"  {name:<13} {len(chosen):3d} positions  {digest}  ({time.perf_counter() - start:.1f} s)")
    lines.append(f"signature {total.hexdigest()[:16]}")
    return lines


def run_signature(args: argparse.Namespace) -> None:
    print("signature: plays, equities and cube decisions at every level (default flavour), exact bits")
    for line in signature_lines():
        print(line)
