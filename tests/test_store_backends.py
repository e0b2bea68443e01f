"""The store on SQLite and on a real PostgreSQL server (a throwaway cluster): the migrated
schema is the tables' metadata, import = export = the records, importing twice adds
nothing, stats equal a computation from the records and both backends answer alike."""

from __future__ import annotations

import json
import math
import os
import pathlib
import random
import subprocess
import sys
from typing import Any

import pytest
from sqlalchemy import func, select

from bot.store import pgcluster
from bot.store.cli import COMMANDS
from bot.store.imports import import_paths, rebuild
from bot.store.schema import actions, games, matches, metadata
from bot.store.stats import query, today_summary
from bot.store.store import Store, open_store
from engine.bench.random_records import random_match
from engine.records import MatchRecord, load_mat, load_sgf, save_mat, save_sgf


def recorded(folder: pathlib.Path, seed: int, count: int) -> list[pathlib.Path]:
    """``count`` random matches as the bot names and numbers them (opponent 0, us 1)."""
    rng = random.Random(seed)
    folder.mkdir(parents=True, exist_ok=True)
    paths = []
    for n in range(count):
        seed_n, length = rng.randrange(10**6), rng.choice([1, 3, 5])
        record = random_match(seed_n, length, players=(rng.choice(["alice", "bob", "carol"]), "GnuBot"),
                              event="FIBS", place="fibs.com")
        path = folder / f"2026010{n % 9 + 1}-1200{n:02d}-GnuBot-vs-{record.players[0]}-{record.length}.sgf"
        save_sgf(record, path)
        paths.append(path)
    return paths


def test_migrated_schema_is_the_metadata(url: str) -> None:
    from alembic.autogenerate import compare_metadata
    from alembic.runtime.migration import MigrationContext

    store = open_store(url)
    try:
        with store.engine.connect() as conn:
            diff = compare_metadata(MigrationContext.configure(conn), metadata)
        assert diff == []
    finally:
        store.close()


def _counts(store: Store) -> tuple[int, int, int]:
    with store.begin() as conn:
        return tuple(conn.execute(select(func.count()).select_from(t)).scalar_one()  # type: ignore[return-value]
                     for t in (matches, games, actions))


def test_import_export_round_trip_and_import_twice_adds_nothing(url: str, tmp_path: pathlib.Path) -> None:
    paths = recorded(tmp_path / "records", 5, 6)
    mat = tmp_path / "other.mat"
    save_mat(load_sgf(paths[0]), mat)  # the same match as .mat: its own file, its own match
    store = open_store(url)
    try:
        report = import_paths(store, [tmp_path / "records", mat])
        total = sum(len(g.actions) for p in paths for g in load_sgf(p).games) + \
            sum(len(g.actions) for g in load_mat(mat).games)
        assert (report.records, report.actions) == (7, total)
        before = _counts(store)
        again = import_paths(store, [tmp_path / "records", mat])
        assert again.actions == 0 and _counts(store) == before == (7, before[1], total)
        with store.begin() as conn:
            for path in paths:
                match_id = conn.execute(select(matches.c.id).where(matches.c.key == path.name)).scalar_one()
                original = load_sgf(path)
                back = rebuild(conn, match_id)
                assert back.players == original.players and back.length == original.length
                assert [(g.score, g.crawford_game, g.actions, g.result) for g in back.games] == \
                    [(g.score, g.crawford_game, g.actions, g.result) for g in original.games]
    finally:
        store.close()


def from_records(paths: list[pathlib.Path], opponent: str | None = None) -> dict[str, Any]:
    """What stats must say, computed from the .sgf files themselves."""
    out: dict[str, Any] = {"matches": 0, "won": 0, "lost": 0, "points_for": 0, "points_against": 0,
                           "by_opponent": {}}
    for path in paths:
        record = load_sgf(path)
        if opponent is not None and record.players[0] != opponent:
            continue
        score = record.score()
        out["matches"] += 1
        out["points_for"] += score[1]
        out["points_against"] += score[0]
        group = out["by_opponent"].setdefault(record.players[0], [0, 0])
        group[0] += 1
        if record.is_over():
            won = score[1] > score[0]
            out["won" if won else "lost"] += 1
            group[1] += won
    return out


def test_stats_equal_the_records_and_both_backends_agree(cluster: pgcluster.Cluster,
                                                         tmp_path: pathlib.Path) -> None:
    paths = recorded(tmp_path / "records", 9, 12)
    answers = []
    for url in (f"sqlite:///{tmp_path / 'a.db'}", cluster.create_database()):
        store = open_store(url)
        try:
            import_paths(store, [tmp_path / "records"])
            with store.begin() as conn:
                answers.append([query(conn, by=by) for by in ("opponent", "day", "week")] +
                               [query(conn, opponent="bob", by="opponent")])
        finally:
            store.close()
    assert json.dumps(answers[0], sort_keys=True) == json.dumps(answers[1], sort_keys=True)
    by_opponent, by_day, _, bob = answers[0]
    want = from_records(paths)
    for key in ("matches", "won", "lost", "points_for", "points_against"):
        assert by_opponent[key] == want[key] == by_day[key]
    assert {g["key"]: [g["matches"], g["won"]] for g in by_opponent["groups"]} == want["by_opponent"]
    assert sum(g["matches"] for g in by_day["groups"]) == want["matches"]
    assert bob["matches"] == from_records(paths, "bob")["matches"]
    n = want["won"] + want["lost"]
    low, high = by_opponent["win_rate_95"]
    assert low < want["won"] / n < high
    p = want["won"] / n  # Wilson's interval: the bounds solve |p - x| = z sqrt(x (1 - x) / n)
    for bound in (low, high):
        assert math.isclose(abs(p - bound), 1.959963984540054 * math.sqrt(bound * (1 - bound) / n), abs_tol=1e-5)


def test_today_summary_and_the_stats_command(url: str, tmp_path: pathlib.Path,
                                             capsys: pytest.CaptureFixture[str]) -> None:
    import argparse

    recorded(tmp_path / "records", 3, 2)
    parser = argparse.ArgumentParser()
    sub = parser.add_subparsers()
    for name in ("db import", "stats"):
        adder, runner, _ = COMMANDS[name]
        p = sub.add_parser(name.split()[-1])
        adder(p)
        p.set_defaults(run=runner)
    args = parser.parse_args(["import", "--store", url, str(tmp_path / "records")])
    assert args.run(args) == 0
    args = parser.parse_args(["stats", "--store", url, "--json", "--by", "opponent"])
    capsys.readouterr()
    assert args.run(args) == 0
    answer = json.loads(capsys.readouterr().out)
    assert answer["matches"] == 2
    today = today_summary(url)  # the imported matches are dated in January: none today
    assert today["available"] and today["matches"] == 0
    missing = tmp_path / "missing" / "none.db"
    assert not today_summary(f"sqlite:///{missing}" if "sqlite" in url
                             else url.replace("host=", "host=/nonexistent"))["available"]
    assert not missing.parent.exists()  # a reader creates nothing


def test_the_revisions_the_store_knows_are_the_migrations() -> None:
    from alembic.config import Config
    from alembic.script import ScriptDirectory

    from bot.store.db import MIGRATIONS, REVISIONS

    cfg = Config()
    cfg.set_main_option("script_location", str(MIGRATIONS))
    scripts = ScriptDirectory.from_config(cfg)
    assert [r.revision for r in reversed(list(scripts.walk_revisions()))] == list(REVISIONS)
    assert scripts.get_current_head() == REVISIONS[-1]


def test_db_sync_takes_journals_records_and_the_ledger_once(url: str, tmp_path: pathlib.Path) -> None:
    from bot.journal import Journal
    from bot.store.sync import sync_folder

    folder = tmp_path / "records"
    finished = recorded(folder, 2, 4)
    # a match under way: only its journal (the .sgf is written at game ends)
    whole = load_sgf(finished[-1])
    finished[-1].unlink()
    partial = MatchRecord(whole.players, whole.length, crawford=whole.crawford, date=whole.date, event="FIBS",
                          place="fibs.com")
    partial.new_game(whole.games[0].score, whole.games[0].crawford_game)
    for action in whole.games[0].actions[:7]:
        partial.games[-1].append(action)
    journal = Journal(finished[-1])
    journal.start(partial)
    journal.close()
    ledger = tmp_path / "ledger.jsonl"
    ledger.write_text("".join(json.dumps({"time": f"2026-02-0{n + 1}T10:00:00+0000", "opponent": "x",
                                          "result": "won", "rating_before": 1500.0 + n, "rating_after": 1501.0 + n,
                                          "record": str(path)}) + "\n" for n, path in enumerate(finished[:3]))
                      + '{"torn": ')
    store = open_store(url)
    try:
        first = sync_folder(store, folder, ledger)
        assert (first.records, first.actions, first.ledger) == (4, sum(
            len(g.actions) for p in finished[:3] for g in load_sgf(p).games) + 7, 3)
        again = sync_folder(store, folder, ledger)
        assert (again.records, again.actions) == (0, 0)  # the journal replayed adds nothing, the files are known
        with store.begin() as conn:
            found = query(conn)
            under_way = conn.execute(select(matches.c.id, matches.c.ending)
                                     .where(matches.c.key == finished[-1].name)).one()
            assert under_way.ending is None and rebuild(conn, under_way.id).games == partial.games
        assert found["matches"] == 4 and found["unfinished"] == 1
        assert [r[1] for r in found["rating_history"]] == [1501.0, 1502.0, 1503.0]
    finally:
        store.close()


def test_stats_with_a_store_url_loads_neither_the_engine_nor_alembic(tmp_path: pathlib.Path) -> None:
    """``fibsbot stats --store URL`` reads the database only: no config, no engine, no
    migration tool (what its speed depends on)."""
    sgf = tmp_path / "one.sgf"
    save_sgf(random_match(5, 3), sgf)
    url = f"sqlite:///{tmp_path / 'store.db'}"
    store = open_store(url)
    import_paths(store, [sgf])
    store.close()
    code = ("import sys; from bot.cli import main\n"
            f"try:\n    main(['stats', '--store', {url!r}, '--json'])\nexcept SystemExit:\n    pass\n"
            "print(sorted(m for m in ('engine', 'numpy', 'alembic', 'bot.config') if m in sys.modules))")
    root = pathlib.Path(__file__).resolve().parent.parent
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120,
                          env={**os.environ, "PYTHONPATH": str(root)})
    assert done.returncode == 0, done.stderr
    answer, loaded = done.stdout.splitlines()
    assert json.loads(answer)["matches"] == 1
    assert loaded == "[]"


def test_the_stats_rating_labels_are_the_engine_analysis_labels() -> None:
    from bot.store.judge import rating_label as engine_label
    from bot.store.stats import RATING_LABELS, rating_label

    edges = [t for t, _ in RATING_LABELS]
    for rate in [0.0, *edges, *(t - 1e-9 for t in edges), *(t + 1e-9 for t in edges), 0.1, 1.0]:
        assert rating_label(rate) == engine_label(rate) and rating_label(-rate) == engine_label(-rate), rate
