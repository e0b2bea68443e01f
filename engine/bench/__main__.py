"""Benchmarks against the gnubg package, on the same positions in the same run.

    python -m engine.bench movegen [--positions N]
    python -m engine.bench eval
    python -m engine.bench decide [--match 7:2-3]
    python -m engine.bench api [--positions N]
    python -m engine.bench parity [--levels "world class,supremo"] [--scale 0.1]
    python -m engine.bench serve [--positions 200 --scale 1]
    python -m engine.bench gnubg-client [--matches 12 --seed 31 --level L]
    python -m engine.bench equal-time [--positions N --trials T --matches M --time-ratio R --seed S]
    python -m engine.bench think-wall [--positions 36 --levels L]
    python -m engine.bench --signature
    python -m engine.bench --list            every developer tool with its command

Each prints rates for our engine and for gnubg and their ratio. Ratios, not
absolute times, are the claim: both run on this machine, one thread each.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable

from engine.bench import (
    api,
    decide,
    equal_time,
    equal_time_match,
    equal_time_wall,
    eval,
    gnubg_client,
    movegen,
    parity,
    serve,
)
from engine.levels import DEFAULT_TRIALS

COMMANDS: dict[str, Callable[[argparse.Namespace], None]] = {
    "movegen": movegen.run_movegen,
    "eval": eval.run_eval,
    "decide": decide.run_decide,
    "api": api.run_api,
    "parity": parity.run_parity,
    "signature": decide.run_signature,
    "serve": serve.run_serve,
    "gnubg-client": gnubg_client.run_gnubg_client,
    "equal-time": lambda args: equal_time.run_equal_time(args, equal_time_match.run_matches),
    "think-wall": equal_time_wall.run_think_wall,
}


# Every developer tool of the project (benchmarks, parity runs against gnubg, soaks, fuzzers),
# by the command that runs it; the bot's tools are named, not imported (engine never imports bot).
TOOLS: tuple[tuple[str, str], ...] = (
    ("python -m engine.bench movegen [--positions N]", "move generation against the gnubg package"),
    ("python -m engine.bench eval", "0-ply evaluation speed and agreement against the gnubg package"),
    ("python -m engine.bench decide [--match 7:2-3]", "whole decisions (plays, cube) against the gnubg package"),
    ("python -m engine.bench api [--positions N]", "the Python API's speed on fresh positions against gnubg's"),
    ("python -m engine.bench parity [--levels L] [--scale 0.1]", "decision parity with the gnubg package"),
    ("python -m engine.bench serve [--positions 300]", "Debian gnubg's external socket against our socket and HTTP"),
    ("python -m engine.bench gnubg-client [--matches 12 --seed 31 --level L]",
     "Debian gnubg as a client plays whole matches with our socket as one side's brain"),
    ("python -m engine.bench equal-time [--positions N --trials T --time-ratio R --seed S]",
     "thinking-time play against gnubg World class at gnubg's own time, judged by rollouts"),
    ("python -m engine.bench think-wall [--positions 36 --levels L]",
     "thinking-time levels' wall-clock answer time against their budget, as the bot plays them"),
    ("python -m bot.cli.startup_bench [-n 21]", "cold start of fibsbot --version and hint against gnubg's hint"),
    ("python -m bot.store.bench import|stats", "database import against parsing, stats over 10,000 matches"),
    ("python -m engine.bench --signature", "the deterministic checksum of every level's decisions"),
    ("python -m engine.bench.serve_parity [--seed 2027 --expert 600 --world 150]",
     "held-out board lines: our socket's default mode against Debian gnubg's external, reply by reply"),
    ("python -m engine.bench.rollout_parity [--cases 36 --trials 72]", "rollouts against the gnubg package"),
    ("python -m engine.bench.rollout_speed [--trials 1296]", "rollout speed against the gnubg package"),
    ("python -m bot.rollout_scale [--workers 1,2]", "a rollout split over a local Dask cluster"),
    ("python -m bot.tournament.bench [CONFIG] [--runs 15]", "tournament speed-up on more worker processes"),
    ("python -m bot.soak --matches 20 [--drop-every 50]", "bot-vs-bot soak over the local server"),
    ("python -m bot.fuzz --sessions 10000 [--seed 1]", "mutated match dialogues into the bot's state machine"),
    ("python -m bot.server.stress [--timeout 10]", "the local server against slow clients and socket floods"),
)


def list_tools() -> str:
    """The developer tools, one line each: the command, then what it measures."""
    width = max(len(command) for command, _ in TOOLS)
    return "\n".join(f"{command:<{width}}  {what}" for command, what in TOOLS)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m engine.bench", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("what", nargs="?", choices=sorted(COMMANDS), help="which benchmark")
    parser.add_argument("--positions", type=int, default=1000, help="size of the seeded position set")
    parser.add_argument("--levels", default="", help="parity, equal-time, think-wall: levels, comma-separated")
    parser.add_argument("--scale", type=float, default=1.0, help="parity, serve: multiplies the default set sizes")
    parser.add_argument("--match", type=decide.match_score, default=None,
                        help="decide: a match score LENGTH:A-B, such as 7:2-3 (default: money play)")
    parser.add_argument("--trials", type=int, default=DEFAULT_TRIALS,
                        help="equal-time: rollout trials per judged decision")
    parser.add_argument("--time-ratio", type=float, default=1.0, help="equal-time: our budget over gnubg's time")
    parser.add_argument("--matches", type=int, default=0,
                        help="equal-time: pairs of 7-point matches against gnubg; gnubg-client: runs (default 12)")
    parser.add_argument("--seed", type=int, default=None,
                        help="equal-time: the self-play and rollout seed; gnubg-client: the setups' seed "
                             "(default: each tool's held-out seed)")
    parser.add_argument("--level", default="", help="gnubg-client: our level in every run (default: varied)")
    parser.add_argument("--bank", action="store_true",
                        help="equal-time: our level banks the CPU time it saves for later decisions")
    parser.add_argument("--signature", action="store_true", help="print the deterministic decision checksum")
    parser.add_argument("--list", action="store_true", help="list every developer tool with its command")
    args = parser.parse_args(argv)
    if args.list:
        print(list_tools())
    elif args.signature:
        COMMANDS["signature"](args)
    elif args.what:
        COMMANDS[args.what](args)
    else:
        parser.print_help()


if __name__ == "__main__":
    main()
