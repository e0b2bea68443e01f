"""The life of a match: it starts, is resumed or taken up from a board, is saved by an
interruption (a drop is never "match over"), and ends, at the table or while we were away.

Every board of ours passes here first: checked, matched to the match we believe in (a board of
another match ends that belief), recorded, then handed to :class:`~bot.player.game.GamePlayer`.
"""

from __future__ import annotations

import logging

from bot import clip, commands, fibsboard
from bot.fibsboard import FibsBoard
from bot.player.context import Context
from bot.player.game import GamePlayer
from bot.player.lifecycle import Lifecycle
from bot.player.model import MatchContext, MatchResult, outcome
from bot.recorder import Recorder
from engine.errors import BoardParseError
from engine.position import Position

log = logging.getLogger(__name__)

_INITIAL = Position.initial()

class MatchFlow:
    """Starts, resumes, interruptions and ends of matches; the intake of boards."""

    def __init__(self, ctx: Context, game: GamePlayer, life: Lifecycle) -> None:
        self.ctx = ctx
        self.game = game
        self.life = life
        self._greeting: tuple[str, str] | None = None  # the kibitzed greeting, told instead if kibitz is unknown

    # -- boards -------------------------------------------------------------------------

    def on_board(self, event: clip.Board) -> None:
        ctx = self.ctx
        try:
            board = fibsboard.parse(event.line)
            fibsboard.check_in_play(board)
        except BoardParseError as exc:
            # impossible or unreadable: no game action on it; the next valid board is acted on
            log.warning("impossible board (%s): asking again: %r", exc, event.line[:300])
            self.game.refresh()
            return
        if board.player != clip.YOU:
            return  # watching someone
        ctx.board = board
        ctx.answer_pending = False
        m = ctx.match
        if m is not None and board.turn != 0 and not self._same_match(m, board):
            m = None
        if m is None:
            if board.turn == 0:
                return
            m = self._adopt(board)
        if m.length is None:
            m.length = _length(board)
        if board.turn != 0 and m.between_games:
            self._begin_game(m, board)
        if board.turn != 0 and not m.game_known:
            _settle_crawford(m, board)
        if m.recorder is None and ctx.records_dir is not None and board.turn != 0:
            m.recorder = Recorder.create(ctx.records_dir, m.opponent, ctx.name or "fibsbot", m.length,
                                         place=ctx.cfg.server.host)
        if m.recorder is not None:
            if m.resync:
                m.recorder.resync(board, m.crawford_game)
            else:
                m.recorder.board(board, m.crawford_game)
        m.resync = False
        self.game.on_board(board)

    # -- games --------------------------------------------------------------------------

    def _begin_game(self, m: MatchContext, board: FibsBoard) -> None:
        """The first board of a game, whether "Starting a new game" came before it or not."""
        m.between_games = False
        m.opened = board.position == _INITIAL
        m.game_known = False
        self.game.new_game(announced=False)

    def on_game_start(self, event: clip.GameStart) -> None:
        m = self.ctx.match
        if m is None:
            return
        if m.opened:
            m.opened = False
            log.debug("the server announces the game its board began")
            return
        if not m.between_games:
            log.warning("a new game with %s starts, the end of the last one was not seen", m.opponent)
        m.between_games = True
        m.game_known = False
        self.game.new_game()

    def on_game_end(self, event: clip.GameWon | clip.GiveUp | clip.ResignAccepted) -> None:
        ctx = self.ctx
        m = ctx.match
        if m is not None:
            ctx.stats.games += 1
            m.between_games = True
            m.opened = False
            score = m.recorder.record.score() if m.recorder is not None and m.recorder.record.games else None
            log.info("game with %s %s: %d point%s%s", m.opponent, "won" if event.winner == clip.YOU else "lost",
                     event.points, "" if event.points == 1 else "s",
                     f"; {score[1]}-{score[0]} in the record" if score else "")
        self.game.game_over()

    def on_play(self, event: clip.Moves | clip.CantMove) -> None:
        if self.ctx.match is not None:
            self.ctx.match.opened = False

    def index_record(self) -> None:
        """Name the running match's record in ``records/saved.json`` (a restart, even after
        kill -9, continues it)."""
        m = self.ctx.match
        index = self.ctx.saved_index
        if m is not None and m.recorder is not None and index is not None and m.indexed != m.recorder.path:
            m.indexed = m.recorder.path
            index.put(m.opponent, m.recorder.path)

    def _same_match(self, m: MatchContext, board: FibsBoard) -> bool:
        """Whether ``board`` belongs to the match we believe in; if not, that belief ends
        (the board is the server's truth: a match change was missed)."""
        length = _length(board)
        if board.opponent == m.opponent and m.length in (None, length):
            return True
        log.warning("the board shows a %s-point match with %s, not our %s-point match with %s: resyncing",
                    length or "unlimited", board.opponent, m.length or "unlimited", m.opponent)
        self.ctx.match = None
        self.game.invalidate()
        if board.opponent == m.opponent:
            self.ctx.interrupted[m.opponent] = m
            self.ended_away(m.opponent)  # one saved match per pair of players: ours is over
            self.ctx.server_saved.pop(m.opponent, None)
        else:
            self.interrupt(m, f"a board of a match with {board.opponent}")
        return False

    def _adopt(self, board: FibsBoard) -> MatchContext:
        """A board of a match we did not see start (e.g. after a restart): take it up."""
        log.info("taking up the running match with %s from its board", board.opponent)
        m = self.ctx.interrupted.pop(board.opponent, None) or self._saved_context(board.opponent)
        if m.length not in (None, _length(board)):
            log.warning("our saved %s-point match with %s is not the one on the board: a new record",
                        m.length or "unlimited", board.opponent)
            m = MatchContext(board.opponent, _length(board), rating_before=self.ctx.rating)
        m.resync = True
        self.ctx.match = m
        self.game.act_on_next_board()
        return m

    def _saved_context(self, opponent: str) -> MatchContext:
        ctx = self.ctx
        recorder = ctx.saved_index.open(opponent) if ctx.saved_index else None
        saved = ctx.server_saved.get(opponent)
        m = MatchContext(opponent, recorder.record.length if recorder else saved.length if saved else None,
                         recorder=recorder, rating_before=ctx.rating, indexed=recorder.path if recorder else None)
        if recorder is not None:
            m.crawford_played = recorder.crawford_played
        return m

    # -- starts -------------------------------------------------------------------------

    def on_new_match(self, event: clip.NewMatch) -> None:
        ctx = self.ctx
        ctx.interrupted.pop(event.opponent, None)
        ctx.server_saved.pop(event.opponent, None)
        ctx.match = MatchContext(event.opponent, event.length, rating_before=ctx.rating)
        if ctx.records_dir is not None:  # now: the opening roll comes before any board
            ctx.match.recorder = Recorder.create(ctx.records_dir, event.opponent, ctx.name or "fibsbot",
                                                 event.length, place=ctx.cfg.server.host)
        self.game.invalidate()
        log.info("match with %s (%s) begins", event.opponent, f"{event.length} points" if event.length else "unlimited")
        greeting = ctx.cfg.play.greeting
        if greeting:
            self._greet(event.opponent, greeting.format(opponent=event.opponent, level=ctx.level))

    def _greet(self, opponent: str, text: str) -> None:
        """Kibitz the greeting; a tell to the opponent where the server lacks kibitz."""
        ctx = self.ctx
        if "kibitz" in ctx.unanswered:
            ctx.send(commands.tell(opponent, text))
            return
        self._greeting = (opponent, text)
        ctx.send(commands.kibitz(text))

    def on_unknown_command(self, event: clip.UnknownCommand) -> None:
        ctx = self.ctx
        log.warning("the server does not know the command %r: not using it again", event.command)
        ctx.unanswered.add(event.command)
        greeting, self._greeting = self._greeting, None
        if event.command == "kibitz" and greeting is not None:
            ctx.send(commands.tell(*greeting))

    def on_resumed(self, event: clip.MatchResumed) -> None:
        ctx = self.ctx
        m = ctx.interrupted.pop(event.opponent, None) or self._saved_context(event.opponent)
        ctx.server_saved.pop(event.opponent, None)
        m.resync = True
        m.game_known = False
        ctx.match = m
        self.game.invalidate()
        log.info("match with %s resumed", event.opponent)
        self.game.ask_board()

    def on_resume_length(self, event: clip.ResumeLength) -> None:
        if self.ctx.match is not None and self.ctx.match.length is None:
            self.ctx.match.length = event.length

    # -- ends ---------------------------------------------------------------------------

    def on_match_won(self, event: clip.MatchWon) -> None:
        ctx = self.ctx
        m = ctx.match
        if m is None:
            return
        won = event.winner == clip.YOU
        ours = event.score if won else (event.score[1], event.score[0])
        ctx.match = None
        self.game.invalidate()
        self._finish(m, event.length, ours, won)
        goodbye = ctx.cfg.play.goodbye
        if goodbye:
            ctx.send(commands.tell(m.opponent, goodbye.format(opponent=m.opponent, level=ctx.level)))
        self.life.match_over()

    def _finish(self, m: MatchContext, length: int, score: tuple[int, int] | None, won: bool | None) -> None:
        ctx = self.ctx
        ctx.stats.matches += 1
        if m.recorder is not None:
            m.recorder.close(over=True)
        path = m.recorder.written if m.recorder else None
        if ctx.saved_index is not None:
            ctx.saved_index.put(m.opponent, None)
        result = MatchResult(m.opponent, length, score, won, path)
        ctx.results.append(result)
        ctx.result.set()
        ctx.idle.set()
        log.info("match with %s over: %s", m.opponent, outcome(result))
        self.life.record_result(m, result)

    def ended_away(self, opponent: str) -> None:
        """An interrupted match is no longer saved on the server: it ended while we were away."""
        m = self.ctx.interrupted.pop(opponent, None)
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

    # -- interruptions --------------------------------------------------------------------

    def on_saved(self, event: clip.GameSaved) -> None:
        m = self.ctx.match
        if m is None:
            return
        log.info("match with %s interrupted (%s %s); it is saved on the server", m.opponent, event.player, event.reason)
        self.interrupt(m, f"{event.player} {event.reason}")
        self.life.match_over()

    def on_error(self, event: clip.Error) -> None:
        """A ``**`` line during the match: the match is gone, or the game player judges it."""
        m = self.ctx.match
        if m is not None and isinstance(event, clip.NotPlaying):
            log.warning("server: ** %s: the match is no longer running", event.text)
            self.interrupt(m, "not playing")
            return
        self.game.on_error(event)

    def on_disconnected(self) -> None:
        m = self.ctx.match
        if m is not None:
            log.info("connection lost during the match with %s; it is saved on the server", m.opponent)
            self.interrupt(m, "disconnect")

    def interrupt(self, m: MatchContext, why: str) -> None:
        ctx = self.ctx
        ctx.match = None
        ctx.idle.set()
        self.game.invalidate()
        ctx.stats.interruptions += 1
        m.game_known = False
        ctx.interrupted[m.opponent] = m
        written = None
        if m.recorder is not None:
            m.recorder.close(over=False)  # the index already names it: a resume continues it
            written = m.recorder.written
        self.life.record_saved(m, why, written)


def _settle_crawford(m: MatchContext, board: FibsBoard) -> None:
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


def _length(board: FibsBoard) -> int:
    """The board's match length as the records count it (0 = unlimited)."""
    return 0 if board.match_length == fibsboard.UNLIMITED else board.match_length
