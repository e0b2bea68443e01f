"""Test support for the records: a comparable summary of a record (and, from
engine.bench.random_records, matches of random legal play)."""

from __future__ import annotations

from engine.bench.random_records import random_match
from engine.records.model import (
    AcceptResign,
    Action,
    Beaver,
    GameRecord,
    GameResult,
    MatchRecord,
    RejectResign,
    Resign,
    Roll,
    Take,
)

__all__ = ["ActionView", "GameView", "game_summary", "random_match"]

ActionView = tuple[str, int, int | None, tuple[tuple[int, int], list[tuple[int, int]]] | None]
GameView = tuple[tuple[int, int], bool, GameResult | None, list[ActionView]]


def game_summary(record: MatchRecord, refusals: bool = True, rules: bool = True) -> list[GameView]:
    """Per game: score, Crawford flag, result and actions, steps as a multiset
    (gnubg reorders the steps of a move, and with them which one hits).

    Without ``refusals`` (what a .mat file keeps), resignation offers not
    accepted are left out, and so is the take of a beaver that ends an
    unfinished game (the format shows that take only by the next roll); without
    ``rules``, the Crawford flags and results, which follow from rules a .mat
    file does not carry (Crawford, Jacoby).
    """
    def kept(game: GameRecord) -> list[Action]:
        actions = game.actions
        out = [a for a, b in zip(actions, (*actions[1:], None), strict=True)
               if refusals or not (isinstance(a, RejectResign)
                                   or isinstance(a, Resign) and not isinstance(b, AcceptResign))]
        if (not refusals and game.result is None and len(out) >= 2 and isinstance(out[-1], Take)
                and isinstance(out[-2], Beaver)):
            out.pop()
        return out
    return [(g.score, g.crawford_game and rules, g.result if rules else None,
             [(type(a).__name__, a.player, a.value if isinstance(a, Resign) else None,
               (a.dice, sorted((s.src, s.dst) for s in a.move.steps)) if isinstance(a, Roll) else None)
              for a in kept(g)]) for g in record.games]
