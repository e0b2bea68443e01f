"""Chat: what the bot answers to tells (help, version, level), the operators' commands
(pause, resume, quit), and the opponent's wake-up words during a match."""

from __future__ import annotations

import asyncio
import logging
import time
from collections import deque
from collections.abc import Callable
from importlib import metadata

from bot import clip, commands
from bot.player.context import Context
from bot.player.lifecycle import Lifecycle

log = logging.getLogger(__name__)

_WAKE = {"move", "board", "roll", "join", "wake", "hello"}
CHATTER_INTERVAL_S = 60.0
"""A user's tells the bot does not understand are answered at most once in this time."""
QUEUE_MAX = 4
"""Answers waiting for one user; a question beyond them is answered by a note to ask later."""


def _version() -> str:
    try:
        return metadata.version("fibsbot")
    except metadata.PackageNotFoundError:
        return "dev"


class OperatorChat:
    """Answers tells; ``wake`` is what the opponent's wake-up words do (ask for the board)."""

    def __init__(self, ctx: Context, life: Lifecycle, wake: Callable[[], None]) -> None:
        self.ctx = ctx
        self.life = life
        self.wake = wake
        self._queue: dict[str, deque[str]] = {}
        self._answered: dict[str, float] = {}  # when each user was last told an answer
        self._chatter: dict[str, tuple[float, str]] = {}  # the last tell not understood: when answered, its words
        self._draining: set[str] = set()
        self._overflowed: set[str] = set()

    def on_says(self, event: clip.Says | clip.Alert) -> None:
        ctx = self.ctx
        user, words = event.name, event.text.strip().lower().split()
        command = words[0] if words else ""
        if ctx.match is not None and user == ctx.match.opponent and command in _WAKE:
            self.wake()
            return
        operator = user.lower() in {u.lower() for u in ctx.cfg.tell.operators}
        if operator and command in ("pause", "resume", "quit"):
            log.info("operator %s: %s", user, command)
            if command == "quit":
                ctx.send(commands.tell(user, "Stopping after the running match."))
                self.life.drain()
                return
            ctx.send(commands.tell(user, "Paused." if command == "pause" else "Taking matches again."))
            self.life.pause(command == "pause")
            return
        if command == "version":
            self._answer(user, f"fibsbot {_version()}, a gnubg-compatible engine of its own.")
        elif command == "level":
            self._answer(user, f"I play at {ctx.cfg.engine.describe_level()}.")
        elif command == "help" or self._chatter_answered(user, event.text):
            self._answer(user, ctx.cfg.tell.help.format(name=ctx.name))

    def _chatter_answered(self, user: str, text: str) -> bool:
        """Whether a tell we do not understand gets the help text: at most once a minute per
        user, and never the same words twice in a row (another bot's canned reply would
        otherwise make the two of us talk forever)."""
        now = time.monotonic()
        words = " ".join(text.lower().split())
        last = self._chatter.get(user)
        if last is not None and (now - last[0] < CHATTER_INTERVAL_S or last[1] == words):
            log.debug("not answering %s's tell %r (answered %.0f s ago, or the same words)", user, text,
                      now - last[0])
            if last[1] != words:
                self._chatter[user] = (last[0], words)
            return False
        self._chatter[user] = (now, words)
        return True

    def _answer(self, user: str, text: str) -> None:
        """Tell ``user`` ``text``: at once, or queued until ``tell.interval_s`` has passed since
        the last answer (a question is never dropped without a word)."""
        queue = self._queue.setdefault(user, deque())
        if len(queue) >= QUEUE_MAX:
            if user not in self._overflowed:
                self._overflowed.add(user)
                queue.append(f"Too many questions at once: I answer one every "
                             f"{self.ctx.cfg.tell.interval_s:g} s. Please ask again.")
            log.debug("%s asks faster than the bot answers: not queued", user)
            return
        queue.append(text)
        if user not in self._draining:
            self._draining.add(user)
            self.ctx.spawn(self._drain(user), name="tell")

    async def _drain(self, user: str) -> None:
        ctx = self.ctx
        queue = self._queue[user]
        try:
            while queue:
                wait = self._answered.get(user, -1e9) + ctx.cfg.tell.interval_s - time.monotonic()
                if wait > 0:
                    await asyncio.sleep(wait)
                text = queue.popleft()
                if ctx.attached:
                    ctx.send(commands.tell(user, text))
                self._answered[user] = time.monotonic()
        finally:
            self._draining.discard(user)
            self._overflowed.discard(user)
            if not queue:
                self._queue.pop(user, None)

    def on_kibitz(self, event: clip.Kibitzes) -> None:
        words = event.text.strip().lower().split()
        m = self.ctx.match
        if m is not None and event.name == m.opponent and words and words[0] in _WAKE:
            self.wake()
