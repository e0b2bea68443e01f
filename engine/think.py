"""Thinking-time levels: the deepest gnubg search that fits a budget per decision.

A :class:`engine.levels.Think` level gives a budget (seconds, or search nodes
for repeatable runs) instead of a depth. :func:`think_move` deepens over
gnubg-numbered plies (0, 1, 2, 3, 4), each depth being exactly gnubg's search
at that depth with the level's move filter (the filters of gnubg's manual,
"Move filters"), and stops before the first depth whose predicted cost does
not fit what is left of the budget. After the 0-ply round it goes straight to
2 plies where they fit (gnubg's 2-ply search has no 1-ply round, so a 1-ply
search first would only spend budget); 1 ply is searched only where 2 plies do
not fit. The decision is the deepest one finished, so it equals the
fixed-depth decision of the depth it reports.

Cost model. A candidate scored at k plies costs ``N(k) = 1 + 21 + ... + 21**k``
nodes (a node: one position whose play is chosen, or one leaf), and a search
at n plies scores every legal play at 0 ply, then the survivors of each filter
deeper. The survivors of the next depth's filters are read off the candidates
of the depth just finished (their scores and depths), so the next depth's node
count is known before it runs (the 2-ply count exactly from the 0-ply round).
In time mode, seconds per node are learned:
measured on the depth just searched (if it was large enough to measure; else
the rate learned at that depth), scaled by the ratio between depths that a
:class:`CostModel` learns from the decisions it has seen, apart for contact
and race positions and for chequer play and cube decisions; the step from 0
to 2 plies is predicted at a low rate of the decisions seen (positions differ
tenfold in cost per node), so that a budget that may cover it tries it. A deeper search only
starts when the time spent plus its predicted time fits the budget; a
prediction that proves wrong is cut at ``budget * (1 + margin / 2)`` (wall clock;
the other half of the margin covers waking up and returning):
the decision of the depth already done is returned then, and the abandoned
search is cancelled (it stops within a roll of a node, its thread ends).

Cube decisions deepen the same way (:func:`think_cube`), up to ``cube_plies``.

>>> from engine.evaluator import Engine
>>> from engine.levels import Think
>>> from engine.position import Position
>>> t = think_move(Engine(), Position.initial(), (4, 2), think=Think(300, mode="nodes"))
>>> str(t.decision.move), t.note
('8/4 6/4', 'thought 1-ply (124 nodes of 300 nodes)')
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from engine.cube import CubeDecision
from engine.levels import FilterTable, Think, think_level
from engine.match import MatchState
from engine.records import EngineNote
from engine.search import Cancel, Candidate, MoveDecision
from engine.think_rollout import Settled, settle_cube, settle_play

BRANCH = 21  # distinct rolls
Clock = Callable[[], float]


def subtree_nodes(plies: int) -> int:
    """Nodes of one position scored at ``plies``: 1 + 21 + ... + 21**plies."""
    return sum(BRANCH ** j for j in range(plies + 1))


# ---- node counts of a chequer-play search ----------------------------------------------------


def _filter_keep(scores: list[float], accept: int, extra: int, threshold: float) -> int:
    """How many of ``scores`` (best first) a move filter keeps."""
    m = len(scores)
    keep = min(accept, m)
    limit = min(keep + extra, m)
    while keep < limit and scores[keep] >= scores[0] - threshold:
        keep += 1
    return keep


def search_nodes(table: FilterTable, plies: int, known: list[Candidate], n_moves: int) -> int:
    """Nodes of an n-ply search of a decision with ``n_moves`` legal plays (:func:`search_plan`)."""
    return search_plan(table, plies, known, n_moves)[0]


def search_plan(table: FilterTable, plies: int, known: list[Candidate], n_moves: int) -> tuple[int, bool]:
    """Nodes of an n-ply search of a decision with ``n_moves`` legal plays, and
    whether it scores plays at ``plies`` (False: one play is left earlier).

    ``known``: the ranked candidates of a search already done (their scores
    at the depth each reached). A filter round keeps the plays a filter keeps
    of the deepest scores known; with gnubg's filter sets (one 0-ply filter
    for every depth, the same 2-ply one for 3 and 4 plies) the count is exact
    once the previous depth is done. Called on that depth's own candidates
    with ``plies`` = its depth, it counts the work that search did.
    """
    if plies == 0 or n_moves <= 1:
        return n_moves, plies == 0
    row = table[min(plies, 4) - 1]
    scores = {id(c): c.equity for c in known}
    alive = list(known) if known else []
    nodes = 0
    count = n_moves
    for k in range(plies):
        accept, extra, threshold = row[k] if k < len(row) else (-1, 0, 0.0)
        if accept < 0:
            continue
        nodes += count * subtree_nodes(k)
        # a play scored deeper than k survived this round before: rank it first
        ranked = sorted(alive, key=lambda c: (c.plies > k, scores[id(c)]), reverse=True)
        keep = _filter_keep([scores[id(c)] if c.plies <= k else 1e9 for c in ranked][:count] or [0.0],
                            accept, extra, threshold) if alive else min(count, accept + extra)
        alive, count = ranked[:keep], keep
        if keep == 1 and accept != 1:
            return nodes, False  # one play left: gnubg's search stops here
    return nodes + count * subtree_nodes(plies), True


def cube_nodes(plies: int) -> int:
    """Nodes of a cube decision at ``plies``: the evaluation and the one-ply-shallower pre-check."""
    return subtree_nodes(plies) + (subtree_nodes(plies - 1) if plies > 0 else 0)


# ---- the learned cost model ------------------------------------------------------------------


@dataclass
class CostModel:
    """Seconds per node, learned from the searches done (thread-safe enough: a
    race loses one update). ``scale[d]``: how much dearer a node of a d-ply
    search is than one of the depth before it, a running mean over decisions."""

    rate: dict[int, float] = field(default_factory=lambda: {0: 2e-6, 1: 2.5e-6, 2: 2.5e-6, 3: 2.5e-6, 4: 2.5e-6})
    scale: dict[int, float] = field(default_factory=lambda: {1: 1.0, 2: 1.0, 3: 1.0, 4: 1.0})
    seen: dict[int, int] = field(default_factory=lambda: {1: 0, 2: 0, 3: 0, 4: 0})
    weight: float = 0.2
    safety: float = 1.15
    unlearned: float = 1.5  # more caution at a depth measured fewer than 3 times
    measurable: int = 1000  # nodes: a smaller search's own rate is not used
    trial_rate: float = 1e-3  # seconds of one rollout trial of one play (engine/think_rollout.py)
    recent: dict[int, list[float]] = field(default_factory=dict, repr=False)  # the last rates at each depth
    keep: int = 64

    parts: dict[str, CostModel] = field(default_factory=dict, repr=False)

    def part(self, kind: str) -> CostModel:
        """The model of one kind of decision, learned apart: "race" (a node of
        a race costs a fraction of a contact one), "cube", "cube race"."""
        if kind not in self.parts:
            self.parts[kind] = CostModel()
        return self.parts[kind]

    def for_decision(self, position: Any, cube: bool) -> CostModel:
        race = bool(getattr(position, "is_race", lambda: False)())
        kind = " ".join(k for k, on in (("cube", cube), ("race", race)) if on)
        return self.part(kind) if kind else self

    def learn(self, plies: int, nodes: int, seconds: float, previous_rate: float | None) -> float:
        rate = seconds / max(nodes, 1)
        if plies > 0 and nodes > 50:
            self.rate[plies] += self.weight * (rate - self.rate[plies])
            self.seen[plies] += 1
            last = self.recent.setdefault(plies, [])
            last.append(rate)
            del last[:-self.keep]
            if previous_rate is not None and previous_rate > 0:
                self.scale[plies] += self.weight * (rate / previous_rate - self.scale[plies])
        return rate

    def low_rate(self, plies: int) -> float:
        """A low estimate of the seconds per node at ``plies``: the tenth
        percentile of the last rates measured there (the learned rate before
        any). Positions differ tenfold in cost per node, and the mean is set
        by the dear ones."""
        last = sorted(self.recent.get(plies, ()))
        return last[len(last) // 10] if last else self.rate[plies]

    def predict(self, plies: int, nodes: int, last_rate: float | None, last_plies: int, last_nodes: int = 0) -> float:
        """Predicted seconds of a ``plies`` search of ``nodes`` nodes, from the
        decision's last search (``last_nodes`` at ``last_plies``, ``last_rate``
        seconds a node) scaled to this depth. A small last search's rate is
        inflated by its fixed cost: then the lower of it and the rate learned
        at this depth is used (positions differ tenfold in cost per node)."""
        learned = self.rate[plies] if plies else self.rate[0]
        if last_rate is None or last_plies < 1 or nodes <= 50:
            rate = learned
        else:
            rate = last_rate
            for d in range(last_plies + 1, plies + 1):
                rate *= max(self.scale[d], 0.5)
            if last_nodes < self.measurable:
                rate = min(rate, learned)
        caution = self.unlearned if plies and self.seen.get(plies, 0) < 3 else 1.0
        return nodes * rate * self.safety * caution


DEFAULT_MODEL = CostModel()


# ---- decisions -------------------------------------------------------------------------------


@dataclass(frozen=True)
class Step:
    """One depth searched: its plies, nodes, seconds and the play it chose."""

    plies: int
    nodes: int
    seconds: float
    choice: str


@dataclass
class ThinkResult:
    """A decision of a thinking-time level: ``decision`` (a MoveDecision, or a
    CubeDecision for :func:`think_cube`), the depth ``plies`` it reached, the
    nodes and seconds spent, each depth's :class:`Step`, and whether a deeper
    search was ``cut`` at the deadline."""

    decision: Any
    plies: int
    nodes: int
    seconds: float
    budget: float
    mode: str
    steps: list[Step]
    cut: bool = False
    searched: int = -1  # the deepest evaluation run (less than plies: one play was left)
    label: str = ""  # the level's name
    settled: Settled | None = None  # the rollout step, if the level has one

    def record_note(self) -> EngineNote:
        """The engine note a match record keeps for this decision (its level names the depth)."""
        d = self.decision
        equity = d.optimal if isinstance(d, CubeDecision) else (d.candidates[0].equity if d.candidates else 0.0)
        return EngineNote(f"{self.label or 'think'}, {self.depth}", float(equity))

    @property
    def depth(self) -> str:
        """The depth reached, and the rollout's trials if it ran: "2-ply", "2-ply + 42 trials"."""
        rolled = f" + {self.settled.trials} trials" if self.settled is not None and self.settled.trials else ""
        return f"{self.plies}-ply{rolled}"

    @property
    def note(self) -> str:
        """One line for a hint or a match record's comment."""
        unit = "s" if self.mode == "time" else " nodes"
        spent = f"{self.seconds:.3f}s" if self.mode == "time" else f"{self.nodes} nodes"
        settled = f", one play left at {self.searched}-ply" if 0 <= self.searched < self.plies else ""
        rolled = ""
        if self.settled is not None and self.settled.trials:
            st = self.settled
            what = "no double and double/take" if isinstance(self.decision, CubeDecision) else f"{st.plays} plays"
            rolled = (f", {what} rolled out {st.trials} trials"
                      + (": the rollout changed the decision" if st.changed else ""))
        return (f"thought {self.depth} ({spent} of {self.budget:g}{unit}{settled}"
                + (", deeper search cut" if self.cut else "") + rolled + ")")

    def as_json(self) -> dict[str, Any]:
        return {"plies": self.plies, "searched": self.searched, "nodes": self.nodes, "seconds": round(self.seconds, 6),
                "budget": self.budget, "mode": self.mode, "cut": self.cut,
                "steps": [{"plies": s.plies, "nodes": s.nodes, "seconds": round(s.seconds, 6), "choice": s.choice}
                          for s in self.steps],
                "rollout": None if self.settled is None else self.settled.as_json()}


def _within(fn: Callable[[], Any], timeout: float, cancel: Cancel | None = None) -> tuple[bool, Any]:
    """Runs ``fn`` on a thread; (True, its result) if it ends within ``timeout``
    seconds, else (False, None): ``cancel``, the flag of ``fn``'s search, is set
    and the thread joined briefly (a cancelled search stops within a roll of a
    node); without one the thread is left to finish alone."""
    box: list[Any] = []
    errors: list[BaseException] = []

    def run() -> None:
        try:
            box.append(fn())
        except BaseException as exc:  # handed to the caller below
            errors.append(exc)

    worker = threading.Thread(target=run, name="think-search", daemon=True)
    worker.start()
    worker.join(max(timeout, 0.0))
    if worker.is_alive():
        if cancel is not None:
            cancel.set()
            worker.join(0.01)  # it ends within a millisecond or so; if not, it still stops at its next roll
        return False, None
    if errors:
        raise errors[0]
    return True, box[0]


class _Deepening:
    """The loop both decisions share: depth after depth while the next one fits."""

    def __init__(self, think: Think, clock: Clock | None, model: CostModel | None) -> None:
        self.think = think
        self.clock = clock or time.perf_counter
        self.hard_stop = clock is None and think.mode == "time"
        self.model = model or DEFAULT_MODEL
        self.start = self.clock()
        self.nodes = 0
        self.steps: list[Step] = []
        self.rate: float | None = None
        self.cut = False

    def elapsed(self) -> float:
        return self.clock() - self.start

    def fits(self, plies: int, nodes: int, first: bool = False) -> bool:
        """Whether a ``plies`` search of ``nodes`` nodes fits what is left.
        ``first``: the first search past 0 ply (2 plies, straight from the
        0-ply round), predicted at a low rate of the decisions seen at that
        depth (:meth:`CostModel.low_rate`): where the budget may cover it, it
        is tried rather than a shallower search (a misprediction is cut at
        the deadline with the wall clock)."""
        if not self.steps:
            return True  # the first depth always runs (0 ply: microseconds)
        if self.think.mode == "nodes":
            return self.nodes + nodes <= self.think.budget
        last = next((s for s in reversed(self.steps) if s.nodes), self.steps[-1])
        predicted = self.model.predict(plies, nodes, self.rate, last.plies, last.nodes)
        if first:
            predicted = min(predicted, nodes * self.model.low_rate(plies) * self.model.safety)
        return self.elapsed() + predicted <= self.think.budget

    def run(self, plies: int, nodes: int, fn: Callable[[Cancel | None], Any]) -> tuple[bool, Any]:
        t0 = self.clock()
        if self.hard_stop and self.steps:
            # cut at half the margin: the other half covers waking up and returning
            deadline = self.think.budget * (1.0 + self.think.margin / 2) - self.elapsed()
            cancel = Cancel()  # a cut search is cancelled: it stops rather than compete for the cores
            done, out = _within(lambda: fn(cancel), deadline, cancel)
            if not done:
                self.cut = True
                return False, None
        else:
            out = fn(None)
        seconds = self.clock() - t0
        if plies >= 1:
            self.rate = self.model.learn(plies, nodes, seconds, self.rate)
        self.nodes += nodes
        return True, (out, seconds)

    def result(self, decision: Any, plies: int, searched: int) -> ThinkResult:
        return ThinkResult(decision, plies, self.nodes, self.elapsed(), self.think.budget, self.think.mode,
                           self.steps, self.cut, searched, self.think.label)


def _plies_ladder(top: int) -> list[int]:
    return list(range(0, top + 1))


def think_move(engine: Any, position: Any, dice: tuple[int, int], match: MatchState | None = None,
               think: Any = "fibsbot strong", *, threads: int | None = 1, clock: Clock | None = None,
               model: CostModel | None = None) -> ThinkResult:
    """The play of a thinking-time level (``think``: a Think or what
    :func:`engine.levels.think_level` takes). ``clock``: the clock the budget is
    read on (default: the wall clock, with the deadline enforced on a thread;
    given a clock, e.g. ``time.process_time``, deeper searches are not cut).
    ``threads``: the search's threads (1: the budget is one core's time)."""
    spec = think_level(think)
    loop = _Deepening(spec, clock, (model or DEFAULT_MODEL).for_decision(position, cube=False))
    table = spec.checker(0).filter_table
    decision: MoveDecision | None = None
    reached = searched = 0
    n_moves = 0
    jumped = False
    for plies in _plies_ladder(spec.max_plies):
        known = decision.candidates if decision is not None else []
        nodes, scores = search_plan(table, plies, known, n_moves) if decision is not None else (0, True)
        if decision is not None and n_moves <= 1:
            break
        if decision is not None and not scores and (searched >= 2 or nodes == n_moves):
            # one play is left before this depth's last round, and the scores its
            # rounds filter on are known (those of a search of 2 plies or more, or
            # the 0-ply round every depth starts with): its decision is known
            reached = plies
            loop.steps.append(Step(plies, 0, 0.0, str(decision.move)))
            continue
        if plies == 1 and spec.max_plies >= 2:
            # straight to 2 plies when they fit: gnubg's 2-ply search has no
            # 1-ply round, so a 1-ply search first would only spend the budget
            two, _ = search_plan(table, 2, known, n_moves)
            if loop.fits(2, two, first=True):
                jumped = True
                continue
        if decision is not None and not jumped and not loop.fits(plies, nodes):
            break
        jumped = False
        settings = spec.checker(plies)

        def search(cancel: Cancel | None, settings: Any = settings) -> MoveDecision:
            found: MoveDecision = engine.best_move(position, dice, match=match, level=settings, threads=threads,
                                                   cancel=cancel)
            return found

        done, out = loop.run(plies, nodes, search)
        if not done:
            break
        found, seconds = out
        if decision is None:  # the 0-ply round: every legal play scored once
            n_moves = len(found.candidates)
            nodes = n_moves
            loop.nodes += nodes
        else:
            # what the search did, counted on its own candidates
            nodes = search_nodes(table, plies, found.candidates, n_moves)
        decision, reached, searched = found, plies, plies
        loop.steps.append(Step(plies, nodes, seconds, str(found.move)))
    assert decision is not None
    # the deepest evaluation that ran (a search stops where one play is left)
    deepest = max((c.plies for c in decision.candidates), default=0)
    settled = None
    if spec.settle is not None and n_moves > 1 and not loop.cut:
        decision, settled, rate = settle_play(engine, position, dice, match, decision, spec.settle,
                                              _left(spec, loop), nodes_mode=spec.mode == "nodes",
                                              rate=loop.model.trial_rate, clock=loop.clock)
        _learn_trials(loop, settled, rate)
    result = loop.result(decision, reached, deepest)
    result.settled = settled
    decision.level = f"{spec.label}, {result.depth}"
    return result


def _left(spec: Think, loop: _Deepening) -> Callable[[], float]:
    """What is left for the rollout step: seconds on the loop's clock, or nodes."""
    if spec.mode == "nodes":
        return lambda: spec.budget - loop.nodes
    # on the wall clock the step aims at half the margin short of the budget: a
    # chunk that a busy machine stretches still ends inside budget + margin
    end = spec.budget * (1.0 - spec.margin / 2) if loop.hard_stop else spec.budget
    return lambda: end - loop.elapsed()


def _learn_trials(loop: _Deepening, settled: Settled, rate: float) -> None:
    if settled.trials:
        loop.model.trial_rate += 0.5 * (rate - loop.model.trial_rate)
        loop.nodes += settled.nodes


def think_cube(engine: Any, position: Any, match: MatchState | None = None, think: Any = "fibsbot strong", *,
               threads: int | None = 1, clock: Clock | None = None, model: CostModel | None = None,
               beavers: bool = True) -> ThinkResult:
    """The cube decision of a thinking-time level (as :func:`think_move`), each
    depth gnubg's cube decision at that many plies, up to ``think.cube_plies``."""
    spec = think_level(think)
    loop = _Deepening(spec, clock, (model or DEFAULT_MODEL).for_decision(position, cube=True))
    decision: CubeDecision | None = None
    reached = 0
    jumped = False
    for plies in _plies_ladder(spec.cube_plies):
        nodes = cube_nodes(plies)
        if plies == 1 and spec.cube_plies >= 2 and loop.fits(2, cube_nodes(2), first=True):
            jumped = True  # straight to 2 plies (their decision makes its own 1-ply pre-check)
            continue
        if decision is not None and not jumped and not loop.fits(plies, nodes):
            break
        jumped = False

        def decide(cancel: Cancel | None, plies: int = plies) -> CubeDecision:
            cube: CubeDecision = engine.cube_decision(position, match=match, level=spec.cube(plies), threads=threads,
                                                      beavers=beavers, cancel=cancel)
            return cube

        done, out = loop.run(plies, nodes, decide)
        if not done:
            break
        decision, reached = out[0], plies
        loop.steps.append(Step(plies, nodes, out[1], decision.action))
    assert decision is not None
    settled = None
    if spec.settle is not None and spec.settle.cubes and not loop.cut:
        decision, settled, rate = settle_cube(engine, position, match, decision, spec.settle, _left(spec, loop),
                                              nodes_mode=spec.mode == "nodes", rate=loop.model.trial_rate,
                                              beavers=beavers, plies=reached, clock=loop.clock)
        _learn_trials(loop, settled, rate)
    result = loop.result(decision, reached, reached)
    result.settled = settled
    return result


class Thinker:
    """A decider (``best_move``, ``cube_decision``, resignations) that plays
    thinking-time levels with ``engine`` and passes gnubg levels through. The
    last decision's :class:`ThinkResult` is kept in ``last`` (its ``note``
    names the depth reached, for records and logs)."""

    def __init__(self, engine: Any, model: CostModel | None = None, clock: Clock | None = None) -> None:
        self.engine = engine
        self.model = model or CostModel()
        self.clock = clock
        self.last: ThinkResult | None = None

    def best_move(self, position: Any, dice: tuple[int, int], match: MatchState | None = None,
                  level: Any = "expert", **kw: Any) -> Any:
        if isinstance(level, Think):
            self.last = think_move(self.engine, position, dice, match, level, threads=kw.get("threads", 1),
                                   clock=self.clock, model=self.model)
            return self.last.decision
        return self.engine.best_move(position, dice, match=match, level=level, **kw)

    def cube_decision(self, position: Any, match: MatchState | None = None, level: Any = "expert",
                      **kw: Any) -> Any:
        if isinstance(level, Think):
            self.last = think_cube(self.engine, position, match, level, threads=kw.get("threads", 1),
                                   clock=self.clock, model=self.model, beavers=kw.get("beavers", True))
            return self.last.decision
        return self.engine.cube_decision(position, match=match, level=level, **kw)

    def resign_offer(self, position: Any, match: Any = None, level: Any = "expert", declined: int = 0) -> int:
        offer: int = self.engine.resign_offer(position, match=match, declined=declined,
                                              level="expert" if isinstance(level, Think) else level)
        return offer

    def accept_resignation(self, position: Any, match: Any, level: Any, value: int) -> bool:
        accept: bool = self.engine.accept_resignation(position, match=match, value=value,
                                                      level="expert" if isinstance(level, Think) else level)
        return accept


__all__ = ["CostModel", "Step", "ThinkResult", "Thinker", "cube_nodes", "search_nodes", "search_plan", "subtree_nodes",
           "think_cube", "think_move"]
