"""The bot's game logic: server events in, FIBS commands out.

:class:`Player` is a state machine over :mod:`bot.clip` events. It never
blocks: engine decisions and the screening of inviters run as tasks, engine
calls in a thread with a deadline (a late or failing call gives a safe
default). The ``board:`` line is the truth: whenever the state is unclear
(an unexpected error, a refused move, a resume) the player asks for
``board`` and acts on what it shows. A move is only ever sent if it is a
legal play of the server's board for the server's dice.

The engine is reached through :class:`Decider`, the decision part of
``engine.evaluator.Engine`` (CONTRACT.md), so tests can pass a fake one.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import random
import re
import time
from collections.abc import Callable, Coroutine, Hashable
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path
from typing import Any, Protocol, TypeVar

from bot import clip, commands, fibsboard, policy
from bot.config import BotConfig, Invitations
from bot.fibsboard import FibsBoard
from bot.recorder import Ledger, Recorder, SavedIndex
from engine.errors import BoardParseError, IllegalMoveError
from engine.levels import Level
from engine.match import GAME_PLAYING, MatchState
from engine.position import Move, Position

log = logging.getLogger(__name__)
T = TypeVar("T")


# -- what the player needs from the engine and the connection -----------------


class MoveChoice(Protocol):
    @property
    def move(self) -> Move: ...


class CubeChoice(Protocol):
    @property
    def should_double(self) -> bool: ...

    @property
    def should_take(self) -> bool: ...


class Decider(Protocol):
    """The decisions of ``engine.evaluator.Engine`` (CONTRACT.md): the mover is ``match.on_roll``,
    whose checkers are ``position.board[1]``."""

    def best_move(self, position: Position, dice: tuple[int, int], match: MatchState | None = None,
                  level: str | Level = "expert") -> MoveChoice: ...

    def cube_decision(self, position: Position, match: MatchState | None = None,
                      level: str | Level = "expert") -> CubeChoice: ...

    def resign_offer(self, position: Position, match: MatchState | None = None, level: str | Level = "expert",
                     declined: int = 0) -> int: ...

    def accept_resignation(self, position: Position, match: MatchState | None, level: str | Level,
                           value: int) -> bool: ...


class Link(Protocol):
    """The connection as the player sees it."""

    def send(self, command: str) -> None: ...

    def close(self) -> None:
        """Log out for good (``bye``) and stop reconnecting."""


# -- bookkeeping ---------------------------------------------------------------


@dataclass
class Stats:
    """Counters for logs, the soak test and the operator."""

    moves_sent: int = 0
    refused_moves: int = 0
    illegal_blocked: int = 0
    deadline_misses: int = 0
    engine_errors: int = 0
    refreshes: int = 0
    games: int = 0
    matches: int = 0
    interruptions: int = 0
    logins: int = 0


@dataclass(frozen=True)
class MatchResult:
    opponent: str
    length: int
    score: tuple[int, int] | None
    """Ours first; None when the match ended while we were disconnected and the record cannot tell."""
    won: bool | None
    record: Path | None


def outcome(result: MatchResult) -> str:
    if result.won is None or result.score is None:
        return "unknown (it ended while we were disconnected)"
    return f"{'won' if result.won else 'lost'} {result.score[0]}-{result.score[1]}"


@dataclass(frozen=True)
class Challenge:
    """Invite ``opponent`` to ``matches`` consecutive ``length``-point matches (local play)."""

    opponent: str
    length: int
    matches: int = 1
    retry_s: float = 3.0


@dataclass
class MatchContext:
    opponent: str
    length: int | None
    """None until the server says (a resume without a saved record)."""
    recorder: Recorder | None = None
    rating_before: float | None = None
    crawford_played: bool = False
    crawford_game: bool = False
    game_known: bool = False
    """The Crawford flag of the running game is settled."""
    resync: bool = False
    resign_declined: int = 0
    indexed: Path | None = None
    """The record file ``records/saved.json`` names for this match."""


_REFUSED = re.compile(r"You (?:can't move|must give|have to remove|can't remove)|Please don't give more"
                      r"|move: legal words")
_NOT_PLAYING = re.compile(r"You're not playing")
# answers to a join or invite (a second invitation accepted, a resume raced): the game is untouched
_INVITATION_ONLY = re.compile(r"You can't play two games at once|You are already playing\.|"
                              r"is already playing with someone else|didn't invite you")
_NO_ONE = re.compile(r"There is no one called (\S+?)\.?$")
_NO_SAVED = re.compile(r"There's no saved match with (\S+)\.")
_WAKE = {"move", "board", "roll", "join", "wake", "hello"}
_GAME_COMMANDS = {"move", "roll", "double", "accept", "reject", "resign", "board"}
"""Commands whose ``**`` answer is a game error; other ``**`` lines are notices."""
# a ``**`` answer to a game command speaks of the game; notices about others do not
_GAME_WORDS = re.compile(r"\b(?:move|moves|roll|rolled|dice|double|doubles|redouble|accept|reject|resign|turn|"
                         r"cube|game|board|playing|pieces?|checkers?|bar|command|give)\b", re.IGNORECASE)
# answers to a resume invitation that say "not now", not "no such saved match"
_NOT_NOW = re.compile(r"There is no one called|is already playing|You are already playing|is away|"
                      r"can't play two games|not logged in|isn't logged in|is not here|refus|not ready|"
                      r"is watching", re.IGNORECASE)
_RESIGN_PENDING = re.compile(r"(\S+) wanted to resign\.")
_CHATTER_INTERVAL_S = 3600.0
_MAX_REFRESHES = 4  # per decision; more means we and the server disagree for good


def _version() -> str:
    try:
        return metadata.version("fibsbot")
    except metadata.PackageNotFoundError:
        return "dev"


class Player:
    """Plays matches on one FIBS account; see the module docstring."""

    def __init__(self, config: BotConfig, decider: Decider, *, challenge: Challenge | None = None,
                 records: bool = True, rng: random.Random | None = None) -> None:
        self.cfg = config
        self.decider = decider
        self.level = config.engine.level_name
        self.play_level = config.engine.playing_level()  # a Level when playing by FIBS rating
        if config.engine.strength is not None:
            log.info("playing at %s", config.engine.describe_level())
        self.challenge = challenge
        self.rng = rng or random.Random()
        self.stats = Stats()
        self.results: list[MatchResult] = []
        self._result = asyncio.Event()
        self._idle = asyncio.Event()  # a match ended: the challenger invites again at once
        self.name = ""
        self.rating: float | None = None
        self.ready: bool | None = None
        self.paused = False
        self.draining = False
        self.match: MatchContext | None = None
        self.board: FibsBoard | None = None
        self.who: dict[str, clip.WhoInfo] = {}
        self.server_saved: dict[str, clip.SavedMatch] = {}
        self.interrupted: dict[str, MatchContext] = {}
        folder = config.records.dir
        self.records_dir: Path | None = folder if records else None
        self.saved_index = SavedIndex(folder / "saved.json") if records else None
        self.ledger = Ledger(config.records.ledger) if records else None
        self._link: Link | None = None
        self._tasks: set[asyncio.Task[None]] = set()
        self._waiters: list[tuple[Callable[[clip.Event], bool], asyncio.Future[clip.Event]]] = []
        self._act_key: Hashable = None
        self._act_board: FibsBoard | None = None  # the board of the decision under way
        self._last_key: Hashable = None
        self._act_id = 0
        self._refreshes = 0
        self._refresh_for: Callable[[FibsBoard], None] | None = None
        self._last_move: tuple[Hashable, Move] | None = None
        self._refused: dict[Hashable, set[Move]] = {}
        self._please_move: tuple[Hashable, int] | None = None
        self._invitations: dict[str, int | None] = {}
        self._warned: dict[str, int] = {}
        self._screening: set[str] = set()
        self._last_inviter = ""
        self._told: dict[str, float] = {}
        self._invited: dict[str, float] = {}
        self._resign_offer: clip.ResignOffer | None = None
        self._listing: set[str] | None = None
        self._answer_pending = False  # a game command was sent and no board has come since
        self._resume_asked: str | None = None  # the last resume invitation awaiting its answer

    # -- wiring -----------------------------------------------------------------

    def attach(self, link: Link) -> None:
        self._link = link

    @property
    def wants_ready(self) -> bool:
        return not (self.paused or self.draining)

    def send(self, command: str) -> None:
        if self._link is None:
            raise RuntimeError("the player is not attached to a connection")
        word = command.partition(" ")[0]
        if word in _GAME_COMMANDS:
            self._answer_pending = True
        elif word == "invite" and command.count(" ") == 1:
            self._resume_asked = command.split()[1]
        self._link.send(command)

    def on_login(self, name: str, own: clip.OwnInfo) -> None:
        """Logged in, toggles set: look for saved matches and start any challenge."""
        self.name = name
        self.stats.logins += 1
        self.rating = own.rating
        self.ready = self.wants_ready  # the session has just set it so
        self.who.clear()
        self.server_saved.clear()
        # the server may have kept a game of ours running across a drop or a restart: its
        # board says so, and is acted on if it is our turn ("not playing" otherwise); asked
        # first, so that the saved list, which cannot show a running game, ends no belief in it
        self._refresh_for = self._act_on
        self.send(commands.board())
        self.send(commands.show_saved())
        if self.cfg.account.address:
            self.send(commands.address(self.cfg.account.address))
        if self.challenge is not None and not any(t.get_name() == "challenge" for t in self._tasks):
            self._spawn(self._challenge_loop(self.challenge), name="challenge")
        self._idle.set()
        if self.draining:
            self._link_close()

    def on_disconnected(self) -> None:
        """The connection is gone; a running match is saved by the server (EOF is never "match over")."""
        self._invalidate()
        for _, future in self._waiters:
            future.cancel()
        self._waiters.clear()
        self._invitations.clear()
        self._listing = None  # a ``show saved`` list cut off proves nothing; the next login asks again
        self._answer_pending = False
        self._resume_asked = None
        m = self.match
        if m is not None:
            log.info("connection lost during the match with %s; it is saved on the server", m.opponent)
            self._interrupt(m, "disconnect")

    def recover(self) -> None:
        """A line's handling failed unexpectedly (the session logged it): forget what was
        under way and act on a fresh board."""
        self._invalidate()
        self._refresh_for = self._act_on
        self.send(commands.board())

    async def new_result(self) -> None:
        """Wait for the next finished match."""
        self._result.clear()
        await self._result.wait()

    async def settle(self, *, ledger: bool = True) -> None:
        """Wait until no decision or screening task is running (tests); ``ledger=False``
        does not wait for a ledger line's rating either (the fuzzer)."""
        idle = ("challenge", "drain") if ledger else ("challenge", "drain", "ledger")
        while busy := [t for t in self._tasks if t.get_name() not in idle and not t.done()]:
            await asyncio.gather(*busy, return_exceptions=True)

    async def close(self) -> None:
        for task in list(self._tasks):
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)

    # -- events -----------------------------------------------------------------

    def handle(self, event: clip.Event) -> None:
        """One server event (the session calls this for every line)."""
        for waiter in list(self._waiters):
            predicate, future = waiter
            if not future.done() and predicate(event):
                future.set_result(event)
                self._waiters.remove(waiter)
        if self._listing is not None and not isinstance(event, clip.SavedMatch | clip.SavedHeader):
            self._listing_done()
        m = self.match
        if m is not None and m.recorder is not None:
            m.recorder.event(event)  # journaled before any command the event leads to
        handler = _HANDLERS.get(type(event))
        if handler is not None:
            handler(self, event)
        m = self.match
        if m is not None and m.recorder is not None and self.saved_index is not None and m.indexed != m.recorder.path:
            m.indexed = m.recorder.path  # a restart (even after kill -9) continues this record
            self.saved_index.put(m.opponent, m.recorder.path)

    def _on_board(self, event: clip.Board) -> None:
        try:
            board = fibsboard.parse(event.line)
            fibsboard.check_in_play(board)
        except BoardParseError as exc:
            # impossible or unreadable: no game action on it; the next valid board is acted on
            log.warning("impossible board (%s): asking again: %r", exc, event.line[:300])
            self._refresh()
            return
        if board.player != clip.YOU:
            return  # watching someone
        self.board = board
        self._answer_pending = False
        m = self.match
        if m is not None and board.turn != 0 and not self._same_match(m, board):
            m = None
        if m is None:
            if board.turn == 0:
                return
            m = self._adopt(board)
        if m.length is None:
            m.length = _length(board)
        if board.turn != 0 and not m.game_known:
            self._settle_crawford(m, board)
        if m.recorder is None and self.records_dir is not None and board.turn != 0:
            m.recorder = Recorder.create(self.records_dir, m.opponent, self.name or "fibsbot", m.length,
                                         place=self.cfg.server.host)
        if m.recorder is not None:
            if m.resync:
                m.recorder.resync(board, m.crawford_game)
            else:
                m.recorder.board(board, m.crawford_game)
        m.resync = False
        # a decision under way for another board must not be sent: what this board shows is done instead
        superseded = self._act_key is not None and board != self._act_board
        if superseded:
            self._act_key = None
            self._act_id += 1
        waiting, self._refresh_for = self._refresh_for, None
        if waiting is not None:
            waiting(board)
        elif superseded:
            self._act_on(board)
        elif board.turn != 0 and board.player_on_turn and board.dice:
            self._start_move(board)

    def _same_match(self, m: MatchContext, board: FibsBoard) -> bool:
        """Whether ``board`` belongs to the match we believe in; if not, that belief ends
        (the board is the server's truth: a match change was missed)."""
        length = _length(board)
        if board.opponent == m.opponent and m.length in (None, length):
            return True
        log.warning("the board shows a %s-point match with %s, not our %s-point match with %s: resyncing",
                    length or "unlimited", board.opponent, m.length or "unlimited", m.opponent)
        self.match = None
        self._invalidate()
        if board.opponent == m.opponent:
            self.interrupted[m.opponent] = m
            self._ended_away(m.opponent)  # one saved match per pair of players: ours is over
            self.server_saved.pop(m.opponent, None)
        else:
            self._interrupt(m, f"a board of a match with {board.opponent}")
        return False

    def _adopt(self, board: FibsBoard) -> MatchContext:
        """A board of a match we did not see start (e.g. after a restart): take it up."""
        log.info("taking up the running match with %s from its board", board.opponent)
        m = self.interrupted.pop(board.opponent, None) or self._saved_context(board.opponent)
        if m.length not in (None, _length(board)):
            log.warning("our saved %s-point match with %s is not the one on the board: a new record",
                        m.length or "unlimited", board.opponent)
            m = MatchContext(board.opponent, _length(board), rating_before=self.rating)
        m.resync = True
        self.match = m
        self._refresh_for = self._act_on
        return m

    def _saved_context(self, opponent: str) -> MatchContext:
        recorder = self.saved_index.open(opponent) if self.saved_index else None
        saved = self.server_saved.get(opponent)
        m = MatchContext(opponent, recorder.record.length if recorder else saved.length if saved else None,
                         recorder=recorder, rating_before=self.rating, indexed=recorder.path if recorder else None)
        if recorder is not None:
            m.crawford_played = recorder.crawford_played
        return m

    def _settle_crawford(self, m: MatchContext, board: FibsBoard) -> None:
        """The Crawford flag of a game, tracked by us: FIBS's board fields are unreliable."""
        m.game_known = True
        length = m.length or 0
        at = [length - s == 1 for s in (board.player_score, board.opponent_score)]
        history = m.recorder.record if m.recorder else None
        if length <= 1 or at[0] == at[1]:
            crawford = False
        elif not m.resync:
            crawford = not m.crawford_played  # a game we saw start
        elif history is not None and history.games and history.games[-1].result is None:
            crawford = history.games[-1].crawford_game  # the record holds this game
        elif history is not None and history.games:
            crawford = not m.crawford_played
        else:
            crawford = board.match.crawford_game  # no history: FIBS's field is all there is
        m.crawford_game = crawford
        m.crawford_played |= crawford

    # -- acting on the board -----------------------------------------------------

    def _act_on(self, board: FibsBoard) -> None:
        """Do whatever the board says is ours to do (after a refresh or a resume)."""
        if board.turn == 0 or not board.player_on_turn:
            return
        if board.dice:
            self._start_move(board)
        elif board.was_doubled:
            self._start_take(board)
        else:
            self._start_turn(board)

    def _begin(self, key: Hashable, board: FibsBoard, coro: Callable[[int], Coroutine[Any, Any, None]]) -> None:
        """Start deciding ``key`` (on ``board``) unless that decision is already under way."""
        if key == self._act_key:
            return
        if key != self._last_key:
            self._refreshes = 0
            self._last_key = key
        self._act_key = key
        self._act_board = board
        self._act_id += 1
        self._spawn(coro(self._act_id))

    def _current(self, act_id: int) -> bool:
        return act_id == self._act_id

    def _invalidate(self) -> None:
        """Forget decisions under way: their answers must not be sent."""
        self._act_key = None
        self._act_id += 1
        self._refresh_for = None

    def _state(self, board: FibsBoard, mover: int) -> MatchState:
        """The match state with ``mover`` (1 = us) about to act, our Crawford flag."""
        crawford = self.match.crawford_game if self.match else False
        return board.match.with_(on_roll=mover, turn=mover, dice=None, doubled=False, resigned=0,
                                 crawford_game=crawford, game_state=GAME_PLAYING)

    def _key(self, kind: str, board: FibsBoard) -> Hashable:
        return (kind, board.position, board.dice, board.player_score, board.opponent_score, board.cube)

    def _start_move(self, board: FibsBoard) -> None:
        key = self._key("move", board)
        self._begin(key, board, lambda act_id: self._move(board, key, act_id))

    async def _move(self, board: FibsBoard, key: Hashable, act_id: int) -> None:
        dice = board.dice
        assert dice is not None
        position = board.position
        plays = position.legal_plays(*dice)
        if not plays[0][0].steps:
            return  # FIBS passes the turn itself ("You can't move.")
        if await self._maybe_resign(board, act_id):
            return
        if len(plays) == 1:
            move = plays[0][0]
        else:
            match = self._state(board, 1).with_(dice=dice)
            choice = await self._decide("move", lambda: self.decider.best_move(position, dice, match, self.play_level),
                                        None)
            move = choice.move if choice is not None else plays[0][0]
        if not self._current(act_id):
            return
        refused = self._refused.get(key, set())
        legal = [m for m, _ in plays]
        chosen = _legal_play(position, plays, move)
        if chosen is None:
            self.stats.illegal_blocked += 1
            log.error("the engine chose %s, not legal for %d-%d in %s", move, *dice, position.position_id())
        if chosen is None or chosen in refused:
            chosen = next((m for m in legal if m not in refused), legal[0])
        move = chosen
        wanted = self._please_move
        steps = len(plays[0][0].steps)
        if wanted is not None and wanted[0] == key and wanted[1] != steps:
            log.warning("FIBS asks for %d sub-moves, the legal plays have %d: asking for the board", wanted[1], steps)
            self._refresh()
            return
        try:
            command = commands.move(board, move)
        except IllegalMoveError as exc:
            self.stats.illegal_blocked += 1
            log.error("not sending %s: %s", move, exc)
            return
        self._last_move = (key, move)
        self.stats.moves_sent += 1
        if self.match is not None and self.match.recorder is not None:
            self.match.recorder.sent_move(dice, move, position.play(move))  # journaled before it is sent
        self.send(command)

    def _start_turn(self, board: FibsBoard) -> None:
        key = self._key("turn", board)
        self._begin(key, board, lambda act_id: self._turn(board, act_id))

    async def _turn(self, board: FibsBoard, act_id: int) -> None:
        """Our turn before the roll: resign, double or roll."""
        if await self._maybe_resign(board, act_id):
            return
        m = self.match
        if board.player_may_double and not (m and m.crawford_game):
            state = self._state(board, 1)
            position = board.position
            cube = await self._decide("cube", lambda: self.decider.cube_decision(position, state, self.play_level),
                                      None)
            if not self._current(act_id):
                return
            if cube is not None and cube.should_double:
                self.send(commands.double())
                return
        if self._current(act_id):
            self.send(commands.roll())

    async def _maybe_resign(self, board: FibsBoard, act_id: int) -> bool:
        """Offer a resignation if the engine says so; True if the game ended by it."""
        m = self.match
        if not self.cfg.play.offer_resignations or m is None:
            return False
        state = self._state(board, 1)
        position = board.position
        declined = m.resign_declined
        value = await self._decide(
            "resign", lambda: self.decider.resign_offer(position, state, self.play_level, declined), 0)
        if not self._current(act_id) or value <= m.resign_declined or value not in (1, 2, 3):
            return False
        self.send(commands.resign(value))
        answer = await self._wait_for(lambda e: isinstance(e, clip.ResignAccepted | clip.ResignRejected
                                                           | clip.GameSaved), None)
        if isinstance(answer, clip.ResignRejected):
            m.resign_declined = value
            return not self._current(act_id)
        return True

    def _start_take(self, board: FibsBoard) -> None:
        key = self._key("take", board)
        self._begin(key, board, lambda act_id: self._take(board, act_id))

    async def _take(self, board: FibsBoard, act_id: int) -> None:
        """The opponent doubled: the decision is the doubler's cube decision, seen from them."""
        state = self._state(board, 0)
        position = board.position.swap()
        cube = await self._decide("take", lambda: self.decider.cube_decision(position, state, self.play_level), None)
        if self._current(act_id):
            self.send(commands.accept() if cube is None or cube.should_take else commands.reject())

    async def _answer_resignation(self, offer: clip.ResignOffer, board: FibsBoard, act_id: int) -> None:
        value = max(1, min(3, offer.points // board.cube))
        state = self._state(board, 1)
        position = board.position
        accept = await self._decide(
            "resignation", lambda: self.decider.accept_resignation(position, state, self.play_level, value), False)
        if self._current(act_id):
            self.send(commands.accept() if accept else commands.reject())

    async def _decide(self, what: str, call: Callable[[], T], fallback: T) -> T:
        """Run an engine call in a thread with the deadline, then the think time."""
        loop = asyncio.get_running_loop()
        start = loop.time()
        try:
            result = await asyncio.wait_for(asyncio.to_thread(call), self.cfg.engine.deadline_s)
        except TimeoutError:
            self.stats.deadline_misses += 1
            log.warning("engine %s decision missed its %.1f s deadline: using the safe default", what,
                        self.cfg.engine.deadline_s)
            result = fallback
        except Exception:  # the engine is foreign code: never let it stop the bot
            self.stats.engine_errors += 1
            log.exception("engine %s decision failed: using the safe default", what)
            result = fallback
        low, high = self.cfg.engine.think_time_s
        pause = self.rng.uniform(low, high) - (loop.time() - start)
        if pause > 0:
            await asyncio.sleep(pause)
        return result

    def _refresh(self, then: Callable[[FibsBoard], None] | None = None) -> None:
        """Ask for the board and act on it (bounded, so that a disagreement cannot loop)."""
        self._refreshes += 1
        if self._refreshes > _MAX_REFRESHES:
            if self._refreshes == _MAX_REFRESHES + 1:
                log.error("the server keeps refusing; waiting for it to move on")
            return
        self.stats.refreshes += 1
        self._invalidate()
        self._refresh_for = then or self._act_on
        self.send(commands.board())

    # -- turn and cube events ----------------------------------------------------

    def _on_your_turn(self, event: clip.YourTurn) -> None:
        board = self.board
        if board is not None and board.player_on_turn and not board.dice and not board.was_doubled:
            self._start_turn(board)
        else:
            self._refresh()

    def _on_please_move(self, event: clip.PleaseMove) -> None:
        if self.board is not None and self.board.dice:
            self._please_move = (self._key("move", self.board), event.count)

    def _on_doubles(self, event: clip.Doubles) -> None:
        if event.player == clip.YOU or self.match is None:
            return
        board = self.board
        if board is not None and board.turn != 0 and not board.dice:
            self._start_take(board)
        else:
            self._refresh(self._start_take)

    def _on_resign_offer(self, event: clip.ResignOffer) -> None:
        if event.player == clip.YOU or event.winner != clip.YOU:
            return
        self._resign_offer = event
        board = self.board
        if board is None:
            self.send(commands.reject())
            return
        self._invalidate()
        self._spawn(self._answer_resignation(event, board, self._act_id))

    def _on_resign_rejected(self, event: clip.ResignRejected) -> None:
        if event.player == clip.YOU and self.match is not None:
            self._resign_offer = None
            self._refresh()  # the game goes on: whatever was ours to do still is

    def _on_error(self, event: clip.Error) -> None:
        asked, self._resume_asked = self._resume_asked, None
        if self.match is None:
            gone = _NO_SAVED.match(event.text)
            if gone:
                self._lapse(gone[1], event.text)
            elif asked is not None and _refuses_resume(event.text, asked):
                self._lapse(asked, event.text)
            absent = _NO_ONE.match(event.text)
            if absent:
                self._invited.pop(absent[1], None)  # invite again as soon as they log in
            log.info("server: ** %s", event.text)
            return
        if _NOT_PLAYING.match(event.text):
            log.warning("server: ** %s: the match is no longer running", event.text)
            self._interrupt(self.match, "not playing")
            return
        if _INVITATION_ONLY.search(event.text):
            log.info("server: ** %s (an invitation, not the game)", event.text)
            return
        if not (self._answer_pending and _GAME_WORDS.search(event.text)):
            log.info("server: ** %s (answers no game command of ours: not a game error)", event.text)
            return
        self._answer_pending = False
        if _REFUSED.search(event.text):
            self.stats.refused_moves += 1
            log.error("FIBS refused our move (%s): asking for the board", event.text)
            if self._last_move is not None:
                key, move = self._last_move
                self._refused.setdefault(key, set()).add(move)
            if self.match.recorder is not None:
                self.match.recorder.move_refused()
            self._refresh()
            return
        pending = _RESIGN_PENDING.match(event.text)
        if pending and self._resign_offer is not None and self.board is not None:
            self._invalidate()
            self._spawn(self._answer_resignation(self._resign_offer, self.board, self._act_id))
            return
        log.warning("server: ** %s (during the match): asking for the board", event.text)
        self._refresh()

    # -- game and match flow -----------------------------------------------------

    def _on_game_start(self, event: clip.GameStart) -> None:
        m = self.match
        if m is None:
            return
        m.game_known = False
        m.resign_declined = 0
        self._refused.clear()
        self._please_move = None
        self._invalidate()

    def _on_game_end(self, event: clip.Event) -> None:
        if self.match is not None:
            self.stats.games += 1
        self._resign_offer = None
        self._invalidate()

    def _on_join_next(self, event: clip.JoinNextGame) -> None:
        if self.draining and self.cfg.play.drain == "save":
            self.send(commands.leave())
        else:
            self.send(commands.join())

    def _on_new_match(self, event: clip.NewMatch) -> None:
        self._invitations.clear()
        self.interrupted.pop(event.opponent, None)
        self.server_saved.pop(event.opponent, None)
        self.match = MatchContext(event.opponent, event.length, rating_before=self.rating)
        if self.records_dir is not None:  # now: the opening roll comes before any board
            self.match.recorder = Recorder.create(self.records_dir, event.opponent, self.name or "fibsbot",
                                                  event.length, place=self.cfg.server.host)
        self._invalidate()
        log.info("match with %s (%s) begins", event.opponent, f"{event.length} points" if event.length else "unlimited")
        greeting = self.cfg.play.greeting
        if greeting:
            self.send(commands.kibitz(greeting.format(opponent=event.opponent, level=self.level)))

    def _on_resumed(self, event: clip.MatchResumed) -> None:
        self._invitations.clear()
        m = self.interrupted.pop(event.opponent, None) or self._saved_context(event.opponent)
        self.server_saved.pop(event.opponent, None)
        m.resync = True
        m.game_known = False
        self.match = m
        self._invalidate()
        log.info("match with %s resumed", event.opponent)
        self._refresh_for = self._act_on
        self.send(commands.board())

    def _lapse(self, opponent: str, why: str) -> None:
        """The server does not confirm a saved match with ``opponent``: stop believing in it."""
        if opponent in self.interrupted or opponent in self.server_saved or opponent in self._warned:
            log.warning("the server does not confirm our saved match with %s (%s): it is over", opponent, why)
        self.server_saved.pop(opponent, None)
        self._warned.pop(opponent, None)
        self._ended_away(opponent)

    def _on_invite_sent(self, event: clip.InviteSent) -> None:
        if event.user == self._resume_asked:
            self._resume_asked = None  # confirmed: the server has the saved match

    def _on_resume_length(self, event: clip.ResumeLength) -> None:
        if self.match is not None and self.match.length is None:
            self.match.length = event.length

    def _on_match_won(self, event: clip.MatchWon) -> None:
        m = self.match
        if m is None:
            return
        won = event.winner == clip.YOU
        ours = event.score if won else (event.score[1], event.score[0])
        self.match = None
        self._invalidate()
        self._finish(m, event.length, ours, won)
        goodbye = self.cfg.play.goodbye
        if goodbye:
            self.send(commands.tell(m.opponent, goodbye.format(opponent=m.opponent, level=self.level)))
        if self.draining:
            self._link_close()

    def _finish(self, m: MatchContext, length: int, score: tuple[int, int] | None, won: bool | None) -> None:
        self.stats.matches += 1
        if m.recorder is not None:
            m.recorder.close(over=True)
        path = m.recorder.written if m.recorder else None
        if self.saved_index is not None:
            self.saved_index.put(m.opponent, None)
        result = MatchResult(m.opponent, length, score, won, path)
        self.results.append(result)
        self._result.set()
        self._idle.set()
        log.info("match with %s over: %s", m.opponent, outcome(result))
        self._spawn(self._write_ledger(m, result), name="ledger")

    def _ended_away(self, opponent: str) -> None:
        """An interrupted match is no longer saved on the server: it ended while we were away."""
        m = self.interrupted.pop(opponent, None)
        if m is None:
            return
        score, won = None, None
        if m.recorder is not None:
            m.recorder.finish_lost()
            record = m.recorder.record
            if record.is_over():
                them, us = record.score()
                score, won = (us, them), us > them
        log.warning("the match with %s ended while we were disconnected (%s)", opponent,
                    "the record shows the end" if won is not None else "result unknown")
        self._finish(m, m.length or 0, score, won)

    async def _write_ledger(self, m: MatchContext, result: MatchResult) -> None:
        """Ledger line for a finished match, once the server tells the new rating."""
        after = None
        if self.name:
            self.send(commands.rawwho(self.name))
            who = await self._wait_for(lambda e: isinstance(e, clip.WhoInfo) and e.name == self.name, 10.0)
            after = who.rating if isinstance(who, clip.WhoInfo) else None
        if self.ledger is not None:
            self.ledger.write({
                "time": time.strftime("%Y-%m-%dT%H:%M:%S%z"), "opponent": m.opponent, "length": result.length,
                "score": list(result.score) if result.score else None, "result": outcome(result).split()[0],
                "rating_before": m.rating_before, "rating_after": after,
                "record": str(result.record) if result.record else None,
            })

    def _on_saved(self, event: clip.GameSaved) -> None:
        m = self.match
        if m is None:
            return
        log.info("match with %s interrupted (%s %s); it is saved on the server", m.opponent, event.player, event.reason)
        self._interrupt(m, f"{event.player} {event.reason}")
        if self.draining:
            self._link_close()

    def _interrupt(self, m: MatchContext, why: str) -> None:
        self.match = None
        self._idle.set()
        self._invalidate()
        self.stats.interruptions += 1
        m.game_known = False
        self.interrupted[m.opponent] = m
        written = None
        if m.recorder is not None:
            m.recorder.close(over=False)  # the index already names it: a resume continues it
            written = m.recorder.written
        if self.ledger is not None:
            self.ledger.write({
                "time": time.strftime("%Y-%m-%dT%H:%M:%S%z"), "opponent": m.opponent, "length": m.length,
                "result": "saved", "why": why, "rating_before": m.rating_before,
                "record": str(written) if written else None,
            })

    # -- invitations -------------------------------------------------------------

    def _on_invitation(self, event: clip.Invitation) -> None:
        if self.match is None:
            self._invitations[event.user] = event.length
            self._last_inviter = event.user
            self._warned.pop(event.user, None)

    def _on_saved_warning(self, event: clip.SavedMatchWarning) -> None:
        if self._last_inviter:
            self._warned[self._last_inviter] = event.length

    def _on_join_hint(self, event: clip.JoinHint) -> None:
        user = event.user
        if user in self._invitations and user not in self._screening and self.match is None:
            self._screening.add(user)
            self._spawn(self._screen(user, self._invitations[user]))

    async def _screen(self, user: str, length: int | None) -> None:
        """Decide on an invitation, asking the server about the inviter only when a rule needs it."""
        try:
            rules = self.cfg.invitations
            await asyncio.sleep(0)  # a saved-match warning follows the invitation
            info, count, asked = self.who.get(user), None, set()
            while True:
                saved = self._warned.get(user)
                if saved is None and user in self.interrupted:
                    saved = self.interrupted[user].length
                inviter = policy.Inviter(user, length, info.rating if info else None,
                                         info.experience if info else None, count, saved)
                decision = policy.decide(rules, inviter, paused=not self.wants_ready)
                if decision.reason in ("rating_unknown", "experience_unknown") and "who" not in asked:
                    asked.add("who")
                    self.send(commands.rawwho(user))
                    found = await self._wait_for(lambda e: isinstance(e, clip.WhoInfo) and e.name == user,
                                                 rules.screen_timeout_s)
                    info = found if isinstance(found, clip.WhoInfo) else None
                    if info is None:
                        rules = self._unanswered(rules, user, "rawwho", min_rating=None, max_rating=None,
                                                 min_experience=0, max_experience=None)
                elif decision.reason == "saved_unknown" and "saved" not in asked:
                    asked.add("saved")
                    self.send(commands.show_savedcount(user))
                    reply = await self._wait_for(lambda e: isinstance(e, clip.SavedCount) and e.user == user,
                                                 rules.screen_timeout_s)
                    count = reply.count if isinstance(reply, clip.SavedCount) else None
                    if count is None:
                        rules = self._unanswered(rules, user, "show savedcount", max_saved=None)
                elif decision.reason == "saved_match" and "resume" not in asked:
                    asked.add("resume")
                    if not await self._saved_match_confirmed(user):
                        continue  # the belief lapsed: decide again without it
                    break
                else:
                    break
            log.info("invitation from %s (%s): %s, %s", user, "resume" if length is None else
                     f"{length} points" if length else "unlimited", "accept" if decision.accept else "decline",
                     decision.reason)
            if self._invitations.get(user, -1) != length or self.match is not None:
                return  # withdrawn, replaced, or we are playing now
            self._invitations.pop(user, None)
            if decision.accept:
                self.send(commands.join(user))
                return
            if rules.tell_reason and self._may_tell(user, rules.tell_interval_s):
                self.send(commands.tell(user, decision.text))
        finally:
            self._screening.discard(user)

    def _unanswered(self, rules: Invitations, user: str, question: str, **unchecked: object) -> Invitations:
        """A question about an inviter the server left unanswered: the config says whether
        to join without that check or decline."""
        if rules.unanswered == "decline":
            log.warning("the server did not answer %s %s: declining as configured", question, user)
            return rules
        log.warning("the server did not answer %s %s: joining without checking", question, user)
        return rules.model_copy(update=unchecked)

    async def _saved_match_confirmed(self, user: str) -> bool:
        """Invite ``user`` to resume our saved match: True if the server confirms it; else
        (a refusal in any wording, or no answer) the belief lapses."""
        self._invite(user, None, throttle=False)
        answer = await self._wait_for(
            lambda e: isinstance(e, clip.InviteSent) and e.user == user
            or isinstance(e, clip.Error) and (_refuses_resume(e.text, user) or bool(_NOT_NOW.search(e.text))),
            self.cfg.invitations.screen_timeout_s)
        if isinstance(answer, clip.InviteSent) and answer.length is None:
            return True
        if isinstance(answer, clip.Error) and _NOT_NOW.search(answer.text):
            return True  # it exists, but not now
        self._lapse(user, answer.text if isinstance(answer, clip.Error) else "no answer to the resume invitation")
        return False

    def _invite(self, user: str, length: int | None, *, throttle: bool = True) -> None:
        now = time.monotonic()
        if throttle and now - self._invited.get(user, -1e9) < 0.5:
            return  # who lines come in bursts
        self._invited[user] = now
        self.send(commands.invite(user, length))

    def _may_tell(self, user: str, interval: float) -> bool:
        now = time.monotonic()
        if now - self._told.get(user, -1e9) < interval:
            return False
        self._told[user] = now
        return True

    def _resumable(self, user: str) -> bool:
        return user in self.interrupted or user in self.server_saved

    def _on_who(self, event: clip.WhoInfo) -> None:
        self.who[event.name] = event
        if event.name == self.name:
            self.ready = event.ready
            self.rating = event.rating
        elif self.match is None and self.wants_ready and event.opponent is None:
            if self.challenge is not None and self.challenge.opponent == event.name:
                self._idle.set()  # the sparring partner is free: invite now
            elif self.challenge is None and self._resumable(event.name):
                self._invite(event.name, None)

    def _on_user_logout(self, event: clip.UserLogout) -> None:
        self.who.pop(event.name, None)

    def _on_saved_listing(self, event: clip.SavedHeader | clip.NoSavedGames) -> None:
        """``show saved``: an interrupted match missing from it has ended while we were away."""
        self._listing = set()
        if isinstance(event, clip.NoSavedGames):
            self._listing_done()

    def _listing_done(self) -> None:
        listed, self._listing = self._listing or set(), None
        for opponent in [o for o in self.interrupted if o not in listed]:
            self._ended_away(opponent)

    def _on_saved_row(self, event: clip.SavedMatch) -> None:
        if self._listing is not None:
            self._listing.add(event.opponent)
        self.server_saved[event.opponent] = event
        if event.online and self.match is None and self.wants_ready and (
                self.challenge is None or self.challenge.opponent == event.opponent):
            self._invite(event.opponent, None)

    def _on_toggled(self, event: clip.Toggled) -> None:
        if event.name == "ready":
            self.ready = event.value

    # -- chat and operator commands ----------------------------------------------

    def _on_says(self, event: clip.Says | clip.Alert) -> None:
        user, words = event.name, event.text.strip().lower().split()
        command = words[0] if words else ""
        if self.match is not None and user == self.match.opponent and command in _WAKE:
            self._refresh()
            return
        operator = user.lower() in {u.lower() for u in self.cfg.tell.operators}
        if operator and command in ("pause", "resume", "quit"):
            log.info("operator %s: %s", user, command)
            if command == "quit":
                self.send(commands.tell(user, "Stopping after the running match."))
                self.drain()
                return
            self.paused = command == "pause"
            self.send(commands.tell(user, "Paused." if self.paused else "Taking matches again."))
            self._fix_ready()
            return
        if command == "version":
            text = f"fibsbot {_version()}, a gnubg-compatible engine of its own."
        elif command == "level":
            text = f"I play at {self.cfg.engine.describe_level()}."
        else:
            text = self.cfg.tell.help.format(name=self.name)
        # Chatter gets the help text rarely: other bots answer tells too, and must not loop with us.
        interval = self.cfg.tell.interval_s if command in ("help", "version", "level") else _CHATTER_INTERVAL_S
        if self._may_tell(user, interval):
            self.send(commands.tell(user, text))

    def _on_kibitz(self, event: clip.Kibitzes) -> None:
        words = event.text.strip().lower().split()
        if self.match is not None and event.name == self.match.opponent and words and words[0] in _WAKE:
            self._refresh()

    def _fix_ready(self) -> None:
        if self.ready is not None and self.ready != self.wants_ready:
            self.ready = self.wants_ready
            self.send(commands.toggle("ready"))

    # -- stopping -----------------------------------------------------------------

    def drain(self) -> None:
        """Stop taking matches; finish (or save) the running one, then log out."""
        if self.draining:
            return
        self.draining = True
        log.info("draining: %s", "no match running" if self.match is None else
                 f"{self.cfg.play.drain} the match with {self.match.opponent}")
        if self._link is None:
            return
        self._fix_ready()
        if self.match is None:
            self._link_close()
        elif self.cfg.play.drain == "save":
            self.send(commands.leave())
        else:
            self._spawn(self._drain_deadline(), name="drain")

    async def _drain_deadline(self) -> None:
        await asyncio.sleep(self.cfg.play.drain_timeout_s)
        if self.match is not None:
            log.warning("the match takes too long to finish: leaving (it is saved)")
            self.send(commands.leave())
            await asyncio.sleep(5)
        self._link_close()

    def _link_close(self) -> None:
        if self._link is not None:
            self._link.close()

    # -- local play -----------------------------------------------------------------

    async def _challenge_loop(self, challenge: Challenge) -> None:
        """Keep inviting the sparring partner while idle, until enough matches are played."""
        while len(self.results) < challenge.matches and not self.draining:
            if self.match is None and self._link is not None and self.name:
                resume = self._resumable(challenge.opponent)
                self._invite(challenge.opponent, None if resume else challenge.length, throttle=False)
            self._idle.clear()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._idle.wait(), challenge.retry_s)

    # -- helpers -----------------------------------------------------------------

    def _spawn(self, coro: Coroutine[Any, Any, None], *, name: str | None = None) -> None:
        task = asyncio.get_running_loop().create_task(coro, name=name)
        self._tasks.add(task)
        task.add_done_callback(self._task_done)

    def _task_done(self, task: asyncio.Task[None]) -> None:
        self._tasks.discard(task)
        if not task.cancelled() and task.exception() is not None:
            log.error("task %s failed: asking for the board", task.get_name(), exc_info=task.exception())
            if self._link is not None:
                self._refresh()  # bounded: a decision that keeps failing is not retried forever

    async def _wait_for(self, predicate: Callable[[clip.Event], bool], timeout: float | None) -> clip.Event | None:
        """The next event matching ``predicate``; None on timeout or disconnect."""
        future: asyncio.Future[clip.Event] = asyncio.get_running_loop().create_future()
        self._waiters.append((predicate, future))
        try:
            return await asyncio.wait_for(future, timeout)
        except TimeoutError:
            return None
        except asyncio.CancelledError:
            task = asyncio.current_task()
            if task is not None and task.cancelling():
                raise  # we are being cancelled, not just the waiter (a disconnect)
            return None
        finally:
            self._waiters = [w for w in self._waiters if w[1] is not future]


def _refuses_resume(text: str, user: str) -> bool:
    """Whether a ``**`` line answering our resume invitation to ``user`` says there is no
    such saved match, in whatever wording (it names the user or the saved match, and is
    not one of the "not now" answers)."""
    lower = text.lower()
    return (user.lower() in lower or "saved" in lower) and not _NOT_NOW.search(text)


def _length(board: FibsBoard) -> int:
    """The board's match length as the records count it (0 = unlimited)."""
    return 0 if board.match_length == fibsboard.UNLIMITED else board.match_length


def _legal_play(position: Position, plays: list[tuple[Move, Position]], move: Move) -> Move | None:
    """The legal play (with its hits marked) that ``move`` means, if any."""
    for legal, _ in plays:
        if legal == move:
            return legal
    try:
        after = position.play(move)
    except IllegalMoveError:
        return None
    return next((legal for legal, result in plays if result == after), None)


_HANDLERS: dict[type[clip.Event], Callable[[Player, Any], None]] = {
    clip.Board: Player._on_board,
    clip.YourTurn: Player._on_your_turn,
    clip.PleaseMove: Player._on_please_move,
    clip.Doubles: Player._on_doubles,
    clip.ResignOffer: Player._on_resign_offer,
    clip.Error: Player._on_error,
    clip.ResignRejected: Player._on_resign_rejected,
    clip.GameStart: Player._on_game_start,
    clip.GameWon: Player._on_game_end,
    clip.GiveUp: Player._on_game_end,
    clip.ResignAccepted: Player._on_game_end,
    clip.JoinNextGame: Player._on_join_next,
    clip.NewMatch: Player._on_new_match,
    clip.MatchResumed: Player._on_resumed,
    clip.ResumeLength: Player._on_resume_length,
    clip.MatchWon: Player._on_match_won,
    clip.GameSaved: Player._on_saved,
    clip.Invitation: Player._on_invitation,
    clip.InviteSent: Player._on_invite_sent,
    clip.SavedMatchWarning: Player._on_saved_warning,
    clip.JoinHint: Player._on_join_hint,
    clip.WhoInfo: Player._on_who,
    clip.UserLogout: Player._on_user_logout,
    clip.SavedMatch: Player._on_saved_row,
    clip.SavedHeader: Player._on_saved_listing,
    clip.NoSavedGames: Player._on_saved_listing,
    clip.Toggled: Player._on_toggled,
    clip.Says: Player._on_says,
    clip.Alert: Player._on_says,
    clip.Kibitzes: Player._on_kibitz,
}
