"""``fibsbot db sync``: the store reconciled with the records folder and the ledger.

Journals (matches under way or cut short) are replayed, ``.sgf`` files whose hash the
store does not hold yet are read, and the ledger's ratings and ends are applied. Only
what the store lacks is written, so running it any number of times changes nothing more.
"""

from __future__ import annotations

import json
import logging
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from sqlalchemy import select

from bot.journal import replay
from bot.store import rows
from bot.store.schema import matches
from bot.store.store import Store
from bot.store.writer import MatchInfo, apply_ledger, write_record
from engine.errors import RecordParseError
from engine.records import load_sgf

log = logging.getLogger(__name__)


@dataclass
class SyncReport:
    records: int = 0  # records written (some rows were missing)
    actions: int = 0  # actions added
    ledger: int = 0  # ledger lines applied
    skipped: list[str] = field(default_factory=list)  # unreadable files, with why

    def as_dict(self) -> dict[str, Any]:
        return {"records": self.records, "actions": self.actions, "ledger": self.ledger, "skipped": self.skipped}


def read_ledger(path: Path) -> list[dict[str, Any]]:
    """The ledger's lines (a torn or foreign line is skipped)."""
    out = []
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            for line in f:
                try:
                    entry = json.loads(line)
                except ValueError:
                    continue
                if isinstance(entry, dict):
                    out.append(entry)
    except FileNotFoundError:
        pass
    return out


def sync_folder(store: Store, folder: Path, ledger: Path | None = None, *, us_name: str | None = None,
                server: str | None = None) -> SyncReport:
    report = SyncReport()
    with store.begin() as conn:
        known = {r.key: r.record_hash for r in conn.execute(select(matches.c.key, matches.c.record_hash))}
    journals = sorted(folder.glob("*.journal")) if folder.is_dir() else []
    for journal in journals:
        path = journal.with_suffix(".sgf")
        try:
            record, _ = replay(journal)
        except (OSError, ValueError, RecordParseError) as exc:
            report.skipped.append(f"{journal}: {exc}")
            continue
        info = MatchInfo(us_name=us_name, server=server)
        _, added = store.transaction(write_record, record, path, info)
        report.records += added > 0
        report.actions += added
    with_journal = {j.with_suffix(".sgf").name for j in journals}
    for path in sorted(folder.glob("*.sgf")) if folder.is_dir() else []:
        if path.name in with_journal:
            continue
        digest = rows.file_hash(path)
        if digest is None or known.get(path.name) == digest:
            continue
        try:
            record = load_sgf(path)
        except (OSError, RecordParseError) as exc:
            report.skipped.append(f"{path}: {exc}")
            continue
        info = MatchInfo(us_name=us_name, server=server, saved=not record.is_over(), record_hash=digest)
        _, added = store.transaction(write_record, record, path, info)
        report.records += 1
        report.actions += added
    if ledger is not None:
        entries = read_ledger(ledger)
        report.ledger = store.transaction(lambda c: sum(apply_ledger(c, e) for e in entries))
    return report
