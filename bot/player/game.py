"""The match player: a board in, a decision of the engine, a command out.

One decision is under way at a time, keyed by what it decides (the kind, the position, the
dice, the score, the cube): a board that shows something else supersedes it, and its answer is
never sent. The ``board:`` line is the truth: whenever the state is unclear (an unexpected
error, a refused move, a resume) the player asks for ``board`` and acts on what it shows. A
move is only ever sent if it is a legal play of the server's board for the server's dice.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Coroutine, Hashable
from typing import Any

from bot import clip, commands
from bot.fibsboard import FibsBoard
from bot.player.context import Context
from bot.player.thinking import record_note
from engine.errors import IllegalMoveError
from engine.match import GAME_PLAYING, MatchState
from engine.position import Move, Position

log = logging.getLogger(__name__)

_MAX_REFRESHES = 4  # per decision; more means we and the server disagree for good


class GamePlayer:
    """Turns, moves, the cube and resignations of the running game."""

    PROMPT_WAIT_S = 3.0
    """How long a board that says it is our turn waits for the server's prompt or roll."""

    RESIGN_ANSWER_S = 120.0
    """How long our resignation offer waits for its answer (the opponent may think) before it
    counts as refused: a server that never answers must not hold the turn for good."""

    def __init__(self, ctx: Context) -> None:
        self.ctx = ctx
        self._act_key: Hashable = None
        self._act_board: FibsBoard | None = None  # the board of the decision under way
        self._last_key: Hashable = None
        self._act_id = 0
        self._refreshes = 0
        self._refresh_for: Callable[[FibsBoard], None] | None = None
        self._last_move: tuple[Hashable, Move] | None = None
        self._refused: dict[Hashable, set[Move]] = {}
        self._please_move: tuple[Hashable, int] | None = None
        self._resign_offer: clip.ResignOffer | None = None
        self._unprompted = False  # the server left a turn of ours unprompted before

    # -- boards ---------------------------------------------------------------------

    def on_board(self, board: FibsBoard) -> None:
        """Our board, checked and recorded: act on it if it is ours to act on."""
        # a decision under way for another board must not be sent: what this board shows is done instead
        superseded = self._act_key is not None and board != self._act_board
        if superseded:
            self._act_key = None
            self._act_id += 1
        waiting, self._refresh_for = self._refresh_for, None
        if waiting is not None:
            waiting(board)
        elif superseded:
            self.act_on(board)
        elif board.turn != 0 and board.player_on_turn and board.dice:
            self._start_move(board)
        elif board.turn != 0 and board.player_on_turn:
            self._await_prompt(board)

    def _await_prompt(self, board: FibsBoard) -> None:
        """The board says it is our turn to roll (or to answer a double), and the server may
        never prompt nor roll for us (BaldLies in a Crawford game): if nothing has happened
        after a short wait, do what the board says."""
        act_id = self._act_id

        async def later() -> None:
            await asyncio.sleep(self.PROMPT_WAIT_S)
            ctx = self.ctx
            if ctx.board is board and self._act_id == act_id and self._act_key is None and not ctx.answer_pending:
                log.log(logging.DEBUG if self._unprompted else logging.INFO,
                        "the board says it is our turn and the server neither prompts nor rolls: acting on it%s",
                        "" if self._unprompted else " (said once; DEBUG logs each time)")
                self._unprompted = True
                self.act_on(board)
        self.ctx.spawn(later(), name="prompt")

    def act_on_next_board(self) -> None:
        """The next board is acted on whatever it shows (after a resume or a restart)."""
        self._refresh_for = self.act_on

    def ask_board(self) -> None:
        """Ask for the board and act on whatever it shows."""
        self.act_on_next_board()
        self.ctx.send(commands.board())

    def act_on(self, board: FibsBoard) -> None:
        """Do whatever the board says is ours to do (after a refresh or a resume)."""
        if board.turn == 0 or not board.player_on_turn:
            return
        if board.dice:
            self._start_move(board)
        elif board.was_doubled:
            self._start_take(board)
        else:
            self._start_turn(board)

    def invalidate(self) -> None:
        """Forget decisions under way: their answers must not be sent."""
        self._act_key = None
        self._act_id += 1
        self._refresh_for = None

    def refresh(self, then: Callable[[FibsBoard], None] | None = None) -> None:
        """Ask for the board and act on it (bounded, so that a disagreement cannot loop)."""
        self._refreshes += 1
        if self._refreshes > _MAX_REFRESHES:
            if self._refreshes == _MAX_REFRESHES + 1:
                log.error("the server keeps refusing; waiting for it to move on")
            return
        self.ctx.stats.refreshes += 1
        self.invalidate()
        self._refresh_for = then or self.act_on
        self.ctx.send(commands.board())

    # -- deciding -----------------------------------------------------------------------

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
        self.ctx.spawn(coro(self._act_id))

    def _current(self, act_id: int) -> bool:
        return act_id == self._act_id

    def _state(self, board: FibsBoard, mover: int) -> MatchState:
        """The match state with ``mover`` (1 = us) about to act, our Crawford flag."""
        crawford = self.ctx.match.crawford_game if self.ctx.match else False
        return board.match.with_(on_roll=mover, turn=mover, dice=None, doubled=False, resigned=0,
                                 crawford_game=crawford, game_state=GAME_PLAYING)

    def _key(self, kind: str, board: FibsBoard) -> Hashable:
        return (kind, board.position, board.dice, board.player_score, board.opponent_score, board.cube)

    def _start_move(self, board: FibsBoard) -> None:
        key = self._key("move", board)
        self._begin(key, board, lambda act_id: self._move(board, key, act_id))

    async def _move(self, board: FibsBoard, key: Hashable, act_id: int) -> None:
        ctx = self.ctx
        dice = board.dice
        assert dice is not None
        position = board.position
        plays = position.legal_plays(*dice)
        if not plays[0][0].steps:
            return  # FIBS passes the turn itself ("You can't move.")
        if await self._maybe_resign(board, act_id):
            return
        note = None
        if len(plays) == 1:
            move = plays[0][0]
        else:
            match = self._state(board, 1).with_(dice=dice)
            choice = await ctx.decide("move", lambda: ctx.decider.best_move(position, dice, match, ctx.play_level),
                                      None)
            move = choice.move if choice is not None else plays[0][0]
            note = record_note(choice)
        engine_move = move
        if not self._current(act_id):
            return
        refused = self._refused.get(key, set())
        legal = [m for m, _ in plays]
        chosen = _legal_play(position, plays, move)
        if chosen is None:
            ctx.stats.illegal_blocked += 1
            log.error("the engine chose %s, not legal for %d-%d in %s", move, *dice, position.position_id())
        if chosen is None or chosen in refused:
            chosen = next((m for m in legal if m not in refused), legal[0])
        move = chosen
        wanted = self._please_move
        steps = len(plays[0][0].steps)
        if wanted is not None and wanted[0] == key and wanted[1] != steps:
            log.warning("FIBS asks for %d sub-moves, the legal plays have %d: asking for the board", wanted[1], steps)
            self.refresh()
            return
        try:
            command = commands.move(board, move)
        except IllegalMoveError as exc:
            ctx.stats.illegal_blocked += 1
            log.error("not sending %s: %s", move, exc)
            return
        self._last_move = (key, move)
        ctx.stats.moves_sent += 1
        if ctx.match is not None and ctx.match.recorder is not None:
            # journaled before it is sent; the note only if the engine's play is the one sent
            ctx.match.recorder.sent_move(dice, move, position.play(move),
                                         note if move == engine_move else None)
        ctx.send(command)

    def _start_turn(self, board: FibsBoard) -> None:
        key = self._key("turn", board)
        self._begin(key, board, lambda act_id: self._turn(board, act_id))

    async def _turn(self, board: FibsBoard, act_id: int) -> None:
        """Our turn before the roll: resign, double or roll."""
        ctx = self.ctx
        if await self._maybe_resign(board, act_id):
            return
        m = ctx.match
        if board.player_may_double and not (m and m.crawford_game):
            state = self._state(board, 1)
            position = board.position
            cube = await ctx.decide("cube", lambda: ctx.decider.cube_decision(position, state, ctx.play_level), None)
            if not self._current(act_id):
                return
            if cube is not None and cube.should_double:
                self._note_cube(cube)
                ctx.send(commands.double())
                return
        if self._current(act_id):
            ctx.send(commands.roll())

    async def _maybe_resign(self, board: FibsBoard, act_id: int) -> bool:
        """Offer a resignation if the engine says so; True if the game ended by it."""
        ctx = self.ctx
        m = ctx.match
        if not ctx.cfg.play.offer_resignations or m is None:
            return False
        state = self._state(board, 1)
        position = board.position
        declined = m.resign_declined
        value = await ctx.decide(
            "resign", lambda: ctx.decider.resign_offer(position, state, ctx.play_level, declined), 0)
        if not self._current(act_id) or value <= m.resign_declined or value not in (1, 2, 3):
            return False
        ctx.send(commands.resign(value))
        answer = await ctx.wait_for(lambda e: isinstance(e, clip.ResignAccepted | clip.ResignRejected
                                                         | clip.GameSaved), self.RESIGN_ANSWER_S)
        unanswered = answer is None and self._current(act_id)  # not a disconnect: that invalidates
        if unanswered:
            log.warning("no answer to our resignation offer in %.0f s: taken as refused", self.RESIGN_ANSWER_S)
        if unanswered or isinstance(answer, clip.ResignRejected):
            m.resign_declined = value
            return not self._current(act_id)
        return True

    def _start_take(self, board: FibsBoard) -> None:
        key = self._key("take", board)
        self._begin(key, board, lambda act_id: self._take(board, act_id))

    async def _take(self, board: FibsBoard, act_id: int) -> None:
        """The opponent doubled: the decision is the doubler's cube decision, seen from them."""
        ctx = self.ctx
        state = self._state(board, 0)
        position = board.position.swap()
        cube = await ctx.decide("take", lambda: ctx.decider.cube_decision(position, state, ctx.play_level), None)
        if self._current(act_id):
            self._note_cube(cube)
            ctx.send(commands.accept() if cube is None or cube.should_take else commands.reject())

    def _note_cube(self, cube: object) -> None:
        """The engine note of our double, take or pass, for the record (thinking-time levels)."""
        note = record_note(cube)
        m = self.ctx.match
        if note is not None and m is not None and m.recorder is not None:
            m.recorder.cube_note(note)

    async def _answer_resignation(self, offer: clip.ResignOffer, board: FibsBoard, act_id: int) -> None:
        ctx = self.ctx
        value = max(1, min(3, offer.points // board.cube))
        state = self._state(board, 1)
        position = board.position
        accept = await ctx.decide(
            "resignation", lambda: ctx.decider.accept_resignation(position, state, ctx.play_level, value), False)
        if self._current(act_id):
            ctx.send(commands.accept() if accept else commands.reject())

    # -- turn, cube and resignation events ------------------------------------------------

    def on_your_turn(self, event: clip.YourTurn) -> None:
        board = self.ctx.board
        if board is not None and board.player_on_turn and not board.dice and not board.was_doubled:
            self._start_turn(board)
        else:
            self.refresh()

    def on_please_move(self, event: clip.PleaseMove) -> None:
        board = self.ctx.board
        if board is not None and board.dice:
            self._please_move = (self._key("move", board), event.count)

    def on_doubles(self, event: clip.Doubles) -> None:
        if event.player == clip.YOU or self.ctx.match is None:
            return
        board = self.ctx.board
        if board is not None and board.turn != 0 and not board.dice:
            self._start_take(board)
        else:
            self.refresh(self._start_take)

    def on_resign_offer(self, event: clip.ResignOffer) -> None:
        if event.player == clip.YOU or event.winner != clip.YOU:
            return
        self._resign_offer = event
        board = self.ctx.board
        if board is None:
            self.ctx.send(commands.reject())
            return
        self.invalidate()
        self.ctx.spawn(self._answer_resignation(event, board, self._act_id))

    def on_resign_rejected(self, event: clip.ResignRejected) -> None:
        if event.player == clip.YOU and self.ctx.match is not None:
            self._resign_offer = None
            self.refresh()  # the game goes on: whatever was ours to do still is

    def on_error(self, event: clip.Error) -> None:
        """A ``**`` line during the match (one that does not end it)."""
        ctx = self.ctx
        if isinstance(event, clip.Busy):
            log.debug("server: ** %s (an invitation, not the game)", event.text)
            return
        if not (ctx.answer_pending and isinstance(event, clip.GameError)):
            log.debug("server: ** %s (answers no game command of ours: not a game error)", event.text)
            return
        ctx.answer_pending = False
        if isinstance(event, clip.MoveRefused):
            ctx.stats.refused_moves += 1
            log.error("FIBS refused our move (%s): asking for the board", event.text)
            if self._last_move is not None:
                key, move = self._last_move
                self._refused.setdefault(key, set()).add(move)
            if ctx.match is not None and ctx.match.recorder is not None:
                ctx.match.recorder.move_refused()
            self.refresh()
            return
        if isinstance(event, clip.ResignPending) and self._resign_offer is not None and ctx.board is not None:
            self.invalidate()
            ctx.spawn(self._answer_resignation(self._resign_offer, ctx.board, self._act_id))
            return
        log.warning("server: ** %s (during the match): asking for the board", event.text)
        self.refresh()

    # -- games -------------------------------------------------------------------------

    def new_game(self, *, announced: bool = True) -> None:
        """A game begins: what was learnt about the last one is void; when it is announced
        (not begun by its first board), so is any decision under way."""
        m = self.ctx.match
        if m is not None:
            m.resign_declined = 0
        self._refused.clear()
        self._please_move = None
        if announced:
            self.invalidate()

    def game_over(self) -> None:
        self._resign_offer = None
        self.invalidate()


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
