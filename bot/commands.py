"""Every command the bot sends to FIBS, built in one place.

Each builder returns one command line without the line end (the session adds
CR LF). Names and words are checked so that nothing can smuggle in a second
command; chat text has control characters turned into blanks and non-ASCII
into ``?`` (FIBS is 7-bit). Full command words only: FIBS's abbreviations
and name completion are never relied on.

>>> login("bob", "secret", client="fibsbot_0.1")
'login fibsbot_0.1 1008 bob secret'
>>> invite("alice", 5), invite("alice", 0), invite("alice")
('invite alice 5', 'invite alice unlimited', 'invite alice')
>>> tell("alice", "good game\\nbye")
'tell alice good game bye'
"""

from __future__ import annotations

import re

from bot.fibsboard import FibsBoard, move_command
from engine.position import Move

CLIP_VERSION = 1008
"""What FIBS's CLIP documentation, Gibbon and most clients send; 1009 only adds message 20."""

TOGGLES = frozenset({
    "allowpip", "autoboard", "autodouble", "automove", "away", "bell", "crawford", "double", "greedy",
    "moreboards", "moves", "notify", "ratings", "ready", "report", "silent", "telnet", "wrap",
})
VARIABLES = frozenset({"boardstyle", "linelength", "pagelength", "redoubles", "sortwho", "timezone"})

_WORD = re.compile(r"[!-~]+")  # one printable ASCII word
_UNSAFE = re.compile(r"[^ -~]")


def _word(text: str, what: str) -> str:
    if not _WORD.fullmatch(text):
        raise ValueError(f"{what} must be one printable ASCII word, got {text!r}")
    return text


def _text(text: str) -> str:
    """Chat text on one line: controls -> blanks, non-ASCII -> '?'."""
    return _UNSAFE.sub(lambda m: " " if m[0] < " " or m[0] == "\x7f" else "?", text).strip()


def login(user: str, password: str, *, client: str = "fibsbot", clip_version: int = CLIP_VERSION) -> str:
    """The CLIP login line (answer to ``login: ``); the client name has at most 20 characters."""
    if len(client) > 20:
        raise ValueError(f"client name {client!r} is longer than 20 characters (FIBS refuses the login)")
    return f"login {_word(client, 'client')} {clip_version} {_word(user, 'user')} {_word(password, 'password')}"


def toggle(name: str) -> str:
    """Flip one toggle (send only for toggles that the ``2`` line shows wrong)."""
    if name not in TOGGLES:
        raise ValueError(f"unknown toggle {name!r}")
    return f"toggle {name}"


def set_variable(name: str, value: str | int) -> str:
    """``set boardstyle 3`` and friends."""
    if name not in VARIABLES:
        raise ValueError(f"unknown variable {name!r}")
    return f"set {name} {_word(str(value), 'value')}"


def invite(user: str, length: int | None = None) -> str:
    """Invite to an n-point match; 0 = unlimited; None = resume the saved match."""
    if length is None:
        return f"invite {_word(user, 'user')}"
    if length < 0:
        raise ValueError(f"match length {length} is negative")
    return f"invite {_word(user, 'user')} {length or 'unlimited'}"


def join(user: str | None = None) -> str:
    """Accept ``user``'s invitation, or (no user) start the next game of the match."""
    return "join" if user is None else f"join {_word(user, 'user')}"


def roll() -> str:
    return "roll"


def double() -> str:
    return "double"


def accept() -> str:
    """Take a double or accept a resignation."""
    return "accept"


def reject() -> str:
    """Pass a double (gives up the game) or reject a resignation."""
    return "reject"


def move(board: FibsBoard, play: Move) -> str:
    """The ``move`` command for ``play`` on ``board`` (see :func:`bot.fibsboard.move_command`)."""
    return move_command(board, play)


def resign(value: int) -> str:
    """Offer to resign a single game (1), gammon (2) or backgammon (3), as gnubg counts."""
    if value not in (1, 2, 3):
        raise ValueError(f"resignation value {value} is not 1, 2 or 3")
    return "resign " + "ngb"[value - 1]


def board() -> str:
    """Ask for the current board line (after a match starts or resumes)."""
    return "board"


def back() -> str:
    """Clear the away flag."""
    return "back"


def leave() -> str:
    """Leave the match; FIBS saves it."""
    return "leave"


def tell(user: str, text: str) -> str:
    return f"tell {_word(user, 'user')} {_text(text)}"


def kibitz(text: str) -> str:
    """Talk to the opponent and the watchers of our game."""
    return f"kibitz {_text(text)}"


def message(user: str, text: str) -> str:
    """A stored message, delivered at the user's next login if offline."""
    return f"message {_word(user, 'user')} {_text(text)}"


def address(email: str) -> str:
    """Set the e-mail field of our who line (bots put ``ComputerPlayer___<name>@...`` there)."""
    return f"address {_word(email, 'address')}"


def rawwho(user: str | None = None) -> str:
    """Who lines (``5`` ... ``6``) for everyone or one user; also a harmless keep-alive."""
    return "rawwho" if user is None else f"rawwho {_word(user, 'user')}"


def whois(user: str) -> str:
    return f"whois {_word(user, 'user')}"


def show_saved() -> str:
    return "show saved"


def show_savedcount(user: str) -> str:
    """``<user> has <n> saved games.``: used to screen inviters."""
    return f"show savedcount {_word(user, 'user')}"


def oldmoves(user: str) -> str:
    return f"oldmoves {_word(user, 'user')}"


def bye() -> str:
    """Log out."""
    return "bye"
