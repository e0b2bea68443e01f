"""FIBS client protocol (CLIP): one server line -> one typed, immutable event.

Pure and I/O-free: :class:`LineSplitter` cuts the byte stream into lines (and
surfaces the unterminated login prompt), :func:`parse` turns a line into an
:class:`Event`. Nothing here raises on server input: a line that matches no
documented message becomes :class:`Unknown`; an unrecognised ``** `` line
becomes :class:`Error`.

The bot itself is called ``You`` by FIBS; events use the same word
(:data:`YOU`) wherever a player name stands, as ``board:`` lines do.

>>> parse("GammonBot_VII rolls 3 and 1.")
Roll(player='GammonBot_VII', dice=(3, 1))
>>> parse("You accept the double.  The cube shows 2.")
DoubleAccepted(player='You', cube=2)
>>> parse("marvin wants to play a 5 point match with you.\\a")
Invitation(user='marvin', length=5)
>>> parse("something new")
Unknown(line='something new')

Glued lines (a message stuck to the end of a ``board:`` line or of
``... The cube shows n.``) are split by :func:`parse_all`; :func:`parse`
returns the event of the first message only, so a reader of the live stream
should call :func:`parse_all`.

>>> parse_all("someone accepts the double. The cube shows 2.13 bob Anybody?")
[DoubleAccepted(player='someone', cube=2), Shouts(name='bob', text='Anybody?')]
"""

from __future__ import annotations

import argparse
import logging
import re
import sys
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Literal

log = logging.getLogger(__name__)

YOU = "You"
"""The name FIBS uses for the bot itself in messages and board lines."""

Steps = tuple[tuple[str, str], ...]
"""Sub-moves as FIBS prints them: ``(("bar", "21"), ("6", "5"))``; absolute points."""


@dataclass(frozen=True, slots=True)
class Event:
    """Base class of everything :func:`parse` returns."""


# -- transport, login ---------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Blank(Event):
    """An empty line (FIBS sends some between messages; they end an oldmoves game)."""


@dataclass(frozen=True, slots=True)
class Unknown(Event):
    """A line that is no documented message (banner, MOTD text, new server text)."""

    line: str


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


# -- invitations and match start ----------------------------------------------


@dataclass(frozen=True, slots=True)
class Invitation(Event):
    """``<user> wants to play a <n> point match / an unlimited match /
    to resume a saved match with you.`` Length 0 = unlimited, None = resume."""

    user: str
    length: int | None

    @property
    def resume(self) -> bool:
        return self.length is None


@dataclass(frozen=True, slots=True)
class JoinHint(Event):
    """``Type 'join <user>' to accept.`` (always follows an invitation)."""

    user: str


@dataclass(frozen=True, slots=True)
class SavedMatchWarning(Event):
    """``WARNING: Don't accept if you want to continue the saved ... match!``; 0 = unlimited."""

    length: int


@dataclass(frozen=True, slots=True)
class InviteSent(Event):
    """``** You invited <user> to ...``; length as in :class:`Invitation`."""

    user: str
    length: int | None


@dataclass(frozen=True, slots=True)
class UserAway(Event):
    """``<user> is away: <msg>`` (after inviting an away user)."""

    user: str
    message: str


@dataclass(frozen=True, slots=True)
class NewMatch(Event):
    """A new match began (we joined, or the opponent joined us); 0 = unlimited."""

    opponent: str
    length: int


@dataclass(frozen=True, slots=True)
class MatchResumed(Event):
    """A saved match with ``opponent`` was loaded."""

    opponent: str


@dataclass(frozen=True, slots=True)
class ResumeTurn(Event):
    """``turn: <user>.`` in the summary of a loaded match."""

    user: str


@dataclass(frozen=True, slots=True)
class ResumeLength(Event):
    """``match length: <n>`` / ``unlimited matchlength`` (0)."""

    length: int


@dataclass(frozen=True, slots=True)
class ResumePoints(Event):
    """``points for <user>: <n>``."""

    user: str
    points: int


@dataclass(frozen=True, slots=True)
class GameStart(Event):
    """``Starting a new game with <opponent>.``"""

    opponent: str


@dataclass(frozen=True, slots=True)
class OpeningRoll(Event):
    """``You rolled 3, bob rolled 5`` (re-rolled while equal)."""

    player: str
    die: int
    opponent: str
    opponent_die: int


@dataclass(frozen=True, slots=True)
class FirstMove(Event):
    """``<player> makes the first move.``; ``It's your turn to move.`` gives YOU."""

    player: str


@dataclass(frozen=True, slots=True)
class AutoDouble(Event):
    """``The number on the doubling cube is now <n>`` (opening doublet, autodouble)."""

    cube: int


# -- turns --------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class YourTurn(Event):
    """``It's your turn. Please roll or double``: send roll or double."""


@dataclass(frozen=True, slots=True)
class Roll(Event):
    """``You roll 6 and 4.`` / ``<player> rolls 3 and 1.``"""

    player: str
    dice: tuple[int, int]


@dataclass(frozen=True, slots=True)
class PleaseMove(Event):
    """``Please move <n> pieces.``"""

    count: int


@dataclass(frozen=True, slots=True)
class CantMove(Event):
    """``You can't move.`` / ``<player> can't move.``"""

    player: str


@dataclass(frozen=True, slots=True)
class Moves(Event):
    """``<player> moves 24-18 13-11 .`` (may have no sub-moves)."""

    player: str
    steps: Steps

    @property
    def text(self) -> str:
        return _steps_text(self.steps)


@dataclass(frozen=True, slots=True)
class OnlyMove(Event):
    """``The only possible move is ... .``: the server moved (automove on)."""

    steps: Steps

    @property
    def text(self) -> str:
        return _steps_text(self.steps)


@dataclass(frozen=True, slots=True)
class BearingOff(Event):
    """``Bearing off: ...`` (greedy on): the server bore off."""

    text: str


# -- cube and resignation -----------------------------------------------------


@dataclass(frozen=True, slots=True)
class Doubles(Event):
    """``You double. Please wait ...`` / ``<player> doubles. Type 'accept' or 'reject'.``"""

    player: str


@dataclass(frozen=True, slots=True)
class DoubleAccepted(Event):
    """``<player> accepts the double. The cube shows <n>.``; watchers get no value (None)."""

    player: str
    cube: int | None


@dataclass(frozen=True, slots=True)
class Redoubles(Event):
    """``<player> redoubles to <n>. ...`` (unlimited matches with instant redoubles)."""

    player: str
    cube: int


@dataclass(frozen=True, slots=True)
class AcceptAndRedouble(Event):
    """``You accept the double to <n> and redouble.``"""

    cube: int


@dataclass(frozen=True, slots=True)
class ResignOffer(Event):
    """``<player> wants to resign. <winner> will win <n> points.``; points include the cube."""

    player: str
    winner: str
    points: int


@dataclass(frozen=True, slots=True)
class ResignRejected(Event):
    """``<player> rejects. The game continues.``"""

    player: str


# -- end of game and match ----------------------------------------------------


@dataclass(frozen=True, slots=True)
class GameWon(Event):
    """The game was borne off: ``<winner> wins the game and gets <n> points.``"""

    winner: str
    points: int


@dataclass(frozen=True, slots=True)
class GiveUp(Event):
    """A double was rejected: ``<loser> gives up. <winner> wins <n> points.``"""

    loser: str
    winner: str
    points: int


@dataclass(frozen=True, slots=True)
class ResignAccepted(Event):
    """A resignation was accepted: ``<winner> accepts and wins <n> points.``"""

    winner: str
    points: int


@dataclass(frozen=True, slots=True)
class MatchScore(Event):
    """``score in <n> point match: <p1>-<a> <p2>-<b>``; length 0 = unlimited."""

    length: int
    player1: str
    score1: int
    player2: str
    score2: int


@dataclass(frozen=True, slots=True)
class JoinNextGame(Event):
    """``Type 'join' if you want to play the next game, ...``: send ``join``."""


@dataclass(frozen=True, slots=True)
class WaitingForJoin(Event):
    """``** Please wait for <user> to join too.``"""

    user: str


@dataclass(frozen=True, slots=True)
class MatchWon(Event):
    """``<winner> wins the <n> point match <a>-<b> .`` (winner's score first)."""

    winner: str
    length: int
    score: tuple[int, int]


@dataclass(frozen=True, slots=True)
class ReportMatchStart(Event):
    """``<a> and <b> start a <n> point match.`` (toggle report); 0 = unlimited."""

    player1: str
    player2: str
    length: int


@dataclass(frozen=True, slots=True)
class ReportMatchResume(Event):
    """``<a> and <b> are resuming their <n>-point match.``"""

    player1: str
    player2: str
    length: int


@dataclass(frozen=True, slots=True)
class ReportMatchWin(Event):
    """``<w> wins a <n> point match against <l>  <a>-<b> .``"""

    winner: str
    loser: str
    length: int
    score: tuple[int, int]


@dataclass(frozen=True, slots=True)
class LeftGame(Event):
    """``<player> has left the game with <opponent>.`` (report line)."""

    player: str
    opponent: str


SaveReason = Literal["leave", "logout", "drop", "timeout"]


@dataclass(frozen=True, slots=True)
class GameSaved(Event):
    """An unfinished match was saved because ``player`` left, logged out, dropped or timed out."""

    player: str
    reason: SaveReason


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


@dataclass(frozen=True, slots=True)
class Board(Event):
    """A ``board:`` line (boardstyle 3); decode it with :func:`bot.fibsboard.parse`."""

    line: str


# -- parsing ------------------------------------------------------------------

Builder = Callable[[re.Match[str]], Event]

_D = r"\d{1,15}"  # bounded: int() of a huge digit run would raise
_STEP = r"(?:bar|\d{1,2})-(?:off|\d{1,2})"
_STEPS = rf"((?: +{_STEP})*) *\.?"
_N = rf"({_D})"
_LEN = rf"an? (?:({_D}) point|unlimited) match"  # group: length or None (unlimited)
_PTS = rf"({_D}) points?\."


def _steps(text: str) -> Steps:
    return tuple((a, b) for a, b in (token.split("-") for token in text.split()))


def _steps_text(steps: Steps) -> str:
    return " ".join(f"{a}-{b}" for a, b in steps)


def _length(text: str | None) -> int:
    """A match length group; None when the text said ``unlimited``."""
    return int(text) if text else 0


def _bool(text: str) -> bool:
    return text in ("1", "YES")


def _opt(text: str) -> str | None:
    return None if text == "-" else text


_B = r"([01])"


def _own_info(m: re.Match[str]) -> OwnInfo:
    b = [_bool(m[i]) for i in range(21)]
    return OwnInfo(
        name=m[1], allowpip=b[2], autoboard=b[3], autodouble=b[4], automove=b[5], away=b[6], bell=b[7],
        crawford=b[8], double=b[9], experience=int(m[10]), greedy=b[11], moreboards=b[12], moves=b[13],
        notify=b[14], rating=float(m[15]), ratings=b[16], ready=b[17],
        redoubles=None if m[18] == "unlimited" else int(m[18]), report=b[19], silent=b[20], timezone=m[21])


# Numbered CLIP lines, keyed by their code.
_CLIP: dict[str, tuple[re.Pattern[str], Builder]] = {
    code: (re.compile(pattern), builder) for code, pattern, builder in [
        ("1", r"1 (\S+) (-?\d{1,15}) (\S+)", lambda m: Welcome(m[1], int(m[2]), m[3])),
        ("2", rf"2 (\S+) {_B} {_B} {_B} {_B} {_B} {_B} {_B} {_B} ({_D}) {_B} {_B} {_B} {_B} "
              rf"(-?{_D}(?:\.{_D})?) {_B} {_B} ({_D}|unlimited) {_B} {_B} (\S+)",
         lambda m: _own_info(m)),
        ("3", r"3", lambda m: MotdStart()),
        ("4", r"4", lambda m: MotdEnd()),
        ("5", r"5 (\S+) (\S+) (\S+) ([01]) ([01]) (-?\d{1,15}(?:\.\d{1,15})?) (\d{1,15}) (\d{1,15}) (\d{1,15}) (\S+) (\S+) (.+)",
         lambda m: WhoInfo(m[1], _opt(m[2]), _opt(m[3]), _bool(m[4]), _bool(m[5]), float(m[6]), int(m[7]),
                           int(m[8]), int(m[9]), m[10], _opt(m[11]), _opt(m[12]))),
        ("6", r"6", lambda m: WhoEnd()),
        ("7", r"7 (\S+) (.*)", lambda m: UserLogin(m[1], m[2])),
        ("8", r"8 (\S+) (.*)", lambda m: UserLogout(m[1], m[2])),
        ("9", r"9 (\S+) (-?\d{1,15}) (.*)", lambda m: StoredMessage(m[1], int(m[2]), m[3])),
        ("10", r"10 (\S+)", lambda m: MessageDelivered(m[1])),
        ("11", r"11 (\S+)", lambda m: MessageSaved(m[1])),
        ("12", r"12 (\S+)(?: (.*))?", lambda m: Says(m[1], m[2] or "")),
        ("13", r"13 (\S+)(?: (.*))?", lambda m: Shouts(m[1], m[2] or "")),
        ("14", r"14 (\S+)(?: (.*))?", lambda m: Whispers(m[1], m[2] or "")),
        ("15", r"15 (\S+)(?: (.*))?", lambda m: Kibitzes(m[1], m[2] or "")),
        ("16", r"16 (\S+)(?: (.*))?", lambda m: YouSay(m[1], m[2] or "")),
        ("17", r"17(?: (.*))?", lambda m: YouShout(m[1] or "")),
        ("18", r"18(?: (.*))?", lambda m: YouWhisper(m[1] or "")),
        ("19", r"19(?: (.*))?", lambda m: YouKibitz(m[1] or "")),
        ("20", r"20 (\S+)(?: (.*))?", lambda m: Alert(m[1], m[2] or "")),
    ]
}

# ``** `` notices that report a changed toggle.
_TOGGLED: dict[str, tuple[str, bool]] = {
    "You're now ready to invite or join someone.": ("ready", True),
    "You're now refusing to play with someone.": ("ready", False),
    "You'll be notified when new users log in.": ("notify", True),
    "You won't be notified when new users log in.": ("notify", False),
    "The board will be refreshed after every move.": ("autoboard", True),
    "The board won't be refreshed after every move.": ("autoboard", False),
    "Will send rawboards after rolling.": ("moreboards", True),
    "Won't send rawboards after rolling.": ("moreboards", False),
}

_RATING_CALC = (
    r"rating calculation:|rating difference D=|match length +N=|Experience: \S+ \d{1,15} - \S+ \d{1,15}$"
    r"|Probability that underdog wins: |P=\S+ is 1-Pu if underdog wins|K=max\(1 , -Experience/100\+5\) for "
    r"|change for \S+: "
)

# Text messages, tried in order (specific ``** `` lines before the generic Error).
_TEXT_RULES: list[tuple[str, Builder]] = [
    # game flow, most frequent first
    (rf"(\S+) moves{_STEPS}", lambda m: Moves(m[1], _steps(m[2]))),
    (r"You roll (\d) and (\d)\.", lambda m: Roll(YOU, (int(m[1]), int(m[2])))),
    (r"(\S+) rolls (\d) and (\d)\.", lambda m: Roll(m[1], (int(m[2]), int(m[3])))),
    (r"Please move (\d) pieces?\.", lambda m: PleaseMove(int(m[1]))),
    (r"It's your turn(?:\. Please roll or double| to roll or double)\.?", lambda m: YourTurn()),
    (r"(\S+) can't move\.", lambda m: CantMove(m[1])),
    (rf"The only possible move is{_STEPS}", lambda m: OnlyMove(_steps(m[1]))),
    (r"Bear(?:ing)? off:(?: (.*))?", lambda m: BearingOff(m[1] or "")),
    (r"Starting a new game with (\S+)\.", lambda m: GameStart(m[1])),
    (r"(\S+) rolled (\d), (\S+) rolled (\d)\.?", lambda m: OpeningRoll(m[1], int(m[2]), m[3], int(m[4]))),
    (r"It's your turn to move\.", lambda m: FirstMove(YOU)),
    (r"(\S+) makes the first move\.", lambda m: FirstMove(m[1])),
    (rf"The number on the doubling cube is now {_N}\.?", lambda m: AutoDouble(int(m[1]))),
    # cube and resignation
    (r"You double\. Please wait for \S+ to accept(?: or reject|, reject or redouble)\.", lambda m: Doubles(YOU)),
    (r"(\S+) doubles\.(?: Type 'accept' or 'reject'\.)?", lambda m: Doubles(m[1])),
    (rf"You accept the (?:re)?double\.\s+The cube shows {_N}\.", lambda m: DoubleAccepted(YOU, int(m[1]))),
    (rf"(\S+) accepts the double\.(?:\s+The cube shows {_N}\.)?",
     lambda m: DoubleAccepted(m[1], int(m[2]) if m[2] else None)),
    (rf"(\S+) redoubles to {_N}\. Type 'accept', 'reject' or 'redouble'\.", lambda m: Redoubles(m[1], int(m[2]))),
    (rf"You accept the double to {_N} and redouble\.", lambda m: AcceptAndRedouble(int(m[1]))),
    (rf"(\S+) wants to resign\. (\S+) will win {_PTS}(?: Type 'accept' or 'reject'\.)?",
     lambda m: ResignOffer(m[1], m[2], int(m[3]))),
    (rf"You want to resign\. (\S+) will win {_PTS}", lambda m: ResignOffer(YOU, m[1], int(m[2]))),
    (r"(\S+) rejects?\. The game continues\.", lambda m: ResignRejected(m[1])),
    # end of game and match
    (rf"You win the game and get {_PTS} Congratulations!", lambda m: GameWon(YOU, int(m[1]))),
    (rf"(\S+) wins the game and gets {_PTS}(?: Sorry\.)?", lambda m: GameWon(m[1], int(m[2]))),
    # "win" after a third person appears in Gibbon's data
    (rf"(\S+) gives? up\. (\S+) wins? {_PTS}", lambda m: GiveUp(m[1], m[2], int(m[3]))),
    (rf"(\S+) accepts? and wins? {_PTS}", lambda m: ResignAccepted(m[1], int(m[2]))),
    (r"score in (?:(\d{1,15}) point|unlimited) match: (\S+)-(\d{1,15}) (\S+)-(\d{1,15})",
     lambda m: MatchScore(_length(m[1]), m[2], int(m[3]), m[4], int(m[5]))),
    (r"Type 'join' if you want to play the next game, type 'leave' if you don't\.", lambda m: JoinNextGame()),
    (r"\*\* Please wait for (\S+) to join too\.", lambda m: WaitingForJoin(m[1])),
    (r"You win the (\d{1,15}) point match (\d{1,15})-(\d{1,15}) ?\.", lambda m: MatchWon(YOU, int(m[1]), (int(m[2]), int(m[3])))),
    (r"(\S+) wins the (\d{1,15}) point match (\d{1,15})-(\d{1,15}) ?\.",
     lambda m: MatchWon(m[1], int(m[2]), (int(m[3]), int(m[4])))),
    # interruptions
    (r"\*\* You terminated the game\. The game was saved\.", lambda m: GameSaved(YOU, "leave")),
    (r"\*\* (?:Player )?(\S+) (?:has left|terminated) the game\. The game was saved\.",
     lambda m: GameSaved(m[1], "leave")),
    (r"(\S+) logs out\. The game was saved\.", lambda m: GameSaved(m[1], "logout")),
    (r"(\S+) drops connection\. The game was saved\.", lambda m: GameSaved(m[1], "drop")),
    (r"Connection with (\S+) timed out\. The game was saved\.", lambda m: GameSaved(m[1], "timeout")),
    (r"Your game with \S+ was saved\.", lambda m: GameSaved(YOU, "logout")),
    (r"Connection timed out\.", lambda m: ConnectionTimedOut()),
    # invitations and joining
    (rf"(\S+) wants to play {_LEN} with you\.", lambda m: Invitation(m[1], _length(m[2]))),
    (r"(\S+) wants to resume a saved match with you\.", lambda m: Invitation(m[1], None)),
    (r"Type 'join (\S+)' to accept\.", lambda m: JoinHint(m[1])),
    (r"(?:\*\* )?WARNING: Don't accept if you want to continue the saved (?:(\d{1,15}) point|unlimited) match!",
     lambda m: SavedMatchWarning(_length(m[1]))),
    (rf"\*\* You invited (\S+) to (?:{_LEN}|(resume) a saved match)\.",
     lambda m: InviteSent(m[1], None if m[3] else _length(m[2]))),
    (rf"\*\* You are now playing {_LEN} with (\S+)", lambda m: NewMatch(m[2], _length(m[1]))),
    (rf"(?:\*\* )?Player (\S+) has joined you for {_LEN}\.", lambda m: NewMatch(m[1], _length(m[2]))),
    (r"You are now playing with (\S+)\. Your running match was loaded\.", lambda m: MatchResumed(m[1])),
    (r"(\S+) has joined you\. Your running match was loaded\.", lambda m: MatchResumed(m[1])),
    (r"turn: (\S+?)\.?", lambda m: ResumeTurn(m[1])),
    (r"match length: (\d{1,15})", lambda m: ResumeLength(int(m[1]))),
    (r"unlimited match(?:length)?", lambda m: ResumeLength(0)),
    (r"points for (?:user )?(\S+): (\d{1,15})", lambda m: ResumePoints(m[1], int(m[2]))),
    # report lines about other matches
    (rf"(\S+) and (\S+) start {_LEN}\.", lambda m: ReportMatchStart(m[1], m[2], _length(m[3]))),
    (r"(\S+) and (\S+) are resuming their (?:(\d{1,15})-point|unlimited) match\.",
     lambda m: ReportMatchResume(m[1], m[2], _length(m[3]))),
    (r"(\S+) wins an? (\d{1,15}) point match against (\S+)\s+(\d{1,15})-(\d{1,15}) ?\.",
     lambda m: ReportMatchWin(m[1], m[3], int(m[2]), (int(m[4]), int(m[5])))),
    (r"(\S+) has left the game with (\S+)\.", lambda m: LeftGame(m[1], m[2])),
    # login
    (r"login:", lambda m: LoginPrompt()),
    (r"Please give your password:", lambda m: PasswordPrompt()),
    (r"\*\* Warning: You are already logged in\.", lambda m: AlreadyLoggedIn()),
    # watching
    (r"You're now watching (\S+)\.", lambda m: Watching(m[1])),
    (r"You stop watching (\S+)\.", lambda m: StopWatching(m[1])),
    (r"(\S+) logs out\.\. You're not watching anymore\.", lambda m: StopWatching(m[1])),
    (r"(\S+) bans you from watching\.", lambda m: StopWatching(m[1])),
    (r"(\S+) is not doing anything interesting\.", lambda m: WatchIdle(m[1])),
    (r"(\S+) is watching you\.", lambda m: Watcher(m[1], YOU, True)),
    (r"(\S+) stops watching you\.", lambda m: Watcher(m[1], YOU, False)),
    (r"(\S+) (starts|stops) watching (\S+)\.", lambda m: Watcher(m[1], m[3], m[2] == "starts")),
    # away, chat replies, misc
    (r"You're away\. Please type 'back'", lambda m: AwayReminder()),
    (r"Welcome back\.", lambda m: WelcomeBack()),
    (r"The following users are away:", lambda m: AwayList(True)),
    (r"None of the users is away\.", lambda m: AwayList(False)),
    (r"(\S+) is away: (.*)", lambda m: UserAway(m[1], m[2])),
    (r"\*\* (?:(\d{1,15}) users?|But nobody) heard you\.", lambda m: Heard(int(m[1] or 0))),
    (r"You say to yourself: (.*)", lambda m: YouSay(YOU, m[1])),
    (r"You wave goodbye( again and log out)?\.", lambda m: Waves(YOU, bool(m[1]))),
    (r"(\S+) waves goodbye( again)?\.", lambda m: Waves(m[1], bool(m[2]))),
    (r"Pipcounts: You (\d{1,15})\s+(\S+) (\d{1,15})", lambda m: Pipcounts(int(m[1]), m[2], int(m[3]))),
    (r"Your game was saved in the panic file\.", lambda m: PanicSaved()),
    (r"There are messages for you:", lambda m: MessagesFollow()),
    (r"Your email address is '(\S*)'\.", lambda m: AddressSet(m[1])),
    # whois
    (r"Information about (\S+):", lambda m: WhoisHeader(m[1])),
    (r"  Last login:\s+(.*?) from (\S+)", lambda m: WhoisLogin(m[1], m[2])),
    (r"  Last logout:\s+(.*)", lambda m: WhoisLogout(m[1])),
    (r"  Still logged in\. (.*) idle\.", lambda m: WhoisPresence(True, m[1])),
    (r"  Not logged in right now\.", lambda m: WhoisPresence(False, None)),
    (r"  Rating: (-?\d{1,15}(?:\.\d{1,15})?) Experience: (\d{1,15})", lambda m: WhoisRating(float(m[1]), int(m[2]))),
    (r"  No email address\.", lambda m: WhoisEmail(None)),
    (r"  Email address: (\S+)", lambda m: WhoisEmail(m[1])),
    (r"  (\S+) is away: (.*)", lambda m: WhoisAway(m[1], m[2])),
    (r"  (\S+) is (.*)\.", lambda m: WhoisStatus(m[1], m[2])),
    (r"No information found on user (\S+)\.", lambda m: WhoisNotFound(m[1])),
    # saved matches, games list
    (r"  opponent\s+matchlength\s+score \(your points first\)", lambda m: SavedHeader()),
    (r"( \*|\*\*|  )(\S+)\s+(\d{1,15}|unlimited)\s+(\d{1,15})\s*-\s*(\d{1,15})",
     lambda m: SavedMatch(m[2], 0 if m[3] == "unlimited" else int(m[3]), (int(m[4]), int(m[5])), m[1] != "  ")),
    (r"no saved games\.", lambda m: NoSavedGames()),
    (r"(\S+) has (no|\d{1,15}) saved games?\.", lambda m: SavedCount(m[1], 0 if m[2] == "no" else int(m[2]))),
    (r"List of games:", lambda m: GamesHeader()),
    (r"(\S+) - (\S+) \((?:(\d{1,15}) point|unlimited) match (\d{1,15})-(\d{1,15})\)",
     lambda m: GameListing(m[1], m[2], _length(m[3]), (int(m[4]), int(m[5])))),
    # toggles and settings
    (r"The current settings are:", lambda m: ToggleHeader()),
    (r"([a-z]+)\s+(YES|NO)", lambda m: ToggleValue(m[1], _bool(m[2]))),
    (r"Settings of variables:", lambda m: SettingsHeader()),
    (r"(boardstyle|linelength|pagelength|redoubles|sortwho|timezone):\s*(.*)", lambda m: SettingValue(m[1], m[2])),
    (r"Value of '(\w+)' set to (.*)\.", lambda m: SettingChanged(m[1], m[2])),
    # oldmoves, ratings
    (r"Score is (\d{1,15})-(\d{1,15}) in (?:a (\d{1,15}) point|an unlimited) match\.",
     lambda m: OldmovesScore((int(m[1]), int(m[2])), _length(m[3]))),
    (r"\s*(\S+) is X - (\S+) is O", lambda m: OldmovesPlayers(m[1], m[2])),
    (r"([XO]): (?:\((\d) (\d)\) )?(.+)",
     lambda m: OldmovesLine("X" if m[1] == "X" else "O", (int(m[2]), int(m[3])) if m[2] else None, m[4])),
    (rf"(?:{_RATING_CALC}).*", lambda m: RatingCalculation(m[0])),
    (r" rank name\s+rating\s+Experience", lambda m: RatingsHeader()),
    (r"\s*(\d{1,15}) (\S+)\s+(-?\d{1,15}\.\d{1,15})\s+(\d{1,15})", lambda m: RatingsRow(int(m[1]), m[2], float(m[3]), int(m[4]))),
    # last: any other server notice or error
    (r"\*\* (.*)", lambda m: _stars(m[1])),
]
_COMPILED = [(re.compile(pattern), builder) for pattern, builder in _TEXT_RULES]


def _stars(text: str) -> Event:
    toggled = _TOGGLED.get(text)
    return Toggled(*toggled) if toggled else Error(text)


_BELLS = re.compile(r"\x07")


def clean(line: str) -> str:
    """Drop BEL characters, the line end and trailing blanks (telnet commands never reach
    us: telnetlib3, the transport, takes them out of the stream).

    >>> clean("bob says hi\\x07  \\r\\n")
    'bob says hi'
    """
    return _BELLS.sub("", line).rstrip()


_MAX_TEXT_LINE = 4096
"""Server sentences are short; only chat (CLIP 12-20, matched by code) may be longer."""


def _parse_one(line: str) -> Event:
    if not line:
        return Blank()
    if line.startswith("board:"):
        return Board(line)
    code, _, _ = line.partition(" ")
    clip = _CLIP.get(code)
    if clip:
        m = clip[0].fullmatch(line)
        if m:
            return clip[1](m)
    if len(line) > _MAX_TEXT_LINE:
        return Unknown(line)  # longer than any server sentence: the text rules would only cost time
    for pattern, builder in _COMPILED:
        m = pattern.fullmatch(line)
        if m:
            return builder(m)
    return Unknown(line)


_CUBE_GLUE = re.compile(r".*? The cube shows \d{1,15}\.")
_SCORE_GLUE = re.compile(r".+?[.!](?=Score is \d{1,15}-\d{1,15} in )")
_GLUE_HEAD = 200
"""The messages that others get glued to are short: only this many characters are searched."""
_DIGITS = re.compile(r"\d+")
_CLIP_CODE = re.compile(r"[1-9]\d? |[1-9]\d?$")
_BOARD_FIELDS = re.compile(r"board(?::[^:]*){51}:")
_KNOWN_HEAD = 256
"""Whether the rest after a board is a known message is judged on this many characters."""
_MAX_REDOUBLE_DIGITS = 5  # the redoubles field (clip-spec 5.1) is a small number


def _glued_head(line: str, start: int) -> tuple[int, Event] | None:
    """The end and event of the first message of ``line[start:]`` if more follows glued to it.

    Linear in the message, not in the line: a board's end is found by counting its
    colons, the other glued messages are looked for in a bounded head."""
    if line.startswith("board:", start):
        fields = _BOARD_FIELDS.match(line, start)  # up to the colon before the last field
        if not fields:
            return None
        colon = fields.end() - 1
        digits = _DIGITS.match(line, colon + 1)
        if not digits or digits.end() == len(line):
            return None
        # The redoubles field is a small integer, but the glued message may start
        # with digits too ("05 bob ..." = redoubles 0 + CLIP 5): take the shortest
        # split whose rest is a known message.
        # Only a CLIP message starts with digits, so only a cut before a CLIP code is parsed.
        cut = next((cut for cut in range(colon + 2, min(digits.end() - 1, colon + 1 + _MAX_REDOUBLE_DIGITS) + 1)
                    if _CLIP_CODE.match(line, cut)
                    and not isinstance(_parse_one(line[cut:cut + _KNOWN_HEAD]), Unknown)), digits.end())
        return cut, Board(line[start:cut])
    head = line[start:start + _GLUE_HEAD]
    m = _CUBE_GLUE.match(head)
    if m and m.end() < len(line) - start and isinstance(event := _parse_one(m[0]), DoubleAccepted):
        return start + m.end(), event
    # With toggle moves on, the move list is glued to the game-end line.
    m = _SCORE_GLUE.match(head)
    if m and isinstance(event := _parse_one(m[0]), (GameWon, GiveUp, ResignAccepted)):
        return start + m.end(), event
    return None


def parse_all(line: str) -> list[Event]:
    """Every message in one received line (more than one only when glued); linear time.

    >>> parse_all("board:You:bob:3:0:0:0:-2:0:0:0:0:5:0:3:0:0:0:-5:5:0:0:0:-3:0:-5:0:0:0:0:2:0:1:6:2:0:0"
    ...           ":1:1:1:0:1:-1:0:25:0:0:0:0:2:0:0:012 bob hi")[1]
    Says(name='bob', text='hi')
    """
    events: list[Event] = []
    line = clean(line)
    start = 0
    while (glued := _glued_head(line, start)) is not None:
        start, event = glued
        events.append(event)
    events.append(_parse_one(line[start:] if start else line))
    return events


def parse(line: str) -> Event:
    """The event of one server line; never raises.

    A glued line gives the event of its first message (see :func:`parse_all`).

    >>> parse("5 bob - - 1 0 1612.40 320 5 1041253132 host.example MyClient -")  # doctest: +NORMALIZE_WHITESPACE
    WhoInfo(name='bob', opponent=None, watching=None, ready=True, away=False, rating=1612.4,
            experience=320, idle_s=5, login_time=1041253132, host='host.example',
            client='MyClient', email=None)
    >>> parse("You win the game and get 1 point. Congratulations!")
    GameWon(winner='You', points=1)
    >>> parse("** You can't move from 7 in your first move.")
    Error(text="You can't move from 7 in your first move.")
    """
    return parse_all(line)[0]


_LINE_END = re.compile(rb"\r\n|\r\x00|\r|\n")


class LineSplitter:
    """Cuts the server's byte stream into lines, in time linear in the bytes.

    CR LF, CR and LF each end a line (also when CR LF is split between
    chunks); a pending unterminated buffer that is exactly one of ``prompts``
    is returned as a line of its own. Lines are decoded as UTF-8, or as
    latin-1 where they are not UTF-8.

    >>> s = LineSplitter()
    >>> s.feed(b"First Internet Backgammon Server\\r\\n\\r\\nlogin: ")
    ['First Internet Backgammon Server', '', 'login: ']
    >>> s.feed(b"1 bob 1041253132 host\\r\\n2 bo"), s.feed(b"b 1 1\\r"), s.feed(b"\\n3\\r")
    (['1 bob 1041253132 host'], ['2 bob 1 1'], ['3'])
    """

    PROMPTS = ("login: ", "Please give your password: ")
    MAX_LINE = 1 << 16
    """A longer unterminated buffer is cut into a line (the server never sends one)."""

    def __init__(self, prompts: Sequence[str] = PROMPTS) -> None:
        self._prompts = tuple(p.encode("ascii") for p in prompts)
        self._buffer = bytearray()
        self._after_cr = False

    def feed(self, data: bytes) -> list[str]:
        """Add received bytes; return the lines (and prompts) now complete."""
        if self._after_cr and data[:1] in (b"\n", b"\x00"):
            data = data[1:]  # the rest of a CR LF (or telnet's CR NUL) cut between two reads
        self._after_cr = data.endswith(b"\r")
        lines = []
        start = 0
        for end in _LINE_END.finditer(data):
            self._buffer += data[start:end.start()]
            lines.append(self._take())
            start = end.end()
        self._buffer += data[start:]
        if len(self._buffer) > self.MAX_LINE:
            log.warning("a line of over %d bytes without a line end: cut", self.MAX_LINE)
            lines.append(self._take())
        elif len(self._buffer) < 40 and bytes(self._buffer) in self._prompts:
            lines.append(self._take())
        return lines

    def flush(self) -> list[str]:
        """At end of stream: the unterminated rest, if any."""
        self._after_cr = False
        return [self._take()] if self._buffer else []

    def _take(self) -> str:
        line, self._buffer = bytes(self._buffer), bytearray()
        try:
            return line.decode("utf-8")
        except UnicodeDecodeError:
            return line.decode("latin-1")


def event_counts(lines: Iterable[str]) -> Counter[str]:
    """How many events of each type the lines give (``Unknown`` included)."""
    return Counter(type(event).__name__ for line in lines for event in parse_all(line))


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bot.clip", description="Classify FIBS server lines.")
    parser.add_argument("--stats", metavar="FILE", nargs="+", required=True,
                        help="print the number of events of each type in FILE (raw server output)")
    parser.add_argument("--unknown", action="store_true", help="also print the Unknown lines")
    args = parser.parse_args(argv)
    lines: list[str] = []
    for name in args.stats:
        splitter = LineSplitter(prompts=())
        with open(name, "rb") as stream:
            lines += splitter.feed(stream.read()) + splitter.flush()
    counts = event_counts(lines)
    for name, count in sorted(counts.items(), key=lambda item: (-item[1], item[0])):
        print(f"{count:7d} {name}")
    print(f"{sum(counts.values()):7d} events from {len(lines)} lines, {counts['Unknown']} Unknown")
    if args.unknown:
        for line in lines:
            for event in parse_all(line):
                if isinstance(event, Unknown):
                    print(f"Unknown: {event.line}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
