"""Events of listings: whois, saved matches, games, toggles and settings, oldmoves, ratings."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from bot.clip.event import Event


# -- whois, saved matches, games ----------------------------------------------


@dataclass(frozen=True, slots=True)
class WhoisHeader(Event):
    """``Information about <user>:``"""

    user: str


@dataclass(frozen=True, slots=True)
class WhoisLogin(Event):
    """``  Last login:  <date> from <host>``"""

    date: str
    host: str


@dataclass(frozen=True, slots=True)
class WhoisLogout(Event):
    """``  Last logout: <date>``"""

    date: str


@dataclass(frozen=True, slots=True)
class WhoisPresence(Event):
    """``  Still logged in. <idle> idle.`` / ``  Not logged in right now.`` (idle None)."""

    online: bool
    idle: str | None


@dataclass(frozen=True, slots=True)
class WhoisStatus(Event):
    """``  <user> is ready to play, not watching, not playing.`` (text after "is")."""

    user: str
    text: str


@dataclass(frozen=True, slots=True)
class WhoisAway(Event):
    """``  <user> is away: <msg>``"""

    user: str
    message: str


@dataclass(frozen=True, slots=True)
class WhoisRating(Event):
    """``  Rating: <r> Experience: <e>``"""

    rating: float
    experience: int


@dataclass(frozen=True, slots=True)
class WhoisEmail(Event):
    """``  Email address: <a>`` / ``  No email address.`` (None)."""

    address: str | None


@dataclass(frozen=True, slots=True)
class WhoisNotFound(Event):
    """``No information found on user <user>.``"""

    user: str


@dataclass(frozen=True, slots=True)
class SavedHeader(Event):
    """Header of ``show saved``."""


@dataclass(frozen=True, slots=True)
class SavedMatch(Event):
    """A ``show saved`` row; score is ours first; length 0 = unlimited.

    ``online`` is set for both markers (`` *`` and ``**``), whose meanings the
    sources disagree on.
    """

    opponent: str
    length: int
    score: tuple[int, int]
    online: bool


@dataclass(frozen=True, slots=True)
class NoSavedGames(Event):
    """``no saved games.``"""


@dataclass(frozen=True, slots=True)
class SavedCount(Event):
    """``<user> has <n> saved games.`` (``show savedcount``)."""

    user: str
    count: int


@dataclass(frozen=True, slots=True)
class GamesHeader(Event):
    """``List of games:``"""


@dataclass(frozen=True, slots=True)
class GameListing(Event):
    """``<p1> - <p2> (<n> point match <a>-<b>)``; length 0 = unlimited."""

    player1: str
    player2: str
    length: int
    score: tuple[int, int]


# -- toggles and settings -----------------------------------------------------


@dataclass(frozen=True, slots=True)
class ToggleHeader(Event):
    """``The current settings are:``"""


@dataclass(frozen=True, slots=True)
class ToggleValue(Event):
    """A ``toggle`` listing row: ``allowpip   YES``."""

    name: str
    value: bool


@dataclass(frozen=True, slots=True)
class Toggled(Event):
    """A toggle changed, e.g. ``** You're now ready to invite or join someone.``"""

    name: str
    value: bool


@dataclass(frozen=True, slots=True)
class SettingsHeader(Event):
    """``Settings of variables:``"""


@dataclass(frozen=True, slots=True)
class SettingValue(Event):
    """A ``set`` listing row: ``boardstyle: 3``."""

    name: str
    value: str


@dataclass(frozen=True, slots=True)
class SettingChanged(Event):
    """``Value of '<name>' set to <value>.``"""

    name: str
    value: str


# -- oldmoves and ratings -----------------------------------------------------


@dataclass(frozen=True, slots=True)
class OldmovesScore(Event):
    """``Score is <a>-<b> in a <n> point match.`` (X's score first); 0 = unlimited."""

    score: tuple[int, int]
    length: int


@dataclass(frozen=True, slots=True)
class OldmovesPlayers(Event):
    """``<x> is X - <o> is O``"""

    x: str
    o: str


@dataclass(frozen=True, slots=True)
class OldmovesLine(Event):
    """``O: (5 1) 13-8 24-23``, ``X: doubles``: side, dice if rolled, the rest."""

    side: Literal["X", "O"]
    dice: tuple[int, int] | None
    text: str


@dataclass(frozen=True, slots=True)
class RatingCalculation(Event):
    """A line of the ``rating calculation:`` block (toggle ratings)."""

    text: str


@dataclass(frozen=True, slots=True)
class RatingsHeader(Event):
    """`` rank name  rating  Experience``"""


@dataclass(frozen=True, slots=True)
class RatingsRow(Event):
    """A ``ratings`` listing row."""

    rank: int
    name: str
    rating: float
    experience: int
