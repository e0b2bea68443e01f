"""GNU Backgammon's SGF dialect: one game tree per game, as gnubg 1.07 writes it.

Reading accepts gnubg's own files, analysed ones included: analysis and
unknown properties are skipped, only the first variation is followed, and
trees without ``GM[6]`` are dropped. Anything that would make the record
wrong (bad syntax, an impossible move, a score or result that does not follow
from the play) raises RecordParseError naming the line and property.

Resignation offers and answers have no gnubg node; they are kept as nodes
with a private ``RS`` property (``RS[W:2]`` offer, ``RS[B:accept]``,
``RS[B:reject]``) that gnubg ignores, while ``RE[...R]`` in the root tells
gnubg the outcome.
"""

from __future__ import annotations

import datetime
import functools
import re
from dataclasses import dataclass, field
from importlib import metadata

from engine.errors import IllegalMoveError, RecordParseError
from engine.position import BAR, OFF, Move, Step
from engine.records.model import (
    COLOURS,
    AcceptResign,
    Action,
    Beaver,
    Double,
    Drop,
    EngineNote,
    GameRecord,
    MatchRecord,
    RejectResign,
    Resign,
    Roll,
    Take,
)

_RESIGN = "RS"
_SETUP = {"AE", "AB", "AW", "PL", "CV", "CP", "DI"}
_MAX_NUMBER = 6  # digits; larger numbers in MI/RE are rejected, not parsed

_SPACE = re.compile(r"\s*")
_IDENT = re.compile(r"[A-Za-z]+")
_ESCAPE = re.compile(r"\\(?:(\r\n?|\n\r?)|(.))", re.S)
_VALUE = re.compile(r"\[([^\\\]]*(?:\\.[^\\\]]*)*)\]", re.S)
_ROLL = re.compile(r"([1-6])([1-6])((?:[a-y][a-z])*)")
_RESULT = re.compile(r"([WB])\+(\d+)(R?)", re.I)
_DATE = re.compile(r"\s*(\d{1,4})-(\d{1,2})-(\d{1,2})")


@functools.cache  # the package metadata lookup costs more than writing a short match
def _application() -> str:
    try:
        return "fibsbot:" + metadata.version("fibsbot")
    except metadata.PackageNotFoundError:
        return "fibsbot"


# --- writing -------------------------------------------------------------

def _escape(text: str) -> str:
    return text.replace("\\", "\\\\").replace("]", "\\]")


def _letter(player: int, point: int) -> str:
    if point == BAR:
        return "y"
    if point == OFF:
        return "z"
    return chr(ord("a") + point - 1) if player == 0 else chr(ord("x") - point + 1)


def _comment_text(action: Action) -> str:
    lines = [text for text in (action.comment, str(action.note) if action.note else "") if text]
    return "\n".join(lines)


def _node(action: Action) -> str:
    colour = COLOURS[action.player]
    if isinstance(action, Roll):
        steps = "".join(_letter(action.player, s.src) + _letter(action.player, s.dst)
                        for s in action.move.steps)
        text = f"{colour}[{action.dice[0]}{action.dice[1]}{steps}]"
    elif isinstance(action, Double | Beaver):
        text = f"{colour}[double]"
    elif isinstance(action, Take):
        text = f"{colour}[take]"
    elif isinstance(action, Drop):
        text = f"{colour}[drop]"
    elif isinstance(action, Resign):
        text = f"{_RESIGN}[{colour}:{action.value}]"
    else:
        text = f"{_RESIGN}[{colour}:{'accept' if isinstance(action, AcceptResign) else 'reject'}]"
    comment = _comment_text(action)
    return f"\n;{text}C[{_escape(comment)}]" if comment else f"\n;{text}"


def dumps(record: MatchRecord) -> str:
    """The record as gnubg writes a match: one game tree per game."""
    out: list[str] = []
    application = _escape(_application())
    for index, game in enumerate(record.games):
        out.append(f"(;FF[4]GM[6]CA[UTF-8]AP[{application}]"
                   f"MI[length:{record.length}][game:{index}][ws:{game.score[0]}][bs:{game.score[1]}]"
                   f"PW[{_escape(record.players[0])}]PB[{_escape(record.players[1])}]")
        if index == 0:
            d = record.date
            date = f"{d.year:04d}-{d.month:02d}-{d.day:02d}" if d else ""
            for prop, value in (("WR", record.ratings[0]), ("BR", record.ratings[1]), ("DT", date),
                                ("EV", record.event), ("RO", record.round), ("PC", record.place),
                                ("AN", record.annotator), ("GC", record.comment)):
                if value:
                    out.append(f"{prop}[{_escape(value)}]")
        rules = [name for name, on in (("Crawford", record.crawford), ("CrawfordGame", game.crawford_game),
                                       ("Jacoby", record.jacoby)) if on]
        if rules:
            out.append(f"RU[{':'.join(rules)}]")
        if game.result is not None:
            r = game.result
            out.append(f"RE[{COLOURS[r.winner]}+{r.points}{'R' if r.resigned else ''}]")
        actions = game.actions
        if game.result is not None and game.result.resigned and not any(
                a.comment or a.note for a in actions[-2:]):
            actions = actions[:-2]  # the offer and its acceptance: RE[...R] says it all, as gnubg writes it
        out.extend(_node(action) for action in actions)
        out.append(")\n")
    return "".join(out)


# --- syntax --------------------------------------------------------------

def _skip_space(text: str, pos: int) -> int:
    match = _SPACE.match(text, pos)
    assert match is not None  # \s* always matches
    return match.end()


@dataclass
class _Prop:
    ident: str
    values: list[str]
    offset: int


@dataclass
class _Node:
    offset: int
    props: list[_Prop] = field(default_factory=list)

    def get(self, ident: str) -> _Prop | None:
        return next((p for p in self.props if p.ident == ident), None)


class _Text:
    """The file text, for error messages with line numbers."""

    def __init__(self, text: str) -> None:
        self.text = text

    def error(self, offset: int, message: str) -> RecordParseError:
        line = self.text.count("\n", 0, offset) + 1
        return RecordParseError(f"line {line}: {message}")


def _unescape(raw: str) -> str:
    # backslash-newline is a soft line break; any other backslash quotes the next character
    return _ESCAPE.sub(lambda m: m.group(2) or "", raw)


def _parse_trees(src: _Text) -> list[list[_Node]]:
    """Game trees as node lists along the first variation; iterative, so nesting depth is free."""
    text, n = src.text, len(src.text)
    trees: list[list[_Node]] = []
    stack: list[list[bool]] = []  # per open tree: [followed, has a child tree]
    node: _Node | None = None
    pos = 0
    while True:
        pos = _skip_space(text, pos)
        if pos >= n:
            break
        c = text[pos]
        if not stack and c != "(":
            # text outside game trees is ignored, as gnubg does
            nxt = text.find("(", pos)
            pos = n if nxt < 0 else nxt
            continue
        if c == "(":
            if stack:
                parent = stack[-1]
                stack.append([parent[0] and not parent[1], False])
                parent[1] = True
            else:
                trees.append([])
                stack.append([True, False])
            pos = _skip_space(text, pos + 1)
            if not text.startswith(";", pos):
                raise src.error(pos, "syntax error: a game tree must start with a node ';'")
            node = None
        elif c == ")":
            stack.pop()
            node = None
            pos += 1
        elif c == ";":
            if stack[-1][1]:
                raise src.error(pos, "syntax error: node after a variation")
            node = _Node(pos)
            if stack[-1][0]:
                trees[-1].append(node)
            pos += 1
        elif c.isalpha():
            ident_match = _IDENT.match(text, pos)
            assert ident_match is not None
            if node is None:
                raise src.error(pos, f"syntax error: property {ident_match.group()} outside a node")
            prop = _Prop("".join(ch for ch in ident_match.group() if ch.isupper()), [], pos)
            pos = ident_match.end()
            while True:
                pos = _skip_space(text, pos)
                value = _VALUE.match(text, pos)
                if value is None:
                    break
                prop.values.append(_unescape(value.group(1)))
                pos = value.end()
            if not prop.values:
                what = "unterminated value" if text.startswith("[", pos) else "property without a value"
                raise src.error(prop.offset, f"syntax error: {ident_match.group()}: {what}")
            node.props.append(prop)
        else:
            raise src.error(pos, f"syntax error: unexpected {c!r}")
    if stack:
        raise src.error(n, f"syntax error: file ends inside a game tree ({len(stack)} unclosed '(')")
    return trees


# --- meaning -------------------------------------------------------------

def _number(src: _Text, prop: _Prop, text: str) -> int:
    if not re.fullmatch(rf"[0-9]{{1,{_MAX_NUMBER}}}", text):
        raise src.error(prop.offset, f"{prop.ident}: {text[:40]!r} is not a number up to {_MAX_NUMBER} digits")
    return int(text)


@dataclass
class _Root:
    length: int | None = None
    score: tuple[int, int] | None = None
    crawford: bool = False
    crawford_game: bool = False
    jacoby: bool = False
    result: tuple[int, int, bool] | None = None  # winner, points, resigned
    result_offset: int = 0


def _read_root(src: _Text, root: _Node) -> _Root:
    info = _Root()
    mi = root.get("MI")
    if mi is not None:
        items = {key: value for key, _, value in (v.partition(":") for v in mi.values)}
        info.length = _number(src, mi, items.get("length", "0"))
        info.score = (_number(src, mi, items.get("ws", "0")), _number(src, mi, items.get("bs", "0")))
    ru = root.get("RU")
    if ru is not None:
        tokens = ru.values[0].split(":")
        info.crawford, info.crawford_game, info.jacoby = ("Crawford" in tokens, "CrawfordGame" in tokens,
                                                           "Jacoby" in tokens)
    re_prop = root.get("RE")
    if re_prop is not None:
        # other RE forms ("0", "?", "B+T") say nothing gnubg uses; the play decides
        match = _RESULT.fullmatch(re_prop.values[0].strip())
        if match:
            points = _number(src, re_prop, match.group(2))
            info.result = ("WB".index(match.group(1).upper()), points, bool(match.group(3)))
            info.result_offset = re_prop.offset
    cv = root.get("CV")
    if cv is not None:
        raise src.error(cv.offset, "CV: games starting with automatic doubles are not supported")
    return info


def _new_record(root: _Node, info: _Root) -> MatchRecord:
    def text(ident: str) -> str:
        prop = root.get(ident)
        return prop.values[0] if prop else ""

    date = None
    found = _DATE.match(text("DT"))
    if found:
        try:
            date = datetime.date(*(int(g) for g in found.groups()))
        except ValueError:
            pass  # an impossible date is dropped, like gnubg's unparsable ones
    return MatchRecord((text("PW") or "White", text("PB") or "Black"), info.length or 0,
                       crawford=info.crawford, jacoby=info.jacoby, date=date, event=text("EV"),
                       round=text("RO"), place=text("PC"), annotator=text("AN"), comment=text("GC"),
                       ratings=(text("WR"), text("BR")))


def _comment(node: _Node) -> tuple[str, EngineNote | None]:
    prop = node.get("C")
    if prop is None:
        return "", None
    text = prop.values[0]
    head, _, last = text.rpartition("\n")
    try:
        return head, EngineNote.parse(last)
    except ValueError:
        return text, None


def _read_action(src: _Text, node: _Node, game: GameRecord) -> tuple[Action, _Prop] | None:
    """The node's action (None for nodes without one, e.g. analysis only)."""
    acts = [p for p in node.props if p.ident in ("W", "B", _RESIGN)]
    setup = next((p for p in node.props if p.ident in _SETUP), None)
    if setup is not None:
        raise src.error(setup.offset, f"{setup.ident}: edited positions (setup nodes) are not supported")
    if not acts:
        return None
    if len(acts) > 1:
        raise src.error(acts[1].offset, f"{acts[1].ident}: two actions in one node")
    prop = acts[0]
    value = prop.values[0]
    comment, note = _comment(node)
    shown = f"{prop.ident}[{value[:40]}]"
    if prop.ident == _RESIGN:
        colour, _, what = value.partition(":")
        if colour not in ("W", "B") or what not in ("1", "2", "3", "accept", "reject"):
            raise src.error(prop.offset, f"{shown}: expected RS[W|B:1|2|3|accept|reject]")
        player = "WB".index(colour)
        if what == "accept":
            return AcceptResign(player, comment=comment, note=note), prop
        if what == "reject":
            return RejectResign(player, comment=comment, note=note), prop
        return Resign(player, int(what), comment=comment, note=note), prop
    player = "WB".index(prop.ident)
    turn = game.state.turn
    if turn is not None and player != turn and game.state.resignation is None:
        raise src.error(prop.offset, f"{shown}: it is {COLOURS[turn]}'s turn")
    if value == "double":
        kind = Beaver if game.state.doubled else Double
        return kind(player, comment=comment, note=note), prop
    if value == "take":
        return Take(player, comment=comment, note=note), prop
    if value == "drop":
        return Drop(player, comment=comment, note=note), prop
    roll = _ROLL.fullmatch(value)
    if roll is None:
        raise src.error(prop.offset, f"{shown}: expected two dice 1-6 and from/to letter pairs "
                                     "(a-x, y = bar, z = off), or double/take/drop")
    letters = roll.group(3)
    try:
        steps = [Step(_point(player, letters[i]), _point(player, letters[i + 1]))
                 for i in range(0, len(letters), 2)]
        move = Move(steps)
    except IllegalMoveError as exc:
        raise src.error(prop.offset, f"{shown}: {exc}") from None
    dice = (int(roll.group(1)), int(roll.group(2)))
    return Roll(player, dice, move, comment=comment, note=note), prop


def _point(player: int, letter: str) -> int:
    if letter == "y":
        return BAR
    if letter == "z":
        return OFF
    index = ord(letter) - ord("a")
    return index + 1 if player == 0 else 24 - index


def _finish(src: _Text, game: GameRecord, info: _Root) -> None:
    """Check the play against RE; a resignation known only from RE[...R] is added."""
    if info.result is None:
        return
    winner, points, resigned = info.result
    shown = f"RE[{COLOURS[winner]}+{points}{'R' if resigned else ''}]"
    state = game.state
    if resigned and state.result is None:
        value, rest = divmod(points, state.cube)
        if rest or value not in (1, 2, 3):
            raise src.error(info.result_offset, f"{shown}: {points} is not a single, gammon "
                                                f"or backgammon at cube {state.cube}")
        try:
            if state.resignation is None:
                game.append(Resign(1 - winner, value))
            game.append(AcceptResign(winner))
        except IllegalMoveError as exc:
            raise src.error(info.result_offset, f"{shown}: {exc}") from None
    if game.result is None:
        raise src.error(info.result_offset, f"{shown} but the game is not over"
                                            + ("" if resigned else " (a resignation is written with R)"))
    r = game.result
    if (r.winner, r.points, r.resigned) != (winner, points, resigned):
        raise src.error(info.result_offset, f"{shown} but the play gives "
                                            f"{COLOURS[r.winner]}+{r.points}{'R' if r.resigned else ''}")


def loads(text: str) -> MatchRecord:
    """Read a match, session or single game written by gnubg or by :func:`dumps`."""
    src = _Text(text)
    trees = [t for t in _parse_trees(src)
             if (gm := t[0].get("GM")) is not None and gm.values[0].strip() == "6"]
    if not trees:
        raise RecordParseError("no backgammon game (GM[6]) in the file")
    record: MatchRecord | None = None
    for tree in trees:
        root = tree[0]
        info = _read_root(src, root)
        if record is None:
            try:
                record = _new_record(root, info)
            except ValueError as exc:
                raise src.error(root.offset, f"MI: {exc}") from None
        elif info.length is not None and info.length != record.length:
            raise src.error(root.offset, f"MI: match length {info.length} differs from the first game's "
                                         f"{record.length}")
        try:
            # a game without MI continues the match (gnubg would start a money game at 0-0)
            game = record.new_game(info.score, info.crawford_game)
        except ValueError as exc:
            raise src.error(root.offset, f"MI: {exc}") from None
        for node in tree[1:]:
            found = _read_action(src, node, game)
            if found is None:
                continue
            action, prop = found
            try:
                game.append(action)
            except IllegalMoveError as exc:
                raise src.error(prop.offset, f"{prop.ident}[{prop.values[0][:40]}]: {exc}") from None
        _finish(src, game, info)
    assert record is not None
    return record

