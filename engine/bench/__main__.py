"""Benchmarks against the gnubg package, on the same positions in the same run.

    python -m engine.bench movegen [--positions N]
    python -m engine.bench eval
    python -m engine.bench decide [--match 7:2-3]
    python -m engine.bench api [--positions N]
    python -m engine.bench parity [--levels "world class,supremo"] [--scale 0.1]
    python -m engine.bench equal-time [--positions N --trials T --matches M --time-ratio R]
    python -m engine.bench --signature

Each prints rates for our engine and for gnubg and their ratio. Ratios, not
absolute times, are the claim: both run on this machine, one thread each.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable

from engine.bench import api, decide, equal_time, equal_time_match, eval, movegen, parity

COMMANDS: dict[str, Callable[[argparse.Namespace], None]] = {
    "movegen": movegen.run_movegen,
    "eval": eval.run_eval,
    "decide": decide.run_decide,
    "api": api.run_api,
    "parity": parity.run_parity,
    "signature": decide.run_signature,
    "equal-time": lambda args: equal_time.run_equal_time(args, equal_time_match.run_matches),
}


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m engine.bench", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("what", nargs="?", choices=sorted(COMMANDS), help="which benchmark")
    parser.add_argument("--positions", type=int, default=1000, help="size of the seeded position set")
    parser.add_argument("--levels", default="", help="parity: levels, comma-separated (default: the searching ones)")
    parser.add_argument("--scale", type=float, default=1.0, help="parity: multiplies the default set sizes")
    parser.add_argument("--match", type=decide.match_score, default=None,
                        help="decide: a match score LENGTH:A-B, such as 7:2-3 (default: money play)")
    parser.add_argument("--trials", type=int, default=1296, help="equal-time: rollout trials per judged decision")
    parser.add_argument("--time-ratio", type=float, default=1.0, help="equal-time: our budget over gnubg's time")
    parser.add_argument("--matches", type=int, default=0, help="equal-time: pairs of 7-point matches against gnubg")
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
