"""Everything needed to continue a match later, as JSON (saved matches)."""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field

from engine.errors import BoardParseError
from engine.position import Position

PHASES = ("roll", "move", "doubled", "over")
"""roll: ``turn`` rolls or doubles; move: ``turn`` has rolled ``dice``;
doubled: ``turn`` doubled, the other answers; over: between games."""


@dataclass
class MatchData:
    names: tuple[str, str]
    length: int
    """0 = unlimited."""
    crawford_rule: bool = True
    score: list[int] = field(default_factory=lambda: [0, 0])
    crawford_game: bool = False
    crawford_done: bool = False
    games: int = 0
    """Games started so far."""
    o_player: int = 0
    """Which player is O (moves 24 -> 1) in this game."""
    position: str = field(default_factory=lambda: Position.initial().position_id())
    """gnubg position ID seen from player 0 (player 0 in board[1])."""
    turn: int = 0
    phase: str = "over"
    dice: tuple[int, int] | None = None
    cube: int = 1
    owner: int = -1
    """-1 centred, else the player who owns the cube."""
    history: list[str] = field(default_factory=list)
    """The current game's ``oldmoves`` lines."""
    dice_state: list[object] | None = None

    def oldmoves(self, first: int | None = None) -> list[str]:
        """The current game as ``oldmoves`` prints it.

        The score line puts player ``first``'s points first (a player asking
        about their own match), else O's: both agree with the ``oldmoves`` examples of
        FIBS's CLIP documentation.
        """
        o, x = self.o_player, 1 - self.o_player
        a = o if first is None else first
        kind = f"a {self.length} point match" if self.length else "an unlimited match"
        return [f"Score is {self.score[a]}-{self.score[1 - a]} in {kind}.",
                f"{self.names[x]} is X - {self.names[o]} is O", "", *self.history]

    def to_json(self) -> str:
        return json.dumps(asdict(self), separators=(",", ":"))

    @classmethod
    def from_json(cls, text: str) -> MatchData:
        """Raises ValueError for anything that is not a consistent saved match."""
        try:
            raw = json.loads(text)
            raw["names"] = tuple(raw["names"])
            if raw.get("dice") is not None:
                raw["dice"] = tuple(raw["dice"])
            data = cls(**raw)
            if not data._consistent():
                raise ValueError("inconsistent fields")
            Position.from_position_id(data.position)
        except (TypeError, KeyError, ValueError, json.JSONDecodeError, BoardParseError) as exc:
            raise ValueError(f"corrupt saved match: {exc}") from None
        return data

    def _consistent(self) -> bool:
        ints = (self.length, self.games, self.o_player, self.turn, self.cube, self.owner, *self.score)
        if not (all(type(n) is int for n in ints) and all(isinstance(n, str) for n in (*self.names, self.position))
                and isinstance(self.history, list) and all(isinstance(h, str) for h in self.history)):
            return False
        return (len(self.names) == 2 and self.phase in PHASES and self.turn in (0, 1) and self.o_player in (0, 1)
                and self.owner in (-1, 0, 1) and self.length >= 0 and len(self.score) == 2 and min(self.score) >= 0
                and (self.dice is None) == (self.phase != "move") and self.cube >= 1
                and all(type(d) is int and 1 <= d <= 6 for d in self.dice or ()))
