"""Match state: length, score, cube, Crawford, Jacoby, beavers; gnubg's match ID (which has no
beaver bit: gnubg keeps that rule as a setting).

Players are gnubg's 0 and 1. ``on_roll`` is the player who rolls or rolled
(gnubg's fMove) and ``turn`` the player who must decide now (fTurn; differs
from ``on_roll`` while a double or resignation awaits an answer).

>>> m = MatchState.from_match_id("cInqACAAIAAE")
>>> m.length, m.score, m.dice, m.on_roll
(7, (2, 4), (5, 2), 1)
>>> m.match_id()
'cInqACAAIAAE'
"""

from __future__ import annotations

import base64
import binascii
from dataclasses import dataclass, replace

from engine.errors import BoardParseError

CENTRED = -1

# gnubg game states
GAME_NONE, GAME_PLAYING, GAME_OVER, GAME_RESIGNED, GAME_DROPPED = range(5)

# (first bit, width) of each match ID field
_FIELDS = {
    "log_cube": (0, 4), "owner": (4, 2), "on_roll": (6, 1), "crawford": (7, 1),
    "state": (8, 3), "turn": (11, 1), "doubled": (12, 1), "resigned": (13, 2),
    "die_hi": (15, 3), "die_lo": (18, 3), "length": (21, 15),
    "score0": (36, 15), "score1": (51, 15), "no_jacoby": (66, 1),
}


@dataclass(frozen=True)
class MatchState:
    length: int = 0
    score: tuple[int, int] = (0, 0)
    cube: int = 1
    cube_owner: int = CENTRED
    on_roll: int = 0
    turn: int = 0
    crawford_game: bool = False
    jacoby: bool = True
    crawford_rule: bool = True
    beavers: bool = True  # money play: the doubled side may beaver (gnubg's default)
    dice: tuple[int, int] | None = None
    doubled: bool = False
    resigned: int = 0
    game_state: int = GAME_PLAYING

    def __post_init__(self) -> None:
        if self.length < 0 or min(self.score) < 0:
            raise BoardParseError("match length and scores cannot be negative")
        if self.length and max(self.score) >= self.length:
            raise BoardParseError(f"score {self.score} is not below the match length {self.length}")
        if self.cube < 1 or self.cube & (self.cube - 1) or self.cube > 1 << 15:
            raise BoardParseError(f"cube value {self.cube} is not a power of two up to 32768")
        if self.cube_owner not in (CENTRED, 0, 1) or self.on_roll not in (0, 1) or self.turn not in (0, 1):
            raise BoardParseError("cube owner, player on roll and turn must be players 0/1 (owner -1 = centred)")
        if self.dice is not None and not all(1 <= d <= 6 for d in self.dice):
            raise BoardParseError(f"dice {self.dice} out of range")
        if not 0 <= self.resigned <= 3 or not 0 <= self.game_state <= 4:
            raise BoardParseError("resignation 0..3 and game state 0..4")

    @property
    def is_money(self) -> bool:
        return self.length == 0

    def away(self, player: int) -> int:
        """Points ``player`` still needs (0 in money play)."""
        return self.length - self.score[player] if self.length else 0

    @property
    def post_crawford(self) -> bool:
        """A game after the Crawford game: someone is 1-away and it is not that game."""
        return (self.crawford_rule and self.length > 0 and not self.crawford_game
                and min(self.away(0), self.away(1)) == 1)

    def match_id(self) -> str:
        values = {
            "log_cube": self.cube.bit_length() - 1,
            "owner": 3 if self.cube_owner == CENTRED else self.cube_owner,
            "on_roll": self.on_roll, "crawford": int(self.crawford_game),
            "state": self.game_state, "turn": self.turn, "doubled": int(self.doubled),
            "resigned": self.resigned,
            "die_hi": max(self.dice) if self.dice else 0, "die_lo": min(self.dice) if self.dice else 0,
            "length": self.length, "score0": self.score[0], "score1": self.score[1],
            "no_jacoby": int(not self.jacoby or self.length > 0),
        }
        bits = 0
        for name, (start, width) in _FIELDS.items():
            bits |= (values[name] & ((1 << width) - 1)) << start
        return base64.b64encode(bits.to_bytes(9, "little")).decode()

    @classmethod
    def from_match_id(cls, match_id: str) -> MatchState:
        """Decode gnubg's 12-character match ID (BoardParseError if invalid)."""
        text = match_id.strip()
        if len(text) != 12:
            raise BoardParseError(f"bad match ID {match_id!r}: a match ID has 12 characters")
        try:
            raw = base64.b64decode(text, validate=True)
        except (binascii.Error, ValueError):
            raise BoardParseError(f"bad match ID {match_id!r}: not base64") from None
        bits = int.from_bytes(raw, "little")
        f = {name: (bits >> start) & ((1 << width) - 1) for name, (start, width) in _FIELDS.items()}
        if f["owner"] == 2:
            raise BoardParseError(f"bad match ID {match_id!r}: cube owner 2")
        dice = (f["die_hi"], f["die_lo"]) if f["die_hi"] else None
        try:
            return cls(
                length=f["length"], score=(f["score0"], f["score1"]), cube=1 << f["log_cube"],
                cube_owner=CENTRED if f["owner"] == 3 else f["owner"], on_roll=f["on_roll"],
                turn=f["turn"], crawford_game=bool(f["crawford"]), jacoby=not f["no_jacoby"],
                dice=dice, doubled=bool(f["doubled"]), resigned=f["resigned"], game_state=f["state"],
            )
        except BoardParseError as exc:
            raise BoardParseError(f"bad match ID {match_id!r}: {exc}") from None

    def with_(self, **changes: object) -> MatchState:
        """A copy with some fields changed (validated)."""
        return replace(self, **changes)  # type: ignore[arg-type]
