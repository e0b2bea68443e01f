"""Server dialects: what a FIBS clone says differently, one table each, chosen at login.

A :class:`Dialect` is a name, the banner words that tell it (a line the server sends before
login), and its own text rules, tried before the shared table of :mod:`bot.clip.rules`. A
:class:`Parser` starts with :data:`ANY` (every dialect's rules: a server not yet known gets
every wording we know) and narrows to one dialect when a line before login names it.

>>> p = Parser()
>>> p.parse_all("pipcat moves 19-home 20-o .")
[Moves(player='pipcat', steps=(('19', 'off'), ('20', 'off')))]
>>> p.parse_all("The only possible move is 3-h .")
[OnlyMove(steps=(('3', 'off'),))]
>>> p.identify("   JIBS - Java Internet Backgammon Server"), p.dialect.name
(True, 'JIBS')
>>> p.parse_all("** You can't move.")
[CantMove(player='You')]
>>> Parser(FIBS).parse_all("** You can't move.")
[MoveRefused(text="You can't move.")]
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from bot.clip.event import YOU, Event
from bot.clip.glue import parse_all
from bot.clip.play import CantMove, Moves, OnlyMove
from bot.clip.rules import Builder, Rule

_HOME = {"off": "off", "home": "off", "o": "off", "h": "off"}
_STEP = r"(?:bar|b|\d{1,2})-(?:off|home|o|h|\d{1,2})"


def _steps(text: str) -> tuple[tuple[str, str], ...]:
    """Sub-moves with the bear-off written ``off``, the bar ``bar``, whatever word was used."""
    out = []
    for token in text.split():
        a, b = token.split("-")
        out.append(("bar" if a == "b" else a, _HOME.get(b, b)))
    return tuple(out)


def _rules(rules: Sequence[tuple[str, Builder]]) -> tuple[Rule, ...]:
    return tuple((re.compile(pattern), builder) for pattern, builder in rules)


@dataclass(frozen=True)
class Dialect:
    """One server's wordings: ``banner`` finds it in a line before login, ``rules`` are its own."""

    name: str
    banner: re.Pattern[str] | None
    rules: tuple[Rule, ...] = ()


FIBS = Dialect("FIBS", re.compile(r"First Internet Backgammon Server|\bfibs\.com\b", re.IGNORECASE))
LOCAL = Dialect("fibsbot server", re.compile(r"A FIBS-compatible backgammon server"))
"""The local server (:mod:`bot.server`) in its own wording: FIBS's."""

JIBS = Dialect("JIBS", re.compile(r"\bJIBS\b|Java Internet Backgammon Server"), _rules([
    # the dance, in the wordings JIBS uses (one of them looks like FIBS's refusal of a move)
    (r"\*\* You can't move\.?", lambda m: CantMove(YOU)),
    (r"You (?:cannot|can not) move\.?", lambda m: CantMove(YOU)),
    (r"(?:\*\* )?You have no (?:legal|possible) moves?\.?", lambda m: CantMove(YOU)),
    (r"(\S+) (?:cannot|can not) move\.?", lambda m: CantMove(m[1])),
    (r"(\S+) has no (?:legal|possible) moves?\.?", lambda m: CantMove(m[1])),
]))

BALDLIES = Dialect("BaldLies", re.compile(r"\bBaldLies\b", re.IGNORECASE), _rules([
    # a bear-off may be written 19-home (or -off, -o, -h); the bar may be b
    (rf"(\S+) moves((?: +{_STEP})*) *\.?", lambda m: Moves(m[1], _steps(m[2]))),
    (rf"The only possible move is((?: +{_STEP})*) *\.?", lambda m: OnlyMove(_steps(m[1]))),
]))

DIALECTS = (JIBS, BALDLIES, LOCAL, FIBS)
"""The servers told apart at login, in the order their banners are tried."""

ANY = Dialect("any", None, tuple(rule for d in DIALECTS for rule in d.rules))
"""Before the server is known: every dialect's rules."""


def named(name: str) -> Dialect:
    """A dialect by its name (case ignored); ValueError for an unknown one."""
    for dialect in (*DIALECTS, ANY):
        if dialect.name.lower() == name.lower():
            return dialect
    raise ValueError(f"unknown server dialect {name!r} (known: {', '.join(d.name for d in DIALECTS)})")


class Parser:
    """Lines -> events in one server's dialect (:data:`ANY` until :meth:`identify` finds it)."""

    def __init__(self, dialect: Dialect = ANY) -> None:
        self.dialect = dialect

    @property
    def known(self) -> bool:
        return self.dialect is not ANY

    def identify(self, line: str) -> bool:
        """Look at a line the server sent before login; True if it named the server (the
        first one that does decides)."""
        if self.known:
            return False
        for dialect in DIALECTS:
            if dialect.banner is not None and dialect.banner.search(line):
                self.dialect = dialect
                return True
        return False

    def parse_all(self, line: str) -> list[Event]:
        """Every message of one received line, in this dialect."""
        return parse_all(line, self.dialect.rules)
