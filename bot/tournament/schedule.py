"""Which matches a tournament plays, and the dice of each.

A match is named by its pairing (two player names, in config order) and its
index. Its dice come from a seed derived from (tournament seed, pairing,
index) alone, so results do not depend on worker count or scheduling. Seats
alternate by index. With duplicate dice, matches 2k and 2k+1 share one dice
sequence and swap seats, so each player gets the rolls the other had. In self
play (each player against itself) every player's match k has the same dice,
so the levels are compared on common rolls.

>>> specs = schedule(["x", "y", "z"], "round robin", None, 2, seed=7, duplicate=True)
>>> a, b = [s for s in specs if s.pairing == ("x", "y")]
>>> a.key, a.white, b.white, a.dice_seed == b.dice_seed
('x~y~0000', 'x', 'y', True)
"""

from __future__ import annotations

import hashlib
import random
from collections.abc import Sequence
from dataclasses import dataclass


@dataclass(frozen=True)
class MatchSpec:
    pairing: tuple[str, str]
    index: int
    white: str  # gnubg's player 0
    black: str
    dice_seed: int

    @property
    def key(self) -> str:
        """Unique within a tournament; also the match's file name."""
        return f"{self.pairing[0]}~{self.pairing[1]}~{self.index:04d}"

    @property
    def players(self) -> tuple[str, str]:
        return self.white, self.black


def _derive(*parts: object) -> int:
    text = "|".join(str(p) for p in parts).encode()
    return int.from_bytes(hashlib.sha256(text).digest()[:8], "little")


def pairings(players: Sequence[str], fmt: str, gauntlet_player: str | None) -> list[tuple[str, str]]:
    """Round robin: every pair once; gauntlet: one player against each other;
    self play: each player against itself."""
    if fmt == "self play":
        return [(p, p) for p in players]
    if fmt == "gauntlet":
        hero = gauntlet_player or players[0]
        return [(hero, p) for p in players if p != hero]
    return [(a, b) for i, a in enumerate(players) for b in players[i + 1:]]


def schedule(players: Sequence[str], fmt: str, gauntlet_player: str | None, matches: int, *,
             seed: int, duplicate: bool) -> list[MatchSpec]:
    """Every match, interleaved across pairings so partial runs stay balanced."""
    specs = []
    for index in range(matches):
        for a, b in pairings(players, fmt, gauntlet_player):
            white, black = (a, b) if index % 2 == 0 else (b, a)
            dice_index = index // 2 if duplicate else index
            dice_seed = _derive(seed, dice_index) if fmt == "self play" else _derive(seed, a, b, dice_index)
            specs.append(MatchSpec((a, b), index, white, black, dice_seed))
    return specs


class Dice:
    """The dice of one game of a match: a stream of its own per game number, so
    duplicate matches replay the same rolls game by game even when earlier
    games differed in length."""

    def __init__(self, dice_seed: int, game: int) -> None:
        self._rng = random.Random(_derive(dice_seed, game))

    def opening(self) -> tuple[int, int]:
        """One die each for players 0 and 1, rerolled while equal."""
        while True:
            d0, d1 = self._rng.randint(1, 6), self._rng.randint(1, 6)
            if d0 != d1:
                return d0, d1

    def roll(self) -> tuple[int, int]:
        return self._rng.randint(1, 6), self._rng.randint(1, 6)
