"""The store's speed bars (commands, not tests; busy machines give noisy figures):

``python3 -m bot.store.bench import --matches 1000``: importing recorded matches into
SQLite costs at most twice parsing the same records alone (both measured in one run);
``python3 -m bot.store.bench stats --matches 10000``: ``fibsbot stats`` over that many
matches answers in under a second.
"""

from __future__ import annotations

import argparse
import datetime
import json
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from sqlalchemy import func, insert, select

from bot.store.imports import import_paths
from bot.store.schema import matches, statistics
from bot.store.stats import query
from bot.store.store import open_store
from engine.bench.random_records import random_match
from engine.records import load, save_sgf


def recorded(folder: Path, count: int, seed: int = 1) -> list[Path]:
    """``count`` random 5-point matches as the bot records them (us = player 1)."""
    paths = []
    for n in range(count):
        record = random_match(seed * 100_003 + n, 5, players=(("alice", "bob", "carol", "dave")[n % 4], "GnuBot"),
                              event="FIBS", place="fibs.com")
        path = folder / f"{n:06d}-GnuBot-vs-{record.players[0]}-5.sgf"
        save_sgf(record, path)
        paths.append(path)
    return paths


def bench_import(count: int) -> dict[str, float]:
    with tempfile.TemporaryDirectory(prefix="fibsbot-bench-") as tmp:
        folder = Path(tmp) / "records"
        folder.mkdir()
        paths = recorded(folder, count)
        start = time.perf_counter()
        for path in paths:
            load(path)
        parse_s = time.perf_counter() - start
        store = open_store(f"sqlite:///{tmp}/store.db")
        start = time.perf_counter()
        report = import_paths(store, [folder])
        import_s = time.perf_counter() - start
        store.close()
    return {"matches": count, "actions": report.actions, "parse_s": round(parse_s, 3),
            "import_s": round(import_s, 3), "ratio": round(import_s / parse_s, 3)}


def bench_stats(count: int, keep: Path | None = None) -> dict[str, float | None]:
    """``count`` matches: 100 imported, the rest copies of their match rows under new keys,
    each with an end time, a rating and a judge's statistics (stats reads matches and
    statistics; the worst decisions come from the 100 imported, unjudged)."""
    with tempfile.TemporaryDirectory(prefix="fibsbot-bench-") as tmp:
        folder = Path(tmp) / "records"
        folder.mkdir()
        url = f"sqlite:///{tmp}/store.db"
        store = open_store(url)
        import_paths(store, [Path(p) for p in recorded(folder, min(count, 100))])
        with store.begin() as conn:
            rows = [dict(r._mapping) for r in conn.execute(select(matches))]
            copies = []
            for n in range(count - len(rows)):
                row = dict(rows[n % len(rows)])
                row.pop("id")
                row["key"] = f"copy-{n}-{row['key']}"
                row["ended"] = datetime.datetime(2026, 1, 1) + datetime.timedelta(hours=n)  # a dated rating history
                row["rating_after"] = 1500.0 + (n % 400) / 2
                copies.append(row)
            if copies:
                conn.execute(insert(matches), copies)
            total = conn.execute(select(func.count()).select_from(matches)).scalar_one()
            # every match judged at one level (what ``fibsbot db analyse`` leaves): the error rates' rows
            judged = [{"match_id": m, "game": 0, "player": p, "judge": "expert", "moves": 60, "unforced_moves": 50,
                       "chequer_error": -0.2 - (m % 7) / 100, "cube_error": -0.01, "cube_decisions": 5,
                       "error_rate_memg": -3.8, "luck": 0.1, "rolls": 60, "rating_label": "Expert",
                       "fibs_rating": 1800.0} for (m,) in conn.execute(select(matches.c.id)) for p in (0, 1)]
            conn.execute(insert(statistics), judged)
        store.close()
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        start = time.perf_counter()
        done = subprocess.run([sys.executable, "-m", "bot.cli", "stats", "--store", url, "--by", "opponent",
                               "--json"], capture_output=True, text=True, check=True)
        command_s = time.perf_counter() - start
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        answer = json.loads(done.stdout)
        assert answer["matches"] == total
        installed = shutil.which("fibsbot")  # the console script as an operator types it (a shim included)
        fibsbot_s = None
        if installed:
            start = time.perf_counter()
            subprocess.run([installed, "stats", "--store", url, "--by", "opponent", "--json"],
                           capture_output=True, text=True, check=True)
            fibsbot_s = round(time.perf_counter() - start, 3)
        # the same answer without bot.cli's parser (which imports every other command's modules)
        alone = ("import sys; from bot.store.cli import COMMANDS; import argparse; p = argparse.ArgumentParser(); "
                 "add, run, _ = COMMANDS['stats']; add(p); sys.exit(run(p.parse_args(sys.argv[1:])))")
        before_alone = resource.getrusage(resource.RUSAGE_CHILDREN)
        start = time.perf_counter()
        subprocess.run([sys.executable, "-c", alone, "--store", url, "--by", "opponent", "--json"],
                       capture_output=True, text=True, check=True)
        alone_s = time.perf_counter() - start
        after_alone = resource.getrusage(resource.RUSAGE_CHILDREN)
        store = open_store(url, create=False)
        start = time.perf_counter()
        with store.begin() as conn:
            query(conn, by="opponent")
        query_s = time.perf_counter() - start
        store.close()
        if keep is not None:
            shutil.copyfile(f"{tmp}/store.db", keep)
    cpu = after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime
    cpu_alone = after_alone.ru_utime + after_alone.ru_stime - before_alone.ru_utime - before_alone.ru_stime
    return {"matches": total, "stats_command_s": round(command_s, 3), "stats_command_cpu_s": round(cpu, 3),
            "fibsbot_s": fibsbot_s,
            "store_alone_s": round(alone_s, 3), "store_alone_cpu_s": round(cpu_alone, 3), "query_s": round(query_s, 3)}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python3 -m bot.store.bench", description=__doc__)
    parser.add_argument("what", choices=["import", "stats"])
    parser.add_argument("--matches", type=int)
    parser.add_argument("--keep", type=Path, help="stats: keep the database in this file")
    args = parser.parse_args(argv)
    if args.what == "import":
        print(json.dumps(bench_import(args.matches or 1000)))
    else:
        print(json.dumps(bench_stats(args.matches or 10_000, args.keep)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
