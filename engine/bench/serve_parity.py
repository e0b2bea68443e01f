"""Held-out parity: our external socket in its default mode against Debian's gnubg 1.07.

    python -m engine.bench serve-parity [--seed 2027] [--expert 600] [--world 150]

Fresh board lines of every request kind (:func:`engine.bench.serve_lines.board_lines`
with a seed the tests do not use; they use 31) are asked of Debian's gnubg
``external`` and of ``fibsbot serve --external`` started without emulation
flags, at Expert and World class. Prints, per request kind, how many replies
are equal, the largest gap between the numbers of an ``evaluation`` reply, and
every line whose replies differ. Needs Debian's gnubg (``apt-get install gnubg``).
"""

from __future__ import annotations

import argparse
from collections import Counter
from dataclasses import dataclass, field

from engine.bench.serve_lines import GnubgExternal, OursExternal, board_lines, free_port

DEFAULT_SEED = 2027


def request_kind(line: str) -> str:
    """move, cube, take, resign, eval or other."""
    if line.startswith("evaluation"):
        return "eval"
    if not line.startswith("board:"):
        return "other"
    if " resignation " in line:
        return "resign"
    t = [int(v) for v in line.split()[0].split(":")[3:]]
    return "take" if t[37] else "move" if any(t[30:34]) else "cube"


@dataclass
class Tally:
    """Requests and equal replies per kind, the largest evaluation gap, the differing lines."""

    asked: Counter[str] = field(default_factory=Counter)
    equal: Counter[str] = field(default_factory=Counter)
    eval_gap: float = 0.0
    differences: list[str] = field(default_factory=list)

    def add(self, line: str, theirs: str, ours: str) -> None:
        kind = request_kind(line)
        self.asked[kind] += 1
        if theirs == ours:
            self.equal[kind] += 1
        else:
            self.differences.append(f"{line!r}: gnubg {theirs!r}, ours {ours!r}")
        a, b = theirs.split(), ours.split()
        if kind == "eval" and len(a) == len(b) == 6 and not theirs.startswith("Error"):
            self.eval_gap = max(self.eval_gap, *(abs(float(x) - float(y)) for x, y in zip(a, b, strict=True)))

    def text(self, level: str) -> str:
        kinds = ", ".join(f"{k} {self.equal[k]}/{n}" for k, n in sorted(self.asked.items()))
        total = sum(self.asked.values())
        return (f"{level}: {sum(self.equal.values())}/{total} replies equal ({kinds}); "
                f"largest evaluation gap {self.eval_gap:.1e}")


def compare(lines: list[str], level: str) -> Tally:
    """Asks both servers every line at ``level``."""
    tally = Tally()
    gnubg = GnubgExternal(free_port(), level)
    try:
        ours = OursExternal(free_port(), level)
        try:
            for line in lines:
                tally.add(line, gnubg.ask(line), ours.ask(line))
        finally:
            ours.close()
    finally:
        gnubg.close()
    return tally


def run_serve_parity(args: argparse.Namespace) -> None:
    n = max(args.expert, args.world)
    lines = board_lines(args.seed, n)
    print(f"seed {args.seed}: {len(lines)} request lines; Expert asks the first {args.expert}, "
          f"World class the last {args.world}", flush=True)
    for level, chosen in (("expert", lines[:args.expert]), ("world class", lines[-args.world:])):
        tally = compare(chosen, level)
        print(tally.text(level), flush=True)
        for d in tally.differences:
            print("  differs:", d)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    add_arguments(parser)
    run_serve_parity(parser.parse_args())


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--seed", type=int, default=DEFAULT_SEED, help="board_lines seed (the tests use 31)")
    parser.add_argument("--expert", type=int, default=600, help="lines asked at Expert")
    parser.add_argument("--world", type=int, default=150, help="lines asked at World class")


if __name__ == "__main__":
    main()
