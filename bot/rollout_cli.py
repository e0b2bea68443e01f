"""`fibsbot rollout`: gnubg's rollouts from the command line (engine/rollout.py); its
arguments are registered by :mod:`bot.cli.rollout`.

A rich progress bar shows the running equities with their standard errors
and the time left; the result is a table like gnubg's (or JSON with
``--json``). ``--save FILE`` keeps the per-trial values after every chunk
(written atomically): the same command resumes where it stopped, and a
larger ``--trials`` extends a finished rollout with the same dice.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
from rich.console import Console
from rich.progress import BarColumn, Progress, TaskID, TextColumn, TimeRemainingColumn
from rich.table import Table

from bot.cli.errors import CommandError
from bot.cli.ids import parse_gnubg_id
from bot.cli.rollout_options import DEFAULT_PLAYS
from engine.records import atomic_write
from engine.rollout import (
    DEFAULT_TRIALS,
    OUTPUTS,
    CandidateResult,
    RolloutJob,
    RolloutResult,
    RolloutSettings,
    run,
)

SAVE_FORMAT = "fibsbot-rollout/1"


THINK_REFUSED = ("a rollout plays its trials' decisions inside the C engine at fixed depths, so a thinking-time "
                 "level (\"fibsbot strong\", {think: S}) cannot be its players' level: give a gnubg level")


def settings_of(args: argparse.Namespace) -> RolloutSettings:
    from engine.levels import is_think_level

    for given in (args.level, args.cube_level):
        if isinstance(given, str) and (is_think_level(given) or given.lstrip().startswith("{")):
            raise ValueError(THINK_REFUSED)
    trials = DEFAULT_TRIALS if args.trials is None else args.trials
    return RolloutSettings(trials=trials, level=args.level, cube_level=args.cube_level,
                           truncate=args.truncate, seed=args.seed, quasi_random=not args.no_quasi_random,
                           variance_reduction=not args.no_variance_reduction, cubeful=not args.cubeless,
                           stop_se=args.stop_se, min_trials=args.min_trials)


def best_plays(engine: Any, position: Any, match: Any, dice: tuple[int, int], k: int) -> list[Any]:
    """The ``k`` best plays by 0-ply (Expert), gnubg's candidates for a rollout."""
    return [c.move for c in engine.best_move(position=position, dice=dice, match=match, level="expert").candidates[:k]]


def cmd_rollout(args: argparse.Namespace) -> int:
    from engine.evaluator import Engine
    from engine.match import MatchState

    try:
        settings = settings_of(args)
        if args.plays < 1:
            raise ValueError("--plays must be at least 1")
        if args.executor == "dask" and not args.scheduler:
            raise ValueError("--executor dask needs --scheduler ADDRESS")
        position, match = parse_gnubg_id(args.id)
        engine = Engine()
        candidates: Any = None
        if args.cube:
            candidates = "cube"
        elif args.dice:
            match = (match or MatchState(length=0, jacoby=True)).with_(dice=args.dice)
            candidates = best_plays(engine, position, match, args.dice, args.plays)
            if not candidates or not str(candidates[0]):
                raise ValueError("no legal play to roll out")
        job = RolloutJob.of(position, match, candidates, settings)
        done = load_saved(args.save, job) if args.save else None
    except ValueError as exc:
        raise CommandError(str(exc)) from None
    dask = None
    if args.executor == "dask":
        from bot.tournament.executors import DaskRollout

        try:
            dask = DaskRollout(args.scheduler)
        except RuntimeError as exc:  # Dask's distributed package is not installed
            raise CommandError(str(exc)) from None
    save = (lambda values: write_saved(args.save, job, values)) if args.save else None
    console = Console(stderr=True)
    try:
        with RolloutProgress(console, job, quiet=args.json) as bar:
            if dask is not None:
                result = dask.run(engine, job, done=done, progress=bar.update, on_chunk=save)
            else:
                result = run(engine, job, threads=args.threads, progress=bar.update, done=done, on_chunk=save)
    except KeyboardInterrupt:
        kept = f"; the trials done are kept in {args.save}: the same command resumes" if args.save else ""
        print(f"fibsbot rollout: interrupted{kept}", file=sys.stderr)
        return 130
    if args.json:
        print(json.dumps(result.as_json()))
    else:
        Console(width=max(Console().width, 132)).print(result_table(job, result))
        if result.action:
            print(cube_lines(result))
    return 0


def cube_lines(result: RolloutResult) -> str:
    """What gnubg prints under a cube rollout: the position's cubeless equity (the no-double
    row's: the double/take row's is the doubled cube's, in units of the current one), then
    the proper cube action."""
    return f"Rollout cubeless equity {result.cubeless_equity:+.6f}\nProper cube action: {result.action}"


# ---- saving and resuming --------------------------------------------------------------------


def load_saved(path: Path, job: RolloutJob) -> list[np.ndarray] | None:
    """The per-candidate values saved for this rollout; None if FILE does not
    exist; ValueError if it holds something else (it is never overwritten then)."""
    try:
        data = json.loads(path.read_text())
    except FileNotFoundError:
        return None
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise ValueError(f"cannot read {path}: {exc}") from None
    try:
        if data["format"] != SAVE_FORMAT:
            raise ValueError
        saved = data["job"]
        settings = RolloutSettings.from_dict(saved["settings"])
        cands = saved["candidates"]
        other = RolloutJob(saved["position_id"], saved["match_id"], tuple(cands) if isinstance(cands, list) else cands,
                           settings.with_(trials=job.settings.trials))
        values = [np.asarray(v, dtype=np.float32).reshape(-1, OUTPUTS) for v in data["values"]]
    except (KeyError, TypeError, ValueError):
        raise ValueError(f"{path} is not a saved fibsbot rollout") from None
    if other != job:
        raise ValueError(f"{path} holds another rollout (position, candidates or settings differ)")
    if len(values) != len(job.labels()) or any(not np.isfinite(v).all() for v in values):
        raise ValueError(f"{path} is not a saved fibsbot rollout")
    return [v[:job.settings.trials] for v in values]


def write_saved(path: Path, job: RolloutJob, values: Sequence[np.ndarray]) -> None:
    data = {"format": SAVE_FORMAT,
            "job": {"position_id": job.position_id, "match_id": job.match_id,
                    "candidates": list(job.candidates) if isinstance(job.candidates, tuple) else job.candidates,
                    "settings": job.settings.as_dict()},
            # float32 values are exact as JSON floats: a resumed rollout equals an uninterrupted one
            "values": [[[float(x) for x in row] for row in v] for v in values]}
    atomic_write(path, json.dumps(data))


# ---- display -------------------------------------------------------------------------------------


def _score(c: CandidateResult) -> float:
    return c.cubeful_equity if c.cubeful_equity is not None else c.equity


def _pm(value: float | None, se: float | None) -> str:
    if value is None or se is None:
        return "-"
    return f"{value:+.4f} ± {se:.4f}"


class RolloutProgress:
    """A rich progress bar: trials done, the leading candidates' equities ± SE, time left."""

    def __init__(self, console: Console, job: RolloutJob, quiet: bool = False) -> None:
        self.job = job
        self.progress = Progress(TextColumn("rollout"), BarColumn(), TextColumn("{task.completed}/{task.total}"),
                                 TextColumn("{task.fields[equities]}"), TimeRemainingColumn(),
                                 console=console, transient=True, disable=quiet)
        self.task: TaskID | None = None

    def __enter__(self) -> RolloutProgress:
        self.progress.__enter__()
        self.task = self.progress.add_task("rollout", total=self.job.settings.trials, equities="")
        return self

    def __exit__(self, *exc: object) -> None:
        self.progress.__exit__(None, None, None)

    def update(self, done: int, total: int, partial: RolloutResult) -> None:
        ranked = sorted((c for c in partial.candidates if c.trials), key=_score, reverse=True)[:3]
        text = "  ".join(
            f"{c.move}: {_pm(_score(c), c.stderr_cubeful_equity if c.cubeful_equity is not None else c.stderr_equity)}"
            for c in ranked)
        assert self.task is not None
        self.progress.update(self.task, completed=done, total=total, equities=text)


def result_table(job: RolloutJob, result: RolloutResult) -> Table:
    """gnubg's rollout result as a table: rank, candidate, probabilities, equities ± SE."""
    s = job.settings
    head = (f"{result.trials} trials, seed {s.seed}, {s.level} play, {s.cube_level or s.level} cube, "
            f"{'cubeful' if job.cubeful else 'cubeless'}"
            f"{', variance reduction' if s.variance_reduction else ''}"
            f"{', quasi-random dice' if s.quasi_random else ''}"
            f"{f', truncated at {s.truncate} plies' if s.truncate else ''} ({result.seconds:.1f} s)")
    if job.candidates == "cube":  # gnubg's rows: "Centered 1-cube", "gnubg owns 2-cube"
        head += "\ndouble, take's cubeless equity: with the cube doubled, in units of the current cube"
    table = Table(title=f"Rollout of {job.position_id}{':' + job.match_id if job.match_id else ''}", caption=head)
    for col in ("#", "candidate", "W", "WG", "WBG", "L", "LG", "LBG", "cubeless ± SE",
                "cubeful ± SE"):
        table.add_column(col, justify="left" if col == "candidate" else "right", no_wrap=True)
    if job.match_id is not None and job.match.length:
        table.add_column("MWC", justify="right", no_wrap=True)
    order = list(range(len(result.candidates)))
    if job.candidates != "cube":  # plays by score; a cube decision in gnubg's order
        order.sort(key=lambda i: -_score(result.candidates[i]))
    for rank, i in enumerate(order, 1):
        c = result.candidates[i]
        w, wg, wbg, lg, lbg = c.probabilities
        probs = [w, wg, wbg, 1 - w, lg, lbg]
        row = [str(rank), c.move] + [f"{x:.4f}" if c.trials else "-" for x in probs] + [
            _pm(c.equity, c.stderr_equity), _pm(c.cubeful_equity, c.stderr_cubeful_equity)]
        if len(table.columns) > 10:
            row.append(_pm(c.mwc, c.stderr_mwc) if c.mwc is not None else "-")
        table.add_row(*row)
    return table


def hint_rollout_text(engine: Any, position: Any, match: Any, dice: tuple[int, int] | None,
                      args: argparse.Namespace) -> str:
    """`fibsbot hint --rollout`: the hint's candidates (the best plays of the
    roll, or the cube decision) rolled out, as a table."""
    from io import StringIO

    from engine.match import MatchState

    settings = settings_of(args)
    if dice:
        match = (match or MatchState(length=0, jacoby=True)).with_(dice=dice)
        candidates: Any = best_plays(engine, position, match, dice, DEFAULT_PLAYS)
    else:
        candidates = "cube"
    job = RolloutJob.of(position, match, candidates, settings)
    result = run(engine, job, threads=args.threads)
    out = StringIO()
    Console(file=out, width=132).print(result_table(job, result))
    text = out.getvalue()
    if result.action:
        text += cube_lines(result)
    return text.rstrip("\n")
