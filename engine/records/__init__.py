"""Match records: the model, gnubg's SGF (read/write) and .mat (export/import).

Files are written atomically (temp file, fsync, rename), so a crash leaves
the old file or the new one, never a torn one. An unfinished last game is
saved as such; load it, append actions and save again to continue.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Callable
from pathlib import Path

from engine.errors import RecordParseError
from engine.records import mat, sgf
from engine.records.model import (
    BLACK,
    CENTRED,
    WHITE,
    AcceptResign,
    Action,
    Beaver,
    Double,
    Drop,
    EngineNote,
    GameRecord,
    GameResult,
    GameState,
    MatchRecord,
    RejectResign,
    Resign,
    Roll,
    Take,
)

MAX_FILE_BYTES = 64 << 20  # far above any real match; stops a hostile file from eating memory

_FORMATS = {".sgf": (sgf.loads, sgf.dumps), ".mat": (mat.loads, mat.dumps)}


def atomic_write(path: str | os.PathLike[str], text: str) -> None:
    """Replace ``path`` with ``text`` (UTF-8) so that readers see the old or the new file."""
    target = Path(path)
    fd, tmp = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(text.encode("utf-8"))
            f.flush()
            os.fsync(f.fileno())
        os.chmod(tmp, target.stat().st_mode & 0o777 if target.exists() else 0o644)
        os.replace(tmp, target)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    fsync_folder(target.parent)  # make the rename itself durable


def fsync_folder(folder: str | os.PathLike[str]) -> None:
    """Put the folder's entries (new names, renames) on disk."""
    fd = os.open(folder, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def _read(path: str | os.PathLike[str]) -> str:
    with open(path, "rb") as f:
        data = f.read(MAX_FILE_BYTES + 1)
    if len(data) > MAX_FILE_BYTES:
        raise RecordParseError(f"{path}: larger than {MAX_FILE_BYTES >> 20} MiB")
    # gnubg writes UTF-8; a stray byte in a name must not make the file unreadable
    return data.decode("utf-8", errors="replace")


def _format(path: str | os.PathLike[str]) -> str:
    suffix = Path(path).suffix.lower()
    if suffix not in _FORMATS:
        raise RecordParseError(f"{path}: unknown record format {suffix!r} (use .sgf or .mat)")
    return suffix


def _load(path: str | os.PathLike[str], loads: Callable[[str], MatchRecord]) -> MatchRecord:
    text = _read(path)
    try:
        return loads(text)
    except RecordParseError as exc:
        raise RecordParseError(f"{path}: {exc}") from None


def load(path: str | os.PathLike[str]) -> MatchRecord:
    """Read a .sgf or .mat file; RecordParseError (naming the file and line) if it is bad."""
    return _load(path, _FORMATS[_format(path)][0])


def save(record: MatchRecord, path: str | os.PathLike[str]) -> None:
    """Write a .sgf or .mat file atomically."""
    atomic_write(path, _FORMATS[_format(path)][1](record))


def load_sgf(path: str | os.PathLike[str]) -> MatchRecord:
    return _load(path, sgf.loads)


def load_mat(path: str | os.PathLike[str]) -> MatchRecord:
    return _load(path, mat.loads)


def save_sgf(record: MatchRecord, path: str | os.PathLike[str]) -> None:
    atomic_write(path, sgf.dumps(record))


def save_mat(record: MatchRecord, path: str | os.PathLike[str]) -> None:
    atomic_write(path, mat.dumps(record))


def convert(in_path: str | os.PathLike[str], out_path: str | os.PathLike[str], *,
            partial: bool = False) -> MatchRecord:
    """``fibsbot convert IN OUT``: between .sgf and .mat, by file suffix.

    A .mat that stops before the match ends is refused (RecordParseError naming
    the game cut short), as a truncated file reads the same way; ``partial``
    converts it as it is. An output that is the input file (same name, a link to
    it) is refused: the record is never overwritten by its own conversion.
    """
    _format(out_path)  # fail before reading
    if os.path.exists(out_path) and os.path.exists(in_path) and os.path.samefile(in_path, out_path):
        raise RecordParseError(f"{out_path}: is the input file {in_path}; convert writes another file")
    record = load(in_path)
    if not partial and _format(in_path) == ".mat" and (cut := mat.cut_short(record)):
        raise RecordParseError(f"{in_path}: {cut}: the file may be truncated (convert --partial keeps it as it is)")
    save(record, out_path)
    return record


__all__ = [
    "BLACK", "CENTRED", "MAX_FILE_BYTES", "WHITE", "AcceptResign", "Action", "Beaver", "Double", "Drop",
    "EngineNote", "GameRecord", "GameResult", "GameState", "MatchRecord", "RejectResign", "Resign", "Roll",
    "Take", "atomic_write", "convert", "fsync_folder", "load", "load_mat", "load_sgf", "mat", "save", "save_mat",
    "save_sgf",
    "sgf",
]
