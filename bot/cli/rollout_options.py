"""The rollout settings' options, shared by ``fibsbot rollout`` and ``fibsbot hint --rollout``."""

from __future__ import annotations

import argparse
from pathlib import Path

DEFAULT_PLAYS = 5


def add_rollout_arguments(p: argparse.ArgumentParser, *, for_hint: bool = False) -> None:
    """The rollout settings' flags (``fibsbot rollout``; ``hint --rollout`` takes them too)."""
    p.add_argument("--trials", type=int, default=None,
                   help="trials (games) per candidate (default: gnubg's, 1296)")
    if not for_hint:  # hint has its own --level
        p.add_argument("--level", default="expert", help="chequer play of both sides (default expert)")
    p.add_argument("--cube-level", default=None, help="cube decisions (default: --level)")
    p.add_argument("--truncate", type=int, default=None, metavar="N", help="stop each trial after N half-moves")
    p.add_argument("--seed", type=int, default=0, help="dice seed (gnubg's `set rollout seed`)")
    p.add_argument("--no-quasi-random", action="store_true", help="plain random dice (no rotation)")
    p.add_argument("--no-variance-reduction", action="store_true", help="no luck correction")
    p.add_argument("--cubeless", action="store_true", help="a cubeless rollout")
    p.add_argument("--stop-se", type=float, default=None, metavar="SE",
                   help="stop once the equities' standard errors are at most SE (after --min-trials)")
    p.add_argument("--min-trials", type=int, default=324, help="trials before --stop-se applies (default 324)")
    p.add_argument("--threads", type=int, default=None, help="threads (default: every core)")
    if not for_hint:
        p.add_argument("--executor", choices=("threads", "dask"), default="threads",
                       help="threads of this process, or trial ranges on a Dask cluster")
        p.add_argument("--scheduler", default=None, help="the Dask scheduler's address (--executor dask)")
        p.add_argument("--json", action="store_true", help="print the result as JSON")
        p.add_argument("--save", type=Path, default=None, metavar="FILE",
                       help="keep the trials done in FILE and resume from it (Ctrl-C keeps them too)")
