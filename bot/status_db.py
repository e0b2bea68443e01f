"""The status endpoint's database side: today's numbers for ``/status`` and the
dashboard's match history, read from the bot's store (``store:`` in bot.yaml).

Each read runs in a worker thread, one at a time, and its answer is kept for a few
seconds, so that a slow, locked or unreachable database never holds the bot's event
loop or the live board: ``/status`` waits for a fresh read at most :data:`WAIT_S`
(then shows the last one), the dashboard's live part never waits. A store that
cannot be read shows as ``{"available": false, "error": ...}`` in ``today`` and as
"unavailable" in the dashboard's history; the rest of the page is unaffected.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable, Mapping, Sequence
from typing import Any, Generic, TypeVar

from starlette.routing import BaseRoute

from bot.config import BotConfig
from bot.report.dashboard import routes as dashboard_routes
from bot.status import StatusBoard

log = logging.getLogger(__name__)

T = TypeVar("T")

TODAY_TTL_S = 5.0  # a read of today's numbers is reused this long
HISTORY_TTL_S = 5.0
WAIT_S = 2.0  # the longest a request waits for a read


class CachedRead(Generic[T]):
    """A blocking read run in a thread, at most one at a time; its answer is kept ``ttl_s``."""

    def __init__(self, read: Callable[[], T], ttl_s: float, wait_s: float | None = None,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self._read = read
        self.ttl_s = ttl_s
        self.wait_s = WAIT_S if wait_s is None else wait_s
        self._clock = clock
        self._value: T | None = None
        self._error: BaseException | None = None
        self._at: float | None = None
        self._task: asyncio.Task[None] | None = None

    def peek(self) -> T | None:
        """The last answer read (None before the first, or after a failed read)."""
        return self._value

    async def _run(self) -> None:
        try:
            value = await asyncio.to_thread(self._read)
        except Exception as exc:  # kept and shown by the caller; the bot goes on
            self._value, self._error = None, exc
        else:
            self._value, self._error = value, None
        finally:
            self._at = self._clock()
            self._task = None

    async def refresh(self, wait: bool = True) -> None:
        """Start a read if the last is older than ``ttl_s``; with ``wait``, wait for it up to
        ``wait_s``. Never raises."""
        fresh = self._at is not None and self._clock() - self._at < self.ttl_s
        if not fresh and self._task is None:
            self._task = asyncio.create_task(self._run(), name="status database read")
        task = self._task
        if wait and task is not None:
            try:
                await asyncio.wait_for(asyncio.shield(task), self.wait_s)
            except (TimeoutError, Exception):
                pass  # still reading: the last answer stands

    async def get(self) -> T:
        """A fresh answer (or the last one while a read is under way); the read's error if it failed."""
        await self.refresh()
        if self._error is not None:
            raise self._error
        if self._value is None:
            raise TimeoutError("the database has not answered yet")
        return self._value


def attach(cfg: BotConfig, board: StatusBoard) -> list[BaseRoute]:
    """Today's numbers into ``board`` and the dashboard's routes (``/``, ``/live``, the
    reports beside the records) for the bot of ``cfg``."""
    from bot.store.live import configured_url  # the database layer: loaded when the endpoint starts
    from bot.store.recent import recent
    from bot.store.stats import today_summary

    url = configured_url(cfg)
    history: Callable[[], Any] | None = None
    if url is not None:
        reports = cfg.records.dir
        us = cfg.account.user or "fibsbot"
        board.today = CachedRead(lambda: today_summary(url), TODAY_TTL_S)
        history = CachedRead(lambda: recent(url, us_name=us, reports=reports), HISTORY_TTL_S).get
    else:
        reports = None

    async def snapshot() -> Mapping[str, Any]:
        return await board.fresh_snapshot(wait=False)

    found: Sequence[BaseRoute] = dashboard_routes(snapshot, history, reports)
    return list(found)
