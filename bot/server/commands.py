"""Command lines of logged-in users -> handlers, with FIBS's abbreviations and errors."""

from __future__ import annotations

from collections.abc import Callable, Collection
from typing import TYPE_CHECKING

from bot.server import cmd_chat, cmd_info, cmd_play, cmd_user

if TYPE_CHECKING:
    from bot.server.context import Context
    from bot.server.session import Session

Handler = Callable[["Context", "Session", str], None]

COMMANDS: dict[str, Handler] = {**cmd_chat.COMMANDS, **cmd_info.COMMANDS, **cmd_play.COMMANDS, **cmd_user.COMMANDS}
ALIASES = {"b": "board", "m": "move", "r": "roll", "d": "double", "a": "accept"}


def dispatch(context: Context, session: Session, line: str, unanswered: Collection[str] = (),
             missing: Collection[str] = ()) -> None:
    """Run one command line; every reply goes to the session (or others) directly.

    Commands named in ``unanswered`` are swallowed, those in ``missing`` are unknown
    (FibsServer's misbehaviour options).
    """
    word, _, args = line.strip().partition(" ")
    if not word:
        return
    name = ALIASES.get(word.lower(), word.lower())
    if name in unanswered:
        return
    handler = None if name in missing else COMMANDS.get(name)
    if handler is None:
        session.send(f"** Unknown command: '{word}'")
    else:
        handler(context, session, args.strip())
    # The reminder follows every reply while away (``away <text>`` has just said it).
    if session.away is not None and name != "back" and not (name == "away" and args) and not session.gone:
        session.send("You're away. Please type 'back'")
