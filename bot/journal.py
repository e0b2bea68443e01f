"""A match record's journal: every change, appended and fsynced, so that a crash loses nothing.

The ``.sgf`` is rewritten atomically only at game ends; what happens in between
is in the journal beside it (``<record>.journal``), one JSON line per change:

- ``{"match": {...}}``: the record's header (first line);
- ``{"game": [score0, score1], "crawford": bool}``: a game begins;
- ``{"action": {...}}``: an action accepted into the running game;
- ``{"state": {...}}``: the recorder's working state (dice seen, a move sent but
  not yet confirmed, a broken game), whenever it changed.

Each write is flushed and fsynced before it returns, that is before the bot sends
its next command. :func:`replay` rebuilds the record and the last state; the
journal is removed when the match is over. A torn last line (a crash while
writing) is ignored.
"""

from __future__ import annotations

import datetime
import json
import logging
import os
from pathlib import Path
from typing import IO, Any

from engine.errors import IllegalMoveError
from engine.position import Move, Step
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
    fsync_folder,
)

log = logging.getLogger(__name__)

_SIMPLE: dict[str, type[Double | Take | Drop | Beaver | AcceptResign | RejectResign]] = {
    cls.__name__: cls for cls in (Double, Take, Drop, Beaver, AcceptResign, RejectResign)}


def journal_path(record: Path) -> Path:
    return record.with_suffix(".journal")


def encode_move(move: Move) -> list[list[int]]:
    return [[s.src, s.dst, int(s.hit)] for s in move.steps]


def decode_move(data: list[list[int]]) -> Move:
    return Move([Step(int(src), int(dst), bool(hit)) for src, dst, hit in data])


def encode_action(action: Action) -> dict[str, Any]:
    data: dict[str, Any] = {"kind": type(action).__name__, "player": action.player}
    if action.comment:
        data["comment"] = action.comment
    if action.note is not None:
        data["note"] = str(action.note)
    if isinstance(action, Roll):
        data["dice"] = list(action.dice)
        data["move"] = encode_move(action.move)
    elif isinstance(action, Resign):
        data["value"] = action.value
    return data


def decode_action(data: dict[str, Any]) -> Action:
    kind, player, comment = data["kind"], int(data["player"]), str(data.get("comment", ""))
    note = EngineNote.parse(str(data["note"])) if data.get("note") else None
    if kind == "Roll":
        return Roll(player, (int(data["dice"][0]), int(data["dice"][1])), decode_move(data["move"]), comment=comment,
                    note=note)
    if kind == "Resign":
        return Resign(player, int(data["value"]), comment=comment, note=note)
    return _SIMPLE[kind](player, comment=comment, note=note)


class Journal:
    """The append-only journal of one record file."""

    def __init__(self, record: Path) -> None:
        self.path = journal_path(record)
        self._file: IO[str] | None = None

    @property
    def exists(self) -> bool:
        return self.path.exists()

    def start(self, record: MatchRecord) -> None:
        """A new journal for ``record`` (its header and its games so far)."""
        self.close()
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._file = open(self.path, "w", encoding="utf-8")
        lines: list[dict[str, Any]] = [{"match": {
            "players": list(record.players), "length": record.length, "crawford": record.crawford,
            "date": record.date.isoformat() if record.date else None, "event": record.event, "place": record.place}}]
        for game in record.games:
            lines.append({"game": list(game.score), "crawford": game.crawford_game})
            lines += [{"action": encode_action(a)} for a in game.actions]
        self.write(*lines)
        fsync_folder(self.path.parent)

    def write(self, *entries: dict[str, Any]) -> None:
        """Append ``entries``; on disk when this returns."""
        if self._file is None:
            self._file = open(self.path, "a", encoding="utf-8")
        self._file.write("".join(json.dumps(e, separators=(",", ":")) + "\n" for e in entries))
        self._file.flush()
        os.fsync(self._file.fileno())

    def close(self) -> None:
        if self._file is not None:
            self._file.close()
            self._file = None

    def remove(self) -> None:
        self.close()
        self.path.unlink(missing_ok=True)


def replay(path: Path) -> tuple[MatchRecord, dict[str, Any]]:
    """The record and the last working state a journal holds (ValueError if it has no header)."""
    record: MatchRecord | None = None
    state: dict[str, Any] = {}
    with open(path, encoding="utf-8") as f:
        for number, text in enumerate(f, 1):
            try:
                entry = json.loads(text)
            except ValueError:
                log.warning("journal %s: line %d is torn (a crash while writing it): ignored", path, number)
                break
            if "match" in entry:
                header = entry["match"]
                date = datetime.date.fromisoformat(header["date"]) if header.get("date") else None
                players = header["players"]
                record = MatchRecord((str(players[0]), str(players[1])), int(header["length"]),
                                     crawford=bool(header["crawford"]), date=date, event=str(header["event"]),
                                     place=str(header["place"]))
            elif record is None:
                raise ValueError(f"journal {path} does not start with the match")
            elif "game" in entry:
                record.new_game((int(entry["game"][0]), int(entry["game"][1])), bool(entry["crawford"]))
            elif "action" in entry:
                try:
                    record.games[-1].append(decode_action(entry["action"]))
                except (IllegalMoveError, IndexError, KeyError) as exc:
                    raise ValueError(f"journal {path} line {number}: {exc}") from None
            elif "state" in entry:
                state = entry["state"]
    if record is None:
        raise ValueError(f"journal {path} is empty")
    return record, state
