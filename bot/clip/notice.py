"""``**`` notices the bot reacts to, typed: refusals of a game command, "not now" answers to an
invitation or a join, a missing user or saved match. Every one is an :class:`~bot.clip.info.Error`
(a subclass), so code that only cares that the server said no still sees an ``Error``; the player
matches on the subclass, never on the text. The wording rules that build them live in
:data:`NOTICE_RULES`, shared by every dialect (a dialect may add its own first).

>>> from bot.clip import parse
>>> parse("** You can't move from 7 in your first move.")
MoveRefused(text="You can't move from 7 in your first move.")
>>> parse("** bob is refusing games.")
Busy(text='bob is refusing games.', user='bob')
>>> parse("** There's no saved match with bob. Please give a match length.")
NoSavedMatch(text="There's no saved match with bob. Please give a match length.", user='bob')
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from bot.clip.event import Event
from bot.clip.info import Error


@dataclass(frozen=True, slots=True)
class GameError(Error):
    """A ``**`` answer that speaks of the game (a move, the dice, the cube ...) but is none of
    the kinds below: whatever we did, the server did not take it."""


@dataclass(frozen=True, slots=True)
class MoveRefused(GameError):
    """Our move was refused: ``You can't move from 7 ...``, ``You must give 2 moves.``."""


@dataclass(frozen=True, slots=True)
class NotYourTurn(GameError):
    """``It's not your turn to move.`` / ``... to roll the dice.`` / ``... to double``."""


@dataclass(frozen=True, slots=True)
class ResignPending(GameError):
    """``<user> wanted to resign. Type 'accept' or 'reject'.``: an offer still waits for our answer."""

    user: str


@dataclass(frozen=True, slots=True)
class NotPlaying(Error):
    """``You're not playing.``: the match we believe in is not running."""


@dataclass(frozen=True, slots=True)
class Busy(Error):
    """An invitation or a join answered "not now": the user is playing, away, refusing games,
    not ready or watching; we are playing already; nobody invited us. ``user`` when named."""

    user: str | None


@dataclass(frozen=True, slots=True)
class NoSuchUser(Error):
    """``There is no one called <user>``: not logged in."""

    user: str


@dataclass(frozen=True, slots=True)
class NoSavedMatch(Error):
    """``There's no saved match with <user>.``: a resume invitation the server cannot honour."""

    user: str | None


@dataclass(frozen=True, slots=True)
class UnknownCommand(Error):
    """``Unknown command: 'kibitz'``: this server lacks the command."""

    command: str


NoticeBuilder = Callable[[re.Match[str]], Event]

_NAME = r"(?:Player )?(\S+?)"
_GAME_WORDS = re.compile(r"\b(?:move|moves|roll|rolled|dice|double|doubles|redouble|accept|reject|resign|turn|"
                         r"cube|game|board|playing|pieces?|checkers?|bar|command|give)\b", re.IGNORECASE)

NOTICE_RULES: list[tuple[str, NoticeBuilder]] = [
    # refusals of our move
    ((r"(?:.*\W)?(?:You (?:can't move|must give|have to remove|can't remove|can't bear off)\b"
      r"|Please don't give more|move: legal words).*"), lambda m: MoveRefused(m[0])),
    (r"It's not your turn\b.*|Please wait until \S+ has moved\.?", lambda m: NotYourTurn(m[0])),
    (r"(\S+) wanted to resign\..*", lambda m: ResignPending(m[0], m[1])),
    (r"You're not playing\b.*", lambda m: NotPlaying(m[0])),
    # the answers to an invitation or a join that say "not now"
    ((rf"(?:Error: )?{_NAME} (?:is already playing(?: with someone else)?|is refusing games|is not ready"
     r"|isn't ready|is away|is watching|didn't invite you|isn't logged in|is not logged in)\b.*"),
     lambda m: Busy(m[0], m[1])),
    (r"You (?:can't play two games at once|are already playing)\b.*", lambda m: Busy(m[0], None)),
    (r"(?:There is|There's) no one called (\S+?)\.?|Error: can't find player (\S+?)\.?|Don't know user (\S+?)\.",
     lambda m: NoSuchUser(m[0], m[1] or m[2] or m[3])),
    ((r"There(?:'s| is) no saved (?:match|game) with (\S+?)\..*|(?:You have )?no saved (?:match|game)"
     r"(?:es|s)? with (\S+?)\.?"), lambda m: NoSavedMatch(m[0], m[1] or m[2])),
    (r"(?i:unknown command|invalid command|no such command)[:,]? '?([A-Za-z]+)'?\.?",
     lambda m: UnknownCommand(m[0], m[1].lower())),
    (r"(?:ERROR: )?Saved match is corrupt\..*", lambda m: NoSavedMatch(m[0], None)),
    # another wording of the same: it speaks of a saved match and says no
    (r"(?=.*\bsaved\b)(?=.*(?:\bno\b|\bnot\b|n't\b)).*", lambda m: NoSavedMatch(m[0], None)),
]


def game_error(text: str) -> Error:
    """A notice no rule names: a :class:`GameError` if it speaks of the game, else an ``Error``."""
    return GameError(text) if _GAME_WORDS.search(text) else Error(text)
