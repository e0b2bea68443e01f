"""Matches of random legal play, for the record tests and the store's benchmarks.

Rolls are uniform over the distinct legal plays; doubles, takes, drops,
beavers (money) and resignation offers, acceptances and refusals happen at
random where the rules allow them; a few actions carry comments and engine
notes.
"""

from __future__ import annotations

import random
from dataclasses import replace

from engine.position import Move
from engine.records.model import (
    MAX_CUBE,
    AcceptResign,
    Action,
    Beaver,
    Double,
    Drop,
    EngineNote,
    GameState,
    MatchRecord,
    RejectResign,
    Resign,
    Roll,
    Take,
)

_COMMENTS = ("", "", "", "", "good roll", "bracket ] and back\\slash", "two\nlines", "café ✓")


def _decide(rng: random.Random, state: GameState) -> Action:
    turn = state.turn
    if state.resignation is not None:
        assert turn is not None
        return (AcceptResign if rng.random() < 0.5 else RejectResign)(turn)
    if state.doubled:
        assert turn is not None
        r = rng.random()
        if state.length == 0 and r < 0.15 and 4 * state.cube <= MAX_CUBE:
            return Beaver(turn)
        return Drop(turn) if r < 0.4 else Take(turn)
    if state.on_roll is None:
        # the opening roll: one die each, so never a double; either order is written
        dice = rng.sample(range(1, 7), 2)
        return _roll(rng, state, rng.randrange(2), (dice[0], dice[1]))
    r = rng.random()
    if r < 0.01:
        return Resign(rng.randrange(2), rng.randint(1, 3))
    if r < 0.07 and state.may_double:
        return Double(state.on_roll)
    return _roll(rng, state, state.on_roll, (rng.randint(1, 6), rng.randint(1, 6)))


def _roll(rng: random.Random, state: GameState, player: int, dice: tuple[int, int]) -> Roll:
    move = rng.choice(state.position(player).legal_moves(*dice))
    if rng.random() < 0.2:
        move = Move.parse(str(move))  # gnubg's compact text (24/13, 8/5(2)); the record splits it per die
    return Roll(player, dice, move)


def _annotate(rng: random.Random, action: Action) -> Action:
    note = None
    if rng.random() < 0.1:
        best = rng.choice(("", "double", "24/18 13/11"))
        note = EngineNote(rng.choice(("expert", "world class", "0ply")), rng.uniform(-3, 3),
                          best, rng.uniform(-3, 3) if best else None)
    return replace(action, comment=rng.choice(_COMMENTS), note=note)


def random_match(seed: int, length: int = 3, *, crawford: bool = True, jacoby: bool = False,
                 games: int = 3, max_actions: int | None = None,
                 players: tuple[str, str] = ("alice", "bob"), event: str = "", place: str = "") -> MatchRecord:
    """A match to ``length`` (or a money session of ``games`` games) of random legal play.

    With ``max_actions`` the record stops there, usually inside a game (left unfinished).
    """
    rng = random.Random(seed)
    record = MatchRecord(players, length, crawford=crawford, jacoby=jacoby, event=event, place=place)
    count = 0
    while not record.is_over() and (length or len(record.games) < games or record.games[-1].result is None):
        if max_actions is not None and count >= max_actions:
            break
        game = record.games[-1] if record.games and record.games[-1].result is None else record.new_game()
        game.append(_annotate(rng, _decide(rng, game.state)))
        count += 1
    return record
