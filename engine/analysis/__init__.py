"""Match analysis as gnubg's `analyse match`: the error of every decision, luck, rates.

Errors are normalised equity (EMG) at the analysis level, negative = a loss
(gnubg's sign): a chequer play's error is its score minus the best play's; a
cube decision's comes from the no double / double-take / double-pass
equities of the doubler's position (:func:`engine.analysis.rates.cube_errors`).
A played move the level's move filter dropped early is scored as deep as
the best one, as gnubg does. Forced moves (one legal play) and cube
decisions that are not close (and were not doubles, takes or passes) do not
enter the rates, as in gnubg.
Luck of a roll is the best play's equity for it minus the average over all
rolls, evaluated at ``luck_level`` (gnubg's default: 0-ply).

Only the first answer to a double is analysed (a beaver counts as a take);
resignations are not.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import asdict, dataclass, field
from typing import Any

from engine.analysis import rates
from engine.cube import CubeDecision
from engine.evaluator import Engine
from engine.levels import Level
from engine.levels import level as _level
from engine.match import MatchState
from engine.records import Beaver, Double, Drop, GameRecord, GameState, MatchRecord, Roll, Take
from engine.search import Candidate, MoveDecision, NplyEvaluation

_ROLLS = [(d1, d2) for d1 in range(1, 7) for d2 in range(1, d1 + 1)]


def match_state(record: MatchRecord, game: GameRecord, state: GameState, player: int,
                **changes: object) -> MatchState:
    """The engine's view of ``state`` (a state of ``game``) with ``player`` to decide."""
    fields: dict[str, Any] = {
        "length": record.length, "score": game.score, "cube": state.cube, "cube_owner": state.cube_owner,
        "on_roll": player, "turn": player, "crawford_game": game.crawford_game, "jacoby": record.jacoby,
        "crawford_rule": record.crawford or record.length <= 1}
    return MatchState(**{**fields, **changes})


def scored(engine: Engine, level: Level, candidate: Candidate, plies: int, opponent: MatchState,
           threads: int | None) -> float:
    """The candidate's score at ``plies``: a play the move filter dropped early
    is scored as deep as the best one (gnubg's analysis does the same).
    ``opponent`` is the match seen by the side to move after the play."""
    if candidate.plies >= plies:
        return candidate.equity
    deeper: NplyEvaluation = engine.evaluate_nply(candidate.position.swap(), opponent,
                                                  level.checker.with_(plies=plies), threads=threads)
    return -deeper.cubeful_equity


def cube_available(record: MatchRecord, game: GameRecord, state: GameState, player: int) -> bool:
    """Whether ``player`` (on roll) may double with effect (gnubg's cube availability): the
    record's rules, and in a match a doubled cube must not reach the length."""
    return state.may_double and (not record.length or game.score[player] + state.cube < record.length)


@dataclass(frozen=True)
class Decision:
    """One analysed decision. ``kind``: "move", "no double", "double", "take" or
    "pass"; ``counted``: it enters the error rates."""

    game: int  # 1-based
    action: int  # index of the action in its game, 0-based
    player: int
    kind: str
    played: str
    best: str
    error: float
    counted: bool
    dice: tuple[int, int] | None = None
    luck: float | None = None
    best_equity: float | None = None  # the best choice's equity for the deciding player; None if forced

    @property
    def skill(self) -> str:
        return rates.skill(self.error)


SKILLS = ("doubtful", "bad", "very bad")
LUCKS = ("very lucky", "lucky", "unlucky", "very unlucky")


@dataclass
class PlayerAnalysis:
    """One player's totals; rates per counted decision in EMG (x1000 = mEMG)."""

    name: str
    rates: rates.ErrorRates = field(default_factory=rates.ErrorRates)
    chequer_skills: dict[str, int] = field(default_factory=lambda: dict.fromkeys(SKILLS, 0))
    cube_skills: dict[str, int] = field(default_factory=lambda: dict.fromkeys(SKILLS, 0))
    luck: float = 0.0
    rolls: int = 0
    luck_classes: dict[str, int] = field(default_factory=lambda: dict.fromkeys(LUCKS, 0))

    @property
    def rating(self) -> str:
        return rates.rating_label(self.rates.overall_rate)

    def fibs_rating(self, match_length: int) -> float | None:
        """gnubg's error-based absolute FIBS rating (match play only)."""
        if match_length <= 0:
            return None
        return rates.abs_fibs_rating(self.rates.chequer_rate, self.rates.cube_rate, match_length)

    def add(self, d: Decision) -> None:
        r = self.rates
        if d.kind == "move":
            self.rates = rates.ErrorRates(r.chequer_error + (d.error if d.counted else 0.0),
                                          r.unforced_moves + d.counted, r.cube_error, r.close_cube_decisions,
                                          r.total_moves + 1)
            skills = self.chequer_skills
        elif d.counted:
            self.rates = rates.ErrorRates(r.chequer_error, r.unforced_moves, r.cube_error + d.error,
                                          r.close_cube_decisions + 1, r.total_moves)
            skills = self.cube_skills
        else:
            return
        if d.skill != "none":
            skills[d.skill] += 1

    def add_luck(self, value: float) -> None:
        self.luck += value
        self.rolls += 1
        if rates.luck(value) != "none":
            self.luck_classes[rates.luck(value)] += 1

    def __add__(self, other: PlayerAnalysis) -> PlayerAnalysis:
        """Two analyses of one player (two matches, or both sides of a self-play match)."""
        def summed(a: dict[str, int], b: dict[str, int]) -> dict[str, int]:
            return {k: a[k] + b[k] for k in a}

        return PlayerAnalysis(self.name, self.rates + other.rates, summed(self.chequer_skills, other.chequer_skills),
                              summed(self.cube_skills, other.cube_skills), self.luck + other.luck,
                              self.rolls + other.rolls, summed(self.luck_classes, other.luck_classes))

    def as_dict(self, match_length: int) -> dict[str, Any]:
        r = self.rates
        return {
            "name": self.name, **asdict(r),
            "chequer_rate_memg": r.memg(r.chequer_rate), "cube_rate_memg": r.memg(r.cube_rate),
            "overall_rate_memg": r.memg(r.overall_rate), "rating": self.rating,
            "fibs_rating": self.fibs_rating(match_length),
            "chequer_skills": self.chequer_skills, "cube_skills": self.cube_skills,
            "luck": self.luck, "rolls": self.rolls, "luck_classes": self.luck_classes,
        }


@dataclass(frozen=True)
class MatchAnalysis:
    players: tuple[PlayerAnalysis, PlayerAnalysis]
    decisions: tuple[Decision, ...]
    level: str
    match_length: int

    def as_dict(self) -> dict[str, Any]:
        return {
            "level": self.level, "match_length": self.match_length,
            "players": [p.as_dict(self.match_length) for p in self.players],
            "decisions": [{**asdict(d), "skill": d.skill} for d in self.decisions],
        }


class _Run:
    def __init__(self, engine: Engine, record: MatchRecord, level: Level, luck_level: Level,
                 threads: int | None) -> None:
        self.engine, self.record, self.level, self.luck_level = engine, record, level, luck_level
        self.threads = threads
        self.decisions: list[Decision] = []

    def game(self, number: int, game: GameRecord) -> None:
        actions, states = game.actions, game.states
        cube: CubeDecision | None = None  # the doubler's decision while a double is answered
        for i, action in enumerate(actions):
            before = states[i]
            p = action.player
            if isinstance(action, Roll):
                if cube is None and before.on_roll is not None and cube_available(self.record, game, before, p):
                    self._no_double(number, i, game, before, p)
                cube = None
                self._roll(number, i, game, before, action)
            elif isinstance(action, Double) and not before.doubled:
                cube = self._cube(game, before, p)
                optimal = "double" if cube.equities.nd < cube.optimal else "no double"
                error = rates.cube_errors(*cube.equities)["wrong_double"]
                self.decisions.append(Decision(number, i, p, "double", "double", optimal, error, True,
                                               best_equity=cube.optimal))
            elif isinstance(action, Take | Beaver | Drop) and cube is not None and before.beavers == 0:
                nd, dt, dp = cube.equities
                took = not isinstance(action, Drop)
                error = rates.cube_errors(nd, dt, dp)["wrong_take" if took else "wrong_pass"]
                played = "beaver" if isinstance(action, Beaver) else "take" if took else "pass"
                self.decisions.append(Decision(number, i, p, "take" if took else "pass", played,
                                               "pass" if dt > dp else "take", error, True, best_equity=-min(dt, dp)))

    def _cube(self, game: GameRecord, state: GameState, player: int) -> CubeDecision:
        decision: CubeDecision = self.engine.cube_decision(
            state.position(player), match_state(self.record, game, state, player), self.level, threads=self.threads)
        return decision

    def _no_double(self, number: int, i: int, game: GameRecord, state: GameState, player: int) -> None:
        decision = self._cube(game, state, player)
        if not decision.cube_available:
            return
        nd, dt, _ = decision.equities
        error = rates.cube_errors(*decision.equities)["missed_double"]
        counted = rates.is_close_cube(decision.optimal, dt)
        best = "double" if nd < decision.optimal else "no double"
        self.decisions.append(Decision(number, i, player, "no double", "no double", best, error, counted,
                                       best_equity=decision.optimal))

    def _roll(self, number: int, i: int, game: GameRecord, state: GameState, action: Roll) -> None:
        p = action.player
        position = state.position(p)
        luck = self._luck(game, state, p, action.dice)
        if len(position.legal_plays(*action.dice)) <= 1:
            self.decisions.append(Decision(number, i, p, "move", str(action.move), str(action.move), 0.0, False,
                                           action.dice, luck))
            return
        view = match_state(self.record, game, state, p, dice=action.dice)
        choice: MoveDecision = self.engine.best_move(position, action.dice, view, self.level, threads=self.threads)
        best = choice.candidates[0]
        after = position.play(action.move)
        played = next(c for c in choice.candidates if c.position == after)
        opponent = match_state(self.record, game, state, 1 - p)
        error = scored(self.engine, self.level, played, best.plies, opponent, self.threads) - best.equity
        self.decisions.append(Decision(number, i, p, "move", str(action.move), str(best.move), min(0.0, error),
                                       True, action.dice, luck, best.equity))

    def _best_equity(self, game: GameRecord, state: GameState, player: int, dice: tuple[int, int]) -> float:
        view = match_state(self.record, game, state, player, dice=dice)
        choice: MoveDecision = self.engine.best_move(state.position(player), dice, view, self.luck_level,
                                                     threads=self.threads)
        return choice.candidates[0].equity

    def _luck(self, game: GameRecord, state: GameState, player: int, dice: tuple[int, int]) -> float:
        actual = self._best_equity(game, state, player, dice)
        if state.on_roll is None:
            # the opening roll: either player may win it with any non-double
            total = 0.0
            for d1, d2 in _ROLLS:
                if d1 != d2:
                    total += self._best_equity(game, state, player, (d1, d2))
                    total -= self._best_equity(game, state, 1 - player, (d1, d2))
            mean = total / 30.0
        else:
            mean = sum((1 if d1 == d2 else 2) * self._best_equity(game, state, player, (d1, d2))
                       for d1, d2 in _ROLLS) / 36.0
        return actual - mean


def analyse_match(engine: Engine, record: MatchRecord, level: str | Level = "expert",
                  luck_level: str | Level = "expert", *, threads: int | None = None) -> MatchAnalysis:
    """Analyse every decision of ``record`` (games in order, unfinished ones too).

    ``threads``: search threads per decision (None: every core).
    """
    lv = level if isinstance(level, Level) else _level(level)
    luck_lv = luck_level if isinstance(luck_level, Level) else _level(luck_level)
    run = _Run(engine, record, lv, luck_lv, threads)
    for number, game in enumerate(record.games, 1):
        run.game(number, game)
    players = (PlayerAnalysis(record.players[0]), PlayerAnalysis(record.players[1]))
    for d in run.decisions:
        players[d.player].add(d)
        if d.luck is not None:
            players[d.player].add_luck(d.luck)
    return MatchAnalysis(players, tuple(run.decisions), lv.name, record.length)


def by_player(analyses: Iterable[MatchAnalysis]) -> list[PlayerAnalysis]:
    """Every player's analyses summed, by name, in order of first appearance."""
    totals: dict[str, PlayerAnalysis] = {}
    for analysis in analyses:
        for p in analysis.players:
            totals[p.name] = totals[p.name] + p if p.name in totals else p
    return list(totals.values())


def error_rate_order(players: Iterable[PlayerAnalysis]) -> list[str]:
    """Names from the smallest overall error rate (EMG lost per decision) to the largest."""
    return [p.name for p in sorted(players, key=lambda p: abs(p.rates.overall_rate))]
