"""Finds gnubg's data files: weights, bearoff databases and the match equity table.

Search order (the first that applies wins; an explicit choice is never
silently replaced by another folder):

1. the ``data_dir`` argument (a folder holding the files);
2. the folder named by the environment variable ``FIBSBOT_DATA``;
3. the files shipped inside this package (``engine/gnubg_data``: gnubg's
   published weights, bearoff databases and MET, GPL like the project).

Weights: the binary ``gnubg.wd`` is preferred to the text ``gnubg.weights``
(both load to identical nets). ``weights=`` names another weights file (a
path, or a name in the folder), e.g. :data:`GNUBG_107_WEIGHTS`: the package
also ships gnubg 1.07's weights (older contact and crashed nets, the same race
and pruning nets), with which the engine answers like Debian's gnubg 1.07. A missing file raises
:class:`engine.errors.DataFileError` naming the file and where it was sought.

>>> files = locate()
>>> files.weights.name in ("gnubg.wd", "gnubg.weights")
True
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from engine.errors import DataFileError

ENV_VAR = "FIBSBOT_DATA"
WEIGHTS_NAMES = ("gnubg.wd", "gnubg.weights")
BEAROFF_OS_NAME = "gnubg_os0.bd"
BEAROFF_TS_NAME = "gnubg_ts0.bd"
MET_NAME = "met/Kazaross-XG2.xml"
GNUBG_107_WEIGHTS = "gnubg-1.07.wd"
"""gnubg 1.07's binary weights (format 1.00), as Debian's gnubg package installs them."""


@dataclass(frozen=True)
class DataFiles:
    """Paths of the files the engine reads."""

    weights: Path
    bearoff_os: Path
    bearoff_ts: Path
    met: Path | None  # None when the folder has no MET (0-ply evaluation does not need it)


def packaged_data_dir() -> Path:
    """The data folder shipped inside the ``engine`` package (the C engine reads files
    from disk, so the package is a folder, not a zip)."""
    return Path(__file__).parent / "gnubg_data"


def search_dirs(data_dir: str | os.PathLike[str] | None = None) -> list[Path]:
    """The folders searched, in order. An explicit folder or FIBSBOT_DATA is the only one."""
    if data_dir is not None:
        return [Path(data_dir)]
    env = os.environ.get(ENV_VAR)
    if env:
        return [Path(env)]
    return [packaged_data_dir()]


def _where(dirs: list[Path]) -> str:
    return ", ".join(str(d) for d in dirs) or "(no folder)"


def find_file(names: str | tuple[str, ...], data_dir: str | os.PathLike[str] | None = None) -> Path:
    """The first of ``names`` found in the first folder that has any of them."""
    if isinstance(names, str):
        names = (names,)
    dirs = search_dirs(data_dir)
    for folder in dirs:
        for name in names:
            path = folder / name
            if path.is_file():
                return path
    raise DataFileError(f"{' or '.join(names)}: not found (looked in {_where(dirs)})")


def packaged_gnubg107_weights() -> Path:
    """gnubg 1.07's weights as the package ships them."""
    return packaged_data_dir() / GNUBG_107_WEIGHTS


def locate(data_dir: str | os.PathLike[str] | None = None,
           weights: str | os.PathLike[str] | None = None) -> DataFiles:
    """Finds weights and bearoff databases (all from the same folder), and the MET if present.
    ``weights``: a weights file to use instead (a path with a folder, or a name looked up
    in the folder)."""
    dirs = search_dirs(data_dir)
    for folder in dirs:
        if weights is not None:
            chosen = Path(weights) if Path(weights).parent != Path(".") else folder / weights
            if not chosen.is_file():
                raise DataFileError(f"{chosen}: not found")
        else:
            found = next((folder / n for n in WEIGHTS_NAMES if (folder / n).is_file()), None)
            if found is None:
                continue
            chosen = found
        for name in (BEAROFF_OS_NAME, BEAROFF_TS_NAME):
            if not (folder / name).is_file():
                raise DataFileError(f"{folder / name}: not found (the bearoff databases are sought in {folder})")
        met = folder / MET_NAME
        return DataFiles(chosen, folder / BEAROFF_OS_NAME, folder / BEAROFF_TS_NAME,
                         met if met.is_file() else None)
    raise DataFileError(f"{' or '.join(WEIGHTS_NAMES)}: not found (looked in {_where(dirs)})")


def find_met(data_dir: str | os.PathLike[str] | None = None) -> Path:
    """The Kazaross-XG2 match equity table."""
    return find_file(MET_NAME, data_dir)
