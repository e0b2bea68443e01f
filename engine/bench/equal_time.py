"""``python -m engine.bench equal-time [--positions N --trials T --time-ratio R --seed S --bank ...]``.

Also ``--matches M --levels L``.

``--positions``: chequer plays (default 200; a fifth as many cube decisions
besides); ``--trials``: rollout trials per judged decision (1296);
``--time-ratio``: our budget over gnubg's time (1); ``--seed``: the
self-play games' and the rollouts' seed (default: a held-out seed no test
uses; give another for a fresh sample); ``--bank``: our level also gets the
CPU time it saved on the decisions before (equal total time, not per
decision); ``--levels``: our
thinking-time levels, comma-separated (a name, or a move filter's name for
the strong level's ladder with that filter; default "fibsbot strong").

Our thinking-time level against gnubg's World class at gnubg's own time:

* decisions: seeded money-play decisions met in self-play (Expert, a seed no
  other benchmark or test uses), chequer plays and cube decisions. For each,
  the `gnubg` package (one thread) decides at World class and its CPU time is
  measured; our level then gets that CPU time as its budget (one thread,
  read on the process's CPU clock). Where the choices differ, the distinct
  plays are rolled out together (the same dice for each, variance reduction,
  Expert, ``--trials``), and each side loses the rolled-out equity its choice
  gives up against the best of them. Printed: the mean loss of each, the
  paired difference with its 95% interval, the depth we reached;
* head to head (``--matches M``): M pairs of 7-point matches against the
  package at World class, each pair on one dice sequence with the seats
  swapped (engine/bench/equal_time_match.py).

Equities are money equities (normalised to the cube), losses in
thousandths ("mEMG"). The rollouts' own noise is inside the intervals.
"""

from __future__ import annotations

import argparse
import random
import statistics
import time
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

from engine.bench.gnubg_player import HELD_OUT_SEED, Gnubg, gnubg_doubles, gnubg_takes, interval

if TYPE_CHECKING:
    from engine.evaluator import Engine
    from engine.levels import Think
    from engine.position import Position

MONEY_JACOBY = "money play, Jacoby, centred cube"


@dataclass(frozen=True)
class Spot:
    """A decision: a position (side on roll in board[1]) with dice (chequer play) or without (cube)."""

    position: Position
    dice: tuple[int, int] | None


def self_play_spots(engine: Engine, moves: int, cubes: int, seed: int = HELD_OUT_SEED) -> list[Spot]:
    """Decisions met in seeded Expert self-play (money, no doubling): chequer
    plays with more than one legal result, one in three kept; cube decisions
    where Expert's no-double and double equities lie within 0.2 of each other."""
    from engine.match import MatchState
    from engine.position import Position

    rng = random.Random(seed)
    money = MatchState(length=0, jacoby=True)
    plays: list[Spot] = []
    cube: list[Spot] = []
    while len(plays) < moves or len(cube) < cubes:
        position = Position.initial()
        for _ in range(400):
            if position.winner() is not None:
                break
            if len(cube) < cubes and rng.random() < 0.3:
                cd = engine.cube_decision(position, match=money, level="expert")
                nd, dt, dp = cd.equities
                if abs(min(dt, dp) - nd) < 0.2 and rng.random() < 0.5:
                    cube.append(Spot(position, None))
            dice = (rng.randint(1, 6), rng.randint(1, 6))
            legal = position.legal_plays(*dice)
            if len(legal) > 1 and len(plays) < moves and rng.random() < 1 / 3:
                plays.append(Spot(position, dice))
            after = engine.best_move(position, dice, match=money, level="expert").candidates
            position = (after[0].position if after else position).swap()
    return plays[:moves] + cube[:cubes]


# ---- the judge -----------------------------------------------------------------------------------


@dataclass
class Tally:
    """Per-decision losses of gnubg and of each of our levels (equity, >= 0)."""

    gnubg: list[float] = field(default_factory=list)
    ours: dict[str, list[float]] = field(default_factory=dict)
    depths: dict[str, list[int]] = field(default_factory=dict)
    used: dict[str, list[float]] = field(default_factory=dict)  # our CPU time over the budget given
    over: dict[str, list[float]] = field(default_factory=dict)  # seconds past the budget (0 if within)
    budgets: list[float] = field(default_factory=list)
    differing: dict[str, int] = field(default_factory=dict)
    spent: dict[str, float] = field(default_factory=dict)  # our CPU seconds in all
    rolled: dict[str, list[tuple[int, bool]]] = field(default_factory=dict)  # the rollout step: trials, changed


def _cubeful(c: Any) -> float:
    return float(c.cubeful_equity if c.cubeful_equity is not None else c.equity)


def judge_plays(engine: Engine, spot: Spot, plays: dict[str, Position], trials: int, seed: int,
                threads: int | None) -> dict[str, float]:
    """Each chooser's loss against the best of the distinct plays, rolled out together."""
    from engine.match import MatchState

    distinct = list(dict.fromkeys(plays.values()))
    if len(distinct) == 1:
        return dict.fromkeys(plays, 0.0)
    assert spot.dice is not None
    moves = []
    for after in distinct:
        move = spot.position.legal_play_to(*spot.dice, after)
        if move is None:
            raise RuntimeError(f"a judged play is not legal in {spot.position.position_id()} {spot.dice}")
        moves.append(move)
    result = engine.rollout(spot.position, MatchState(length=0, jacoby=True), candidates=moves, trials=trials,
                            seed=seed, level="expert", threads=threads)
    equity = {p: _cubeful(c) for p, c in zip(distinct, result.candidates, strict=True)}
    best = max(equity.values())
    return {who: best - equity[p] for who, p in plays.items()}


def judge_cube(engine: Engine, spot: Spot, doubles: dict[str, tuple[bool, bool]], trials: int, seed: int,
               threads: int | None) -> dict[str, float]:
    """Losses of (double?, take?) choices against a cube rollout: the doubler's
    choice and the taker's answer, each against the rolled-out best."""
    from engine.match import MatchState

    if len(set(doubles.values())) == 1:
        return dict.fromkeys(doubles, 0.0)
    result = engine.rollout(spot.position, MatchState(length=0, jacoby=True), candidates="cube", trials=trials,
                            seed=seed, level="expert", threads=threads)
    nd, dt, dp = (_cubeful(c) for c in result.candidates[:3])  # no double, double/take, double/pass
    take_right = dt <= dp
    doubled = min(dt, dp)
    best = max(nd, doubled)
    out = {}
    for who, (double, take) in doubles.items():
        loss = best - (min(dt, dp) if double else nd)
        # the answer's own error, seen from the taker (it loses what the doubler gains)
        loss += 0.0 if take == take_right else abs(dt - dp)
        out[who] = loss
    return out


# ---- the run ---------------------------------------------------------------------------------------


def think_variants(names: str) -> dict[str, Think]:
    """Our levels to compare: named think levels, a budget in seconds, or a
    filter name (the named strong level's ladder with that move filter)."""
    from engine.levels import MOVE_FILTERS, THINK_LEVELS, think_level

    out: dict[str, Think] = {}
    for name in [n.strip() for n in (names or "fibsbot strong").split(",") if n.strip()]:
        try:
            seconds = float(name)
        except ValueError:
            seconds = 0.0
        if seconds > 0:  # a budget in seconds: {think: S}
            out[f"think {seconds:g}s"] = think_level(seconds)
        elif name.lower() in MOVE_FILTERS:
            base = THINK_LEVELS["fibsbot strong"]
            out[f"think, {name} filter"] = replace(base, move_filter=name.lower(), name=f"think {name}")
        else:
            out[name] = think_level(name)
    return out


def run_decisions(engine: Engine, gnubg: Gnubg, spots: list[Spot], variants: dict[str, Think], trials: int,
                  threads: int | None, log: bool = True, ratio: float = 1.0, seed: int = HELD_OUT_SEED,
                  bank: bool = False) -> Tally:
    """Each spot decided by gnubg and by each of our levels (``ratio`` times
    gnubg's CPU time for it; ``bank``: plus the CPU time our level saved on
    the decisions before, so that its total never passes gnubg's), then judged."""
    from engine.think import CostModel, think_cube, think_move

    tally = Tally(ours={k: [] for k in variants}, depths={k: [] for k in variants},
                  used={k: [] for k in variants}, over={k: [] for k in variants},
                  differing=dict.fromkeys(variants, 0), spent=dict.fromkeys(variants, 0.0))
    models = {k: CostModel() for k in variants}
    saved = dict.fromkeys(variants, 0.0)
    mid = gnubg.money.match_id()
    for i, spot in enumerate(spots):
        if spot.dice is not None:
            theirs, seconds = gnubg.move(spot.position, spot.dice)
            if theirs is None:
                continue
            choices: dict[str, Any] = {"gnubg": theirs}
        else:
            action, seconds = gnubg.cube_action(spot.position, mid)
            if action is None:
                continue
            choices = {"gnubg": (gnubg_doubles(action), gnubg_takes(action))}
        for name, think in variants.items():
            given = ratio * seconds
            budget = max(given + (max(saved[name], 0.0) if bank else 0.0), 1e-4)
            level = replace(think, budget=budget)
            if spot.dice is not None:
                r = think_move(engine, spot.position, spot.dice, match=gnubg.money, think=level, threads=1,
                               clock=time.process_time, model=models[name])
                choices[name] = r.decision.candidates[0].position
            else:
                r = think_cube(engine, spot.position, match=gnubg.money, think=level, threads=1,
                               clock=time.process_time, model=models[name])
                choices[name] = (r.decision.should_double, r.decision.should_take)
            saved[name] += given - r.seconds
            tally.spent[name] += r.seconds
            tally.depths[name].append(r.plies)
            if r.settled is not None and r.settled.trials:
                tally.rolled.setdefault(name, []).append((r.settled.trials, r.settled.changed))
            tally.used[name].append(r.seconds / budget)
            tally.over[name].append(max(r.seconds - budget, 0.0))
        if spot.dice is not None:
            losses = judge_plays(engine, spot, choices, trials, seed + i, threads)
        else:
            losses = judge_cube(engine, spot, choices, trials, seed + i, threads)
        tally.budgets.append(seconds)
        tally.gnubg.append(losses["gnubg"])
        for name in variants:
            tally.ours[name].append(losses[name])
            tally.differing[name] += losses[name] != losses["gnubg"]
        if log and (i + 1) % 10 == 0:
            print(f"    ... {i + 1}/{len(spots)} decisions", flush=True)
    return tally


def report(tally: Tally) -> list[str]:
    n = len(tally.gnubg)
    g_mean, g_half = interval(tally.gnubg)
    lines = [f"  {n} decisions judged; gnubg World class: {1000 * statistics.fmean(tally.budgets or [0]):.1f} ms "
             f"CPU per decision (mean), mean loss {1000 * g_mean:.2f} mEMG (+-{1000 * g_half:.2f})"]
    for name, losses in tally.ours.items():
        mean, half = interval(losses)
        diff, dhalf = interval([g - o for g, o in zip(tally.gnubg, losses, strict=True)])
        depths = tally.depths[name]
        hist = ", ".join(f"{d}-ply {depths.count(d)}" for d in sorted(set(depths)))
        used = tally.used[name]
        less = f"{100 * diff / g_mean:.0f}% less" if g_mean > 1e-5 else "gnubg's loss too small for a ratio"
        lines += [f"  {name}: mean loss {1000 * mean:.2f} mEMG (+-{1000 * half:.2f}); "
                  f"{tally.differing[name]} decisions differ from gnubg's",
                  f"    paired gnubg - ours: {1000 * diff:+.2f} mEMG, 95% interval "
                  f"[{1000 * (diff - dhalf):+.2f}, {1000 * (diff + dhalf):+.2f}] ({less})",
                  f"    depth reached: mean {statistics.fmean(depths or [0]):.2f} ({hist}); CPU time used / "
                  f"budget: mean {statistics.fmean(used or [0]):.2f}, max {max(used or [0]):.2f} "
                  f"(most past a budget: {1000 * max(tally.over[name] or [0]):.1f} ms); CPU time in all "
                  f"{tally.spent.get(name, 0.0) / max(sum(tally.budgets), 1e-9):.2f} times gnubg's"]
        rolled = tally.rolled.get(name, [])
        if rolled:
            trials = sorted(t for t, _ in rolled)
            lines.append(f"    rollout step: ran in {len(rolled)} decisions, trials median {trials[len(trials) // 2]} "
                         f"(fewest {trials[0]}, most {trials[-1]}), changed the search's play in "
                         f"{sum(c for _, c in rolled)}")
    return lines


def run_equal_time(args: argparse.Namespace, run_matches: Callable[..., list[str]] | None = None) -> None:
    from engine.evaluator import Engine

    engine = Engine()
    gnubg = Gnubg(engine)
    variants = think_variants(getattr(args, "levels", ""))
    trials = int(getattr(args, "trials", None) or 1296)
    ratio = float(getattr(args, "time_ratio", None) or 1.0)
    seed = HELD_OUT_SEED if getattr(args, "seed", None) is None else int(args.seed)
    n = max(args.positions if args.positions != 1000 else 200, 1)
    cubes = max(n // 5, 1)
    print(f"equal-time: {n} chequer plays and {cubes} cube decisions from seeded Expert self-play "
          f"(seed {seed}), {MONEY_JACOBY};")
    times = "gnubg's CPU time" if ratio == 1.0 else f"{ratio:g} times gnubg's CPU time"
    if getattr(args, "bank", False):
        times += " plus the CPU time it saved before (banked: never more than gnubg's in all)"
    print(f"  gnubg {gnubg.g.version} World class on 1 thread; ours: {', '.join(variants)} with {times} "
          f"for each decision, 1 thread; judge: rollouts of the differing choices, {trials} trials, same dice, "
          f"variance reduction, Expert")
    start = time.perf_counter()
    spots = self_play_spots(engine, n, cubes, seed)
    bank = bool(getattr(args, "bank", False))
    tally = run_decisions(engine, gnubg, spots, variants, trials, threads=None, ratio=ratio, seed=seed, bank=bank)
    for line in report(tally):
        print(line)
    print(f"  ({time.perf_counter() - start:.0f} s)")
    matches = int(getattr(args, "matches", 0) or 0)
    if matches and run_matches is not None:
        for line in run_matches(engine, gnubg, next(iter(variants.values())), matches, ratio):
            print(line)
