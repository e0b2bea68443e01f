"""The tournament folder: results.jsonl (one line per finished match), the
matches' .sgf files, and tournament.json (what the results were made with).

A line is appended, flushed and fsynced as each match ends, after its .sgf is
written, so an interrupted run loses at most the matches in progress; a torn
last line (a crash mid-write) is ignored on reading and overwritten by the
rerun.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any, TextIO

from engine.records import atomic_write

RESULTS = "results.jsonl"
MATCHES = "matches"
META = "tournament.json"


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

    def _read(self) -> dict[str, dict[str, Any]]:
        if not self.path.exists():
            return {}
        out: dict[str, dict[str, Any]] = {}
        good_bytes = 0
        with open(self.path, "rb") as f:
            for raw in f:
                try:
                    line = json.loads(raw)
                except ValueError:
                    break  # a torn last line
                if not raw.endswith(b"\n"):
                    break
                out[line["key"]] = line
                good_bytes += len(raw)
        if good_bytes != self.path.stat().st_size:
            with open(self.path, "r+b") as f:
                f.truncate(good_bytes)
        return out

    def sgf_path(self, key: str) -> Path:
        return self.folder / MATCHES / f"{key}.sgf"

    def add(self, result: dict[str, Any], sgf_text: str) -> None:
        """Save one finished match: its .sgf first, then its results line."""
        atomic_write(self.sgf_path(result["key"]), sgf_text)
        if self._file is None:
            self._file = open(self.path, "a", encoding="utf-8")
        self._file.write(json.dumps(result, sort_keys=True) + "\n")
        self._file.flush()
        os.fsync(self._file.fileno())
        self.results[result["key"]] = result

    def close(self) -> None:
        if self._file is not None:
            self._file.close()
            self._file = None
