"""gnubg's external-player request lines, parsed into typed requests.

The grammar is gnubg's ``external`` interface (GNU Backgammon manual,
"external" command): a FIBS ``board:`` line with session options, an
``evaluation fibsboard`` request with evaluation options, ``version``,
``help``, ``exit``/``quit`` and ``set debug|interface|prompt``. Keywords are
case-insensitive. A request that does not parse yields :class:`Failure`
carrying gnubg's error text (its parser names internal token kinds, which
clients are expected not to parse beyond ``Error:``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

MAX_INTEGERS = 50  # after the two names: 52 elements in all
MAX_LINE = 254  # characters before the LF that gnubg 1.07 can read

_BOOLS = {"on": True, "yes": True, "true": True, "off": False, "no": False, "false": False}
_SESSION_OPTS = {"jacobyrule", "crawfordrule", "resignation", "beavers"}
_EVAL_OPTS = {"plies", "cube", "cubeful", "cubeless", "prune", "deterministic", "noise"}
_NAME = re.compile(r"[A-Za-z0-9_]+")
_INT = re.compile(r"[-+]?[0-9]+")
_WORD = re.compile(r"[ \t\r]*([^ \t\r]*)")
_BLANK = re.compile(r"[ \t\r]*")
_PLAIN_BOARD = re.compile(r"board:([A-Za-z0-9_]+):([A-Za-z0-9_]+)((?::[-+]?[0-9]{1,10}){1,50})(?=[ \t\r]|$)")
_FIBSBOARD = re.compile(r"fibsboard(?:[ \t\r]+|$)", re.IGNORECASE)
_FLOAT = re.compile(r"[-+]?(?:[0-9]+\.[0-9]*|\.[0-9]+)")


@dataclass(frozen=True)
class Board:
    """A board request's names and integers (FIBS tokens 3, 4, ... in order)."""

    player: str
    opponent: str
    integers: tuple[int, ...]


@dataclass(frozen=True)
class SessionOptions:
    jacoby: bool | None = None  # None: the server's setting (gnubg's ``set jacoby``)
    crawford: bool = True
    resignation: int = 0
    beavers: bool = True  # parsed, unused for board requests (as in gnubg)


@dataclass(frozen=True)
class EvalOptions:
    plies: int = 0
    cubeful: bool = False
    prune: bool = False
    deterministic: bool = True
    noise: float = 0.0


@dataclass(frozen=True)
class BoardRequest:
    board: Board
    session: SessionOptions = field(default_factory=SessionOptions)


@dataclass(frozen=True)
class EvalRequest:
    board: Board
    session: SessionOptions = field(default_factory=SessionOptions)
    options: EvalOptions = field(default_factory=EvalOptions)


@dataclass(frozen=True)
class Simple:
    """``version``, ``help``, ``exit`` (``quit`` too)."""

    word: str


@dataclass(frozen=True)
class SetRequest:
    option: str  # debug | interface | prompt
    value: bool | str


@dataclass(frozen=True)
class Failure:
    """A request that gnubg answers with an error line (``text`` without the ``Error: ``)."""

    text: str


Request = BoardRequest | EvalRequest | Simple | SetRequest | Failure


def syntax(unexpected: str, expecting: str | None = None) -> Failure:
    return Failure(f"syntax error, unexpected {unexpected}" + (f", expecting {expecting}" if expecting else ""))


class _Scanner:
    """Reads a line left to right; whitespace is space, TAB and CR."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.pos = 0

    def skip_blank(self) -> None:
        m = _BLANK.match(self.text, self.pos)
        assert m is not None
        self.pos = m.end()

    def at_end(self) -> bool:
        self.skip_blank()
        return self.pos >= len(self.text)

    def word(self) -> str:
        """The next blank-delimited word."""
        m = _WORD.match(self.text, self.pos)
        assert m is not None  # the pattern matches the empty word too
        self.pos = m.end()
        return m.group(1)

    def kind_of_next(self) -> str:
        """gnubg's token kind for the next word, for error texts."""
        save = self.pos
        w = self.word()
        self.pos = save
        low = w.lower()
        if not w:
            return "EOL"
        if low in _SESSION_OPTS | _EVAL_OPTS:
            return low.upper()
        if _INT.fullmatch(w):
            return "E_INTEGER"
        return "E_CHARACTER"


def _kind(word: str) -> str:
    low = word.lower()
    if not word:
        return "EOL"
    if low in _SESSION_OPTS | _EVAL_OPTS:
        return low.upper()
    if _INT.fullmatch(word):
        return "E_INTEGER"
    return "E_CHARACTER"


def _in_board(sc: _Scanner) -> str:
    """gnubg's token kind of the character at the scanner inside a board: the board ends
    at a blank or the end of the line (FIBSBOARDEND)."""
    c = sc.text[sc.pos:sc.pos + 1]
    if c in ("", " ", "\t", "\r"):
        return "FIBSBOARDEND"
    if c == ":":
        return "':'"
    return "E_INTEGER" if c in "-+0123456789" else "E_CHARACTER"


def _name(sc: _Scanner) -> str | Failure:
    text, pos = sc.text, sc.pos
    if pos < len(text) and text[pos] in "'\"":
        end = text.find(text[pos], pos + 1)
        if end < 0:
            return syntax("E_CHARACTER", "E_STRING")
        sc.pos = end + 1
        return text[pos + 1:end]
    m = _NAME.match(text, pos)
    if m is None:
        return syntax(_in_board(sc), "E_STRING")
    sc.pos = m.end()
    return m.group()


def _expect_colon(sc: _Scanner) -> Failure | None:
    if sc.pos < len(sc.text) and sc.text[sc.pos] == ":":
        sc.pos += 1
        return None
    return syntax(_in_board(sc), "':'")


def _board(sc: _Scanner) -> Board | Failure:
    """``board:NAME:NAME(:INT)+`` at the scanner (which stands on ``board:``)."""
    plain = _PLAIN_BOARD.match(sc.text, sc.pos)
    if plain is not None:  # the usual line, in one step
        sc.pos = plain.end()
        return Board(plain.group(1), plain.group(2), tuple(map(int, plain.group(3)[1:].split(":"))))
    sc.pos += len("board:")
    names: list[str] = []
    for _ in range(2):
        name = _name(sc)
        if isinstance(name, Failure):
            return name
        names.append(name)
        bad = _expect_colon(sc)
        if bad is not None:
            return bad
    integers: list[int] = []
    while True:
        m = _INT.match(sc.text, sc.pos)
        if m is None:
            kind = _in_board(sc)
            return syntax("E_CHARACTER" if kind == "':'" else kind, "E_INTEGER")
        if len(m.group()) > 12:
            return Failure("badly formed board")  # beyond any board field
        integers.append(int(m.group()))
        sc.pos = m.end()
        if sc.pos < len(sc.text) and sc.text[sc.pos] == ":":
            sc.pos += 1
            continue
        if sc.pos < len(sc.text) and sc.text[sc.pos] not in " \t\r":
            return syntax("E_CHARACTER", "FIBSBOARDEND or ':'")
        break
    if len(integers) > MAX_INTEGERS:
        return Failure("Invalid board. Maximum number of elements is 52")
    return Board(names[0], names[1], tuple(integers))


def _bool(sc: _Scanner, optional: bool = False) -> bool | None | Failure:
    save = sc.pos
    w = sc.word()
    if w.lower() in _BOOLS:
        return _BOOLS[w.lower()]
    if optional:
        sc.pos = save
        return None
    return syntax(_kind(w), "E_BOOLEAN")


def _integer(sc: _Scanner) -> int | Failure:
    w = sc.word()
    if _INT.fullmatch(w) and len(w) <= 10:
        return int(w)
    return syntax(_kind(w), "E_INTEGER")


def _options(sc: _Scanner, allow_eval: bool) -> tuple[SessionOptions, EvalOptions] | Failure:
    session: dict[str, object] = {}
    ev: dict[str, object] = {}
    while not sc.at_end():
        word = sc.word()
        key = word.lower()
        if key in _SESSION_OPTS:
            value: object = _integer(sc) if key == "resignation" else _bool(sc)
            if isinstance(value, Failure):
                return value
            session[{"jacobyrule": "jacoby", "crawfordrule": "crawford"}.get(key, key)] = value
        elif key in _EVAL_OPTS and allow_eval:
            if key in ("plies", "noise"):
                w = sc.word()
                if _INT.fullmatch(w) and len(w) <= 10:
                    number: float = int(w)
                    if key == "noise":
                        number = int(w) / 10000.0  # an integer n means n/10000
                elif key == "noise" and _FLOAT.fullmatch(w):
                    number = float(w)
                else:
                    return syntax(_kind(w), "E_INTEGER")
                ev[key] = number
            elif key == "cube":
                flag = _bool(sc)
                if isinstance(flag, Failure):
                    return flag
                ev["cubeful"] = flag
            elif key in ("cubeful", "cubeless"):
                ev["cubeful"] = key == "cubeful"
            else:
                flag = _bool(sc, optional=True)
                if isinstance(flag, Failure):
                    return flag
                ev[key] = True if flag is None else flag
        else:
            return syntax(_kind(word), "EOL")
    return SessionOptions(**session), EvalOptions(**ev)  # type: ignore[arg-type]


def parse(line: str) -> Request:
    """One request line (without its LF) as a request, or the Failure gnubg would answer."""
    sc = _Scanner(line)
    if sc.at_end():
        return Failure("no command given")
    start = sc.pos
    first = sc.word()
    key = first.lower()
    if key.startswith("board:"):
        sc.pos = start
        board = _board(sc)
        if isinstance(board, Failure):
            return board
        opts = _options(sc, allow_eval=False)
        return opts if isinstance(opts, Failure) else BoardRequest(board, opts[0])
    if key in ("version", "help", "exit", "quit"):
        if not sc.at_end():
            return syntax(sc.kind_of_next(), "EOL")
        return Simple("exit" if key == "quit" else key)
    if key == "evaluation":
        # gnubg's lexer knows ``fibsboard`` only when ``board:`` follows it
        sc.skip_blank()
        m = _FIBSBOARD.match(sc.text, sc.pos)
        rest = sc.text[m.end() if m else sc.pos:]
        if not rest.strip(" \t\r"):
            return syntax("EOL", "FIBSBOARD")
        if m is None or not rest.lower().startswith("board:"):
            return syntax("E_STRING" if rest.lower().startswith("board:") else "E_CHARACTER", "FIBSBOARD")
        sc.pos = m.end()
        board = _board(sc)
        if isinstance(board, Failure):
            return board
        opts = _options(sc, allow_eval=True)
        return opts if isinstance(opts, Failure) else EvalRequest(board, opts[0], opts[1])
    if key == "set":
        option = sc.word().lower()
        if option == "debug":
            flag = _bool(sc)
            return flag if isinstance(flag, Failure) else SetRequest("debug", bool(flag))
        if option == "interface":
            value = sc.word().lower()
            if value not in ("new", "old"):
                return syntax(_kind(value), "NEW or OLD")
            return SetRequest("interface", value)
        if option == "prompt":
            return SetRequest("prompt", sc.text[sc.pos:].strip())
        return syntax(_kind(option), "DEBUG or E_INTERFACE or PROMPT")
    return syntax("E_CHARACTER")
