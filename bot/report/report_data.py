"""What a match report shows beside the analysis' numbers: each decision's board and
match state, its IDs, the move table and the cube equities, at the analysis' level.

The errors, luck and totals are the analysis' own (the numbers of
``fibsbot analyse --json``); the engine is asked again only for the tables that
the analysis does not keep (every candidate play, the no double / double-take /
double-pass equities).
"""

from __future__ import annotations

from dataclasses import dataclass

from bot.report.errors import ReportError
from bot.report.source import Decision, MatchAnalysis, match_state
from engine.evaluator import Engine
from engine.levels import Level
from engine.levels import level as level_named
from engine.match import MatchState
from engine.position import Move, Position
from engine.records import Double, GameRecord, MatchRecord, Roll
from engine.xgid import to_xgid

TABLE_ROWS = 5  # candidates listed before the played one (when it ranks lower)


@dataclass(frozen=True)
class CandidateRow:
    rank: int  # 1-based
    move: str
    equity: float
    difference: float  # to the best play (0 for the best, negative below it)
    win: float
    win_gammon: float
    lose_gammon: float
    played: bool


@dataclass(frozen=True)
class CubeTable:
    no_double: float
    double_take: float
    double_pass: float
    proper: str  # gnubg's words, e.g. "No double, take"


@dataclass(frozen=True)
class DecisionView:
    decision: Decision
    position: Position  # the decider's board (the doubler's for a take or pass)
    match: MatchState
    move: Move | None  # the play made (move decisions)
    best_move: Move | None
    candidates: tuple[CandidateRow, ...]
    candidate_count: int  # legal plays in all
    cube: CubeTable | None

    @property
    def position_id(self) -> str:
        return self.position.position_id()

    @property
    def match_id(self) -> str:
        return self.match.match_id()

    @property
    def xgid(self) -> str:
        return to_xgid(self.position, self.match)


def _level(analysis: MatchAnalysis, given: Level | str | None) -> Level:
    if isinstance(given, Level):
        return given
    try:
        return level_named(given or analysis.level)
    except ValueError as exc:
        raise ReportError(f"the analysis' level {analysis.level!r} is unknown here: {exc}") from None


class _Collector:
    def __init__(self, engine: Engine, record: MatchRecord, level: Level) -> None:
        self.engine, self.record, self.level = engine, record, level

    def view(self, d: Decision) -> DecisionView:
        if not 1 <= d.game <= len(self.record.games):
            raise ReportError(f"the analysis names game {d.game}; the record has {len(self.record.games)}")
        game = self.record.games[d.game - 1]
        if not 0 <= d.action < len(game.actions):
            raise ReportError(f"the analysis names action {d.action} of game {d.game}, which has "
                              f"{len(game.actions)}")
        if d.kind == "move":
            return self._move(d, game)
        return self._cube(d, game)

    def _move(self, d: Decision, game: GameRecord) -> DecisionView:
        action = game.actions[d.action]
        if not isinstance(action, Roll) or action.player != d.player:
            raise ReportError(f"game {d.game} action {d.action} is no roll of player {d.player}")
        if str(action.move) != d.played:
            raise ReportError(f"game {d.game} action {d.action}: the analysis has {d.played}, the record {action.move}")
        state = game.states[d.action]
        position = state.position(d.player)
        view = match_state(self.record, game, state, d.player, dice=action.dice)
        after = position.play(action.move)
        choice = self.engine.best_move(position, action.dice, view, self.level)
        ranked = choice.candidates
        best = ranked[0] if ranked else None
        rows: list[CandidateRow] = []
        for rank, c in enumerate(ranked, 1):
            played = c.position == after
            if rank <= TABLE_ROWS or played:
                p = c.probabilities
                # the played row in the record's words (a hit may be written on either step)
                rows.append(CandidateRow(rank, str(action.move) if played else str(c.move), c.equity,
                                         c.equity - (best.equity if best else 0.0),
                                         p.win, p.win_gammon, p.lose_gammon, played))
        if best is not None and not any(r.played for r in rows):  # scored by the analysis alone
            rows.append(CandidateRow(0, str(action.move), best.equity + d.error, d.error, float("nan"),
                                     float("nan"), float("nan"), True))
        return DecisionView(d, position, view, action.move, best.move if best else action.move, tuple(rows),
                            len(ranked), None)

    def _cube(self, d: Decision, game: GameRecord) -> DecisionView:
        doubler, at = d.player, d.action
        if d.kind in ("take", "pass"):
            doubler = 1 - d.player
            at = max((j for j in range(d.action) if isinstance(game.actions[j], Double)
                      and game.actions[j].player == doubler), default=-1)
            if at < 0:
                raise ReportError(f"game {d.game}: no double before the {d.kind} at action {d.action}")
        state = game.states[at]
        position = state.position(doubler)
        view = match_state(self.record, game, state, doubler)
        decision = self.engine.cube_decision(position, view, self.level)
        nd, dt, dp = decision.equities
        cube = CubeTable(nd, dt, dp, decision.action)
        if d.kind in ("take", "pass"):
            view = view.with_(turn=d.player, doubled=True)
        return DecisionView(d, position, view, None, None, (), 0, cube)


def decision_views(engine: Engine, record: MatchRecord, analysis: MatchAnalysis,
                   level: Level | str | None = None) -> list[DecisionView]:
    """Every decision of ``analysis`` (an analysis of ``record``) with its board and tables.

    ReportError when the analysis does not belong to the record.
    """
    collector = _Collector(engine, record, _level(analysis, level))
    return [collector.view(d) for d in analysis.decisions]
