"""Chat: what the bot answers to tells (help, version, level), the operators' commands
(pause, resume, quit), and the opponent's wake-up words during a match."""

from __future__ import annotations

import logging
from collections.abc import Callable
from importlib import metadata

from bot import clip, commands
from bot.player.context import Context
from bot.player.lifecycle import Lifecycle

log = logging.getLogger(__name__)

_WAKE = {"move", "board", "roll", "join", "wake", "hello"}
_CHATTER_INTERVAL_S = 3600.0


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
            text = f"fibsbot {_version()}, a gnubg-compatible engine of its own."
        elif command == "level":
            text = f"I play at {ctx.cfg.engine.describe_level()}."
        else:
            text = ctx.cfg.tell.help.format(name=ctx.name)
        # Chatter gets the help text rarely: other bots answer tells too, and must not loop with us.
        interval = ctx.cfg.tell.interval_s if command in ("help", "version", "level") else _CHATTER_INTERVAL_S
        if ctx.may_tell(user, interval):
            ctx.send(commands.tell(user, text))

    def on_kibitz(self, event: clip.Kibitzes) -> None:
        words = event.text.strip().lower().split()
        m = self.ctx.match
        if m is not None and event.name == m.opponent and words and words[0] in _WAKE:
            self.wake()
