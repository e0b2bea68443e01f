"""Jellyfish .mat match text, byte for byte as gnubg 1.07 exports it (export.c).

The importer reads gnubg's exports and the usual variants gnubg's own
importer reads (column split, ``Wins`` lines as resignations, Crawford
inferred); each play is checked, so a bad file raises RecordParseError with
its line.
"""

from __future__ import annotations

import datetime
import re

from engine.errors import IllegalMoveError, RecordParseError
from engine.position import Move
from engine.records.model import (
    MAX_LENGTH,
    AcceptResign,
    Action,
    Beaver,
    Double,
    Drop,
    GameRecord,
    MatchRecord,
    Resign,
    Roll,
    Take,
    board_outcome,
)

# where gnubg puts "Wins n points": the right column, the left one, or the next line's left
_WINS_RIGHT = " " * 34
_WINS_LEFT = " " * 6
_WINS_NEXT_LEFT = "\n" + _WINS_LEFT
_DROPS_GAP = " " * 23  # " Drops" in the left column, the win in the right one


def _points(n: int) -> str:
    return f"{n} point{'s' if n > 1 else ''}"


def _plain(move: Move) -> str:
    """gnubg's FormatMovePlain: one from/to per die, a space after each but a fourth."""
    return "".join(f"{s.src}/{s.dst}{'*' if s.hit else ''}{' ' if k < 3 else ''}"
                   for k, s in enumerate(move.steps))


def _game(out: list[str], index: int, game: GameRecord, players: tuple[str, str]) -> None:
    out.append(f" Game {index + 1}\n")
    left = f"{players[0]} : {game.score[0]}"
    out.append(f" {left:<31}{players[1]} : {game.score[1]}\n")
    # i counts half-line slots (even = left column); the cube is counted as gnubg's file does
    i, file_cube, doubles = 0, 1, 0
    states = game.states
    for action, before, after in zip(game.actions, states, states[1:], strict=False):  # states: one more
        if isinstance(action, Roll):
            text = f"{action.dice[0]}{action.dice[1]}: {_plain(action.move)}"
            doubles = 0
        elif isinstance(action, Double | Beaver):
            file_cube *= 2
            text = f" {'Beavers' if doubles else 'Doubles'} => {file_cube}"
            doubles += 1
        elif isinstance(action, Take):
            # Jellyfish writes no Takes after a beaver (the columns would swap)
            if doubles % 2 == 0:
                doubles = 0
                continue
            text = " Takes" if doubles == 1 else "  "
            doubles = 0
        elif isinstance(action, Drop):
            gap = _WINS_NEXT_LEFT if i & 1 else _DROPS_GAP
            text = f" Drops{gap}Wins {file_cube // 2} point{'' if file_cube == 2 else 's'}"
        elif isinstance(action, AcceptResign):
            assert before.resignation is not None
            wins = f"Wins {_points(before.resignation.value * file_cube)}\n"
            if action.player == 0:  # the right player resigned
                text = (_WINS_NEXT_LEFT if i & 1 else _WINS_LEFT) + wins
            else:
                text = (" " if i & 1 else _WINS_RIGHT) + wins
        else:
            continue  # resignation offers and refusals have no .mat form
        if i == 0 and isinstance(action, Roll) and action.player == 1:
            out.append("  1)" + " " * 29)
            i += 1
        if i & 1 or isinstance(action, AcceptResign):
            out.append(text + "\n")
        else:
            out.append(f"{(i >> 1) + 1:3d}) {text:<27} ")
        if isinstance(action, Drop):
            out.append("\n" if i & 1 else "\n\n")
        if isinstance(action, Roll):
            # gnubg scores the board here, without Jacoby
            outcome = board_outcome(after.position(action.player))
            if outcome:
                gap = _WINS_RIGHT if i & 1 else _WINS_NEXT_LEFT
                out.append(f"{gap}Wins {_points(outcome * file_cube)}\n\n")
        i += 1


def dumps(record: MatchRecord) -> str:
    """The record as gnubg's ``export match mat`` writes it."""
    out: list[str] = []
    date = record.date
    for key, value in (("Site", record.place), ("Event", record.event), ("Round", record.round),
                       ("EventDate", f"{date.year:4d}.{date.month:02d}.{date.day:02d}" if date else ""),
                       ("Transcriber", record.annotator)):
        if value:
            out.append(f'; [{key} "{value}"]\n')
    if record.comment:
        c = record.comment
        out.append("\n; " + c[:-1].replace("\n", "\n; ") + c[-1])
    out.append(f"\n {record.length} point match\n\n")
    for index, game in enumerate(record.games):
        _game(out, index, game, record.players)
    return "".join(out)


_MATCH = re.compile(r"\s*(\d{1,9})\s+[Pp]oint\s+[Mm]atch")
_SCORE = re.compile(r"\s*(.*?)\s*:\s*(\d{1,9})\s+(.*?)\s*:\s*(\d{1,9})")
_DICE = re.compile(r"([1-6])([1-6]):")
_DATE = re.compile(r"(\d{1,4})\.(\d{1,2})\.(\d{1,2})")
_IGNORED = ("EventTime", "Unrated", "Player", "Match ID", "CubeLimit", "Crawford", "Jacoby", "Beaver")


class _Importer:
    def __init__(self, text: str, usual_rules: bool) -> None:
        self.usual_rules = usual_rules
        self.lines = text.removeprefix("\ufeff").splitlines()
        self.index = 0  # next line
        self.record = MatchRecord()
        self.game: GameRecord | None = None

    def error(self, message: str) -> RecordParseError:
        return RecordParseError(f"line {self.index}: {message}")

    def header(self) -> None:
        info: dict[str, str] = {}
        comment: list[str] = []
        match = None
        while match is None:
            if self.index >= len(self.lines):
                raise RecordParseError("not a .mat file: no 'N point match' line")
            line = self.lines[self.index]
            self.index += 1
            if line[:1] in (";", "#"):
                body = line[1:].lstrip()
                key = next((k for k in ("Event", "Round", "Site", "Transcriber", "EventDate", "Variation")
                            if body.startswith(f'[{k} "')), None)
                if key is not None:
                    value = body[len(key) + 3:]
                    end = value.rfind('"]')
                    info[key] = value if end < 0 else value[:end]
                elif body and not any(body.startswith(f"[{k} ") for k in _IGNORED):
                    comment.append(body)
            else:
                match = _MATCH.match(line)
        if not info.get("Variation", "Backgammon").startswith("Backgammon"):
            raise self.error(f"variation {info['Variation']!r} is not supported")
        date = None
        found = _DATE.match(info.get("EventDate", ""))
        if found:
            try:
                date = datetime.date(*(int(g) for g in found.groups()))
            except ValueError:
                pass  # an impossible date is dropped
        length = int(match.group(1))
        if length > MAX_LENGTH:
            raise self.error(f"match length {length} is over {MAX_LENGTH}")
        self.record = MatchRecord(length=length, crawford=self.usual_rules, jacoby=not self.usual_rules,
                                  date=date, event=info.get("Event", ""), round=info.get("Round", ""),
                                  place=info.get("Site", ""), annotator=info.get("Transcriber", ""),
                                  comment="\n".join(comment))

    def start_game(self) -> bool:
        """Read a score line; False when the match is already over (gnubg ignores the rest)."""
        while self.index < len(self.lines) and not self.lines[self.index].strip():
            self.index += 1
        self.index += 1
        score = _SCORE.fullmatch(self.lines[self.index - 1].rstrip()) if self.index <= len(self.lines) else None
        if score is None:
            raise self.error("expected a score line 'name : score   name : score'")
        points = (int(score.group(2)), int(score.group(4)))
        if self.record.length and max(points) >= self.record.length:
            return False
        if not self.record.games:
            self.record.players = (score.group(1), score.group(3))
        try:
            self.game = self.record.new_game(points)
        except ValueError as exc:
            raise self.error(str(exc)) from None
        return True

    def append(self, action: Action) -> None:
        assert self.game is not None
        try:
            self.game.append(action)
        except IllegalMoveError as exc:
            raise self.error(str(exc)) from None

    def half(self, text: str, player: int) -> None:
        """One column of a move line: a roll, a cube action or a Wins line."""
        assert self.game is not None
        s = text.strip(" \t")
        low = s.lower()
        state = self.game.state
        if not s or low.startswith("resign") or (low.startswith("win") and state.result is not None):
            return
        dice = _DICE.match(s)
        if dice:
            if state.doubled and isinstance(self.game.actions[-1], Beaver) and state.turn is not None:
                self.append(Take(state.turn))  # a roll after a beaver: it was taken, unwritten
            rest = s[3:].strip()
            if rest.lower().startswith(("cannot move", "???")):
                rest = ""
            try:
                move = Move.parse(rest)
            except IllegalMoveError as exc:
                raise self.error(f"{s[:40]!r}: {exc}") from None
            roll = (int(dice.group(1)), int(dice.group(2)))
            if not move.steps:
                # a roll without a play is only allowed when the play is forced
                plays = state.position(player).legal_moves(*roll)
                if len(plays) > 1:
                    raise self.error(f"{s[:40]!r}: a roll without its play")
                move = plays[0]
            self.append(Roll(player, roll, move))
        elif low.startswith(("double", "beaver", "raccoon")):
            self.append(Beaver(player) if state.doubled else Double(player))
        elif low.startswith("take"):
            self.append(Take(player))
        elif low.startswith("drop"):
            self.append(Drop(player))
        elif low.startswith("win"):
            # a Wins line while the game goes on: the other player resigned
            won = re.match(r"\d{1,9}", s[4:].strip())
            n = int(won.group()) if won else 1
            value = 1 if n <= state.cube else 2 if n <= 2 * state.cube else 3
            if state.resignation is None:
                self.append(Resign(1 - player, value))
            self.append(AcceptResign(player))
        else:
            raise self.error(f"unrecognised action {s[:40]!r}")

    def move_line(self, line: str) -> None:
        # gnubg's column split: two dice colons, else the first double space from column 15
        left, right = line, None
        first = line.find(":")
        second = line.find(":", first + 1) if first >= 0 else -1
        if second > 3:
            left, right = line[:second - 3], line[second - 2:]
        elif len(line) > 15 and (gap := line.find("  ", 15)) >= 0:
            left, right = line[:gap], line[gap + 1:]
        bracket = left.find(")")
        self.half(left[bracket + 1:], 0)
        if right is not None:
            self.half(right, 1)

    def run(self) -> MatchRecord:
        self.header()
        while self.index < len(self.lines):
            line = self.lines[self.index]
            self.index += 1
            if "Game " not in line:
                continue
            if not self.start_game():
                break
            while self.index < len(self.lines) and "Game " not in self.lines[self.index]:
                self.index += 1
                if self.lines[self.index - 1].strip():
                    self.move_line(self.lines[self.index - 1])
        return self.record


def cut_short(record: MatchRecord) -> str | None:
    """Where a match read from .mat stops before its end (a truncated file?); None if it ends.

    >>> record = loads(" 3 point match\\n\\n Game 1\\n a : 0    b : 0\\n  1) 31: 8/5 6/5\\n")
    >>> cut_short(record)
    'game 1 has no result'
    """
    games = record.games
    if not games:
        return "no game"
    if games[-1].result is None:
        return f"game {len(games)} has no result"
    if record.length and not record.is_over():
        score = record.score()
        return f"the {record.length}-point match stops at {score[0]}-{score[1]} after game {len(games)}"
    return None


def loads(text: str) -> MatchRecord:
    """Read a .mat match (gnubg's export or a compatible one).

    .mat files carry neither the Crawford rule nor Jacoby: a match is read
    with Crawford and a session without Jacoby, unless the play contradicts
    it (a double in the would-be Crawford game; scores that count a gammon on
    a centred cube as a single).
    """
    try:
        return _Importer(text, usual_rules=True).run()
    except RecordParseError as exc:
        try:
            return _Importer(text, usual_rules=False).run()
        except RecordParseError:
            raise exc from None
