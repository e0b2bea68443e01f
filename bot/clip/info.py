"""Events of the session and of what the server tells: login, our own info, who, messages and chat, watching,
away, errors, and the listings (whois, saved matches, games, toggles, settings, oldmoves, ratings).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

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


@dataclass(frozen=True, slots=True)
class StoredMessage(Event):
    """CLIP 9: a message left for us while we were away."""

    sender: str
    time: int
    text: str


@dataclass(frozen=True, slots=True)
class MessageDelivered(Event):
    """CLIP 10: our ``message`` reached an online user."""

    name: str


@dataclass(frozen=True, slots=True)
class MessageSaved(Event):
    """CLIP 11: the recipient is offline; the message is stored."""

    name: str


@dataclass(frozen=True, slots=True)
class Says(Event):
    """CLIP 12: someone's ``tell`` or in-game ``say`` to us."""

    name: str
    text: str


@dataclass(frozen=True, slots=True)
class Shouts(Event):
    """CLIP 13."""

    name: str
    text: str


@dataclass(frozen=True, slots=True)
class Whispers(Event):
    """CLIP 14."""

    name: str
    text: str


@dataclass(frozen=True, slots=True)
class Kibitzes(Event):
    """CLIP 15."""

    name: str
    text: str


@dataclass(frozen=True, slots=True)
class YouSay(Event):
    """CLIP 16, the echo of our tell; also ``You say to yourself: ...`` (name YOU)."""

    name: str
    text: str


@dataclass(frozen=True, slots=True)
class YouShout(Event):
    """CLIP 17."""

    text: str


@dataclass(frozen=True, slots=True)
class YouWhisper(Event):
    """CLIP 18."""

    text: str


@dataclass(frozen=True, slots=True)
class YouKibitz(Event):
    """CLIP 19."""

    text: str


@dataclass(frozen=True, slots=True)
class Alert(Event):
    """CLIP 20 (CLIP 1009); treat like a tell."""

    name: str
    text: str


# -- watching, away, chat replies ---------------------------------------------


@dataclass(frozen=True, slots=True)
class Watching(Event):
    """``You're now watching <user>.``"""

    user: str


@dataclass(frozen=True, slots=True)
class StopWatching(Event):
    """We no longer watch ``user`` (unwatch, they logged out, or they banned us)."""

    user: str


@dataclass(frozen=True, slots=True)
class WatchIdle(Event):
    """``<user> is not doing anything interesting.``"""

    user: str


@dataclass(frozen=True, slots=True)
class Watcher(Event):
    """``<watcher> starts/stops watching <watched>.`` (watched YOU: ``... watching you.``)"""

    watcher: str
    watched: str
    started: bool


@dataclass(frozen=True, slots=True)
class AwayReminder(Event):
    """``You're away. Please type 'back'``"""


@dataclass(frozen=True, slots=True)
class WelcomeBack(Event):
    """``Welcome back.``"""


@dataclass(frozen=True, slots=True)
class AwayList(Event):
    """``The following users are away:`` (any True) / ``None of the users is away.``"""

    any: bool


@dataclass(frozen=True, slots=True)
class Heard(Event):
    """``** <n> users heard you.`` / ``** But nobody heard you.`` (0)."""

    count: int


@dataclass(frozen=True, slots=True)
class Waves(Event):
    """``<player> waves goodbye [again].``"""

    player: str
    again: bool


@dataclass(frozen=True, slots=True)
class Pipcounts(Event):
    """``Pipcounts: You <n>   <opponent> <n>``"""

    pips: int
    opponent: str
    opponent_pips: int


@dataclass(frozen=True, slots=True)
class PanicSaved(Event):
    """``Your game was saved in the panic file.``"""


@dataclass(frozen=True, slots=True)
class MessagesFollow(Event):
    """``There are messages for you:``"""


@dataclass(frozen=True, slots=True)
class AddressSet(Event):
    """``Your email address is '<address>'.`` (reply to ``address``)."""

    address: str


@dataclass(frozen=True, slots=True)
class Error(Event):
    """Any ``** `` line not recognised otherwise; ``text`` without the stars."""

    text: str


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
