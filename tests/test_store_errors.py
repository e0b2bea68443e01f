"""Bad input gives one named error each and writes nothing half: a corrupt SQLite file,
a wrong URL, a read-only file, a database of a newer schema, a record that cannot be
parsed; a database that goes away costs the live writer one log line, then it catches up."""

from __future__ import annotations

import logging
import os
import pathlib
import sqlite3
import subprocess
import sys
from dataclasses import dataclass

import pytest
from sqlalchemy import func, select, text

from bot.store.db import DatabaseBusy
from bot.store.errors import (
    BadURL,
    CorruptDatabase,
    NewerSchema,
    ReadOnlyDatabase,
    RecordImportError,
    Unreachable,
)
from bot.store.imports import import_paths
from bot.store.live import LiveWriter
from bot.store.schema import actions, matches
from bot.store.store import open_store
from engine.bench.random_records import random_match
from engine.records import MatchRecord, save_sgf

ROOT = pathlib.Path(__file__).resolve().parent.parent


def a_record(folder: pathlib.Path, seed: int = 1) -> pathlib.Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"match-{seed}.sgf"
    save_sgf(random_match(seed, 3), path)
    return path


def test_a_corrupt_sqlite_file(tmp_path: pathlib.Path) -> None:
    path = tmp_path / "store.db"
    path.write_bytes(b"this is not a database, only some text that is long enough" * 100)
    with pytest.raises(CorruptDatabase, match="not a usable SQLite database"):
        open_store(f"sqlite:///{path}")


@pytest.mark.parametrize("url, error", [
    ("mysql://user@host/db", BadURL), ("not a url at all", BadURL), ("sqlite://", BadURL),
    ("postgresql://bot:${FIBSBOT_TEST_UNSET_VARIABLE}@/db", BadURL),
    ("postgresql://bot:s3cret-pw@/db?host=/nonexistent-folder", Unreachable),
])
def test_a_wrong_url(url: str, error: type[Exception]) -> None:
    with pytest.raises(error) as caught:
        open_store(url)
    assert "s3cret-pw" not in str(caught.value)


def test_the_password_comes_from_the_environment_and_is_never_shown(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("FIBSBOT_TEST_DB_PASSWORD", "hunter2-secret")
    with pytest.raises(Unreachable) as caught:
        open_store("postgresql://bot:${FIBSBOT_TEST_DB_PASSWORD}@/db?host=/nonexistent-folder")
    assert "hunter2-secret" not in str(caught.value) and "***" in str(caught.value)


def test_a_read_only_file(tmp_path: pathlib.Path) -> None:
    path = tmp_path / "store.db"
    open_store(f"sqlite:///{path}").close()
    path.chmod(0o444)
    try:
        store = open_store(f"sqlite:///{path}")  # readable: its schema is checked
        with pytest.raises(ReadOnlyDatabase):
            import_paths(store, [a_record(tmp_path / "records")])
        store.close()
    finally:
        path.chmod(0o644)
    store = open_store(f"sqlite:///{path}")
    with store.begin() as conn:
        assert conn.execute(select(func.count()).select_from(matches)).scalar_one() == 0
    store.close()


def test_a_database_of_a_newer_schema(tmp_path: pathlib.Path) -> None:
    url = f"sqlite:///{tmp_path / 'store.db'}"
    store = open_store(url)
    with store.begin() as conn:
        conn.execute(text("UPDATE alembic_version SET version_num = '9999'"))
    store.close()
    with pytest.raises(NewerSchema, match="9999"):
        open_store(url)
    with pytest.raises(NewerSchema):
        open_store(url, create=False)


def test_a_record_that_cannot_be_parsed_writes_nothing(tmp_path: pathlib.Path) -> None:
    records = tmp_path / "records"
    a_record(records, 1)
    a_record(records, 2)
    bad = records / "broken.sgf"
    bad.write_text(a_record(tmp_path, 3).read_text()[:-200] + "Z[?]", encoding="utf-8")
    url = f"sqlite:///{tmp_path / 'store.db'}"
    store = open_store(url)
    try:
        with pytest.raises(RecordImportError, match="broken.sgf"):
            import_paths(store, [records])
        with store.begin() as conn:
            assert conn.execute(select(func.count()).select_from(matches)).scalar_one() == 0
    finally:
        store.close()
    done = subprocess.run([sys.executable, "-m", "bot.cli", "db", "import", "--store", url, str(records)],
                          capture_output=True, text=True, env={**os.environ, "PYTHONPATH": str(ROOT)}, timeout=120)
    assert done.returncode == 2 and "RecordImportError" in done.stderr and "broken.sgf" in done.stderr


@dataclass
class FakeRecorder:
    record: MatchRecord
    path: pathlib.Path


def test_a_locked_database_costs_one_log_line_then_the_writer_catches_up(
        tmp_path: pathlib.Path, caplog: pytest.LogCaptureFixture) -> None:
    url = f"sqlite:///{tmp_path / 'store.db'}"
    open_store(url).close()
    full = random_match(7, 3)
    playing = MatchRecord(full.players, full.length, crawford=full.crawford)
    recorder = FakeRecorder(playing, tmp_path / "records" / "live.sgf")
    writer = LiveWriter(url, records_dir=tmp_path / "records", ledger=None, us_name=full.players[1], server="here",
                        level="expert", settings={})
    blocker = sqlite3.connect(tmp_path / "store.db", timeout=0)
    steps = [(g, a) for g in full.games for a in g.actions]
    caplog.set_level(logging.ERROR)
    for n, (game, action) in enumerate(steps):
        if n == 5:
            blocker.execute("BEGIN EXCLUSIVE")
        if n == len(steps) // 2:
            blocker.rollback()
        if not playing.games or playing.games[-1].result is not None:
            playing.new_game(game.score, game.crawford_game)
        playing.games[-1].append(action)
        writer.on_record(recorder, {"action": {}})
        if n == 10:
            assert isinstance(writer.down, DatabaseBusy)
    blocker.close()
    writer.close()
    assert len([r for r in caplog.records if "store unavailable" in r.getMessage()]) == 1
    store = open_store(url)
    with store.begin() as conn:
        assert conn.execute(select(func.count()).select_from(actions)).scalar_one() == len(steps)
    store.close()
