"""Cancelling a search (engine.search.Cancel, the cancel flag of csrc's search): a set flag
stops the C search, the call raises SearchCancelled, nothing of the cut search reaches a
later answer (the position cache holds exact 0-ply outputs only), an unset flag changes
nothing, and a thinking-time level cancels the deeper search it cuts."""

from __future__ import annotations

import threading
import time
from typing import Any

import pytest

from engine.errors import EngineError, SearchCancelled
from engine.evaluator import Engine
from engine.levels import EvalSettings, Think
from engine.match import MatchState
from engine.position import Position
from engine.sampling import random_game_positions
from engine.search import Cancel, MoveDecision
from engine.think import CostModel, think_cube, think_move

# contact decisions whose deep searches take a fraction of a second (and many seconds
# at 4 plies for LONG): found on seeded game positions
SHORT = [("4OvEASLgc/ABMA", (3, 2)), ("SRcxhgVdPOBDAA", (3, 5))]
LONG = ("jCf4ASHgZ+JEEA", (1, 1))


@pytest.fixture(scope="module")
def engine() -> Engine:
    return Engine()


def _plays(d: MoveDecision) -> list[tuple[str, float, float, tuple[float, ...], int]]:
    return [(str(c.move), c.equity, c.cubeless_equity, tuple(c.probabilities), c.plies) for c in d.candidates]


def test_flag_starts_unset_and_stays_set() -> None:
    c = Cancel()
    assert not c.is_set
    c.set()
    c.set()
    assert c.is_set
    assert issubclass(SearchCancelled, EngineError)


@pytest.mark.parametrize("level", ["expert", "world class", "grandmaster"])
def test_a_search_cancelled_before_it_starts_raises(engine: Engine, level: str) -> None:
    cancel = Cancel()
    cancel.set()
    p = Position.from_position_id(SHORT[0][0])
    with pytest.raises(SearchCancelled):
        engine.best_move(p, SHORT[0][1], level=level, cancel=cancel)
    with pytest.raises(SearchCancelled):
        engine.cube_decision(p, MatchState(length=7, score=(2, 4)), level=level, cancel=cancel)
    # the engine answers as before afterwards
    assert engine.best_move(p, SHORT[0][1], level=level).move


def test_an_unset_flag_changes_no_bit(engine: Engine) -> None:
    states = [None, MatchState(length=7, score=(3, 5), on_roll=1, turn=1)]
    for i, p in enumerate(random_game_positions(6, seed=4242)):
        match = states[i % 2]
        for level in ("expert", "world class"):
            dice = (i % 6 + 1, (3 * i) % 6 + 1)
            plain = engine.best_move(p, dice, match, level)
            flagged = engine.best_move(p, dice, match, level, cancel=Cancel())
            assert _plays(flagged) == _plays(plain)
            assert engine.cube_decision(p, match, level, cancel=Cancel()) == engine.cube_decision(p, match, level)


def _search_in_thread(call: Any, delay: float) -> tuple[Any, Cancel]:
    """Runs call(cancel) on a thread and sets the flag ``delay`` seconds after it starts."""
    cancel = Cancel()
    out: list[Any] = []

    def run() -> None:
        try:
            out.append(call(cancel))
        except SearchCancelled as exc:
            out.append(exc)

    worker = threading.Thread(target=run)
    worker.start()
    time.sleep(delay)
    cancel.set()
    worker.join()
    return out[0], cancel


@pytest.mark.parametrize("threads", [1, 2])
def test_a_search_cancelled_while_it_runs_leaves_the_cache_sound(engine: Engine, threads: int) -> None:
    """Cut at several moments (before, inside or after the search: each outcome allowed),
    the same search then answers as a fresh engine's does."""
    fresh = Engine()
    four = EvalSettings(plies=4, move_filter="large")
    for pid, dice in SHORT:
        p = Position.from_position_id(pid)
        outcomes = []
        for delay in (0.0, 0.002, 0.01, 0.05):
            got, cancel = _search_in_thread(
                lambda c, p=p, dice=dice: engine.best_move(p, dice, level=four, threads=threads, cancel=c), delay)
            assert cancel.is_set
            assert isinstance(got, (SearchCancelled, MoveDecision))
            outcomes.append(type(got).__name__)
        again = engine.best_move(p, dice, level=four, threads=threads)
        assert _plays(again) == _plays(fresh.best_move(p, dice, level=four, threads=threads)), outcomes
        if isinstance(got, MoveDecision):  # a search that ended before the flag is a whole one
            assert _plays(got) == _plays(again)


def test_a_cube_decision_cancelled_while_it_runs_leaves_the_cache_sound(engine: Engine) -> None:
    fresh = Engine()
    match = MatchState(length=5, score=(1, 2))
    for pid, _ in SHORT:
        p = Position.from_position_id(pid)
        for delay in (0.0, 0.005, 0.03):
            got, _ = _search_in_thread(lambda c, p=p: engine.cube_decision(p, match, "grandmaster", cancel=c), delay)
            assert isinstance(got, SearchCancelled) or got == fresh.cube_decision(p, match, "grandmaster")
        assert engine.cube_decision(p, match, "grandmaster") == fresh.cube_decision(p, match, "grandmaster")


class _DeepAfterZero:
    """An engine whose searches past 0 ply are 4-ply ones (many seconds on LONG's
    position): a thinking level's deeper search that is cut must be cancelled."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine
        self.flags: list[Cancel] = []

    def best_move(self, position: Position, dice: tuple[int, int], *, cancel: Cancel | None = None,
                  **kw: Any) -> MoveDecision:
        if kw["level"].plies > 0:
            kw["level"] = EvalSettings(plies=4, move_filter="large")
        if cancel is not None:
            self.flags.append(cancel)
        return self.engine.best_move(position, dice, cancel=cancel, **kw)

    def cube_decision(self, position: Position, *, cancel: Cancel | None = None, **kw: Any) -> Any:
        if kw["level"].plies > 0:
            kw["level"] = EvalSettings(plies=4)
        if cancel is not None:
            self.flags.append(cancel)
        return self.engine.cube_decision(position, cancel=cancel, **kw)


def _searching_threads(before: set[threading.Thread]) -> list[threading.Thread]:
    return [t for t in threading.enumerate() if t.name == "think-search" and t not in before]


@pytest.mark.parametrize("cube", [False, True])
def test_a_cut_deeper_search_leaves_no_thread_running(engine: Engine, cube: bool) -> None:
    before = set(threading.enumerate())
    deep = _DeepAfterZero(engine)
    p = Position.from_position_id(LONG[0])
    # a model that predicts every depth fits, and a budget the deeper search overruns
    model = CostModel(rate=dict.fromkeys(range(5), 1e-12))
    think = Think(0.5, max_plies=4, cube_plies=2)  # the 0-ply round fits it even on a loaded machine
    if cube:
        r = think_cube(deep, p, think=think, model=model)
    else:
        r = think_move(deep, p, LONG[1], think=think, model=model)
    assert r.cut and r.plies == 0
    assert len(deep.flags) == 1 and deep.flags[0].is_set
    for t in _searching_threads(before):
        t.join(1.0)  # a cancelled search ends within a roll; the 4-ply one takes far longer
    assert not _searching_threads(before)
