"""A bounded pool for engine calls: worker threads sized to the cores, a queue limit,
per-request time limits and Prometheus metrics."""

from __future__ import annotations

import asyncio
import os
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import TypeVar

from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram

T = TypeVar("T")


class Busy(Exception):
    """The queue is full: try again later."""


class Pool:
    """Runs engine calls on ``workers`` threads (the engine releases the GIL); at most
    ``queue`` calls wait; a call longer than ``timeout_s`` is answered with TimeoutError
    (its thread finishes the call, its result is dropped)."""

    def __init__(self, workers: int | None = None, queue: int = 64, timeout_s: float = 30.0) -> None:
        self.workers = workers or os.cpu_count() or 1
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

    def observe(self, door: str, endpoint: str, level: str, started: float, error: bool) -> None:
        self.requests.labels(door, endpoint, level).inc()
        if error:
            self.errors.labels(door, endpoint, level).inc()
        self.latency.labels(door, endpoint, level).observe(time.perf_counter() - started)

    def close(self) -> None:
        self.executor.shutdown(wait=False, cancel_futures=True)
