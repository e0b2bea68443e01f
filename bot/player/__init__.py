"""The bot's game logic: server events in, FIBS commands out.

:class:`Player` is a state machine over :mod:`bot.clip` events, and a thin one: it routes each
event to the part that owns it. It never blocks: engine decisions and the screening of
inviters run as tasks, engine calls in a thread with a deadline (a late or failing call gives a
safe default). The rooms:

- :mod:`~bot.player.game`: the match player, board -> engine decision -> command (moves, the
  cube, resignations); the ``board:`` line is the truth, a move is only sent if legal;
- :mod:`~bot.player.flow`: a match's start, resume, interruption and end, and the intake of boards;
- :mod:`~bot.player.lobby`: invitations and their screening, who is on, saved matches, resumes;
- :mod:`~bot.player.chat`: tells and the operators' commands;
- :mod:`~bot.player.lifecycle`: ready, pause, drain, and the ledger;
- :mod:`~bot.player.context`: what they share (config, engine, connection, tasks, the facts);
- :mod:`~bot.player.model`: the engine and connection protocols and the value types.

The engine is reached through :class:`Decider`, the decision part of
``engine.evaluator.Engine``, so tests can pass a fake one.
"""

from __future__ import annotations

import logging
import random
from collections.abc import Callable
from typing import Any

from bot import clip, commands
from bot.config import BotConfig
from bot.player.chat import OperatorChat
from bot.player.context import Context
from bot.player.flow import MatchFlow
from bot.player.game import GamePlayer
from bot.player.lifecycle import Lifecycle
from bot.player.lobby import Lobby
from bot.player.model import (
    Challenge,
    CubeChoice,
    Decider,
    Link,
    MatchContext,
    MatchResult,
    MoveChoice,
    Stats,
    outcome,
)

__all__ = ["Challenge", "CubeChoice", "Decider", "Link", "MatchContext", "MatchResult", "MoveChoice", "Player",
           "Stats", "outcome"]

log = logging.getLogger(__name__)

_NOTICES: tuple[type[clip.Error], ...] = (
    clip.Error, clip.GameError, clip.MoveRefused, clip.NotYourTurn, clip.ResignPending, clip.NotPlaying, clip.Busy,
    clip.NoSuchUser, clip.NoSavedMatch, clip.UnknownCommand)
"""The ``**`` notices, each typed by clip; the parts match on the type."""


class Player(Context):
    """Plays matches on one FIBS account; see the module docstring. It holds the facts
    the parts share (:class:`~bot.player.context.Context`) and routes each event to its part."""

    def __init__(self, config: BotConfig, decider: Decider, *, challenge: Challenge | None = None,
                 records: bool = True, rng: random.Random | None = None) -> None:
        if config.engine.strength is not None:
            log.info("playing at %s", config.engine.describe_level())
        super().__init__(config, decider, challenge=challenge, records=records, rng=rng)
        self.game = GamePlayer(self)
        self.life = Lifecycle(self)
        self.flow = MatchFlow(self, self.game, self.life)
        self.lobby = Lobby(self, self.flow)
        self.chat = OperatorChat(self, self.life, wake=self.game.refresh)
        self.on_task_failed = self.game.refresh
        # which part handles each event: one row per event type the player acts on
        self._routes: dict[type[clip.Event], Callable[[Any], None]] = {
            clip.Board: self.flow.on_board,
            clip.YourTurn: self.game.on_your_turn,
            clip.PleaseMove: self.game.on_please_move,
            clip.Doubles: self.game.on_doubles,
            clip.ResignOffer: self.game.on_resign_offer,
            **dict.fromkeys(_NOTICES, self._on_error),
            clip.ResignRejected: self.game.on_resign_rejected,
            clip.GameStart: self.flow.on_game_start,
            clip.GameWon: self.flow.on_game_end,
            clip.GiveUp: self.flow.on_game_end,
            clip.ResignAccepted: self.flow.on_game_end,
            clip.Moves: self.flow.on_play,
            clip.CantMove: self.flow.on_play,
            clip.JoinNextGame: self.life.on_join_next,
            clip.NewMatch: self._on_match_start,
            clip.MatchResumed: self._on_match_start,
            clip.ResumeLength: self.flow.on_resume_length,
            clip.MatchWon: self.flow.on_match_won,
            clip.GameSaved: self.flow.on_saved,
            clip.Invitation: self.lobby.on_invitation,
            clip.InviteSent: self.lobby.on_invite_sent,
            clip.SavedMatchWarning: self.lobby.on_saved_warning,
            clip.JoinHint: self.lobby.on_join_hint,
            clip.WhoInfo: self.lobby.on_who,
            clip.UserLogout: self.lobby.on_user_logout,
            clip.SavedMatch: self.lobby.on_saved_row,
            clip.SavedHeader: self.lobby.on_saved_listing,
            clip.NoSavedGames: self.lobby.on_saved_listing,
            clip.Toggled: self.life.on_toggled,
            clip.Says: self.chat.on_says,
            clip.Alert: self.chat.on_says,
            clip.Kibitzes: self.chat.on_kibitz,
        }

    # -- wiring -----------------------------------------------------------------------

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
        self.game.ask_board()
        self.send(commands.show_saved())
        if self.cfg.account.address:
            self.send(commands.address(self.cfg.account.address))
        self.lobby.start_challenge()
        self.idle.set()
        if self.draining:
            self.close_link()

    def on_disconnected(self) -> None:
        """The connection is gone; a running match is saved by the server (EOF is never "match over")."""
        self.game.invalidate()
        self.cancel_waiters()
        self.lobby.on_disconnected()
        self.answer_pending = False
        self.resume_asked = None
        self.flow.on_disconnected()

    def recover(self) -> None:
        """A line's handling failed unexpectedly (the session logged it): forget what was
        under way and act on a fresh board."""
        self.game.invalidate()
        self.game.ask_board()

    async def new_result(self) -> None:
        """Wait for the next finished match."""
        self.result.clear()
        await self.result.wait()

    def drain(self) -> None:
        """Stop taking matches; finish (or save) the running one, then log out."""
        self.life.drain()

    # -- events -----------------------------------------------------------------------

    def handle(self, event: clip.Event) -> None:
        """One server event (the session calls this for every line)."""
        self.notify(event)
        if not isinstance(event, clip.SavedMatch | clip.SavedHeader | clip.Blank):
            self.lobby.listing_ended()  # (some servers put blank lines between all lines)
        m = self.match
        if m is not None and m.recorder is not None:
            m.recorder.event(event)  # journaled before any command the event leads to
        handler = self._routes.get(type(event))
        if handler is not None:
            handler(event)
        self.flow.index_record()

    def _on_error(self, event: clip.Error) -> None:
        if isinstance(event, clip.UnknownCommand):
            self.flow.on_unknown_command(event)
            return
        asked, self.resume_asked = self.resume_asked, None
        if self.match is None:
            self.lobby.on_error(event, asked)
        else:
            self.flow.on_error(event)

    def _on_match_start(self, event: clip.NewMatch | clip.MatchResumed) -> None:
        self.lobby.on_match_started()
        if isinstance(event, clip.NewMatch):
            self.flow.on_new_match(event)
        else:
            self.flow.on_resumed(event)
