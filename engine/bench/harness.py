"""What every benchmark shares: the seed, interleaved best-of timing, the rate rows,
and a quiet gnubg package whose C-level prints are captured or silenced."""

from __future__ import annotations

import os
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from engine.match import MatchState

SEED = 20240601
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
            for fd, keep in zip(fds, saved, strict=True):
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
    import gnubg  # no stubs: the module and its handles are typed Any (pyproject, tool.mypy)

    gnubg.command("set threads 1")
    return gnubg


def row(label: str, rate: float, reference: float | None = None) -> None:
    ratio = f"{rate / reference:8.2f}x" if reference else "         "
    print(f"  {label:<58} {rate:14,.0f}/s {ratio}")


def gnubg_cubeinfo(gnubg: Any, match: MatchState) -> Any:
    """The package's cube info for ``match.on_roll`` (Jacoby in money play)."""
    ci = gnubg.cubeinfo(match.cube, match.cube_owner, match.on_roll, match.length, match.score,
                        int(match.crawford_game), 0)
    ci["jacoby"] = int(match.length == 0 and match.jacoby)
    return ci
