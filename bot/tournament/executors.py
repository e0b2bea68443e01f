"""Where matches run: local worker processes, or an existing Dask cluster.

Every worker loads its own Engine once and plays whole matches; it returns
the result line and the .sgf text, and only the parent writes files (a
cluster's workers need not share its disk). Results arrive in completion
order; each depends only on its MatchSpec.
"""

from __future__ import annotations

import importlib
import logging
import multiprocessing
import os
import signal
import threading
import time
import traceback
from collections.abc import Callable, Iterator, Sequence
from multiprocessing.connection import Connection, wait
from multiprocessing.process import BaseProcess
from typing import Any, Protocol, cast

import numpy as np

from bot.tournament.config import TournamentConfig
from bot.tournament.play import THREADS, Table, play_match, summarise
from bot.tournament.schedule import MatchSpec
from engine.analysis import analyse_match, by_player
from engine.evaluator import Engine
from engine.records import sgf
from engine.rollout import OUTPUTS, RolloutJob, RolloutResult, apply_stop

log = logging.getLogger(__name__)

Outcome = tuple[dict[str, Any], str]  # (result line, .sgf text)
_ANALYSED = ("chequer_error", "unforced_moves", "cube_error", "close_cube_decisions")  # kept per player


def table_for(config: TournamentConfig, spec: MatchSpec) -> Table:
    levels = {p.name: p.plays() for p in config.players}
    rules = config.rules
    return Table((levels[spec.white], levels[spec.black]), config.match_length, config.games,
                 crawford=rules.crawford, jacoby=rules.jacoby, beavers=rules.beavers,
                 resignations=rules.resignations)


def play_one(engine: Engine, config: TournamentConfig, spec: MatchSpec) -> Outcome:
    """Play (and optionally analyse) one match: its result line and .sgf text."""
    start = time.perf_counter()
    record = play_match(engine, spec, table_for(config, spec), event=f"fibsbot tournament {config.seed}")
    games = summarise(record)
    score = record.score()
    result: dict[str, Any] = {
        "key": spec.key, "pairing": list(spec.pairing), "index": spec.index,
        "white": spec.white, "black": spec.black, "length": config.match_length,
        "score": list(score),
        "winner": spec.players[score.index(max(score))] if config.match_length else None,
        "games": [[spec.players[g.winner], g.points, g.value, g.resigned, g.cube] for g in games],
    }
    if config.analysis_level is not None:
        analysis = analyse_match(engine, record, config.analysis_level, threads=THREADS)
        # in self play both sides are one player
        result["analysis"] = {p.name: {key: getattr(p.rates, key) for key in _ANALYSED}
                              for p in by_player([analysis])}
    result["wall_s"] = time.perf_counter() - start
    return result, sgf.dumps(record)


class Executor(Protocol):
    def run(self, config: TournamentConfig, specs: Sequence[MatchSpec]) -> Iterator[Outcome]: ...

    def stop(self) -> None:
        """Abandon what is still running (Ctrl-C); unfinished matches are replayed on resume."""


# ---- local processes ----------------------------------------------------------------------------

def _serve(specs: Sequence[MatchSpec], taken: Any, results: Connection, inherited: list[Connection],
           config: TournamentConfig) -> None:
    """A worker's loop: take the next unplayed spec (``taken`` counts those taken
    by all workers), play it, send the outcome; say "finished" when none is left."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the parent handles Ctrl-C and stops us
    signal.signal(signal.SIGTERM, signal.SIG_DFL)  # how it stops us (not the parent's handler)
    for link in inherited:
        link.close()  # the parent's read ends: with them closed, a dead parent means a broken pipe here
    parent = os.getppid()
    engine = Engine()
    while os.getppid() == parent:  # else orphaned: the parent was killed outright
        with taken.get_lock():
            index = taken.value
            taken.value += 1
        answer: tuple[str, Outcome | str | None]
        if index >= len(specs):
            answer = ("finished", None)
        else:
            try:
                answer = ("done", play_one(engine, config, specs[index]))
            except Exception:
                answer = ("failed", f"{specs[index].key}: {traceback.format_exc()}")
        try:
            results.send(answer)
        except OSError:
            return  # the parent is gone
        if answer[0] == "finished":
            return


def _died() -> RuntimeError:
    return RuntimeError("a tournament worker process died (killed, or out of memory); "
                        "finished matches are saved, rerun to resume")


class LocalExecutor:
    """``workers`` forked processes (quick to start), each loading its Engine once.

    The workers take the next match themselves (a shared counter; they
    inherit the list when they fork), so none waits for the parent and all
    finish within one match of each other; each sends its outcomes over a
    pipe of its own. The parent only reads, gathering what has arrived at
    most every ``GATHER_S`` instead of waking for each result and refill
    (that roughly halved the parent's CPU outside saving, to about 0.2 ms
    a match). A worker's death is an error, not a hang.
    """

    GATHER_S = 0.02  # results wait at most this long in their pipes

    def __init__(self, workers: int) -> None:
        if workers < 1:
            raise ValueError("workers must be at least 1")
        self.workers = workers
        self._processes: list[BaseProcess] = []
        self._links: list[Connection] = []

    def run(self, config: TournamentConfig, specs: Sequence[MatchSpec]) -> Iterator[Outcome]:
        # the workers fork here, before the caller starts display threads
        context = multiprocessing.get_context("fork")
        taken = context.Value("q", 0)
        for _ in range(min(self.workers, max(1, len(specs)))):
            link, child_link = context.Pipe(duplex=False)
            self._links.append(link)
            process = context.Process(target=_serve, args=(specs, taken, child_link, self._links, config),
                                      daemon=True)
            process.start()
            child_link.close()  # so that a worker's death reads as end of file here
            self._processes.append(process)
        return self._results(len(specs))

    def _results(self, expected: int) -> Iterator[Outcome]:
        working = list(self._links)
        received = 0
        try:
            while working:
                woke = time.monotonic()
                for ready in wait(working):
                    link = cast(Connection, ready)
                    while link in working and link.poll():
                        try:
                            status, payload = link.recv()
                        except (EOFError, OSError):
                            raise _died() from None
                        if status == "failed":
                            raise RuntimeError(f"a match failed in a worker process: {payload}")
                        if status == "finished":
                            working.remove(link)
                        else:
                            received += 1
                            yield payload
                if working and received < expected:
                    time.sleep(max(0.0, woke + self.GATHER_S - time.monotonic()))
            for process in self._processes:
                process.join()
        finally:
            self.stop()

    def stop(self) -> None:
        for process in self._processes:
            if process.is_alive():
                process.terminate()
        for process in self._processes:
            process.join()
        for link in self._links:
            link.close()
        self._processes, self._links = [], []


# ---- Dask ------------------------------------------------------------------------------------

_dask_engine: Engine | None = None
_dask_lock = threading.Lock()


def worker_engine() -> Engine:
    """A Dask worker's Engine: one per worker process, shared by its threads."""
    global _dask_engine
    with _dask_lock:
        if _dask_engine is None:
            _dask_engine = Engine()
        return _dask_engine


def _dask_task(config: TournamentConfig, spec: MatchSpec) -> Outcome:
    """Runs on a Dask worker."""
    return play_one(worker_engine(), config, spec)


class DaskExecutor:
    """Matches as tasks on an existing cluster (``fibsbot[cluster]``); its workers
    need fibsbot installed.

    A future is released as soon as its result has been taken (and saved by the
    runner), so a worker lost later does not make the cluster recompute finished
    matches. A cluster without workers for ``no_workers_warn_s`` is logged.
    """

    no_workers_warn_s = 60.0
    check_workers_s = 10.0

    def __init__(self, scheduler: str) -> None:
        try:
            # typed as Any: the package is optional and ships no type information
            self._dask: Any = importlib.import_module("distributed")
        except ImportError:
            raise RuntimeError("the dask executor needs Dask's distributed package: "
                               "pip install 'fibsbot[cluster]'") from None
        self._client = self._dask.Client(scheduler)
        self._futures: set[Any] = set()
        self.warnings: list[str] = []

    def run(self, config: TournamentConfig, specs: Sequence[MatchSpec]) -> Iterator[Outcome]:
        self._futures = {self._client.submit(_dask_task, config, spec, pure=False) for spec in specs}
        return self._results()

    def _results(self) -> Iterator[Outcome]:
        done = threading.Event()
        watcher = threading.Thread(target=self._watch_workers, args=(done,), daemon=True, name="dask workers")
        watcher.start()
        try:
            for future in self._dask.as_completed(list(self._futures)):
                outcome = future.result()
                yield outcome  # the runner saves it before asking for the next
                self._futures.discard(future)
                future.release()
        finally:
            done.set()
            self.stop()
            self._client.close()

    def _watch_workers(self, done: threading.Event) -> None:
        empty_since: float | None = None
        while not done.wait(self.check_workers_s):
            try:
                workers = len(self._client.scheduler_info().get("workers", {}))
            except Exception as exc:  # a scheduler that went away: the results loop reports it
                log.debug("cannot ask the scheduler for its workers: %s", exc)
                continue
            now = time.monotonic()
            if workers:
                empty_since = None
            elif empty_since is None:
                empty_since = now
            elif now - empty_since >= self.no_workers_warn_s:
                message = f"the Dask cluster has had no workers for {now - empty_since:.0f} s; matches wait"
                log.warning(message)
                self.warnings.append(message)
                empty_since = now  # again after another period

    def stop(self) -> None:
        if self._futures:
            self._client.cancel(list(self._futures))
            self._futures = set()


# ---- rollouts: trial ranges as tasks ---------------------------------------------------------

def _rollout_range(job: RolloutJob, first: int, n: int, threads: int) -> tuple[int, np.ndarray]:
    """Runs on a Dask worker: trials first .. first+n-1 of every candidate."""
    return first, job.run_range(worker_engine(), first, n, threads)


class DaskRollout:
    """A rollout's trial ranges as tasks on a Dask cluster (``scheduler``: its
    address, or a ``distributed.Client``).

    Trial i depends only on the job and i, so the ranges can run anywhere in
    any order: they are merged in index order and added up as a local run
    adds them, giving the same numbers. A future is held until its range has
    been merged, so the scheduler recomputes the range of a worker lost
    before that. Stopping on standard error cuts the merged trials where a
    local run stops (the cluster may have played a few ranges more).
    """

    def __init__(self, scheduler: Any, range_size: int = 72, threads_per_task: int = 1) -> None:
        if range_size < 1 or threads_per_task < 1:
            raise ValueError("range_size and threads_per_task must be at least 1")
        try:
            self._dask: Any = importlib.import_module("distributed")
        except ImportError:
            raise RuntimeError("the dask executor needs Dask's distributed package: "
                               "pip install 'fibsbot[cluster]'") from None
        self._own = isinstance(scheduler, str)
        self._client = self._dask.Client(scheduler) if self._own else scheduler
        self.range_size = range_size
        self.threads_per_task = threads_per_task

    def run(self, engine: Engine, job: RolloutJob, *, done: Sequence[np.ndarray] | None = None,
            progress: Callable[[int, int, RolloutResult], None] | None = None,
            on_chunk: Callable[[list[np.ndarray]], None] | None = None) -> RolloutResult:
        """Like engine.rollout.run (``engine`` summarises here; the workers load their own)."""
        start = time.perf_counter()
        total = job.settings.trials
        n_cands = len(job.labels())
        have = [np.asarray(v, np.float32).reshape(-1, OUTPUTS) for v in done] if done is not None else None
        # a resumed rollout continues from the trials every candidate has
        first = min(len(v) for v in have) if have else 0
        prefix = [v[:first] for v in have] if have else [np.zeros((0, OUTPUTS), np.float32)] * n_cands
        futures = [self._client.submit(_rollout_range, job, a, min(self.range_size, total - a),
                                       self.threads_per_task, pure=False)
                   for a in range(first, total, self.range_size)]
        pending: dict[int, np.ndarray] = {}
        merged = first
        try:
            for future in self._dask.as_completed(futures):
                at, block = future.result()
                pending[at] = block
                future.release()
                if at != merged:
                    continue
                while merged in pending:  # the contiguous prefix grew: merge it in order
                    block = pending.pop(merged)
                    prefix = [np.concatenate([prefix[i], block[:, i, :]]) for i in range(n_cands)]
                    merged += len(block)
                if on_chunk is not None:
                    on_chunk(prefix)
                if progress is not None:
                    progress(merged, total, job.summarise(prefix, time.perf_counter() - start))
        finally:
            self._client.cancel(futures)
            if self._own:
                self._client.close()
        if job.settings.stop_se is not None:
            prefix, _ = apply_stop(job, prefix, list(range(n_cands)), first, total - first,
                                    job.candidates == "cube")
        return job.summarise(prefix, time.perf_counter() - start)
