"""Dice: the OS's secure source, or a reproducible per-match stream.

With a server seed every match gets its own ``random.Random`` derived from
the seed, the two names and how many matches that pair has started, so a
seeded run replays exactly even when many matches run at once. The stream's
state travels with a saved match, so a resumed match continues it.
"""

from __future__ import annotations

import hashlib
import random
import secrets
from typing import Protocol


class Dice(Protocol):
    def die(self) -> int: ...

    def state(self) -> list[object] | None:
        """What to save with the match to continue the same stream (None: nothing)."""
        ...


class SecureDice:
    def die(self) -> int:
        return secrets.randbelow(6) + 1

    def state(self) -> None:
        return None


class SeededDice:
    def __init__(self, seed: int | str) -> None:
        self._random = random.Random(seed)

    @classmethod
    def for_match(cls, seed: int, names: tuple[str, str], counter: int) -> SeededDice:
        """The stream of the ``counter``-th match of these two players (in either order).

        >>> SeededDice.for_match(7, ("b", "a"), 0).die() == SeededDice.for_match(7, ("a", "b"), 0).die()
        True
        """
        key = f"{seed}:{':'.join(sorted(names))}:{counter}"
        return cls(int.from_bytes(hashlib.sha256(key.encode()).digest()[:8], "big"))

    @classmethod
    def restore(cls, state: list[object]) -> SeededDice:
        dice = cls(0)
        version, internal, gauss = state
        dice._random.setstate((version, tuple(internal), gauss))  # type: ignore[arg-type]
        return dice

    def die(self) -> int:
        return self._random.randint(1, 6)

    def state(self) -> list[object]:
        version, internal, gauss = self._random.getstate()
        return [version, list(internal), gauss]
