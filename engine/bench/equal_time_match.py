"""Head to head for ``python -m engine.bench equal-time --matches M``: 7-point
matches of our thinking-time level against the `gnubg` package at World class.

Each pair of matches uses one seeded dice sequence twice, our level in seat 0
and then in seat 1 (common dice). At each of our decisions gnubg first decides
the same decision (its answer unused) so that our budget is gnubg's CPU time
for it (both read on the process's CPU clock). No resignations: games are played out. The match records keep, for
each of our actions, an engine note naming the depth reached.
"""

from __future__ import annotations

import random
import statistics
import time
from dataclasses import replace
from typing import TYPE_CHECKING

from engine.analysis import cube_available, match_state
from engine.bench.gnubg_player import HELD_OUT_SEED, Gnubg, gnubg_doubles, gnubg_takes, interval
from engine.bench.harness import gnubg_cubeinfo
from engine.cube import answer_double
from engine.position import Move
from engine.records import Double, Drop, GameRecord, MatchRecord, Roll, Take
from engine.think import CostModel, think_cube, think_move

if TYPE_CHECKING:
    from engine.evaluator import Engine
    from engine.levels import Think

LENGTH = 7
_TINY = 1e-4


class _Match:
    def __init__(self, engine: Engine, gnubg: Gnubg, think: Think, ours: int, seed: int, ratio: float = 1.0) -> None:
        self.engine, self.gnubg, self.think, self.ours, self.ratio = engine, gnubg, think, ours, ratio
        self.rng = random.Random(seed)
        self.model = CostModel()
        names = ("fibsbot", "gnubg") if ours == 0 else ("gnubg", "fibsbot")
        self.record = MatchRecord(names, LENGTH, crawford=True, jacoby=False)
        self.depths: list[int] = []

    def _budget(self, seconds: float) -> Think:
        return replace(self.think, budget=max(self.ratio * seconds, _TINY))

    def play(self) -> MatchRecord:
        while not self.record.is_over():
            game = self.record.new_game()
            while True:
                d0, d1 = self.rng.randint(1, 6), self.rng.randint(1, 6)
                if d0 != d1:
                    break
            self._roll(game, 0 if d0 > d1 else 1, (max(d0, d1), min(d0, d1)))
            while game.state.result is None:
                player = game.state.on_roll
                assert player is not None
                if self._doubled(game, player):
                    continue
                self._roll(game, player, (self.rng.randint(1, 6), self.rng.randint(1, 6)))
        return self.record

    def _roll(self, game: GameRecord, player: int, dice: tuple[int, int]) -> None:
        state = game.state
        position = state.position(player)
        view = match_state(self.record, game, state, player, dice=dice)
        legal = position.legal_plays(*dice)
        if len(legal) == 1:
            game.append(Roll(player, dice, legal[0][0]))
            return
        after, seconds = self.gnubg.move(position, dice, gnubg_cubeinfo(self.gnubg.g, view), view)
        if player == self.ours:
            r = think_move(self.engine, position, dice, match=view, think=self._budget(seconds),
                           threads=1, clock=time.process_time, model=self.model)
            self.depths.append(r.plies)
            game.append(Roll(player, dice, r.decision.move, note=r.record_note()))
            return
        move = position.legal_play_to(*dice, after) if after is not None else None
        if move is None:  # a tuple that cannot be settled: World class's play from our engine
            move = self.engine.best_move(position, dice, match=view, level="world class").move
        game.append(Roll(player, dice, move if move is not None else Move()))

    def _doubled(self, game: GameRecord, player: int) -> bool:
        state = game.state
        if not cube_available(self.record, game, state, player):
            return False
        position = state.position(player)
        view = match_state(self.record, game, state, player)
        action, seconds = self.gnubg.cube_action(position, view.match_id())
        if player == self.ours:
            r = think_cube(self.engine, position, match=view, think=self._budget(seconds),
                           threads=1, clock=time.process_time, model=self.model)
            double = r.decision.should_double
            note = r.record_note()
        else:
            double, note = gnubg_doubles(action), None
        if not double:
            return False
        game.append(Double(player, note=note))
        answerer = 1 - player
        if answerer == self.ours:
            seen = match_state(self.record, game, game.state, player, cube_owner=state.cube_owner)
            r = think_cube(self.engine, position, match=seen, think=self._budget(seconds),
                           threads=1, clock=time.process_time, model=self.model)
            take = answer_double(r.decision, money=False) != "pass"
            note = r.record_note()
        else:
            take, note = gnubg_takes(action), None
        game.append((Take if take else Drop)(answerer, note=note))
        return True


def run_matches(engine: Engine, gnubg: Gnubg, think: Think, pairs: int, ratio: float = 1.0) -> list[str]:
    """Plays ``pairs`` pairs of 7-point matches; the lines of the report."""
    margins: list[float] = []  # per pair: our points minus gnubg's, both matches
    wins = played = 0
    depths: list[int] = []
    for k in range(pairs):
        pair = 0.0
        for ours in (0, 1):
            m = _Match(engine, gnubg, think, ours, HELD_OUT_SEED + 1000 + k, ratio)
            record = m.play()
            score = record.score()
            pair += score[ours] - score[1 - ours]
            wins += score[ours] >= LENGTH
            played += 1
            depths += m.depths
        margins.append(pair / 2)
    mean, half = interval(margins)
    times = "" if ratio == 1.0 else f", ours at {ratio:g} times gnubg's time"
    return [f"  head to head: {played} matches of {LENGTH} points against gnubg World class ({pairs} pairs, "
            f"common dice{times})",
            f"    {think.label} won {wins}/{played}; points per match (ours - gnubg's): {mean:+.2f} "
            f"({f'95% interval +-{half:.2f}' if pairs > 1 else 'one pair: no interval'}); chequer depth reached: mean "
            f"{statistics.fmean(depths or [0]):.2f}"]
