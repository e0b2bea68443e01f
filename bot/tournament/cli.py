"""`fibsbot tournament` and `fibsbot analyse`: the commands (their arguments: :mod:`bot.cli`)."""

from __future__ import annotations

import argparse
import functools
import json
import multiprocessing
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from rich.console import Console
from rich.table import Table

from bot.cli.errors import CommandError
from bot.tournament import config as tconfig
from bot.tournament import report as reporting
from bot.yamlconfig import shipped_config, shipped_instead

if TYPE_CHECKING:
    from engine.analysis import MatchAnalysis
    from engine.analysis.level_compare import Comparison
    from engine.levels import Level


def _console() -> Console:
    # logs and pipes get room for the tables; a terminal keeps its own width
    return Console() if sys.stdout.isatty() else Console(width=140)


LOCAL_NAME = "tournament.yaml"


def config_path(given: str | None) -> tuple[Path, str | None]:
    """The tournament file to read and, when it is not the one named, why: no FILE reads
    ./tournament.yaml, else the shipped one; a shipped example's name works from any folder."""
    if given is None:
        if Path(LOCAL_NAME).is_file():
            return Path(LOCAL_NAME), None
        return shipped_config(LOCAL_NAME), f"no ./{LOCAL_NAME}: the shipped one (`fibsbot init` writes a copy)"
    shipped = shipped_instead(given)
    if shipped is not None:
        return shipped, f"no {given} here: the shipped example of that name"
    return Path(given), None


def cmd_tournament(args: argparse.Namespace) -> int:
    from bot.tournament.executors import DaskExecutor, Executor, LocalExecutor
    from bot.tournament.runner import run

    console = _console()
    path, why = config_path(args.config)
    if why:
        print(f"fibsbot tournament: config {path} ({why})", file=sys.stderr)
    try:
        cfg = tconfig.load(path)
        overrides = {k: v for k, v in (("output", args.output), ("matches", args.matches), ("seed", args.seed))
                     if v is not None}
        if overrides:
            cfg = tconfig.TournamentConfig.model_validate({**cfg.model_dump(), **overrides})
        executor: Executor
        if args.executor == "dask":
            if not args.scheduler:
                raise CommandError("--executor dask needs --scheduler ADDRESS")
            executor = DaskExecutor(args.scheduler)
        else:
            executor = LocalExecutor(args.workers)
        summary = run(cfg, executor, console, live=not args.quiet and console.is_terminal)
    except RuntimeError as exc:  # a worker died, or Dask is missing (the named errors: bot.cli)
        raise CommandError(str(exc)) from None
    reporting.show(summary.report, console)
    files = reporting.write(summary.report, cfg.output)
    console.print(f"wrote {', '.join(str(f) for f in files)}; matches in {cfg.output / 'matches'}")
    if summary.report.get("ratings") and not reporting.can_plot():
        console.print(reporting.PLOT_HINT, markup=False)  # [plot] is text, not a rich style
    console.print(f"played {summary.played} matches in {summary.wall_s:.1f} s "
                  f"({summary.matches_per_minute:.1f} matches/min); "
                  f"{summary.skipped + summary.played} of {summary.scheduled} done")
    if summary.interrupted:
        console.print("interrupted: finished matches are saved; run the same command again to resume")
        return 130
    return 0


def _analyse_file(lv: Level, threads: int | None, path: str) -> tuple[MatchAnalysis, dict[str, Any]]:
    """One record's analysis as JSON, each decision with its position's IDs (in a worker
    process when side by side)."""
    from engine.analysis import analyse_match
    from engine.evaluator import Engine
    from engine.records import load

    record = load(path)
    analysis = analyse_match(Engine(), record, lv, threads=threads)
    data = {"match": path, **analysis.as_dict()}
    data["decisions"] = [{**d, **decision_ids(record, d)} for d in data["decisions"]]
    return analysis, data


def decision_ids(record: Any, decision: dict[str, Any]) -> dict[str, str]:
    """gnubg's position ID, match ID (``hint``/``rollout`` take ``POSITIONID:MATCHID``) and the
    XGID of the position a decision was made in: the roll's for a play, the doubler's (the
    cube turned, the taker to decide) for a take or pass."""
    from engine.analysis import match_state
    from engine.xgid import to_xgid

    game = record.games[decision["game"] - 1]
    before = game.states[decision["action"]]
    player = decision["player"]
    if decision["kind"] in ("take", "pass"):
        doubler = 1 - player
        position = before.position(doubler)
        match = match_state(record, game, before, doubler, turn=player, doubled=True)
    else:
        position = before.position(player)
        dice = tuple(decision["dice"]) if decision["dice"] else None
        match = match_state(record, game, before, player, dice=dice)
    return {"position_id": position.position_id(), "match_id": match.match_id(), "xgid": to_xgid(position, match)}


def cmd_analyse(args: argparse.Namespace) -> int:
    from bot.cli.ids import level_named
    from engine.analysis import by_player, error_rate_order
    from engine.records import atomic_write

    if args.levels:
        return cmd_compare(args)
    lv = level_named(args.level or "expert")
    workers = min(args.workers, len(args.match))
    if workers > 1:
        with multiprocessing.get_context("fork").Pool(workers) as pool:
            done = pool.map(functools.partial(_analyse_file, lv, 1), args.match, chunksize=1)
    else:
        done = [_analyse_file(lv, None, path) for path in args.match]
    # one shape for one record or several: the matches, and each player's totals over them
    matches = [data for _, data in done]
    players = by_player(analysis for analysis, _ in done)
    data = {"level": matches[0]["level"], "matches": matches,
            "players": matches[0]["players"] if len(matches) == 1 else [p.as_dict(0) for p in players],
            "error_rate_order": error_rate_order(players)}
    if args.html:
        from bot.report.cli import write_analyse_html

        if write_analyse_html(args.html, args.match, [analysis for analysis, _ in done], lv):
            return 2
    if args.json == "-":
        print(json.dumps(data, indent=2))
        return 0
    console = _console()
    if len(matches) == 1:
        console.print(_summary_table(data, args.match[0]))
        console.print(_decisions_table(matches[0], args.all))
    else:
        console.print(_summary_table(data, f"{len(matches)} matches"))
        console.print("Error rates, lowest first: " + " < ".join(data["error_rate_order"]))
    if args.json:
        atomic_write(args.json, json.dumps(data, indent=2) + "\n")
        console.print(f"wrote {args.json}")
    return 0


def cmd_compare(args: argparse.Namespace) -> int:
    """``fibsbot analyse --levels``: the paired comparison of levels."""
    from engine.analysis.level_compare import checker_spots, compare_levels, shuffled
    from engine.errors import RecordParseError
    from engine.evaluator import Engine
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
    except ValueError as exc:  # a level's name or the judge's settings (the named errors: bot.cli)
        if isinstance(exc, RecordParseError):
            raise
        raise CommandError(str(exc)) from None
    if len(levels) < 2:
        raise CommandError("--levels needs at least two levels")
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
    open_ = [f"{p['weaker']} > {p['stronger']} ({verdict_text(p)})" for p in pairs if p["verdict"] == "undecided"]
    line = f"Expected order, weakest first: {order}. Steps decided in order: {len(decided)} of {len(pairs)}"
    if open_:
        line += "; still open: " + ", ".join(open_)
    if reversed_:
        line += "; reversed: " + ", ".join(reversed_)
    return line + "."


def verdict_text(pair: dict[str, Any]) -> str:
    """A pair's verdict in words that agree with its 95% interval: the sequential test decides
    only at its looks, each at a stricter confidence, so an open pair whose 95% interval
    already excludes 0 is said to lean that way, with the confidence the next look needs."""
    if pair["verdict"] != "undecided":
        return str(pair["verdict"])
    low, high = pair["interval_memg"]
    if low is not None and (low > 0 or high < 0):
        needed = 1 - 0.05 / 2 ** (pair["looks"] + 1)
        return f"{pair['leaning']} at 95%; the next look needs {100 * needed:.2f}%"
    return "undecided" if pair["leaning"] == "tied" else f"undecided, leans {pair['leaning']}"


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
                      f"{p['mean_difference_memg']:+.3f}", interval, verdict_text(p))
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
    for column in ("game", "player", "decision", "dice", "played", "best", "error", "skill",
                   "position ID:match ID"):
        table.add_column(column, justify="right" if column in ("game", "error") else "left",
                         no_wrap=column.startswith("position"))
    for d in data["decisions"]:
        if everything or d["skill"] != "none":
            dice = "" if d["dice"] is None else f"{d['dice'][0]}{d['dice'][1]}"
            table.add_row(str(d["game"]), names[d["player"]], d["kind"], dice, d["played"], d["best"],
                          f"{d['error']:+.4f}", d["skill"], f"{d['position_id']}:{d['match_id']}")
    return table
