"""Command lines of logged-in users -> handlers, with FIBS's abbreviations and errors."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from bot.server import cmd_chat, cmd_info, cmd_play, cmd_user

if TYPE_CHECKING:
    from bot.server.server import FibsServer
    from bot.server.session import Session

Handler = Callable[["FibsServer", "Session", str], None]

COMMANDS: dict[str, Handler] = {**cmd_chat.COMMANDS, **cmd_info.COMMANDS, **cmd_play.COMMANDS, **cmd_user.COMMANDS}
ALIASES = {"b": "board", "m": "move", "r": "roll", "d": "double", "a": "accept"}


def dispatch(server: FibsServer, session: Session, line: str) -> None:
    """Run one command line; every reply goes to the session (or others) directly."""
    word, _, args = line.strip().partition(" ")
    if not word:
        return
    name = ALIASES.get(word.lower(), word.lower())
    if name in server.unanswered:
        return  # swallowed on purpose (FibsServer's ``unanswered``)
    handler = COMMANDS.get(name)
    if handler is None:
        session.send(f"** Unknown command: '{word}'")
    else:
        handler(server, session, args.strip())
    # The reminder follows every reply while away (``away <text>`` has just said it).
    if session.away is not None and name != "back" and not (name == "away" and args) and not session.gone:
        session.send("You're away. Please type 'back'")
