"""One received line -> its events: BEL and blanks cleaned off, glued messages split.

A message can arrive stuck to the end of a ``board:`` line or of ``... The cube shows n.``;
:func:`parse_all` splits such a line, :func:`parse` returns the event of the first message only,
so a reader of the live stream should call :func:`parse_all`. Nothing here raises on server input.

>>> parse("GammonBot_VII rolls 3 and 1.")
Roll(player='GammonBot_VII', dice=(3, 1))
>>> parse("You accept the double.  The cube shows 2.")
DoubleAccepted(player='You', cube=2)
>>> parse("marvin wants to play a 5 point match with you.\\a")
Invitation(user='marvin', length=5)
>>> parse("something new")
Unknown(line='something new')
>>> parse_all("someone accepts the double. The cube shows 2.13 bob Anybody?")
[DoubleAccepted(player='someone', cube=2), Shouts(name='bob', text='Anybody?')]
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from bot.clip.event import Event, Unknown
from bot.clip.play import Board, DoubleAccepted, GameWon, GiveUp, ResignAccepted
from bot.clip.rules import Rule, parse_one

_BELLS = re.compile(r"\x07")


def clean(line: str) -> str:
    """Drop BEL characters, the line end and trailing blanks (telnet commands never reach
    us: telnetlib3, the transport, takes them out of the stream).

    >>> clean("bob says hi\\x07  \\r\\n")
    'bob says hi'
    """
    return _BELLS.sub("", line).rstrip()


_CUBE_GLUE = re.compile(r".*? The cube shows \d{1,15}\.")
_SCORE_GLUE = re.compile(r".+?[.!](?=Score is \d{1,15}-\d{1,15} in )")
_GLUE_HEAD = 200
"""The messages that others get glued to are short: only this many characters are searched."""
_DIGITS = re.compile(r"\d+")
_CLIP_CODE = re.compile(r"[1-9]\d? |[1-9]\d?$")
_BOARD_FIELDS = re.compile(r"board(?::[^:]*){51}:")
_KNOWN_HEAD = 256
"""Whether the rest after a board is a known message is judged on this many characters."""
_MAX_REDOUBLE_DIGITS = 5  # the redoubles field (the board line's last) is a small number


def _glued_head(line: str, start: int, first: Sequence[Rule] = ()) -> tuple[int, Event] | None:
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
                    and not isinstance(parse_one(line[cut:cut + _KNOWN_HEAD], first), Unknown)), digits.end())
        return cut, Board(line[start:cut])
    head = line[start:start + _GLUE_HEAD]
    m = _CUBE_GLUE.match(head)
    if m and m.end() < len(line) - start and isinstance(event := parse_one(m[0]), DoubleAccepted):
        return start + m.end(), event
    # With toggle moves on, the move list is glued to the game-end line.
    m = _SCORE_GLUE.match(head)
    if m and isinstance(event := parse_one(m[0]), (GameWon, GiveUp, ResignAccepted)):
        return start + m.end(), event
    return None


def parse_all(line: str, first: Sequence[Rule] = ()) -> list[Event]:
    """Every message in one received line (more than one only when glued); linear time.
    ``first``: a dialect's own rules (:mod:`bot.clip.dialect`), tried before the shared ones.

    >>> parse_all("board:You:bob:3:0:0:0:-2:0:0:0:0:5:0:3:0:0:0:-5:5:0:0:0:-3:0:-5:0:0:0:0:2:0:1:6:2:0:0"
    ...           ":1:1:1:0:1:-1:0:25:0:0:0:0:2:0:0:012 bob hi")[1]
    Says(name='bob', text='hi')
    """
    events: list[Event] = []
    line = clean(line)
    start = 0
    while (glued := _glued_head(line, start, first)) is not None:
        start, event = glued
        events.append(event)
    events.append(parse_one(line[start:] if start else line, first))
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
    MoveRefused(text="You can't move from 7 in your first move.")
    """
    return parse_all(line)[0]
