"""What every part of the player shares: the config and the engine, the connection, the tasks
and the waiters for server answers, and the facts the server told (who we are, the match, the
board, who is on). The parts (:mod:`~bot.player.game`, :mod:`~bot.player.flow`,
:mod:`~bot.player.lobby`, :mod:`~bot.player.chat`, :mod:`~bot.player.lifecycle`) each hold
their own state and reach the others only through the calls :class:`bot.player.Player` (a
Context itself) wires."""

from __future__ import annotations

import asyncio
import logging
import random
import time
from collections.abc import Callable, Coroutine
from pathlib import Path
from typing import Any, TypeVar

from bot import clip
from bot.config import BotConfig
from bot.fibsboard import FibsBoard
from bot.player.model import Challenge, Decider, Link, MatchContext, MatchResult, Stats
from bot.recorder import Ledger, SavedIndex

log = logging.getLogger(__name__)
T = TypeVar("T")

_GAME_COMMANDS = {"move", "roll", "double", "accept", "reject", "resign", "board"}
"""Commands whose ``**`` answer is a game error; other ``**`` lines are notices."""


class Context:
    """The shared facts and services of one player (one FIBS account)."""

    def __init__(self, config: BotConfig, decider: Decider, *, challenge: Challenge | None, records: bool,
                 rng: random.Random | None) -> None:
        self.cfg = config
        self.decider = decider
        self.level = config.engine.level_name
        self.play_level = config.engine.playing_level()  # a Level when playing by FIBS rating
        self.challenge = challenge
        self.rng = rng or random.Random()
        self.stats = Stats()
        self.results: list[MatchResult] = []
        self.result = asyncio.Event()  # set when a match has finished
        self.idle = asyncio.Event()  # a match ended: the challenger invites again at once
        self.name = ""
        self.rating: float | None = None
        self.ready: bool | None = None
        self.paused = False
        self.draining = False
        self.match: MatchContext | None = None
        self.board: FibsBoard | None = None
        self.who: dict[str, clip.WhoInfo] = {}
        self.server_saved: dict[str, clip.SavedMatch] = {}
        self.interrupted: dict[str, MatchContext] = {}
        folder = config.records.dir
        self.records_dir: Path | None = folder if records else None
        self.saved_index = SavedIndex(folder / "saved.json") if records else None
        self.ledger = Ledger(config.records.ledger) if records else None
        self.answer_pending = False  # a game command was sent and no board has come since
        self.resume_asked: str | None = None  # the last resume invitation awaiting its answer
        self.unanswered: set[str] = set()
        """Questions this server left unanswered once (``show savedcount`` on JIBS): not asked again."""
        self.on_task_failed: Callable[[], None] = lambda: None
        """Called when a task fails while connected (the player resynchronises on a board)."""
        self._link: Link | None = None
        self._tasks: set[asyncio.Task[None]] = set()
        self._waiters: list[tuple[Callable[[clip.Event], bool], asyncio.Future[clip.Event]]] = []
        self._told: dict[str, float] = {}

    # -- the connection --------------------------------------------------------------

    @property
    def wants_ready(self) -> bool:
        return not (self.paused or self.draining)

    @property
    def attached(self) -> bool:
        return self._link is not None

    def attach(self, link: Link) -> None:
        """Send through ``link`` from now on."""
        self._link = link

    def send(self, command: str) -> None:
        if self._link is None:
            raise RuntimeError("the player is not attached to a connection")
        word = command.partition(" ")[0]
        if word in _GAME_COMMANDS:
            self.answer_pending = True
        elif word == "invite" and command.count(" ") == 1:
            self.resume_asked = command.split()[1]
        self._link.send(command)

    def close_link(self) -> None:
        if self._link is not None:
            self._link.close()

    def may_tell(self, user: str, interval: float) -> bool:
        """Whether ``user`` may be told something now (at most once per ``interval`` seconds)."""
        now = time.monotonic()
        if now - self._told.get(user, -1e9) < interval:
            return False
        self._told[user] = now
        return True

    # -- tasks and waiters -------------------------------------------------------------

    def spawn(self, coro: Coroutine[Any, Any, None], *, name: str | None = None) -> None:
        task = asyncio.get_running_loop().create_task(coro, name=name)
        self._tasks.add(task)
        task.add_done_callback(self._task_done)

    def has_task(self, name: str) -> bool:
        return any(t.get_name() == name for t in self._tasks)

    def _task_done(self, task: asyncio.Task[None]) -> None:
        self._tasks.discard(task)
        if not task.cancelled() and task.exception() is not None:
            log.error("task %s failed: asking for the board", task.get_name(), exc_info=task.exception())
            if self._link is not None:
                self.on_task_failed()  # bounded: a decision that keeps failing is not retried forever

    async def settle(self, *, ledger: bool = True) -> None:
        """Wait until no decision or screening task is running; ``ledger=False`` does not
        wait for a ledger line's rating either."""
        idle: tuple[str, ...] = ("challenge", "drain", "prompt", "tell")
        idle = idle if ledger else (*idle, "ledger")
        while busy := [t for t in self._tasks if t.get_name() not in idle and not t.done()]:
            await asyncio.gather(*busy, return_exceptions=True)

    async def close(self) -> None:
        """Cancel every task (the session is over)."""
        for task in list(self._tasks):
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)

    def notify(self, event: clip.Event) -> None:
        """Hand ``event`` to the waiters it answers."""
        for waiter in list(self._waiters):
            predicate, future = waiter
            if not future.done() and predicate(event):
                future.set_result(event)
                self._waiters.remove(waiter)

    def cancel_waiters(self) -> None:
        for _, future in self._waiters:
            future.cancel()
        self._waiters.clear()

    async def wait_for(self, predicate: Callable[[clip.Event], bool], timeout: float | None) -> clip.Event | None:
        """The next event matching ``predicate``; None on timeout or disconnect."""
        future: asyncio.Future[clip.Event] = asyncio.get_running_loop().create_future()
        self._waiters.append((predicate, future))
        try:
            return await asyncio.wait_for(future, timeout)
        except TimeoutError:
            return None
        except asyncio.CancelledError:
            task = asyncio.current_task()
            if task is not None and task.cancelling():
                raise  # we are being cancelled, not just the waiter (a disconnect)
            return None
        finally:
            self._waiters = [w for w in self._waiters if w[1] is not future]

    # -- the engine -------------------------------------------------------------------

    async def decide(self, what: str, call: Callable[[], T], fallback: T) -> T:
        """Run an engine call in a thread with the deadline, then the think time."""
        loop = asyncio.get_running_loop()
        start = loop.time()
        try:
            result = await asyncio.wait_for(asyncio.to_thread(call), self.cfg.engine.deadline_s)
        except TimeoutError:
            self.stats.deadline_misses += 1
            log.warning("engine %s decision missed its %.1f s deadline: using the safe default", what,
                        self.cfg.engine.deadline_s)
            result = fallback
        except Exception:  # the engine is foreign code: never let it stop the bot
            self.stats.engine_errors += 1
            log.exception("engine %s decision failed: using the safe default", what)
            result = fallback
        low, high = self.cfg.engine.think_time_s
        pause = self.rng.uniform(low, high) - (loop.time() - start)
        if pause > 0:
            await asyncio.sleep(pause)
        return result
