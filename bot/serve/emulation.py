"""A data folder that makes the engine answer like Debian's gnubg 1.07.

gnubg 1.07 ships older contact nets in a weights file of format version 1.00;
the layout is the same as 1.01's (the version the engine accepts), so the
folder holds that file with its version word set to 1.01, next to the engine's
own bearoff databases and match equity table. The engine then loads it with
``verify=False`` (its digest check knows only the 1.01 weights) and, knowing
these weights by their digest, computes 1.07's hitting inputs for them.
Together with the ``gnubg-1.07`` flavour (cube efficiencies, the ranking of
equal plays) this reproduces Debian gnubg's evaluations to about 1e-5 (not bit
for bit: some of 1.07's arithmetic differs). The folder holds the engine's
two-sided bear-off database: Debian's gnubg ships none but builds the same in
memory.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

from engine.data import BEAROFF_OS_NAME, BEAROFF_TS_NAME, MET_NAME, locate

DEBIAN_WEIGHTS = Path("/usr/lib/gnubg/gnubg.wd")
_V100 = bytes([0x00, 0x00, 0x80, 0x3F])  # 1.00f, little-endian, after the 4-byte magic
_V101 = bytes([0xAE, 0x47, 0x81, 0x3F])  # 1.01f


class EmulationError(ValueError):
    """The weights file is not a gnubg binary weights file of version 1.00 or 1.01."""


def gnubg107_data_dir(weights: str | os.PathLike[str], into: str | os.PathLike[str]) -> Path:
    """Writes the folder under ``into`` (created) and returns it."""
    data = bytearray(Path(weights).read_bytes())
    if len(data) < 8 or bytes(data[4:8]) not in (_V100, _V101):
        raise EmulationError(f"{weights}: not a gnubg binary weights file (version 1.00 or 1.01)")
    data[4:8] = _V101
    folder = Path(into)
    (folder / "met").mkdir(parents=True, exist_ok=True)
    (folder / "gnubg.wd").write_bytes(bytes(data))
    ours = locate(None)
    shutil.copyfile(ours.bearoff_os, folder / BEAROFF_OS_NAME)
    shutil.copyfile(ours.bearoff_ts, folder / BEAROFF_TS_NAME)
    if ours.met is not None:
        shutil.copyfile(ours.met, folder / MET_NAME)
    return folder
