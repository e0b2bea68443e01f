"""A match record as the store's rows: pure functions, the same for the live writer,
``fibsbot db sync`` and ``fibsbot db import`` (so that all three write equal rows)."""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Any

from engine.match import GAME_PLAYING, MatchState
from engine.position import Move
from engine.records import Beaver, Double, Drop, GameRecord, GameState, MatchRecord, Resign, Roll, Take


def file_hash(path: Path) -> str | None:
    """SHA-256 of the record's file (None while it does not exist)."""
    try:
        return hashlib.sha256(path.read_bytes()).hexdigest()
    except OSError:
        return None


def ending(record: MatchRecord, saved: bool = False) -> str | None:
    """How the match ended: finished, dropped, resigned; saved when interrupted; None while played."""
    if not record.is_over():
        return "saved" if saved else None
    last = record.games[-1]
    if last.result is not None and last.result.resigned:
        return "resigned"
    if last.actions and isinstance(last.actions[-1], Drop):
        return "dropped"
    return "finished"


def points(record: MatchRecord, us: int) -> tuple[int, int]:
    score = record.score()
    return score[us], score[1 - us]


def result(record: MatchRecord, us: int) -> str | None:
    if not record.is_over():
        return None
    ours, theirs = points(record, us)
    return "won" if ours > theirs else "lost"


def cube_history(game: GameRecord) -> str:
    """The cube actions in order: D (double), T (take), P (pass), B (beaver), each with its player."""
    letters = {Double: "D", Take: "T", Drop: "P", Beaver: "B"}
    return " ".join(f"{letters[type(a)]}{a.player}" for a in game.actions if type(a) in letters)


def game_row(game: GameRecord, number: int) -> dict[str, Any]:
    res = game.result
    return {"number": number, "score0": game.score[0], "score1": game.score[1], "crawford": game.crawford_game,
            "winner": res.winner if res else None, "points": res.points if res else None,
            "resigned": res.resigned if res else None, "cube": game.state.cube, "cube_history": cube_history(game)}


_POINTS = ("off", *(str(n) for n in range(1, 25)), "bar")


def move_text(move: Move) -> str:
    """The play step by step in gnubg's notation (``bar/22* 13/7*``; ``Move.parse`` reads it back).
    Steps are not merged into chains (``13/7/5``): a tenth of the cost, and an import's
    time is mostly this."""
    return " ".join(f"{_POINTS[s.src]}/{_POINTS[s.dst]}{'*' if s.hit else ''}" for s in move.steps)


def _ids(record: MatchRecord, game: GameRecord, state: GameState, player: int,
         dice: tuple[int, int] | None) -> tuple[str, str]:
    """gnubg's position ID (seen by ``player``) and match ID of ``state``, a state of a
    checked record (so the MatchState needs no checks of its own)."""
    match = object.__new__(MatchState)
    match.__dict__.update(
        length=record.length, score=game.score, cube=state.cube, cube_owner=state.cube_owner,
        on_roll=player if state.on_roll is None else state.on_roll, turn=player, crawford_game=game.crawford_game,
        jacoby=record.jacoby, crawford_rule=record.crawford or record.length <= 1, dice=dice, doubled=state.doubled,
        resigned=state.resignation.value if state.resignation is not None else 0, game_state=GAME_PLAYING)
    return state.position(player).position_id(), match.match_id()


def action_rows(record: MatchRecord, game: GameRecord, start: int = 0) -> list[dict[str, Any]]:
    """The rows of ``game``'s actions from index ``start`` on (no ``game_id``, ``at``, ``seconds``)."""
    states = game.states
    rows = []
    for idx in range(start, len(game.actions)):
        action = game.actions[idx]
        dice = action.dice if isinstance(action, Roll) else None
        position_id, match_id = _ids(record, game, states[idx], action.player, dice)
        rows.append({
            "idx": idx, "player": action.player, "kind": type(action).__name__,
            "dice": f"{dice[0]}{dice[1]}" if dice else None,
            "move": move_text(action.move) if isinstance(action, Roll) else None,
            "value": action.value if isinstance(action, Resign) else None,
            "comment": action.comment, "note": str(action.note) if action.note else None,
            "position_id": position_id, "gnubg_match_id": match_id})
    return rows


def us_of(record: MatchRecord, us_name: str | None) -> int:
    """The bot's player number: the player named ``us_name``, else 1 (as the bot records)."""
    if us_name is not None and record.players[0] == us_name and record.players[1] != us_name:
        return 0
    return 1
