"""The base of every CLIP event and the names all families share."""

from __future__ import annotations

from dataclasses import dataclass

YOU = "You"
"""The name FIBS uses for the bot itself in messages and board lines."""

Steps = tuple[tuple[str, str], ...]
"""Sub-moves as FIBS prints them: ``(("bar", "21"), ("6", "5"))``; absolute points."""


@dataclass(frozen=True, slots=True)
class Event:
    """Base class of everything :func:`parse` returns."""


@dataclass(frozen=True, slots=True)
class Blank(Event):
    """An empty line (FIBS sends some between messages; they end an oldmoves game)."""


@dataclass(frozen=True, slots=True)
class Unknown(Event):
    """A line that is no documented message (banner, MOTD text, new server text)."""

    line: str
