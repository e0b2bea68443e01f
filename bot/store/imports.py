"""``fibsbot db import PATH...`` and ``fibsbot db export``: records in and out of the store.

Import reads everything first: a record that cannot be parsed is a RecordImportError
naming each bad file, and nothing is written. Then all of it goes in one transaction
(each record adds only the rows the store lacks, so importing twice adds nothing).
Folders are searched for ``.sgf``/``.mat`` records, ledgers (``*.jsonl`` of match
lines) and tournament folders (``tournament.json`` + ``results.jsonl`` + ``matches/``).
"""

from __future__ import annotations

import datetime
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from sqlalchemy import Connection, insert, select

from bot.store import rows
from bot.store.errors import RecordImportError
from bot.store.schema import actions, games, matches, players, tournament_matches, tournaments
from bot.store.store import Store
from bot.store.writer import MatchInfo, apply_ledger, write_record
from engine.errors import IllegalMoveError, RecordParseError
from engine.position import Move
from engine.records import (
    AcceptResign,
    Action,
    Beaver,
    Double,
    Drop,
    EngineNote,
    MatchRecord,
    RejectResign,
    Resign,
    Roll,
    Take,
    load,
    save,
)

RECORD_SUFFIXES = (".sgf", ".mat")


@dataclass
class Parsed:
    # path, record, hash, key
    records: list[tuple[Path, MatchRecord, str | None, str | None]] = field(default_factory=list)
    ledgers: list[dict[str, Any]] = field(default_factory=list)
    tournaments: list[tuple[Path, dict[str, Any], list[dict[str, Any]]]] = field(default_factory=list)


@dataclass
class ImportReport:
    records: int = 0
    actions: int = 0
    ledger: int = 0
    tournaments: int = 0

    def as_dict(self) -> dict[str, int]:
        return {"records": self.records, "actions": self.actions, "ledger": self.ledger,
                "tournaments": self.tournaments}


def _jsonl(path: Path) -> list[dict[str, Any]]:
    lines = path.read_text(encoding="utf-8", errors="replace").splitlines()
    out = []
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            entry = json.loads(line)
        except ValueError:
            if number == len(lines):
                break  # a torn last line (a crash while writing it)
            raise RecordParseError(f"{path}: line {number} is not JSON") from None
        if not isinstance(entry, dict):
            raise RecordParseError(f"{path}: line {number} is not a JSON object")
        out.append(entry)
    return out


def _tournament(folder: Path, parsed: Parsed, errors: list[str]) -> None:
    try:
        meta = json.loads((folder / "tournament.json").read_text(encoding="utf-8"))
        results = _jsonl(folder / "results.jsonl") if (folder / "results.jsonl").exists() else []
    except (OSError, ValueError, RecordParseError) as exc:
        errors.append(f"{folder}: {exc}")
        return
    if not isinstance(meta, dict) or any("key" not in r for r in results):
        errors.append(f"{folder}: not a tournament folder (tournament.json, results.jsonl with keys)")
        return
    parsed.tournaments.append((folder, meta, results))
    for result in results:
        sgf = folder / "matches" / f"{result['key']}.sgf"
        _record(sgf, parsed, errors, key=f"{folder.resolve().name}/{sgf.name}")


def _record(path: Path, parsed: Parsed, errors: list[str], key: str | None = None) -> None:
    try:
        parsed.records.append((path, load(path), rows.file_hash(path), key))
    except (OSError, RecordParseError, IllegalMoveError, ValueError) as exc:
        errors.append(str(exc) if str(path) in str(exc) else f"{path}: {exc}")


def parse(paths: list[Path]) -> Parsed:
    """Every record, ledger and tournament under ``paths``; RecordImportError naming each
    file that cannot be read (nothing is written then)."""
    parsed = Parsed()
    errors: list[str] = []
    for top in paths:
        if top.is_dir():
            if (top / "tournament.json").exists():
                _tournament(top, parsed, errors)
                continue
            tournament_dirs = {p.parent for p in top.rglob("tournament.json")}
            for path in sorted(top.rglob("*")):
                if any(d == path or d in path.parents for d in tournament_dirs):
                    continue
                if path.suffix.lower() in RECORD_SUFFIXES and path.is_file():
                    _record(path, parsed, errors)
                elif path.suffix == ".jsonl" and path.is_file():
                    _ledger(path, parsed, errors)
            for folder in sorted(tournament_dirs):
                _tournament(folder, parsed, errors)
        elif top.suffix.lower() in RECORD_SUFFIXES:
            _record(top, parsed, errors)
        elif top.suffix == ".jsonl":
            _ledger(top, parsed, errors)
        elif not top.exists():
            errors.append(f"{top}: no such file or folder")
        else:
            errors.append(f"{top}: not a record (.sgf, .mat), a ledger (.jsonl) or a folder")
    if errors:
        raise RecordImportError("cannot import (nothing was written): " + "; ".join(errors))
    return parsed


def _ledger(path: Path, parsed: Parsed, errors: list[str]) -> None:
    try:
        entries = _jsonl(path)
    except (OSError, RecordParseError) as exc:
        errors.append(str(exc))
        return
    if any(not {"opponent", "result"} <= e.keys() for e in entries):
        errors.append(f"{path}: not a fibsbot ledger (lines without opponent and result)")
        return
    parsed.ledgers += entries


def write(conn: Connection, parsed: Parsed, *, us_name: str | None = None, server: str | None = None) -> ImportReport:
    report = ImportReport()
    ids: dict[str, int] = {}
    for path, record, digest, key in parsed.records:
        info = MatchInfo(us_name=us_name, server=server, saved=not record.is_over(), record_hash=digest, key=key)
        match_id, added = write_record(conn, record, path, info)
        ids[str(path)] = match_id
        report.records += 1
        report.actions += added
    report.ledger = sum(apply_ledger(conn, entry) for entry in parsed.ledgers)
    for folder, meta, results in parsed.tournaments:
        name = str(folder.resolve())
        found = conn.execute(select(tournaments.c.id).where(tournaments.c.name == name)).first()
        if found is None:
            tid = int(conn.execute(insert(tournaments).values(
                name=name, fingerprint=str(meta.get("fingerprint", "")), settings=json.dumps(meta, sort_keys=True),
                started=None)).inserted_primary_key[0])  # type: ignore[index]
        else:
            tid = int(found.id)
        have = {r.key for r in conn.execute(select(tournament_matches.c.key)
                                            .where(tournament_matches.c.tournament_id == tid))}
        new = [{"tournament_id": tid, "key": str(r["key"]), "result": json.dumps(r, sort_keys=True),
                "match_id": ids.get(str(folder / "matches" / f"{r['key']}.sgf"))} for r in results
               if str(r["key"]) not in have]
        if new:
            conn.execute(insert(tournament_matches), new)
        report.tournaments += 1
    return report


def import_paths(store: Store, paths: list[Path], *, us_name: str | None = None,
                 server: str | None = None) -> ImportReport:
    """Parse all of ``paths``, then write them in one transaction."""
    parsed = parse(paths)
    return store.transaction(lambda conn: write(conn, parsed, us_name=us_name, server=server))


_SIMPLE: dict[str, type[Double | Take | Drop | Beaver | AcceptResign | RejectResign]] = {
    cls.__name__: cls for cls in (Double, Take, Drop, Beaver, AcceptResign, RejectResign)}


def _action(row: Any) -> Action:
    note = EngineNote.parse(row.note) if row.note else None
    if row.kind == "Roll":
        return Roll(row.player, (int(row.dice[0]), int(row.dice[1])), Move.parse(row.move), comment=row.comment,
                    note=note)
    if row.kind == "Resign":
        return Resign(row.player, int(row.value), comment=row.comment, note=note)
    return _SIMPLE[row.kind](row.player, comment=row.comment, note=note)


def rebuild(conn: Connection, match_id: int) -> MatchRecord:
    """The record of a stored match, built from its rows (checked action by action)."""
    m = conn.execute(select(matches, players.c.name.label("opponent"))
                     .join(players, players.c.id == matches.c.opponent_id).where(matches.c.id == match_id)).one()
    names = (m.opponent, m.us_name) if m.us == 1 else (m.us_name, m.opponent)
    date = m.started.date() if isinstance(m.started, datetime.datetime) else None
    record = MatchRecord(names, m.length, crawford=m.crawford, date=date, event="FIBS" if m.server else "",
                         place=m.server)
    game_rows = conn.execute(select(games).where(games.c.match_id == match_id).order_by(games.c.number)).all()
    action_rows = conn.execute(select(actions).join(games, games.c.id == actions.c.game_id)
                               .where(games.c.match_id == match_id).order_by(actions.c.game_id, actions.c.idx)).all()
    by_game: dict[int, list[Any]] = {}
    for row in action_rows:
        by_game.setdefault(row.game_id, []).append(row)
    for g in game_rows:
        record.new_game((g.score0, g.score1), g.crawford)
        for row in by_game.get(g.id, []):
            record.games[-1].append(_action(row))
    return record


def export(store: Store, folder: Path, *, suffix: str = ".sgf", opponent: str | None = None) -> list[Path]:
    """Write every stored match (or those against ``opponent``) into ``folder``."""
    folder.mkdir(parents=True, exist_ok=True)
    written = []
    with store.begin() as conn:
        query = select(matches.c.id, matches.c.key).join(players, players.c.id == matches.c.opponent_id)
        if opponent is not None:
            query = query.where(players.c.name == opponent)
        for row in conn.execute(query.order_by(matches.c.id)).all():
            name = Path(row.key.replace("/", "-")).with_suffix(suffix).name
            target = folder / name
            save(rebuild(conn, row.id), target)
            written.append(target)
    return written

