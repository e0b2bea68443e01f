"""``python -m bot.cli.startup_bench``: cold-start times of ``fibsbot --version`` and ``fibsbot hint``
against Debian's gnubg answering the same hint, each run N times, alternating; prints medians.

gnubg reads its commands on stdin (``gnubg -t -q``: no GUI, quiet): a new game, the same
position and dice, ``hint``, ``quit``. Each command is a fresh process (a cold start of the
interpreter or the program; the files are in the page cache after the first round, for all
three alike). One unmeasured warm-up round first; the children run without
PYTHONDONTWRITEBYTECODE, so that Python's compiled files are written once and read after,
as on an installed system. Wall-clock seconds per run, measured around the whole process.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import time

POSITION = "4HPwATDgc/ABMA"  # the opening position; the roll 31
GNUBG_SCRIPT = f"new game\nset board {POSITION}\nset turn 0\nset dice 3 1\nhint\nquit\ny\n"


ENV = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}


def _default_fibsbot() -> str:
    """The console script installed beside this interpreter, as pip puts it, else the first
    on PATH (which may be a version manager's shim: a shell script that starts it)."""
    beside = os.path.join(os.path.dirname(sys.executable), "fibsbot")
    return beside if os.access(beside, os.X_OK) else shutil.which("fibsbot") or "fibsbot"


def _timed(argv: list[str], stdin: str | None, expect: str) -> float:
    start = time.perf_counter()
    done = subprocess.run(argv, input=stdin, capture_output=True, text=True, timeout=120, env=ENV,
                          check=False)
    seconds = time.perf_counter() - start
    if done.returncode != 0 or expect not in done.stdout:
        raise SystemExit(f"{' '.join(argv)}: exit {done.returncode}, {expect!r} not in its output:\n"
                         f"{done.stdout[-400:]}{done.stderr[-400:]}")
    return seconds


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bot.cli.startup_bench", description=__doc__)
    parser.add_argument("-n", type=int, default=11, help="runs of each command (default 11)")
    parser.add_argument("--fibsbot", default=_default_fibsbot(),
                        help="the fibsbot executable (default: the one beside this Python, else on PATH)")
    parser.add_argument("--gnubg", default=shutil.which("gnubg") or shutil.which("gnubg", path="/usr/games"),
                        help="the gnubg executable (default: gnubg on PATH or /usr/games/gnubg)")
    args = parser.parse_args(argv)
    commands: dict[str, tuple[list[str], str | None, str]] = {
        "fibsbot --version": ([args.fibsbot, "--version"], None, "fibsbot "),
        "fibsbot hint ID --dice 31": ([args.fibsbot, "hint", POSITION, "--dice", "31"], None, "8/5 6/5"),
    }
    if args.gnubg:
        commands["gnubg -t -q: hint"] = ([args.gnubg, "-t", "-q"], GNUBG_SCRIPT, "8/5 6/5")
    else:
        print("no gnubg found: only fibsbot is timed", file=sys.stderr)
    times: dict[str, list[float]] = {name: [] for name in commands}
    for command, stdin, expect in commands.values():  # warm-up: page cache, compiled files
        _timed(command, stdin, expect)
    for _ in range(args.n):  # alternating, so that a busy spell hits all alike
        for name, (command, stdin, expect) in commands.items():
            times[name].append(_timed(command, stdin, expect))
    width = max(len(name) for name in commands)
    print(f"{args.n} runs each, alternating; wall-clock seconds per cold start")
    for name, values in times.items():
        print(f"{name:<{width}}  median {statistics.median(values):.3f}  min {min(values):.3f}  "
              f"max {max(values):.3f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
