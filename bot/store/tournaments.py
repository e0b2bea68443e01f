"""Tournaments and calibration runs into the store, as their results are saved.

Opt-in: with ``FIBSBOT_STORE=URL`` in the environment, :func:`tournament_writer` gives the
runner a writer; each saved match (from local and Dask workers alike: the parent saves
them) goes in with its results line, in batches. The results folder stays the record:
if the store is unavailable, one log line says so and ``fibsbot db import FOLDER``
catches up later (it adds only what the store lacks).
"""

from __future__ import annotations

import json
import logging
import os
import time
from pathlib import Path
from typing import Any

from sqlalchemy import Connection, insert, select, update

from bot.store.errors import StoreError
from bot.store.imports import Parsed, write
from bot.store.schema import calibration_runs
from bot.store.store import Store, open_store
from engine.errors import RecordParseError
from engine.records import sgf

log = logging.getLogger(__name__)

ENV = "FIBSBOT_STORE"
BATCH_S = 2.0


class TournamentWriter:
    def __init__(self, url: str, folder: Path, fingerprint: str, settings: dict[str, Any]) -> None:
        self.url = url
        self.folder = folder
        self.meta = {"fingerprint": fingerprint, "settings": settings}
        self.pending: list[tuple[dict[str, Any], str]] = []
        self.store: Store | None = None
        self.failed = False
        self._written = time.monotonic()

    def add(self, result: dict[str, Any], sgf_text: str) -> None:
        self.pending.append((result, sgf_text))
        if time.monotonic() - self._written >= BATCH_S:
            self.flush()

    def flush(self) -> None:
        self._written = time.monotonic()
        if not self.pending:
            return
        parsed = Parsed()
        results = []
        for result, text in self.pending:
            path = self.folder / "matches" / f"{result['key']}.sgf"
            try:
                parsed.records.append((path, sgf.loads(text), None, f"{self.folder.resolve().name}/{path.name}"))
            except RecordParseError as exc:
                log.error("tournament match %s not stored: %s", result["key"], exc)
            results.append(result)
        parsed.tournaments.append((self.folder, self.meta, results))
        try:
            if self.store is None:
                self.store = open_store(self.url)
            self.store.transaction(lambda conn: write(conn, parsed))
        except StoreError as exc:
            if not self.failed:
                log.error("store unavailable (%s: %s); the results folder keeps everything: "
                          "fibsbot db import %s catches up", type(exc).__name__, exc, self.folder)
            self.failed = True
            if self.store is not None:
                self.store.close()
                self.store = None
            return
        self.pending = []

    def close(self) -> None:
        self.flush()
        if self.store is not None:
            self.store.close()
            self.store = None


def tournament_writer(folder: Path, fingerprint: str, settings: dict[str, Any]) -> TournamentWriter | None:
    """A writer when ``FIBSBOT_STORE`` names a store, else None."""
    url = os.environ.get(ENV, "").strip()
    return TournamentWriter(url, folder, fingerprint, settings) if url else None


def _calibration(conn: Connection, name: str, settings: str, result: str) -> None:
    found = conn.execute(select(calibration_runs.c.id).where(calibration_runs.c.name == name)).first()
    if found is None:
        conn.execute(insert(calibration_runs).values(name=name, settings=settings, result=result,
                                                     started=None))
    else:
        conn.execute(update(calibration_runs).where(calibration_runs.c.id == found.id)
                     .values(settings=settings, result=result))


def record_calibration(folder: Path, command: str, table: dict[str, Any]) -> None:
    """A calibration run's strength table into ``FIBSBOT_STORE`` (if set); never raises."""
    url = os.environ.get(ENV, "").strip()
    if not url:
        return
    try:
        store = open_store(url)
        try:
            store.transaction(lambda conn: _calibration(conn, str(folder.resolve()), json.dumps({"command": command}),
                                                        json.dumps(table, sort_keys=True)))
        finally:
            store.close()
    except StoreError as exc:
        log.error("calibration run not stored (%s: %s)", type(exc).__name__, exc)
