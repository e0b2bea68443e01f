"""The engine's match analysis, as the store keeps it: per decision, per game, per match.

The one place that imports the engine's analysis modules (gnubg's error classes, error
rates, luck and rating labels are theirs; nothing is recomputed here).
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import Connection, delete, select

from bot.store.schema import decisions, games, matches, statistics
from engine import analysis as _analysis
from engine.analysis import rates as _rates
from engine.evaluator import Engine
from engine.records import MatchRecord

MatchAnalysis = _analysis.MatchAnalysis


def analyse(engine: Engine, record: MatchRecord, level: str) -> MatchAnalysis:
    """Every decision of ``record`` judged at ``level`` (luck at the same level)."""
    return _analysis.analyse_match(engine, record, level, level, threads=1)


def rating_label(error_per_decision: float) -> str:
    """gnubg's rating label of an overall error rate (EMG per decision)."""
    return _rates.rating_label(error_per_decision)


def _stats_row(match_id: int, game: int, player: _analysis.PlayerAnalysis, judge: str, length: int,
               ) -> dict[str, Any]:
    r = player.rates
    return {"match_id": match_id, "game": game, "judge": judge, "moves": r.total_moves,
            "unforced_moves": r.unforced_moves, "chequer_error": r.chequer_error,
            "cube_decisions": r.close_cube_decisions, "cube_error": r.cube_error,
            "error_rate_memg": r.memg(r.overall_rate), "luck": player.luck, "rolls": player.rolls,
            "rating_label": player.rating, "fibs_rating": player.fibs_rating(length)}


def store_analysis(conn: Connection, match_id: int, analysis: MatchAnalysis) -> int:
    """Replace the match's analysis at this judge's level; the number of decisions kept."""
    judge = analysis.level
    game_ids = {r.number: r.id for r in conn.execute(select(games.c.number, games.c.id)
                                                     .where(games.c.match_id == match_id))}
    conn.execute(delete(decisions).where(decisions.c.game_id.in_(list(game_ids.values())),
                                         decisions.c.judge == judge))
    conn.execute(delete(statistics).where(statistics.c.match_id == match_id, statistics.c.judge == judge))
    rows = [{"game_id": game_ids[d.game], "idx": d.action, "player": d.player, "judge": judge, "kind": d.kind,
             "played": d.played[:60], "best": d.best[:60], "best_equity": d.best_equity, "error": d.error,
             "error_class": d.skill, "counted": d.counted, "luck": d.luck}
            for d in analysis.decisions if d.game in game_ids]
    if rows:
        conn.execute(decisions.insert(), rows)
    stats = []
    for number in sorted(game_ids):
        per_game = (_analysis.PlayerAnalysis(analysis.players[0].name),
                    _analysis.PlayerAnalysis(analysis.players[1].name))
        for d in analysis.decisions:
            if d.game == number:
                per_game[d.player].add(d)
                if d.luck is not None:
                    per_game[d.player].add_luck(d.luck)
        for player in (0, 1):
            stats.append({**_stats_row(match_id, number, per_game[player], judge, analysis.match_length),
                          "player": player})
    for player in (0, 1):
        stats.append({**_stats_row(match_id, 0, analysis.players[player], judge, analysis.match_length),
                      "player": player})
    conn.execute(statistics.insert(), stats)
    return len(rows)


def unanalysed(conn: Connection, judge: str, limit: int | None) -> list[int]:
    """Matches with no statistics at ``judge``'s level, oldest first."""
    done = select(statistics.c.match_id).where(statistics.c.judge == judge)
    query = select(matches.c.id).where(matches.c.id.not_in(done)).order_by(matches.c.id)
    return [int(r.id) for r in conn.execute(query.limit(limit) if limit else query)]
