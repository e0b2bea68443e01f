"""`fibsbot tournament` and `fibsbot analyse`: argument parsers and commands."""

from __future__ import annotations

import argparse
import functools
import json
import multiprocessing
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from rich.console import Console
from rich.table import Table

from bot.yamlconfig import ConfigError
from bot.tournament import config as tconfig
from bot.tournament import report as reporting
from bot.tournament.results import ResultsMismatch

if TYPE_CHECKING:
    from engine.analysis import MatchAnalysis
    from engine.analysis.level_compare import Comparison
    from engine.levels import Level


def _positive(text: str) -> int:
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, got {value}")
    return value


def add_tournament_parser(subparsers: Any) -> None:
    p = subparsers.add_parser("tournament", help="local self-play tournament between engine levels",
                              description="Play engine against engine (no network) and report standings, "
                                          "ratings and confidence intervals. Rerun to resume.")
    p.add_argument("config", nargs="?", default=str(tconfig.DEFAULT_PATH), help="tournament YAML file")
    p.add_argument("--workers", type=_positive, default=os.cpu_count() or 1,
                   help="worker processes of the local executor (default: all cores)")
    p.add_argument("--executor", choices=("local", "dask"), default="local")
    p.add_argument("--scheduler", help="Dask scheduler address, e.g. tcp://host:8786 (--executor dask)")
    p.add_argument("--output", type=Path, help="results folder (overrides the config's output)")
    p.add_argument("--matches", type=_positive, help="matches per pairing (overrides the config)")
    p.add_argument("--seed", type=int, help="tournament seed (overrides the config)")
    p.add_argument("--quiet", action="store_true", help="no progress display")
    p.set_defaults(run=cmd_tournament)


def _console() -> Console:
    # logs and pipes get room for the tables; a terminal keeps its own width
    return Console() if sys.stdout.isatty() else Console(width=140)


def cmd_tournament(args: argparse.Namespace) -> int:
    from bot.tournament.executors import DaskExecutor, Executor, LocalExecutor
    from bot.tournament.runner import run

    console = _console()
    try:
        cfg = tconfig.load(args.config)
        overrides = {k: v for k, v in (("output", args.output), ("matches", args.matches), ("seed", args.seed))
                     if v is not None}
        if overrides:
            cfg = tconfig.TournamentConfig.model_validate({**cfg.model_dump(), **overrides})
        executor: Executor
        if args.executor == "dask":
            if not args.scheduler:
                raise ConfigError("--executor dask needs --scheduler ADDRESS")
            executor = DaskExecutor(args.scheduler)
        else:
            executor = LocalExecutor(args.workers)
        summary = run(cfg, executor, console, live=not args.quiet and console.is_terminal)
    except (ConfigError, ResultsMismatch, RuntimeError) as exc:
        print(f"fibsbot tournament: {exc}", file=sys.stderr)
        return 2
    reporting.show(summary.report, console)
    files = reporting.write(summary.report, cfg.output)
    console.print(f"wrote {', '.join(str(f) for f in files)}; matches in {cfg.output / 'matches'}")
    if summary.report.get("ratings") and not reporting.can_plot():
        console.print(reporting.PLOT_HINT)
    console.print(f"played {summary.played} matches in {summary.wall_s:.1f} s "
                  f"({summary.matches_per_minute:.1f} matches/min); "
                  f"{summary.skipped + summary.played} of {summary.scheduled} done")
    if summary.interrupted:
        console.print("interrupted: finished matches are saved; run the same command again to resume")
        return 130
    return 0


def add_analyse_parser(subparsers: Any) -> None:
    p = subparsers.add_parser("analyse", help="analyse match records: errors, luck, error rates",
                              description="gnubg-style analysis of every decision of a match (.sgf or .mat); "
                                          "with several files, each player's totals over all of them.")
    p.add_argument("match", nargs="+", help="match records (.sgf or .mat)")
    p.add_argument("--level", help="analysis level (default expert = 0-ply); with --levels the judge "
                                   "(default 4ply)")
    p.add_argument("--json", metavar="FILE", help="also write the analysis as JSON ('-' = stdout, no tables)")
    p.add_argument("--all", action="store_true", help="list every decision, not only the errors (one match)")
    p.add_argument("--workers", type=_positive, default=1,
                   help="matches analysed side by side in worker processes, one search thread each "
                        "(default 1: one match at a time on every core)")
    compare = p.add_argument_group("paired comparison of levels (checker play)")
    compare.add_argument("--levels", metavar="A,B,...",
                         help="instead of analysing the played moves, let these levels (weakest first; 'all' = "
                              "the nine) play every decision of the records and compare neighbours, judged at "
                              "--level where their plays differ")
    compare.add_argument("--min-differing", type=_positive, default=10,
                         help="positions where a pair's plays differ at its first look (default 10); later "
                              "looks at twice, four times... that, each with a stricter interval")
    compare.add_argument("--max-positions", type=_positive, help="stop after this many positions")
    compare.add_argument("--judge", choices=("search", "rollout"), default="search",
                         help="score differing plays by a search at --level (default) or by rolling them out")
    compare.add_argument("--judge-trials", type=_positive, default=144,
                         help="--judge rollout: trials per play (default 144; Expert both sides)")
    compare.add_argument("--seed", type=int, default=1, help="order in which the positions are visited")
    p.set_defaults(run=cmd_analyse)


def _analyse_file(lv: Level, threads: int | None, path: str) -> MatchAnalysis:
    """One record's analysis (in a worker process when side by side)."""
    from engine.analysis import analyse_match
    from engine.evaluator import Engine
    from engine.records import load

    return analyse_match(Engine(), load(path), lv, threads=threads)


def cmd_analyse(args: argparse.Namespace) -> int:
    from engine.analysis import by_player, error_rate_order
    from engine.errors import RecordParseError
    from engine.levels import level
    from engine.records import atomic_write

    if args.levels:
        return cmd_compare(args)
    try:
        lv = level(args.level or "expert")
    except ValueError as exc:
        print(f"fibsbot analyse: {exc}", file=sys.stderr)
        return 2
    workers = min(args.workers, len(args.match))
    try:
        if workers > 1:
            with multiprocessing.get_context("fork").Pool(workers) as pool:
                analyses = pool.map(functools.partial(_analyse_file, lv, 1), args.match, chunksize=1)
        else:
            analyses = [_analyse_file(lv, None, path) for path in args.match]
    except (OSError, RecordParseError) as exc:
        print(f"fibsbot analyse: {exc}", file=sys.stderr)
        return 2
    if len(analyses) == 1:
        data = {"match": args.match[0], **analyses[0].as_dict()}
    else:
        players = by_player(analyses)
        data = {"matches": [{"match": m, **a.as_dict()} for m, a in zip(args.match, analyses)],
                "level": analyses[0].level,
                "players": [p.as_dict(0) for p in players],
                "error_rate_order": error_rate_order(players)}
    if args.json == "-":
        print(json.dumps(data, indent=2))
        return 0
    console = _console()
    if len(analyses) == 1:
        console.print(_summary_table(data, args.match[0]))
        console.print(_decisions_table(data, args.all))
    else:
        console.print(_summary_table(data, f"{len(analyses)} matches"))
        console.print("Error rates, lowest first: " + " < ".join(data["error_rate_order"]))
    if args.json:
        atomic_write(args.json, json.dumps(data, indent=2) + "\n")
        console.print(f"wrote {args.json}")
    return 0


def cmd_compare(args: argparse.Namespace) -> int:
    """``fibsbot analyse --levels``: the paired comparison of levels."""
    from engine.errors import RecordParseError
    from engine.evaluator import Engine
    from engine.analysis.level_compare import checker_spots, compare_levels, shuffled
    from engine.levels import LEVEL_NAMES, level
    from engine.records import atomic_write, load

    names = list(LEVEL_NAMES) if args.levels.strip() == "all" else [n.strip() for n in args.levels.split(",")]
    try:
        levels = [level(n) for n in names if n]
        judge: Any = level(args.level or "4ply")
        if args.judge == "rollout":
            from engine.analysis.rollout_judge import RolloutJudge

            judge = RolloutJudge(trials=args.judge_trials, seed=args.seed, level=args.level or "expert")
        spots = shuffled((s for path in args.match for s in checker_spots(load(path), Path(path).name)), args.seed)
    except (ValueError, OSError, RecordParseError) as exc:
        print(f"fibsbot analyse: {exc}", file=sys.stderr)
        return 2
    if len(levels) < 2:
        print("fibsbot analyse: --levels needs at least two levels", file=sys.stderr)
        return 2
    spots = spots[:args.max_positions] if args.max_positions else spots
    console = _console()
    quiet = args.json == "-"
    decided: set[str] = set()

    def progress(result: Comparison) -> None:
        for pair in result.pairs:
            verdict = pair.verdict
            if verdict != "undecided" and pair.weaker not in decided:
                decided.add(pair.weaker)
                if not quiet:
                    console.print(f"{pair.weaker} vs {pair.stronger}: {verdict} after {pair.positions} positions "
                                  f"({pair.differing} differing)")
        if not quiet and result.positions % 25 == 0:
            still = [f"{p.weaker} > {p.stronger} {1000 * p.mean:+.3f} ({1000 * p.interval()[0]:+.3f}.."
                     f"{1000 * p.interval()[1]:+.3f}, {p.differing} differing)"
                     for p in result.pairs if p.decided is None]
            console.print(f"{result.positions} of {len(spots)} positions, {result.judged} judged; "
                          f"open, mEMG: {'; '.join(still)}")

    if not quiet:
        console.print(f"{len(spots)} checker decisions from {len(args.match)} records; judge {judge.name}")
    comparison = compare_levels(Engine(), spots, levels, judge, min_differing=args.min_differing,
                                on_spot=progress)
    data = {"matches": args.match, **comparison.as_dict()}
    if quiet:
        print(json.dumps(data, indent=2))
        return 0
    console.print(_comparison_table(data))
    console.print(_ranking_line(data["pairs"]))
    if args.json:
        atomic_write(args.json, json.dumps(data, indent=2) + "\n")
        console.print(f"wrote {args.json}")
    return 0


def _ranking_line(pairs: list[dict[str, Any]]) -> str:
    """Each neighbouring step's verdict, and where the undecided ones lean."""
    order = " > ".join([p["weaker"] for p in pairs] + [pairs[-1]["stronger"]])
    decided = [p for p in pairs if p["verdict"] == "in order"]
    reversed_ = [f"{p['weaker']} > {p['stronger']}" for p in pairs if p["verdict"] == "reversed"]
    open_ = [f"{p['weaker']} > {p['stronger']} ({'leans ' + p['leaning'] if p['leaning'] != 'tied' else 'tied'})"
             for p in pairs if p["verdict"] == "undecided"]
    line = f"Expected order, weakest first: {order}. Steps decided in order: {len(decided)} of {len(pairs)}"
    if open_:
        line += "; undecided: " + ", ".join(open_)
    if reversed_:
        line += "; reversed: " + ", ".join(reversed_)
    return line + "."


def _comparison_table(data: dict[str, Any]) -> Table:
    table = Table(title=f"Paired comparison on {data['positions']} positions, judged at {data['judge']} "
                        "(mEMG per position)", title_justify="left")
    for column in ("weaker", "stronger", "positions", "differing", "mean difference", "95% interval", "verdict"):
        table.add_column(column, justify="right" if column in ("positions", "differing", "mean difference")
                         else "left")
    for p in data["pairs"]:
        low, high = p["interval_memg"]
        interval = "-" if low is None else f"{low:+.3f} .. {high:+.3f}"
        table.add_row(p["weaker"], p["stronger"], str(p["positions"]), str(p["differing"]),
                      f"{p['mean_difference_memg']:+.3f}", interval, p["verdict"])
    return table


def _summary_table(data: dict[str, Any], name: str) -> Table:
    players = data["players"]
    table = Table(title=f"{name}: analysis at {data['level']} (errors in mEMG per decision)", title_justify="left")
    table.add_column("")
    for p in players:
        table.add_column(p["name"], justify="right")
    rows: list[tuple[str, Any]] = [
        ("unforced moves", lambda p: p["unforced_moves"]),
        ("chequer errors doubtful/bad/very bad", lambda p: "/".join(str(v) for v in p["chequer_skills"].values())),
        ("chequer error rate", lambda p: f"{p['chequer_rate_memg']:.1f}"),
        ("close cube decisions", lambda p: p["close_cube_decisions"]),
        ("cube errors doubtful/bad/very bad", lambda p: "/".join(str(v) for v in p["cube_skills"].values())),
        ("cube error rate", lambda p: f"{p['cube_rate_memg']:.1f}"),
        ("overall error rate", lambda p: f"{p['overall_rate_memg']:.1f}"),
        ("rating", lambda p: p["rating"]),
        ("error-based FIBS rating", lambda p: "-" if p["fibs_rating"] is None else f"{p['fibs_rating']:.0f}"),
        ("luck total (EMG)", lambda p: f"{p['luck']:+.3f}"),
        ("very lucky/lucky/unlucky/very unlucky", lambda p: "/".join(str(v) for v in p["luck_classes"].values())),
    ]
    for label, cell in rows:
        table.add_row(label, *(str(cell(p)) for p in players))
    return table


def _decisions_table(data: dict[str, Any], everything: bool) -> Table:
    names = [p["name"] for p in data["players"]]
    table = Table(title="Decisions" if everything else "Errors (doubtful or worse)", title_justify="left")
    for column in ("game", "player", "decision", "dice", "played", "best", "error", "skill"):
        table.add_column(column, justify="right" if column in ("game", "error") else "left")
    for d in data["decisions"]:
        if everything or d["skill"] != "none":
            dice = "" if d["dice"] is None else f"{d['dice'][0]}{d['dice'][1]}"
            table.add_row(str(d["game"]), names[d["player"]], d["kind"], dice, d["played"], d["best"],
                          f"{d['error']:+.4f}", d["skill"])
    return table
