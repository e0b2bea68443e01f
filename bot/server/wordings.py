"""Other servers' wordings, on purpose: so tests can script what a client meets off FIBS.

Each wording rewrites one kind of line the way another server (or FIBS on
a bad day) says it; ``jibs`` names all of JIBS's
at once. The server speaks FIBS unless told otherwise (``wordings=`` /
``fibsbot server --wording NAME``).

>>> w = Wordings.named(["jibs"])
>>> w.encode("alice moves 24-18 13-11 ."), w.encode("6"), w.encode("board:You:bob:3")
(b'alice moves 24-18 13-11.\\n', b'6 \\n', b'board:You:bob:3\\n')
>>> Wordings.named(["left-terminated"]).encode("** Player bob has left the game. The game was saved.")
b'** Player bob terminated the game. The game was saved.\\r\\n'
>>> Wordings.named(["nonsense"])  # doctest: +ELLIPSIS
Traceback (most recent call last):
...
ValueError: unknown wording 'nonsense' (known: baldlies, baldlies-banner, bare-lf, ...)

``baldlies`` writes bear-offs as BaldLies does, does not roll a turn the player may not
double (the board alone says whose roll it is) and has no ``kibitz``:

>>> Wordings.named(["baldlies"]).encode("bob moves 3-off 2-off .")
b'bob moves 3-home 2-home .\\r\\n'

``glued`` is FIBS's (and JIBS's) old glitch: a ``board:`` line, or one
ending in ``The cube shows <n>.``, goes out without its line end, so the
next line the client gets is glued to it; if nothing
follows at once, the line end comes after all.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable

Replacement = str | Callable[[re.Match[str]], str]

_HOME = re.compile(r"(?<=-)off\b")

REWRITES: dict[str, tuple[re.Pattern[str], Replacement]] = {
    # JIBS omits the blank before the final period of a move line
    "move-no-blank": (re.compile(r"(\S+ moves(?: \S+)*) \."), r"\1."),
    # JIBS prints the match end without the blank before the period
    "match-end-no-blank": (re.compile(r"(\S+ wins the \d+ point match \d+-\d+) \."), r"\1."),
    # JIBS pads the end of the who list: "6 "
    "who-end-blank": (re.compile(r"6"), "6 "),
    # Gibbon's variants of the opponent's leave
    "left-terminated": (re.compile(r"\*\* Player (\S+) has left the game\. (The game was saved\.)"),
                        r"** Player \1 terminated the game. \2"),
    "left-short": (re.compile(r"\*\* Player (\S+) has left the game\. (The game was saved\.)"),
                   r"** \1 terminated the game. \2"),
    # FIBS pads some report lines with blanks
    "padded-report": (re.compile(r"(\S+ wins a \d+ point match against .*)"), r"\1   "),
    # the banner names the server imitated (a client tells the dialect from it)
    "jibs-banner": (re.compile(r"\s*A FIBS-compatible backgammon server for local play"),
                    "      JIBS - Java Internet Backgammon Server (imitated)"),
    "baldlies-banner": (re.compile(r"\s*A FIBS-compatible backgammon server for local play"),
                        "      BaldLies - a FIBS clone (imitated)"),
    # JIBS's dance: the dancer gets a starred line that reads like a refused move
    "jibs-dance": (re.compile(r"You can't move\."), "** You can't move."),
    "jibs-dance-other": (re.compile(r"(\S+) can't move\."), r"\1 cannot move."),
    # BaldLies writes a bear-off as 19-home
    "home-moves": (re.compile(r"\S+ moves .*"), lambda m: _HOME.sub("home", m[0])),
}
BEHAVIOURS = {
    # JIBS: "Starting a new game with X." only after the opening roll and its board
    "late-game-start",
    # BaldLies: a turn on which the player may not double is neither rolled nor prompted;
    # the board alone says it is the player's turn to roll
    "silent-roll",
    # BaldLies has no kibitz: "** Unknown command: 'kibitz'"
    "no-kibitz",
}
GLUED = re.compile(r"board:.*|.* The cube shows \d+\.")
ENDINGS = {
    "bare-lf": b"\n",  # JIBS ends lines with LF alone
    "blank-lines": b"\r\n\r\n",  # the 2020 FIBS capture has empty lines between messages
}
PRESETS = {"jibs": ("move-no-blank", "match-end-no-blank", "who-end-blank", "bare-lf", "jibs-banner",
                    "jibs-dance", "jibs-dance-other", "late-game-start"),
           "baldlies": ("baldlies-banner", "home-moves", "silent-roll", "no-kibitz")}
NAMES = sorted([*REWRITES, *ENDINGS, *PRESETS, *BEHAVIOURS, "glued"])
_GAME_START = re.compile(r"Starting a new game with \S+\.")


class Wordings:
    """The rewrites chosen for one server; ``encode`` turns a line into the bytes sent."""

    def __init__(self, rewrites: Iterable[tuple[re.Pattern[str], Replacement]] = (), ending: bytes = b"\r\n", *,
                 glued: bool = False, behaviours: Iterable[str] = ()) -> None:
        self.rewrites = tuple(rewrites)
        self.ending = ending
        self.glued = glued
        self.behaviours = frozenset(behaviours)

    @classmethod
    def named(cls, names: Iterable[str]) -> Wordings:
        """From wording and preset names; ValueError for an unknown one."""
        chosen: list[str] = []
        for name in names:
            if name not in NAMES:
                raise ValueError(f"unknown wording {name!r} (known: {', '.join(NAMES)})")
            chosen.extend(PRESETS.get(name, (name,)))
        endings = [ENDINGS[n] for n in chosen if n in ENDINGS]
        return cls((REWRITES[n] for n in chosen if n in REWRITES), endings[-1] if endings else b"\r\n",
                   glued="glued" in chosen, behaviours=(n for n in chosen if n in BEHAVIOURS))

    @property
    def missing(self) -> frozenset[str]:
        """The commands this server lacks (answered as unknown)."""
        return frozenset({"kibitz"}) if "no-kibitz" in self.behaviours else frozenset()

    @property
    def silent_roll(self) -> bool:
        return "silent-roll" in self.behaviours

    def held(self, line: str) -> bool:
        """Whether ``line`` waits for the next board (JIBS's late "Starting a new game")."""
        return "late-game-start" in self.behaviours and _GAME_START.fullmatch(line) is not None

    def glues(self, line: str) -> bool:
        """Whether ``line`` goes out without its line end (the ``glued`` wording)."""
        return self.glued and GLUED.fullmatch(line) is not None

    def encode(self, line: str) -> bytes:
        for pattern, replacement in self.rewrites:
            if match := pattern.fullmatch(line):
                line = replacement(match) if callable(replacement) else match.expand(replacement)
        return line.encode("ascii", "replace") + self.ending
