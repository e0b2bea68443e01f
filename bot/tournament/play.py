"""One match engine against engine, in-process, by gnubg's bot rules.

Each turn the player on roll may offer a resignation (races only, as
:mod:`engine.resign`), then double (the opponent takes, drops or, in money
play, beavers; a beavered doubler may raccoon), then rolls and plays. The
Crawford, Jacoby and gammon rules are the match record's
(:mod:`engine.records`), which checks every action.
"""

from __future__ import annotations

from dataclasses import dataclass

from bot.tournament.schedule import Dice, MatchSpec
from engine.analysis import cube_available, match_state
from engine.cube import CubeDecision, answer_beaver, answer_double
from engine.evaluator import Engine
from engine.levels import Level, Think
from engine.match import MatchState
from engine.position import Position
from engine.records import (
    AcceptResign,
    Beaver,
    Double,
    Drop,
    GameRecord,
    GameState,
    MatchRecord,
    RejectResign,
    Resign,
    Roll,
    Take,
)
from engine.search import MoveDecision
from engine.think import think_cube, think_move

THREADS = 1  # one search thread: a tournament runs matches side by side instead


@dataclass(frozen=True)
class Table:
    """What a match needs besides its spec: the two levels (by seat; a Think: a
    thinking-time level, each decision's depth noted in the record) and the rules."""

    levels: tuple[Level | Think, Level | Think]
    length: int  # 0 = money session
    games: int  # games of a money session
    crawford: bool = True
    jacoby: bool = True
    beavers: bool = True
    resignations: bool = True


class _Game:
    """Plays one game of a match on ``engine``."""

    def __init__(self, engine: Engine, table: Table, record: MatchRecord, game: GameRecord, dice: Dice) -> None:
        self.engine, self.table, self.record, self.game, self.dice = engine, table, record, game, dice
        self.declined = [0, 0]  # highest resignation each player had refused this game

    @property
    def state(self) -> GameState:
        return self.game.state

    def play(self) -> None:
        d0, d1 = self.dice.opening()
        self._roll(0 if d0 > d1 else 1, (max(d0, d1), min(d0, d1)))
        while self.state.result is None:
            player = self.state.on_roll
            assert player is not None
            if self._resigned(player) or self._doubled(player):
                continue
            self._roll(player, self.dice.roll())

    def _roll(self, player: int, dice: tuple[int, int]) -> None:
        state = self.state
        view = match_state(self.record, self.game, state, player, dice=dice)
        level = self.table.levels[player]
        if isinstance(level, Think):
            thought = think_move(self.engine, state.position(player), dice, view, level, threads=THREADS)
            self.game.append(Roll(player, dice, thought.decision.move, note=thought.record_note()))
            return
        choice: MoveDecision = self.engine.best_move(state.position(player), dice, view, level, threads=THREADS)
        self.game.append(Roll(player, dice, choice.move))

    def _fixed(self, player: int) -> Level | str:
        """The level of a player's resignations (a thinking-time level's: expert, gnubg's bots' 0 ply)."""
        level = self.table.levels[player]
        return "expert" if isinstance(level, Think) else level

    def _cube(self, player: int, position: Position, view: MatchState) -> CubeDecision:
        level = self.table.levels[player]
        if isinstance(level, Think):
            thought = think_cube(self.engine, position, view, level, threads=THREADS)
            decision: CubeDecision = thought.decision
            return decision
        return self.engine.cube_decision(position, view, level, threads=THREADS)

    def _resigned(self, player: int) -> bool:
        """Offers a resignation if the player wants to; True if the game ended or
        the offer was refused (the player then takes the rest of the turn)."""
        state = self.state
        if not self.table.resignations or not state.position(player).is_race():
            return False
        value = self.engine.resign_offer(state.position(player), match_state(self.record, self.game, state, player),
                                         self._fixed(player), declined=self.declined[player])
        if not value:
            return False
        opponent = 1 - player
        self.game.append(Resign(player, value))
        # the opponent judges from its own side, the resigner about to roll
        if self.engine.accept_resignation(state.position(opponent),
                                          match_state(self.record, self.game, state, opponent),
                                          self._fixed(opponent), value):
            self.game.append(AcceptResign(opponent))
        else:
            self.game.append(RejectResign(opponent))
            self.declined[player] = value
        return True

    def _doubled(self, player: int) -> bool:
        """Doubles if the player wants to and settles the answers; True if it doubled."""
        state = self.state
        if not cube_available(self.record, self.game, state, player):
            return False
        position, owner = state.position(player), state.cube_owner
        decision = self._cube(player, position, match_state(self.record, self.game, state, player))
        if not decision.should_double:
            return False
        self.game.append(Double(player))
        money = self.table.length == 0 and self.table.beavers
        while self.state.doubled:
            # every answer weighs the doubler's position with the cube now offered
            state = self.state
            view = match_state(self.record, self.game, state, player, cube_owner=owner)
            answerer = state.turn
            assert answerer is not None
            decision = self._cube(answerer, position, view)
            answer = (answer_beaver if answerer == player else answer_double)(
                decision, money=money, beavers_used=state.beavers, cube=state.cube)
            if answer == "pass":
                self.game.append(Drop(answerer))
            elif answer == "take":
                self.game.append(Take(answerer))
            else:  # a beaver, or the doubler's raccoon
                self.game.append(Beaver(answerer))
        return True


@dataclass(frozen=True)
class GameSummary:
    winner: int  # seat
    points: int  # cube and gammons included
    value: int  # 1 single, 2 gammon, 3 backgammon (of the cube)
    resigned: bool
    cube: int


def play_match(engine: Engine, spec: MatchSpec, table: Table, event: str = "") -> MatchRecord:
    """Play the match ``spec`` and return its record."""
    record = MatchRecord(spec.players, table.length, crawford=table.crawford, jacoby=table.jacoby,
                         event=event, round=spec.key)
    number = 0
    while not record.is_over() and (table.length or number < table.games):
        game = record.new_game()
        _Game(engine, table, record, game, Dice(spec.dice_seed, number)).play()
        number += 1
    return record


def summarise(record: MatchRecord) -> list[GameSummary]:
    """Per game: winner seat, points, single/gammon/backgammon, resigned, final cube."""
    out = []
    for game in record.games:
        result = game.result
        assert result is not None
        cube = game.state.cube
        out.append(GameSummary(result.winner, result.points, result.points // cube, result.resigned, cube))
    return out
