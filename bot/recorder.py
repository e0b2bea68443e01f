"""The match record the bot keeps while it plays, its saved-match index and the ledger.

:class:`Recorder` turns the server's game events into checked
:mod:`engine.records` actions and rewrites the match's ``.sgf`` atomically
after every game. The opponent is gnubg's player 0 and the bot player 1, as
in :attr:`bot.fibsboard.FibsBoard.match`.

When the record cannot follow the server (lines lost in a disconnect that a
resync cannot explain), the game is marked broken: nothing more is appended
to it, it stays without a result (abandoned, as gnubg loads it), and the next
game goes on in the same file at the score the server shows. Only a score the
record cannot reach (lower than its own) continues in a second file
(``...-part2.sgf``). Nothing is ever written that did not happen.
"""

from __future__ import annotations

import datetime
import json
import logging
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

from bot import clip
from bot.fibsboard import FibsBoard, parse_move_line
from bot.journal import Journal, decode_move, encode_action, encode_move, journal_path, replay
from engine.errors import IllegalMoveError, RecordParseError
from engine.position import Move, Position
from engine.records import (
    AcceptResign,
    Action,
    Double,
    Drop,
    EngineNote,
    GameState,
    MatchRecord,
    RejectResign,
    Resign,
    Roll,
    Take,
    atomic_write,
    load_sgf,
    save_sgf,
)
from engine.records.model import board_outcome

log = logging.getLogger(__name__)

THEM, US = 0, 1
_INITIAL = Position.initial()
RECONSTRUCTED = ("dice unknown: not seen (connection lost); the move is the server's, the dice written are one "
                 "roll that plays it")
LAPSED = "not answered: the server dropped the offer when the match was saved (connection lost)"


Listener = Callable[["Recorder", dict[str, Any]], None]
listeners: list[Listener] = []
"""Called with each journal entry once it is on disk, and with ``{"closed": over}`` when
the record is closed (the store's live writer, :mod:`bot.store.live`)."""
ledger_listeners: list[Callable[[dict[str, Any]], None]] = []
"""Called with each ledger line once it is written."""


def _notify(targets: list[Callable[..., None]], *args: object) -> None:
    for listener in list(targets):
        try:
            listener(*args)
        except Exception:  # a listener never stops the bot: the files hold everything
            log.exception("record listener failed")


def _who(name: str) -> int:
    return US if name == clip.YOU else THEM


class Recorder:
    """One match's record, its file and its journal (:mod:`bot.journal`)."""

    def __init__(self, record: MatchRecord, path: Path, state: dict[str, Any] | None = None) -> None:
        self.record = record
        self.path = path
        self.journal = Journal(path)
        self.broken = False
        self.forks = 0
        self._board: FibsBoard | None = None
        self._dice: dict[int, tuple[int, int]] = {}
        self._pending: tuple[tuple[int, int], Move, Position] | None = None
        self._notes: dict[str, EngineNote | None] = {}  # the engine's notes: our pending move, cube action
        self._expect_game = True  # a board may start a game (not after a game ended, until the next starts)
        self._expect_opening = False  # after a game ended: a board of the opening position starts the next
        self._opened = False  # a board began the running game and nothing is recorded in it yet
        self._abandoned = False  # the last game could not be followed: it stays without a result
        if state:
            self._restore(state)
        self._journaled = self._state()

    @classmethod
    def create(cls, folder: Path, opponent: str, us: str, length: int, *, place: str = "") -> Recorder:
        folder.mkdir(parents=True, exist_ok=True)
        now = datetime.datetime.now()
        stem = f"{now:%Y%m%d-%H%M%S}-{us}-vs-{opponent}-{length or 'unlimited'}"
        path = folder / f"{stem}.sgf"
        n = 1
        while path.exists():
            n += 1
            path = folder / f"{stem}-{n}.sgf"
        record = MatchRecord((opponent, us), length, date=now.date(), event="FIBS", place=place)
        recorder = cls(record, path)
        recorder.journal.start(record)  # from now on a restart continues this file
        return recorder

    @classmethod
    def open(cls, path: Path) -> Recorder:
        """Continue a record written earlier: its journal if the match was under way
        (a crash), else its file (RecordParseError, OSError, ValueError if unusable)."""
        if journal_path(path).exists():
            record, state = replay(journal_path(path))
            log.info("record %s: continued from its journal", path)
            return cls(record, path, state)
        return cls(load_sgf(path), path)

    @property
    def game(self) -> GameState | None:
        """The state of the running game, None between games."""
        games = self.record.games
        return games[-1].state if games and games[-1].result is None and not self._abandoned else None

    @property
    def crawford_played(self) -> bool:
        return any(g.crawford_game for g in self.record.games)

    @property
    def written(self) -> Path | None:
        """The record's file once it exists (from the first game on)."""
        return self.path if self.path.exists() else None

    def flush(self) -> None:
        if not self.record.games:
            return  # an .sgf holds games: no file until the first begins
        try:
            save_sgf(self.record, self.path)
        except OSError as exc:
            log.error("cannot write the record %s: %s", self.path, exc)

    def close(self, *, over: bool) -> None:
        """Write the file; when the match is ``over`` its journal is no longer needed."""
        self.flush()
        if over and (self.path.exists() or not self.record.games):
            self.journal.remove()
        else:
            self.journal.close()
        _notify(listeners, self, {"closed": over})

    # -- events ---------------------------------------------------------------

    def board(self, board: FibsBoard, crawford_game: bool) -> None:
        """Every board of the match, before the player acts on it."""
        self._guarded(lambda: self._on_board(board, crawford_game))

    def _on_board(self, board: FibsBoard, crawford_game: bool) -> None:
        self._board = board
        opening = bool(board.turn) and self._expect_opening and board.position == _INITIAL
        if opening and self.broken:
            self._abandon()  # the server ended the game the record lost; this board begins the next
        if opening and self.game is None and not self.broken and (
                self._abandoned or (board.opponent_score, board.player_score) == self.record.score()):
            # the next game's first board, before its "Starting a new game" (JIBS's order)
            self._expect_game = self._expect_opening = False
            self._start_game(board, crawford_game)
            self._opened = True
        elif board.turn and self._expect_game and self.game is None and not self.broken:
            self._expect_game = self._expect_opening = False
            self._start_game(board, crawford_game)
            self._opened = board.position == _INITIAL
        if self._pending and (not board.player_on_turn or board.turn == 0):
            self._commit_pending(board.position)

    def sent_move(self, dice: tuple[int, int], move: Move, result: Position, note: EngineNote | None = None) -> None:
        """Our move is being sent (call this first: it is journaled); it is recorded once
        the server shows it was played, with the engine's ``note`` in its comment."""
        self._notes["move"] = note
        self._guarded(lambda: setattr(self, "_pending", (dice, move, result)))

    def cube_note(self, note: EngineNote) -> None:  # of the double, take or pass we are sending
        self._notes["cube"] = note

    def move_refused(self) -> None:
        self._guarded(lambda: setattr(self, "_pending", None))

    def event(self, event: clip.Event) -> None:
        """Record what ``event`` says; a game's end flushes the file."""
        self._guarded(lambda: self._on_event(event))

    def _on_event(self, event: clip.Event) -> None:
        if isinstance(event, clip.GameStart) and self._opened and self.game is not None:
            self._opened = False  # the late announcement of the game a board began: its dice stay
            return
        if isinstance(event, clip.GameStart):
            self._expect_game = True
            self._expect_opening = False
            if not self.broken and self.game is not None:
                self.finish_lost()
                if self.game is not None:
                    log.warning("record %s: game %d ended on the server, its end was lost", self.path,
                                len(self.record.games))
            if self.broken or self.game is not None:
                self._abandon()
            self._dice.clear()
            self._pending = None
            return
        if isinstance(event, clip.MatchScore):
            self._check_score(event)
        elif isinstance(event, clip.Roll):
            self._dice[_who(event.player)] = event.dice
        elif isinstance(event, clip.OpeningRoll):
            self._dice[_who(event.player)] = (event.die, event.opponent_die)
            self._dice[_who(event.opponent)] = (event.opponent_die, event.die)
        elif isinstance(event, clip.Moves):
            if event.player == clip.YOU:
                self._commit_pending(None)
            else:
                self._opponent_moves(event.text)
        elif isinstance(event, clip.CantMove):
            player = _who(event.player)
            if player in self._dice:
                self._add(Roll(player, self._dice.pop(player), Move()))
        elif isinstance(event, clip.Doubles):
            self._commit_pending(None)
            state = self.game
            if state is None or not (state.doubled and state.on_roll == _who(event.player)):
                self._add(Double(_who(event.player)))  # (a resumed match repeats a pending double)
        elif isinstance(event, clip.DoubleAccepted):
            self._double_first(_who(event.player))
            self._add(Take(_who(event.player)))
        elif isinstance(event, clip.GiveUp):
            self._double_first(_who(event.loser))
            self._add(Drop(_who(event.loser)))
        elif isinstance(event, clip.ResignOffer):
            self._resign(event)
        elif isinstance(event, clip.ResignAccepted):
            self._add(AcceptResign(_who(event.winner)))
        elif isinstance(event, clip.ResignRejected):
            self._add(RejectResign(_who(event.player)))
        if isinstance(event, clip.GameWon | clip.GiveUp | clip.ResignAccepted):
            self._commit_pending(None)
            self._expect_opening = True
            self._opened = False
            game = self.record.games[-1] if self.record.games else None
            if not self.broken and game is not None and (
                    game.result is None or game.result.winner != _who(event.winner)):
                log.warning("record %s: the server ended game %d, the record says %s",
                            self.path, len(self.record.games), game.result)
                self.broken = True
            self.flush()

    def resync(self, board: FibsBoard, crawford_game: bool) -> None:
        """After a reconnect: account for what was lost, or mark the game broken."""
        self._guarded(lambda: self._resync(board, crawford_game))

    def _resync(self, board: FibsBoard, crawford_game: bool) -> None:
        if self.broken or board.turn == 0:
            self._board = board
            return
        self._board = board
        if self.game is None:
            # the next game may have begun while we were away: then the score must follow on
            if self.record.games and not self._abandoned \
                    and (board.opponent_score, board.player_score) != self.record.score():
                log.warning("record %s: resumed at %d-%d, the record says %d-%d; it goes on from the next game",
                            self.path, board.player_score, board.opponent_score, *self.record.score()[::-1])
                self.broken = True
                return
            self._expect_game = self._expect_opening = False
            self._start_game(board, crawford_game)
            self._opened = board.position == _INITIAL  # its "Starting a new game" may follow (JIBS)
        self._lapse_resignation(board)
        caught_up = self._catch_up(board)
        self._dice.clear()  # rolls seen before the break are spent or stale
        if caught_up:
            return
        log.warning("record %s: game %d cannot follow the resumed position %s; it stops here",
                    self.path, len(self.record.games), board.position.position_id())
        self.broken = True
        self.flush()

    # -- helpers --------------------------------------------------------------

    def _guarded(self, call: Callable[[], None]) -> None:
        """A record never stops the bot: whatever it cannot follow ends the game's record
        (the next game goes on in a new part)."""
        try:
            call()
        except Exception:
            log.exception("record %s: cannot follow the server; game %d stops here", self.path,
                          len(self.record.games))
            self.broken = True
        state = self._state()
        if state != self._journaled:
            self._journaled = state
            self._log({"state": state})

    def _log(self, entry: dict[str, Any]) -> None:
        """Journal a change (already made to the record); a missing journal starts with
        the whole record, which holds it."""
        try:
            if self.journal.exists:
                self.journal.write(entry)
            else:
                self.journal.start(self.record)
                self.journal.write({"state": self._journaled})
        except OSError as exc:
            log.error("cannot write the journal %s: %s", self.journal.path, exc)
        _notify(listeners, self, entry)

    def _state(self) -> dict[str, Any]:
        """The working state beyond the record (dice seen, our move not yet confirmed)."""
        pending = None
        if self._pending is not None:
            dice, move, result = self._pending
            note = [str(self._notes["move"])] if self._notes.get("move") else []
            pending = [list(dice), encode_move(move), result.position_id(), *note]
        return {"dice": {str(p): list(d) for p, d in sorted(self._dice.items())}, "pending": pending,
                "broken": self.broken, "expect_game": self._expect_game, "expect_opening": self._expect_opening,
                "opened": self._opened, "abandoned": self._abandoned}

    def _restore(self, state: dict[str, Any]) -> None:
        self._dice = {int(p): (int(d[0]), int(d[1])) for p, d in state.get("dice", {}).items()}
        pending = state.get("pending")
        if pending:
            dice, move, result = pending[:3]
            self._notes["move"] = EngineNote.parse(str(pending[3])) if len(pending) > 3 else None
            self._pending = ((int(dice[0]), int(dice[1])), decode_move(move), Position.from_position_id(result))
        self.broken = bool(state.get("broken", False))
        self._expect_game = bool(state.get("expect_game", True))
        self._expect_opening = bool(state.get("expect_opening", False))
        self._opened = bool(state.get("opened", False))
        self._abandoned = bool(state.get("abandoned", False))

    def _check_score(self, event: clip.MatchScore) -> None:
        """``score in 7 point match: a-1 b-0`` after a game: say so if the record disagrees."""
        them, us = self.record.players
        scores = {event.player1: event.score1, event.player2: event.score2}
        ours = scores.get(us, scores.get(clip.YOU))
        if them not in scores or ours is None:
            return  # another match's score (watching)
        server = (scores[them], ours)
        if server != self.record.score():
            log.warning("record %s: the server says the score is %d-%d (%s-%s), the record says %d-%d",
                        self.path, server[1], server[0], us, them, *self.record.score()[::-1])

    def _start_game(self, board: FibsBoard, crawford_game: bool) -> None:
        score = (board.opponent_score, board.player_score)
        abandoned, self._abandoned = self._abandoned, False
        if abandoned:
            log.info("record %s: game %d starts at %d-%d (us-them) after the abandoned game", self.path,
                     len(self.record.games) + 1, score[1], score[0])
        elif self.record.games and score != self.record.score():
            log.warning("record %s: the server says the score is %d-%d (us-them), the record says %d-%d",
                        self.path, score[1], score[0], *self.record.score()[::-1])
        try:
            self.record.new_game(score, crawford_game)
        except ValueError as exc:
            log.warning("record %s: %s", self.path, exc)
            self._fork()  # the score does not follow the record: a resync, continued in a new part
            try:
                self.record.new_game(score, crawford_game)
            except ValueError as exc:  # a board the player should have refused: record nothing of it
                log.warning("record %s: no game starts at %d-%d: %s", self.path, *score, exc)
                self.broken = True
                return
        self._log({"game": list(score), "crawford": self.record.games[-1].crawford_game})

    def _abandon(self) -> None:
        """The game could not be followed to its end: it stays in the file without a
        result, and the next game goes on in the same file."""
        self.broken = False
        games = self.record.games
        if not games or games[-1].result is not None:
            return  # nothing to close: a next game at another score forks in _start_game
        self._abandoned = True
        self.flush()
        log.warning("record %s: game %d could not be followed to its end: it is kept without a result, "
                    "the next game goes on in the same file", self.path, len(games))

    def _fork(self) -> None:
        """Continue in a new file: the old one keeps what could be followed."""
        self.broken = self._abandoned = False
        if not self.record.games:
            return  # nothing recorded yet: the file can start with the next game
        self.flush()
        self.journal.remove()  # the part's file holds all of it
        old = self.record
        self.forks += 1
        stem = self.path.stem.rsplit("-part", 1)[0]
        self.path = self.path.with_name(f"{stem}-part{self.forks + 1}.sgf")
        self.journal = Journal(self.path)
        self.record = MatchRecord(old.players, old.length, crawford=old.crawford, date=old.date,
                                  event=old.event, place=old.place)
        log.warning("record continues in %s", self.path)

    def _add(self, action: Action) -> None:
        if self.broken or self.game is None:
            return
        self._opened = False
        if isinstance(action, Double | Take | Drop) and action.player == US and self._notes.get("cube"):
            action = replace(action, note=self._notes.pop("cube"))
        try:
            self.record.games[-1].append(action)
        except IllegalMoveError as exc:
            log.warning("record %s: cannot add %s: %s; the game stops here", self.path, action, exc)
            self.broken = True
            self.flush()
            return
        self._log({"action": encode_action(action)})

    def _commit_pending(self, seen: Position | None) -> None:
        if self._pending is None:
            return
        dice, move, result = self._pending
        self._pending = None
        state = self.game
        if state is None or state.turn not in (US, None):
            return  # not ours to play: the move was sent again after it was recorded (a stale board)
        if seen is not None and seen != result:
            log.warning("record %s: the server shows %s after our move %s, expected %s",
                        self.path, seen.position_id(), move, result.position_id())
            self.broken = True
            return
        self._dice.pop(US, None)
        self._add(Roll(US, dice, move, note=self._notes.pop("move", None)))

    def _double_first(self, answering: int) -> None:
        """A take or drop whose double was lost in a reconnect: add the double."""
        state = self.game
        if state is not None and not state.doubled:
            self._add(Double(1 - answering))

    def _resign(self, event: clip.ResignOffer) -> None:
        state = self.game
        if state is None:
            return
        value = event.points // state.cube
        if value not in (1, 2, 3) or value * state.cube != event.points:
            log.warning("record %s: resignation for %d points with the cube at %d", self.path, event.points, state.cube)
            self.broken = True
            return
        self._add(Resign(_who(event.player), value))

    def _opponent_moves(self, text: str) -> None:
        dice = self._dice.pop(THEM, None)
        board = self._board
        if self.game is None or self.broken or board is None:
            return
        if not board.player_on_turn and board.dice:
            dice = board.dice  # the board right before the move is the surest source
        if dice is None:
            log.warning("record %s: the opponent's dice for %r were not seen; the game stops here", self.path, text)
            self.broken = True
            return
        before = replace(board, turn=-board.colour, opponent_dice=dice, player_dice=(0, 0))
        try:
            move = parse_move_line(before, text)
        except IllegalMoveError as exc:
            log.warning("record %s: opponent's move %r: %s; the game stops here", self.path, text, exc)
            self.broken = True
            return
        self._add(Roll(THEM, dice, move))

    def _lapse_resignation(self, board: FibsBoard) -> None:
        """A saved match keeps no open resignation: if this game goes on (the score
        is the record's), the offer pending in the record lapsed unanswered. A
        refusal is how a record lets play go on; its comment says what happened."""
        state = self.game
        if (state is not None and state.resignation is not None
                and (board.opponent_score, board.player_score) == self.record.score()):
            self._add(RejectResign(1 - state.resignation.player, comment=LAPSED))

    def _catch_up(self, board: FibsBoard) -> bool:
        """Append what lost lines must have said, until the record shows ``board``'s state."""
        here = board.position
        doubled = board.was_doubled
        # the side to act on the board; while a double waits, the doubler is the one on roll
        on_roll = (US if board.player_on_turn else THEM) ^ doubled
        for _ in range(6):
            state = self.game
            if state is None or self.broken:
                return False
            # before the opening roll either side may be first
            if state.position(US) == here and state.cube == board.cube and state.on_roll in (on_roll, None):
                if state.doubled == doubled:
                    return True
                if doubled:
                    self._add(Double(on_roll))
                    continue
            if state.doubled and state.turn is not None:
                if board.cube != 2 * state.cube:
                    return False
                self._add(Take(state.turn))  # the take was lost
            elif state.on_roll == US and self._pending is not None:
                self._commit_pending(None)
            # the opening play was lost: made by the side not to act now
            elif not self._lost_roll(state, 1 - on_roll if state.on_roll is None else state.on_roll,
                                     lambda after: after == here):
                return False
        return False

    def _lost_roll(self, state: GameState, mover: int, fits: Callable[[Position], bool]) -> bool:
        """A roll of ``mover`` was lost: record the first roll and play whose result ``fits``
        (seen from us); dice not seen are marked as reconstructed."""
        before = state.position(mover)
        seen = self._dice.pop(mover, None)
        # an opening roll is never a doublet
        rolls = sorted(((d1, d2) for d1 in range(6, 0, -1) for d2 in range(d1, 0, -1)),
                       key=lambda d: state.on_roll is None and d[0] == d[1])
        for dice in [seen] + rolls if seen else rolls:
            for move, after in before.legal_plays(*dice):
                if fits(after if mover == US else after.swap()):
                    if dice != seen:
                        log.warning("record %s: game %d: the dice of %s's roll were not seen (connection lost); "
                                    "the move %s is recorded with the dice marked unknown", self.path,
                                    len(self.record.games), self.record.players[mover], move)
                    self._add(Roll(mover, dice, move, comment="" if dice == seen else RECONSTRUCTED))
                    return not self.broken
        return False

    def finish_lost(self) -> None:
        """The running game ended on the server, but its end was lost: reconstruct it if
        the record's state allows only one kind of end; flushes the file."""
        for _ in range(2):
            state = self.game
            if state is None or self.broken:
                return
            answering = state.turn
            if state.resignation is not None and answering is not None:
                self._add(AcceptResign(answering))
            elif state.doubled and answering is not None:
                self._add(Drop(answering))
            elif state.on_roll == US and self._pending is not None:
                self._commit_pending(None)
            elif state.on_roll is None or not self._lost_roll(state, state.on_roll,
                                                             lambda after: board_outcome(after) != 0):
                break
        self.flush()


class SavedIndex:
    """``records/saved.json``: the record file of each match saved on the server."""

    def __init__(self, path: Path) -> None:
        self.path = path

    def _read(self) -> dict[str, str]:
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return {}
        return {str(k): str(v) for k, v in data.items()} if isinstance(data, dict) else {}

    def get(self, opponent: str) -> Path | None:
        path = self._read().get(opponent)
        return Path(path) if path else None

    def put(self, opponent: str, path: Path | None) -> None:
        data = self._read()
        if path is None:
            if data.pop(opponent, None) is None:
                return
        else:
            data[opponent] = str(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        atomic_write(self.path, json.dumps(data, indent=1, sort_keys=True) + "\n")

    def open(self, opponent: str) -> Recorder | None:
        """The recorder of a saved match against ``opponent``, if its file is usable."""
        path = self.get(opponent)
        if path is None:
            return None
        try:
            return Recorder.open(path)
        except (OSError, RecordParseError, ValueError) as exc:
            log.warning("saved match with %s: cannot continue %s: %s", opponent, path, exc)
            return None


class Ledger:
    """One JSON line per match that ended or was interrupted."""

    def __init__(self, path: Path) -> None:
        self.path = path

    def write(self, entry: dict[str, Any]) -> None:
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            with open(self.path, "a", encoding="utf-8") as f:
                f.write(json.dumps(entry, sort_keys=True) + "\n")
        except OSError as exc:
            log.error("cannot write the ledger %s: %s", self.path, exc)
        _notify(ledger_listeners, entry)
