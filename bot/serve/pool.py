"""A bounded pool for engine calls: worker threads sized to the cores (one more), a queue limit,
per-request time limits and Prometheus metrics."""

from __future__ import annotations

import asyncio
import concurrent.futures
import os
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Generic, TypeVar

from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram

T = TypeVar("T")


class Busy(Exception):
    """The queue is full: try again later."""


class Job(Generic[T]):
    """One call submitted with :meth:`Pool.submit`: settled once, by its result, its
    time limit or :meth:`cancel`."""

    __slots__ = ("pool", "loop", "done", "future", "timer", "settled")

    def __init__(self, pool: Pool, loop: asyncio.AbstractEventLoop,
                 done: Callable[[T | None, BaseException | None], None]) -> None:
        self.pool, self.loop, self.done = pool, loop, done
        self.future: concurrent.futures.Future[T] | None = None
        self.timer: asyncio.TimerHandle | None = None
        self.settled = False

    def _settle(self) -> bool:
        if self.settled:
            return False
        self.settled = True
        self.pool.pending -= 1
        if self.timer is not None:
            self.timer.cancel()
        return True

    def _finished(self, future: concurrent.futures.Future[T]) -> None:
        """On the worker's thread (or the loop's, if already done): hand over to the loop."""
        try:
            self.loop.call_soon_threadsafe(self._result, future)
        except RuntimeError:
            pass  # the loop is closed: nobody waits

    def _result(self, future: concurrent.futures.Future[T]) -> None:
        if not self._settle():
            return
        error = concurrent.futures.CancelledError() if future.cancelled() else future.exception()
        self.done(None if error is not None else future.result(), error)

    def _timed_out(self) -> None:
        if self._settle():
            self.done(None, TimeoutError())

    def cancel(self) -> None:
        """Nobody waits any more: a call still queued never runs; ``done`` is not called."""
        if self._settle() and self.future is not None:
            self.future.cancel()


class Pool:
    """Runs engine calls on ``workers`` threads (the engine releases the GIL; default: the
    cores + 1, so that a search runs on every core while a worker holds the GIL for a
    request's Python or waits for the next call); at most ``queue`` calls wait; a call
    longer than ``timeout_s`` is answered with TimeoutError (its thread finishes the call,
    its result is dropped)."""

    def __init__(self, workers: int | None = None, queue: int = 64, timeout_s: float = 30.0) -> None:
        self.workers = workers or (os.cpu_count() or 1) + 1
        self.limit = self.workers + queue
        self.timeout_s = timeout_s
        self.executor = ThreadPoolExecutor(self.workers, thread_name_prefix="engine")
        self.pending = 0
        self.registry = CollectorRegistry()
        self.requests = Counter("fibsbot_serve_requests", "requests by door, endpoint and level",
                                ["door", "endpoint", "level"], registry=self.registry)
        self.errors = Counter("fibsbot_serve_errors", "requests answered with an error",
                              ["door", "endpoint", "level"], registry=self.registry)
        self.latency = Histogram("fibsbot_serve_latency_seconds", "request latency", ["door", "endpoint", "level"],
                                 buckets=(0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30),
                                 registry=self.registry)
        self.queue_depth = Gauge("fibsbot_serve_queue_depth", "engine calls waiting or running",
                                 registry=self.registry)
        self.rollouts = Gauge("fibsbot_serve_rollouts_running", "rollout jobs running", registry=self.registry)
        self.queue_depth.set_function(lambda: self.pending)

    async def run(self, fn: Callable[[], T], timeout_s: float | None = None) -> T:
        """``fn()`` on a worker; Busy when the queue is full."""
        if self.pending >= self.limit:
            raise Busy()
        self.pending += 1
        try:
            loop = asyncio.get_running_loop()
            future = loop.run_in_executor(self.executor, fn)
            return await asyncio.wait_for(future, timeout_s or self.timeout_s)
        finally:
            self.pending -= 1

    def submit(self, fn: Callable[[], T], done: Callable[[T | None, BaseException | None], None],
               timeout_s: float | None = None) -> Job[T]:
        """``fn()`` on a worker, without a coroutine: ``done(result, None)`` or ``done(None,
        error)`` (TimeoutError past the limit) is called once on the running loop's thread.
        Busy when the queue is full."""
        if self.pending >= self.limit:
            raise Busy()
        loop = asyncio.get_running_loop()
        job: Job[T] = Job(self, loop, done)
        job.future = self.executor.submit(fn)
        self.pending += 1
        job.timer = loop.call_later(timeout_s or self.timeout_s, job._timed_out)
        job.future.add_done_callback(job._finished)
        return job

    def observe(self, door: str, endpoint: str, level: str, started: float, error: bool) -> None:
        self.requests.labels(door, endpoint, level).inc()
        if error:
            self.errors.labels(door, endpoint, level).inc()
        self.latency.labels(door, endpoint, level).observe(time.perf_counter() - started)

    def close(self) -> None:
        self.executor.shutdown(wait=False, cancel_futures=True)
