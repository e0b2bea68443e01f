"""Rollout parity with the `gnubg` package: ``python -m engine.bench.rollout_parity``.

Draws held-out cases from a seed (positions reached by seeded 0-ply self-play:
contact, race, bear-off, a chequer on the bar; rollouts of the position, of
the best plays of a roll and of the cube decision; money and 5-point match
scores; truncated or not; variance reduction on and off; Expert, noisy
levels with the package's centred noise, World class), rolls each out
with our engine and with gnubg (same settings and seed, one thread, no
evaluation cache: tests/test_rollout_truncation.py says why) and prints,
per case, the largest difference in units of the combined standard error.
The bar: every equity and probability within 3 combined
standard errors, and within 1e-6 (gnubg prints 6 digits) without variance
reduction, where both play the same games with the same evaluator.

Cube rollouts' cubeless rows are counted on their own too: the no-double and
double/take rows' cubeless equities (gnubg prints the latter with the cube
doubled, in units of the current cube: twice the per-cube value in money)
and the position's cubeless equity, gnubg's "Rollout cubeless equity" line
of ``hint`` after the rollout, against ours (:attr:`RolloutResult.cubeless_equity`).

The probabilities are printed beside them but are not the bar: where every
play has the same equity (gammons that cannot matter at the score), the
play is decided by the last bits of the evaluation, and ours may pick
another of the equal plays (a different gammon rate, the same equities).
"""

from __future__ import annotations

import argparse
import math
import random
import re
import sys
from collections.abc import Sequence
from dataclasses import dataclass

from engine.bench import rollout_gnubg
from engine.evaluator import Engine, PositionClass
from engine.levels import level
from engine.match import MatchState
from engine.position import Position
from engine.rollout import RolloutJob, RolloutResult, RolloutSettings, run

EXACT = 1e-6  # gnubg prints 6 decimals: a value rounds to within 5e-7, plus float noise
SIGMAS = 3.0
KINDS = ("contact", "race", "bearoff", "bar")


@dataclass(frozen=True)
class Agreement:
    """The worst value of a case: its difference, the combined SE, and whether it passes."""

    diff: float
    se: float
    exact: bool

    @property
    def ok(self) -> bool:
        if self.exact:
            return self.diff <= EXACT
        return self.diff <= SIGMAS * self.se + EXACT

    @property
    def used(self) -> float:
        """The share of the allowance the difference uses (over 1: fails)."""
        return self.diff / (EXACT if self.exact else SIGMAS * self.se + EXACT)


def sample_positions(engine: Engine, seed: int) -> dict[str, list[Position]]:
    """Positions before the roll from seeded 0-ply self-play, by kind."""
    rng = random.Random(seed)
    found: dict[str, list[Position]] = {k: [] for k in KINDS}
    for _ in range(6):
        pos = Position.initial()
        while pos.winner() is None:
            cls = engine.classify(pos)
            kind = ("bar" if pos.board[1][24] and cls >= PositionClass.CRASHED else
                    "contact" if cls >= PositionClass.CRASHED else
                    "race" if cls == PositionClass.RACE else "bearoff")
            found[kind].append(pos)
            d = (rng.randint(1, 6), rng.randint(1, 6))
            pos = pos.play(engine.best_move(pos, d).move).swap()
    return found


def make_cases(engine: Engine, seed: int, count: int, trials: int) -> list[tuple[str, RolloutJob]]:
    """``count`` cases cycling through kinds of position, rollout and setting."""
    rng = random.Random(seed)
    positions = sample_positions(engine, seed)
    cases: list[tuple[str, RolloutJob]] = []
    # (what, variance reduction, truncation, cubeful, chequer level); noisy levels
    # as the package plays them (gnubg 1.1's centred deterministic noise)
    variants = [("position", False, None, True, "expert"), ("plays", True, None, True, "expert"),
                ("cube", False, None, True, "expert"), ("position", True, 4, True, "expert"),
                ("plays", False, None, False, "expert"), ("cube", True, None, True, "expert"),
                ("position", False, None, True, "advanced"), ("plays", True, None, True, "beginner"),
                ("position", False, 6, True, "world class")]
    i = 0
    while len(cases) < count and i < 20 * count:
        kind = KINDS[i % len(KINDS)]
        what, vr, truncate, cubeful, chequer = variants[(i // len(KINDS)) % len(variants)]
        i += 1
        if not positions[kind]:
            continue
        pos = rng.choice(positions[kind])
        match = (MatchState(length=5, score=(rng.randint(0, 4), rng.randint(0, 4)), on_roll=1, turn=1)
                 if rng.random() < 0.5 else MatchState(length=0, jacoby=True, on_roll=1, turn=1))
        settings = RolloutSettings(trials=trials, seed=rng.randint(0, 2**31 - 1), variance_reduction=vr,
                                   truncate=truncate, cubeful=cubeful, level=level(chequer, "gnubg-1.1"),
                                   cube_level="expert")
        candidates: object = None
        if what == "plays":
            d = (rng.randint(1, 6), rng.randint(1, 6))
            match = match.with_(dice=(max(d), min(d)))
            ranked = engine.best_move(pos, d, match).candidates
            if len(ranked) < 2:
                continue
            candidates = [c.move for c in ranked[:3]]
        elif what == "cube":
            candidates = "cube"
        try:
            job = RolloutJob.of(pos, match, candidates, settings)  # type: ignore[arg-type]
        except ValueError:
            continue  # the cube is not available here
        name = (f"{kind} {what} {'match ' + str(match.score) if match.length else 'money'}"
                f"{'' if chequer == 'expert' else ' ' + chequer}"
                f"{' VR' if vr else ' noVR'}{f' trunc{truncate}' if truncate else ''}"
                f"{'' if cubeful or what == 'cube' else ' cubeless'}")
        cases.append((name, job))
    return cases


def compare(ours: RolloutResult, theirs: Sequence[rollout_gnubg.GnubgResult], exact: bool,
            equities: bool = True) -> Agreement:
    """The worst agreement (the value using most of its allowance) over the
    equities (cubeless and cubeful) or the five probabilities of every candidate."""
    found = [Agreement(0.0, 0.0, exact)]
    for mine, g in zip(ours.candidates, theirs, strict=False):  # a cube rollout: ours has double/pass too
        if equities:
            values, errors = [mine.equity], [mine.stderr_equity]
            if mine.cubeful_equity is not None and mine.stderr_cubeful_equity is not None:
                values.append(mine.cubeful_equity)
                errors.append(mine.stderr_cubeful_equity)
            # the columns both have: CL, and CF where both rolled out cubeful
            pairs = zip(values, errors, g.means[5:], g.errors[5:], strict=False)
        else:
            pairs = zip(mine.probabilities, mine.stderr_probabilities, g.means[:5], g.errors[:5], strict=True)
        for v, e, gv, ge in pairs:
            found.append(Agreement(abs(v - gv), math.hypot(e, ge), exact))
    failing = [a for a in found if not a.ok]
    return max(failing or found, key=lambda a: a.used)


_HEADLINE = re.compile(r"^Rollout cubeless equity ([+-]\d+\.\d+)", re.M)


def gnubg_cubeless_headline() -> float:
    """gnubg's "Rollout cubeless equity" of the cube rollout it has just run (its ``hint``)."""
    found = _HEADLINE.search(rollout_gnubg.command("hint"))
    if not found:
        raise RuntimeError("gnubg's hint after a cube rollout has no 'Rollout cubeless equity' line")
    return float(found.group(1))


def compare_cube_cubeless(ours: RolloutResult, theirs: Sequence[rollout_gnubg.GnubgResult],
                          headline: float, exact: bool) -> Agreement:
    """The worst agreement over a cube rollout's cubeless figures: the no-double and
    double/take rows and the position's cubeless equity (gnubg's headline)."""
    nd = ours.candidates[0]
    mine = [(c.equity, c.stderr_equity, g.means[5], g.errors[5])
            for c, g in zip(ours.candidates, theirs, strict=False)]  # ours has double/pass too
    if ours.cubeless_equity is None:
        raise ValueError("not a cube rollout's result")
    mine.append((ours.cubeless_equity, nd.stderr_equity, headline, theirs[0].errors[5]))
    found = [Agreement(abs(v - gv), math.hypot(e, ge), exact) for v, e, gv, ge in mine]
    failing = [a for a in found if not a.ok]
    return max(failing or found, key=lambda a: a.used)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m engine.bench.rollout_parity", description=__doc__.split("\n\n")[0])
    ap.add_argument("--cases", type=int, default=36)
    ap.add_argument("--seed", type=int, default=20261126)
    ap.add_argument("--trials", type=int, default=72)
    ap.add_argument("--only", default="", help="comma-separated case numbers (0-based) to run, e.g. 21,29")
    ap.add_argument("--gnubg-cache", type=int, default=0,
                    help=f"entries of gnubg's evaluation cache (default 0: none; gnubg's own default "
                         f"{rollout_gnubg.DEFAULT_CACHE})")
    args = ap.parse_args(argv)
    engine = Engine()
    cases = make_cases(engine, args.seed, args.cases, args.trials)
    if args.only:
        cases = [cases[int(i)] for i in args.only.split(",")]
    failed = prob_failed = within_se = exact_cases = exact_ok = cube_cases = cube_ok = 0
    print(f"{'case':46} {'equities: max |diff|':>20} {'comb. SE':>9} {'used':>5}  "
          f"{'probabilities: |diff|':>21} {'used':>5}")
    for name, job in cases:
        ours = run(engine, job, threads=1)
        theirs = rollout_gnubg.rollout(job, args.gnubg_cache)
        exact = not job.settings.variance_reduction
        eq = compare(ours, theirs, exact)
        pr = compare(ours, theirs, exact, equities=False)
        prob_failed += not pr.ok
        within_se += compare(ours, theirs, False).ok
        exact_cases += exact
        exact_ok += exact and eq.ok
        cube_differs = False
        if job.candidates == "cube":
            cube = compare_cube_cubeless(ours, theirs, gnubg_cubeless_headline(), exact)
            cube_cases += 1
            cube_ok += cube.ok
            cube_differs = not cube.ok
        failed += not eq.ok or cube_differs
        print(f"{name:46} {eq.diff:20.2e} {eq.se:9.6f} {eq.used:5.2f}  {pr.diff:21.2e} {pr.used:5.2f}  "
              f"{'ok' if eq.ok else 'DIFFERS'}{' (to 1e-6)' if exact else ''}"
              f"{'; cubeless rows DIFFER' if cube_differs else ''}")
    print(f"equities within {SIGMAS:g} combined SEs: {within_se}/{len(cases)} cases; to {EXACT:g} without "
          f"variance reduction: {exact_ok}/{exact_cases}; probabilities: {len(cases) - prob_failed}/{len(cases)}")
    print(f"cube rollouts' cubeless rows (no double, double/take, gnubg's 'Rollout cubeless equity'): "
          f"{cube_ok}/{cube_cases} within the bar")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
