"""Benchmarks against the gnubg package, on the same positions in the same run.

    python -m engine.bench movegen [--positions N]
    python -m engine.bench eval
    python -m engine.bench decide
    python -m engine.bench api [--positions N]
    python -m engine.bench parity [--levels "world class,supremo"] [--scale 0.1]
    python -m engine.bench --signature

Each prints rates for our engine and for gnubg and their ratio. Ratios, not
absolute times, are the claim: both run on this machine, one thread each.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from typing import Any

from engine.sampling import ALL_ROLLS, random_game_positions

SEED = 20240601
Runner = Callable[[argparse.Namespace], None]
COMMANDS: dict[str, Runner] = {}


def command(name: str) -> Callable[[Runner], Runner]:
    def register(fn: Runner) -> Runner:
        COMMANDS[name] = fn
        return fn
    return register


Timed = Callable[[], int]  # runs once, returns the items it did


def best_rates(fns: Sequence[Timed | tuple[Timed, Callable[[], float]]], repeats: int = 3) -> list[float]:
    """Items per second of each function's fastest run (an entry may bring its
    own clock). The runs go round by round, every function once per round, so
    that a shared machine's slow spells hit all of them alike."""
    timed = [f if isinstance(f, tuple) else (f, time.perf_counter) for f in fns]
    best = [0.0] * len(timed)
    for _ in range(repeats):
        for k, (fn, clock) in enumerate(timed):
            start = clock()
            items = fn()
            best[k] = max(best[k], items / max(clock() - start, 1e-9))
    return best


def captured(fn: Callable[..., object], *args: object, fds: tuple[int, ...] = (1,)) -> str:
    """What fn writes to the C library's stdout (fd 1; gnubg prints its hints there)
    and, if named in ``fds``, its stderr (fd 2; gnubg's refusals)."""
    sys.stdout.flush()
    sys.stderr.flush()
    saved = [os.dup(fd) for fd in fds]
    with tempfile.TemporaryFile(mode="w+b") as tf:
        for fd in fds:
            os.dup2(tf.fileno(), fd)
        try:
            fn(*args)
        finally:
            for fd, keep in zip(fds, saved):
                os.dup2(keep, fd)
                os.close(keep)
        tf.seek(0)
        return tf.read().decode("utf-8", "replace")


def silently(fn: Callable[..., Any], *args: Any) -> Any:
    """Runs fn with the C library's stdout (fd 1) sent to /dev/null (gnubg prints there)."""
    sys.stdout.flush()
    saved = os.dup(1)
    devnull = os.open(os.devnull, os.O_WRONLY)
    try:
        os.dup2(devnull, 1)
        return fn(*args)
    finally:
        os.dup2(saved, 1)
        os.close(saved)
        os.close(devnull)


def quiet_gnubg() -> Any:
    import gnubg  # type: ignore[import-untyped]  # no stubs: the handle is typed Any here

    gnubg.command("set threads 1")
    return gnubg


def row(label: str, rate: float, reference: float | None = None) -> None:
    ratio = f"{rate / reference:8.2f}x" if reference else "         "
    print(f"  {label:<58} {rate:14,.0f}/s {ratio}")


@command("movegen")
def run_movegen(args: argparse.Namespace) -> None:
    from engine._core import ffi, lib

    positions = random_game_positions(args.positions, seed=SEED)
    flat = ffi.new("unsigned int[]", [c for p in positions for side in p.board for c in side])
    dice = ffi.new("int[]", [d for roll in ALL_ROLLS for d in roll])
    n_plays = int(lib.bg_count_moves(flat, len(positions), dice, len(ALL_ROLLS)))
    print(f"movegen: {len(positions)} positions (seed {SEED}) x 21 rolls = {n_plays:,} plays")

    gnubg = quiet_gnubg()
    context = gnubg.evalcontext(0, 0, 1, 0, 0.0)
    cube = gnubg.cubeinfo()
    sample = positions[: max(1, len(positions) // 5)]

    def gnubg_run() -> int:
        return sum(len(gnubg.findbestmoves(p.board, cube, context, r)) for p in sample for r in ALL_ROLLS)

    def ours_c() -> int:
        return int(lib.bg_count_moves(flat, len(positions), dice, len(ALL_ROLLS)))

    def ours_python() -> int:
        return sum(len(p.legal_plays(*r)) for p in sample for r in ALL_ROLLS)

    reference, c_rate, python_rate = best_rates([gnubg_run, ours_c, ours_python])
    print("  (gnubg's package has no bare move generator: its cheapest call that lists every")
    print("   play, findbestmoves at 0-ply, also scores each play with the net)")
    row("gnubg findbestmoves 0-ply, plays listed", reference)
    row("ours bg_count_moves (one C call for the set)", c_rate, reference)
    row("ours Position.legal_plays (one Python call per roll)", python_rate, reference)


@command("eval")
def run_eval(args: argparse.Namespace) -> None:
    from engine.bench_eval import run_eval as run

    run(args)


@command("decide")
def run_decide(args: argparse.Namespace) -> None:
    from engine.bench_decide import run_decide as run

    run(args)


@command("api")
def run_api(args: argparse.Namespace) -> None:
    from engine.bench_api import run_api as run

    run(args)


@command("parity")
def run_parity(args: argparse.Namespace) -> None:
    from engine.bench_parity import run_parity as run

    run(args)


@command("signature")
def run_signature(args: argparse.Namespace) -> None:
    from engine.bench_decide import run_signature as run

    run(args)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m engine.bench", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("what", nargs="?", choices=sorted(COMMANDS), help="which benchmark")
    parser.add_argument("--positions", type=int, default=1000, help="size of the seeded position set")
    parser.add_argument("--levels", default="", help="parity: levels, comma-separated (default: the searching ones)")
    parser.add_argument("--scale", type=float, default=1.0, help="parity: multiplies the default set sizes")
    parser.add_argument("--signature", action="store_true", help="print the deterministic decision checksum")
    args = parser.parse_args(argv)
    if args.signature:
        COMMANDS["signature"](args)
    elif args.what:
        COMMANDS[args.what](args)
    else:
        parser.print_help()


if __name__ == "__main__":
    main()
