"""`fibsbot calibrate`: measure the strength table, show it, or verify it by play."""

from __future__ import annotations

import argparse
import json
import secrets
import sys
import time
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.table import Table

from bot.cli.errors import CommandError
from bot.tournament.results import ResultsMismatch
from bot.yamlconfig import ConfigError


def _executor_factory(args: argparse.Namespace) -> Any:
    from bot.tournament.executors import DaskExecutor, LocalExecutor

    if args.executor == "dask":
        if not args.scheduler:
            raise ConfigError("--executor dask needs --scheduler ADDRESS")
        return lambda: DaskExecutor(args.scheduler)
    if args.workers < 1:
        raise ConfigError("--workers must be at least 1")
    return lambda: LocalExecutor(args.workers)


def cmd_calibrate(args: argparse.Namespace) -> int:
    from engine.strength import StrengthTable

    try:
        if args.show or args.verify:
            table = StrengthTable.load(args.table)
            if args.show:
                return _show(table, args.json)
            return _verify(table, args)
        return _calibrate(args)
    except (ValueError, RuntimeError) as exc:  # bad settings, a worker died, Dask missing
        if isinstance(exc, (ConfigError, ResultsMismatch)):
            raise  # named: bot.cli prints them
        raise CommandError(str(exc)) from None


def row_name(setting: Any, rating: float) -> str:
    """A row as a person chooses it: a gnubg level's name (``expert``, ``world class``), or the
    FIBS rating that ``level: {fibs_rating: R}`` in bot.yaml / tournament.yaml plays at."""
    return setting.name if setting.plies or setting.noise == 0.0 else f"rating {rating:.0f}"


def _show(table: Any, as_json: bool) -> int:
    if as_json:
        print(json.dumps(table.show()))
        return 0
    console = Console() if sys.stdout.isatty() else Console(width=140)
    out = Table(title=f"Strength table ({table.command}, seed {table.seed})", title_justify="left")
    for column in ("level or rating", "FIBS rating", "95% interval", "error rate (mEMG)", "error-based rating",
                   "setting"):
        out.add_column(column, justify="left" if column in ("level or rating", "setting") else "right")
    rows = {(r["plies"], round(r["noise"], 6)): r for r in table.data["settings"]}
    for s in table.rows:
        raw = rows.get((s.setting.plies, s.setting.noise), {})
        a = raw.get("error_rating")
        out.add_row(row_name(s.setting, s.rating), f"{s.rating:.0f}", f"{s.low:.0f}..{s.high:.0f}",
                    f"{s.error_rate:.1f}",
                    "-" if a is None else f"{a:.0f} ({raw['error_rating_low']:.0f}..{raw['error_rating_high']:.0f})",
                    s.setting.name)
    console.print(out)
    for finding in table.data.get("findings", []):
        console.print(f"finding: {finding}", markup=False)
    return 0


def _calibrate(args: argparse.Namespace) -> int:
    from bot.tournament import calibrate as cal
    from engine.records import atomic_write
    from engine.strength import Setting

    settings = tuple(Setting(noise=n) for n in args.noise) + tuple(Setting(plies=p) for p in args.plies)
    if len(args.matches) != 2:
        raise ConfigError("--matches is two counts: against Expert, against World class")
    plan = cal.Plan(settings, seed=1 if args.seed is None else args.seed, judge=args.judge,
                    self_play_lengths=tuple(args.self_play_lengths), self_play_matches=args.self_play_matches,
                    length=args.length, matches=(args.matches[0], args.matches[1]))
    output = args.output or Path("calibration")
    console = Console(stderr=args.json)
    console.print(f"calibrating {len(settings)} settings into {output}: {plan.command()}")
    played = cal.play_parts(cal.parts(plan, output), _executor_factory(args), console)
    if played.interrupted:
        console.print("interrupted: finished matches are saved; run the same command again to resume")
        return 130
    table = cal.build_table(plan, played.results)
    atomic_write(output / cal.TABLE_JSON, json.dumps(table, indent=1) + "\n")
    from bot.store.tournaments import record_calibration  # opt-in (FIBSBOT_STORE)

    record_calibration(output, plan.command(), table)
    from engine.strength import StrengthTable

    if args.json:
        print(json.dumps(StrengthTable.from_dict(table).show()))
    else:
        _show(StrengthTable.from_dict(table), False)
    if cal.plot(table, output / cal.PLOT_PNG):
        console.print(f"wrote {output / cal.TABLE_JSON} and {output / cal.PLOT_PNG}")
    else:
        console.print(f"wrote {output / cal.TABLE_JSON}; for the plot install matplotlib "
                      "(pip install 'fibsbot[plot]') and rerun the same command", markup=False)
    console.print(f"played {played.played} matches in {played.wall_s:.0f} s; "
                  f"{len(table['findings'])} findings")
    return 0


def _verify(table: Any, args: argparse.Namespace) -> int:
    from bot.tournament import calibrate as cal

    seed = secrets.randbelow(2**31) if args.seed is None else args.seed
    output = args.output or Path("calibration") / f"verify-{seed}"
    targets = cal.plan_verify(table, args.verify, args.half_width)
    console = Console(stderr=args.json)
    for t in targets:
        console.print(f"target {t.rating:g}: {t.strength.describe()}; matches "
                      + ", ".join(f"{m} against {ref}" for ref, m in t.matches.items() if m))
    console.print(f"seed {seed}, results in {output}")
    start = time.perf_counter()
    played = cal.play_parts(cal.verify_parts(table, targets, seed, output), _executor_factory(args), console)
    seconds = time.perf_counter() - start
    if played.interrupted:
        console.print("interrupted: finished matches are saved; run the same command (same --seed) to resume")
        return 130
    rows = [cal.measured(table, t, played.results) for t in targets]
    if args.json:
        print(json.dumps({"verify": rows, "seconds": seconds}))
        return 0
    out = Table(title=f"Verification, seed {seed}", title_justify="left")
    for column in ("target", "setting", "measured", "95% interval", "+-", "inside", "matches"):
        out.add_column(column, justify="right")
    for t, r in zip(targets, rows, strict=True):
        if r["rating"] is None:
            out.add_row(f"{t.rating:g}", t.strength.setting.name, "-", "(a sweep: no estimate)", "-", "NO",
                        str(r["matches"]))
            continue
        inside = r["low"] <= t.rating <= r["high"]
        out.add_row(f"{t.rating:g}", t.strength.setting.name, f"{r['rating']:.0f}", f"{r['low']:.0f}..{r['high']:.0f}",
                    f"{(r['high'] - r['low']) / 2:.0f}", "yes" if inside else "NO", str(r["matches"]))
    console.print(out)
    rate = 60.0 * played.played / seconds if seconds > 0 else 0.0
    console.print(f"{played.played} matches in {seconds:.0f} s ({rate:.1f} matches/min)")
    return 0
