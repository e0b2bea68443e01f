"""The tournament folder: results.jsonl (one line per finished match), the
matches' .sgf files, and tournament.json (what the results were made with).

A match's .sgf is written first, then its results line, which commits it: a
run that is killed or interrupted keeps every match whose line it wrote, and
loses only the matches in progress. The files reach the disk in batches (one
fsync round a second, and at the end): fsyncs per match cost the parent CPU
that the workers need. After a power failure a line whose .sgf did not make
it to disk is dropped on reading, like a torn last line, and its match is
played again.
"""

from __future__ import annotations

import json
import os
import time
from pathlib import Path
from typing import IO, Any, TextIO

from engine.records import atomic_write, fsync_folder

RESULTS = "results.jsonl"
MATCHES = "matches"
META = "tournament.json"
SYNC_EVERY_S = 1.0


class ResultsMismatch(ValueError):
    """The folder holds results of a tournament with other rules or players."""


class ResultStore:
    def __init__(self, folder: Path, fingerprint: str) -> None:
        self.folder = folder
        self.path = folder / RESULTS
        folder.mkdir(parents=True, exist_ok=True)
        (folder / MATCHES).mkdir(exist_ok=True)
        meta = folder / META
        if meta.exists():
            found = json.loads(meta.read_text(encoding="utf-8")).get("fingerprint")
            if found != fingerprint:
                raise ResultsMismatch(f"{folder} holds results made with other settings (players, rules, "
                                      "seed...); use another output folder or remove it")
        else:
            atomic_write(meta, json.dumps({"fingerprint": fingerprint}) + "\n")
        self.results: dict[str, dict[str, Any]] = self._read()
        self._file: TextIO | None = None
        self._unsynced: list[IO[bytes]] = []  # .sgf files written since the last sync, still open
        self._synced = time.monotonic()

    def _read(self) -> dict[str, dict[str, Any]]:
        if not self.path.exists():
            return {}
        out: dict[str, dict[str, Any]] = {}
        kept: list[bytes] = []
        with open(self.path, "rb") as f:
            raw_lines = f.readlines()
        for raw in raw_lines:
            try:
                line = json.loads(raw)
            except ValueError:
                break  # a torn last line
            if not raw.endswith(b"\n"):
                break
            if not self._complete_sgf(line["key"]):
                continue  # lost in a power failure: play it again
            out[line["key"]] = line
            kept.append(raw)
        if len(kept) != len(raw_lines):
            atomic_write(self.path, b"".join(kept).decode("utf-8"))
        return out

    def _complete_sgf(self, key: str) -> bool:
        try:
            with open(self.sgf_path(key), "rb") as f:
                f.seek(0, os.SEEK_END)
                if f.tell() < 2:
                    return False
                f.seek(-2, os.SEEK_END)
                return f.read().rstrip().endswith(b")")
        except OSError:
            return False

    def sgf_path(self, key: str) -> Path:
        return self.folder / MATCHES / f"{key}.sgf"

    def add(self, result: dict[str, Any], sgf_text: str) -> None:
        """Save one finished match: its .sgf first, then its results line."""
        target = self.sgf_path(result["key"])
        partial = target.with_name(f".{target.name}.part")
        sgf = open(partial, "wb")
        sgf.write(sgf_text.encode("utf-8"))
        sgf.flush()
        os.replace(partial, target)  # never a half-written .sgf under the match's name
        self._unsynced.append(sgf)
        if self._file is None:
            self._file = open(self.path, "a", encoding="utf-8")
        self._file.write(json.dumps(result, sort_keys=True) + "\n")
        self._file.flush()
        self.results[result["key"]] = result
        if time.monotonic() - self._synced >= SYNC_EVERY_S:
            self.sync()

    def sync(self) -> None:
        """Put everything written so far on disk: the .sgf files and their names first, then the lines."""
        for sgf in self._unsynced:
            os.fsync(sgf.fileno())
            sgf.close()
        if self._unsynced:
            fsync_folder(self.folder / MATCHES)
        self._unsynced = []
        if self._file is not None:
            os.fsync(self._file.fileno())
        self._synced = time.monotonic()

    def close(self) -> None:
        self.sync()
        if self._file is not None:
            self._file.close()
            self._file = None
