"""Events of the transport and the login: prompts, welcome, our own info (CLIP 1-2), the MOTD, who (CLIP 5-8)."""

from __future__ import annotations

from dataclasses import dataclass

from bot.clip.event import Event


# -- transport, login ---------------------------------------------------------


@dataclass(frozen=True, slots=True)
class LoginPrompt(Event):
    """``login: `` (unterminated): send the ``login`` command."""


@dataclass(frozen=True, slots=True)
class PasswordPrompt(Event):
    """``Please give your password: `` (telnet-mode login only)."""


@dataclass(frozen=True, slots=True)
class AlreadyLoggedIn(Event):
    """``** Warning: You are already logged in.``: the old session was kicked."""


@dataclass(frozen=True, slots=True)
class ConnectionTimedOut(Event):
    """``Connection timed out.``: the server closes our idle connection."""


# -- numbered CLIP messages 1-20 ----------------------------------------------


@dataclass(frozen=True, slots=True)
class Welcome(Event):
    """CLIP 1, first line after a successful login."""

    name: str
    last_login: int
    last_host: str


@dataclass(frozen=True, slots=True)
class OwnInfo(Event):
    """CLIP 2: our own toggles and rating; ``redoubles`` None = unlimited."""

    name: str
    allowpip: bool
    autoboard: bool
    autodouble: bool
    automove: bool
    away: bool
    bell: bool
    crawford: bool
    double: bool
    experience: int
    greedy: bool
    moreboards: bool
    moves: bool
    notify: bool
    rating: float
    ratings: bool
    ready: bool
    redoubles: int | None
    report: bool
    silent: bool
    timezone: str


@dataclass(frozen=True, slots=True)
class MotdStart(Event):
    """CLIP 3: the lines up to :class:`MotdEnd` are free text."""


@dataclass(frozen=True, slots=True)
class MotdEnd(Event):
    """CLIP 4."""


@dataclass(frozen=True, slots=True)
class WhoInfo(Event):
    """CLIP 5: one user's state; ``-`` fields become None."""

    name: str
    opponent: str | None
    watching: str | None
    ready: bool
    away: bool
    rating: float
    experience: int
    idle_s: int
    login_time: int
    host: str
    client: str | None
    email: str | None


@dataclass(frozen=True, slots=True)
class WhoEnd(Event):
    """CLIP 6: end of a burst of :class:`WhoInfo` lines."""


@dataclass(frozen=True, slots=True)
class UserLogin(Event):
    """CLIP 7 (notify on)."""

    name: str
    text: str


@dataclass(frozen=True, slots=True)
class UserLogout(Event):
    """CLIP 8: logs out, drops connection, timed out, old connection closed."""

    name: str
    text: str
