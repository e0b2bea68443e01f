"""Where matches run: local worker processes, or an existing Dask cluster.

Every worker loads its own Engine once and plays whole matches; it returns
the result line and the .sgf text, and only the parent writes files (a
cluster's workers need not share its disk). Results arrive in completion
order; each depends only on its MatchSpec.
"""

from __future__ import annotations

import importlib
import multiprocessing
import signal
import threading
import time
from collections.abc import Iterator, Sequence
from typing import Any, Protocol

from engine.analysis import analyse_match, by_player
from engine.evaluator import Engine
from engine.records import sgf

from bot.tournament.config import TournamentConfig
from bot.tournament.play import THREADS, Table, play_match, summarise
from bot.tournament.schedule import MatchSpec

Outcome = tuple[dict[str, Any], str]  # (result line, .sgf text)
_ANALYSED = ("chequer_error", "unforced_moves", "cube_error", "close_cube_decisions")  # kept per player


def table_for(config: TournamentConfig, spec: MatchSpec) -> Table:
    levels = {p.name: p.build() for p in config.players}
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

_worker: tuple[Engine, TournamentConfig] | None = None


def _init_local(config: TournamentConfig) -> None:
    global _worker
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the parent handles Ctrl-C and stops us
    signal.signal(signal.SIGTERM, signal.SIG_DFL)  # how it stops us (not the parent's handler)
    _worker = (Engine(), config)


def _local_task(spec: MatchSpec) -> Outcome:
    assert _worker is not None
    return play_one(_worker[0], _worker[1], spec)


class LocalExecutor:
    """A pool of ``workers`` processes (forked: quick to start, each loads its Engine once)."""

    def __init__(self, workers: int) -> None:
        if workers < 1:
            raise ValueError("workers must be at least 1")
        self.workers = workers
        self._pool: Any = None

    def run(self, config: TournamentConfig, specs: Sequence[MatchSpec]) -> Iterator[Outcome]:
        # the workers fork here, before the caller starts display threads
        context = multiprocessing.get_context("fork")
        self._pool = context.Pool(min(self.workers, max(1, len(specs))), _init_local, (config,))
        return self._results(self._pool, specs)

    @staticmethod
    def _results(pool: Any, specs: Sequence[MatchSpec]) -> Iterator[Outcome]:
        try:
            yield from pool.imap_unordered(_local_task, specs, chunksize=1)
            pool.close()
        finally:
            pool.terminate()
            pool.join()

    def stop(self) -> None:
        if self._pool is not None:
            self._pool.terminate()


# ---- Dask ------------------------------------------------------------------------------------

_dask_engine: Engine | None = None
_dask_lock = threading.Lock()


def _dask_task(config: TournamentConfig, spec: MatchSpec) -> Outcome:
    """Runs on a Dask worker: one Engine per worker process, shared by its threads."""
    global _dask_engine
    with _dask_lock:
        if _dask_engine is None:
            _dask_engine = Engine()
    return play_one(_dask_engine, config, spec)


class DaskExecutor:
    """Matches as tasks on an existing cluster (``fibsbot[cluster]``); its workers
    need fibsbot installed."""

    def __init__(self, scheduler: str) -> None:
        try:
            # typed as Any: the package is optional and ships no type information
            self._dask: Any = importlib.import_module("distributed")
        except ImportError:
            raise RuntimeError("the dask executor needs Dask's distributed package: "
                               "pip install 'fibsbot[cluster]'") from None
        self._client = self._dask.Client(scheduler)
        self._futures: list[Any] = []

    def run(self, config: TournamentConfig, specs: Sequence[MatchSpec]) -> Iterator[Outcome]:
        self._futures = [self._client.submit(_dask_task, config, spec, pure=False) for spec in specs]
        return self._results()

    def _results(self) -> Iterator[Outcome]:
        try:
            for future in self._dask.as_completed(self._futures):
                yield future.result()
        finally:
            self.stop()
            self._client.close()

    def stop(self) -> None:
        if self._futures:
            self._client.cancel(self._futures)
            self._futures = []
