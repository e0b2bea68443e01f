"""Which gnubg the service answers as: the engine and flavour behind each endpoint.

The external-player socket is a drop-in for the gnubg that bots run (Debian's
and most x86 builds: gnubg 1.07), so by default it answers as gnubg 1.07: the
package's copy of 1.07's weights (``engine/gnubg_data/gnubg-1.07.wd``, the file
Debian installs as /usr/lib/gnubg/gnubg.wd) with the ``gnubg-1.07`` flavour
(cube efficiencies, the ranking of equal plays). Loaded with these weights the
engine also takes three rules of 1.07's code: its hitting input, its SSE
build's net arithmetic (the hidden sigmoid by approximate reciprocal, the output
sums paired: csrc/nnet.c) and its one-sided bear-off sums (csrc/bearoff.c);
together they reproduce Debian gnubg's evaluations to the bit, and its plays.
``--flavour gnubg-1.1`` gives the package's newer weights (gnubg >= 1.08's)
with gnubg 1.1's flavour; ``--gnubg-weights FILE`` loads another weights file
(format 1.00 or 1.01). The HTTP API keeps the library's default (the newer
weights, no flavour) unless ``--flavour`` or ``--gnubg-weights`` is given.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from engine import Engine
from engine.data import GNUBG_107_WEIGHTS, packaged_gnubg107_weights

DEBIAN_WEIGHTS = Path("/usr/lib/gnubg/gnubg.wd")
EXTERNAL_FLAVOUR = "gnubg-1.07"
"""The external socket's flavour when none is given."""


@dataclass(frozen=True)
class Emulation:
    """The weights file (None: the data folder's default) and flavour (None: the library's)."""

    weights: Path | None
    flavour: str | None
    verify: bool = True


def gnubg107_weights(data_dir: str | os.PathLike[str] | None) -> Path:
    """gnubg 1.07's weights: the data folder's ``gnubg-1.07.wd`` if it has one, else the package's."""
    if data_dir is not None and (Path(data_dir) / GNUBG_107_WEIGHTS).is_file():
        return Path(data_dir) / GNUBG_107_WEIGHTS
    return packaged_gnubg107_weights()


def emulation(flavour: str | None, weights: str | os.PathLike[str] | None,
              data_dir: str | os.PathLike[str] | None, *, external: bool) -> Emulation:
    """What an endpoint answers as, from ``--flavour`` and ``--gnubg-weights`` (None: not given)."""
    if weights is not None:
        return Emulation(Path(weights), flavour or (EXTERNAL_FLAVOUR if external else None), verify=False)
    flavour = flavour or (EXTERNAL_FLAVOUR if external else None)
    if flavour == "gnubg-1.07":
        return Emulation(gnubg107_weights(data_dir), flavour)
    return Emulation(None, flavour)


def load(e: Emulation, data_dir: str | os.PathLike[str] | None) -> Engine:
    """The engine for ``e`` (bearoff databases and MET from the data folder)."""
    return Engine(data_dir, weights=e.weights, verify=e.verify)
