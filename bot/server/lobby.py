"""Matches from start to end: new, resumed, interrupted (saved), kept across a drop, finished."""

from __future__ import annotations

import logging
import time
from collections import Counter
from typing import TYPE_CHECKING

from bot.server.dice import Dice, SecureDice, SeededDice
from bot.server.matchdata import MatchData
from bot.server.table import Table, match_text

if TYPE_CHECKING:
    from bot.server.context import Online
    from bot.server.session import Session

log = logging.getLogger("bot.server")

# What the opponent is told when a player's match is interrupted, by reason.
_INTERRUPTED = {
    "leave": "** Player {0} has left the game. The game was saved.",
    "logout": "{0} logs out. The game was saved.",
    "drop": "{0} drops connection. The game was saved.",
    "timeout": "Connection with {0} timed out. The game was saved.",
}


class Lobby:
    """The matches of the users online; the server behind :class:`Online` stores and tells.

    ``seed``: the dice of each match are drawn from it (None: the OS's secure source).
    ``keep_games``: a dropped player's match runs on until they are back (FibsServer's option).
    ``silent_roll``: a turn the player may not double waits for ``roll`` with no prompt.
    """

    def __init__(self, online: Online, *, seed: int | None, keep_games: bool, silent_roll: bool = False) -> None:
        self.online = online
        self.seed = seed
        self.keep_games = keep_games
        self.silent_roll = silent_roll
        self._started: Counter[tuple[str, str]] = Counter()
        self.kept: dict[str, Table[Session]] = {}
        """Running matches of players gone (``keep_games``), by the absent player's name."""

    def _dice(self, data: MatchData) -> Dice:
        if self.seed is None:
            return SecureDice()
        if data.dice_state is not None:
            return SeededDice.restore(data.dice_state)
        pair = (min(data.names), max(data.names))
        self._started[pair] += 1
        return SeededDice.for_match(self.seed, data.names, self._started[pair])

    def _seat(self, table: Table[Session]) -> None:
        for session in table.seats:
            session.table = table
            session.invitation = None
            if session.watching is not None:  # players don't watch
                session.watching.watchers.discard(session)
                session.watching = None
        for session in table.seats:
            self.online.who_changed(session)

    def start_new(self, inviter: Session, joiner: Session, length: int) -> None:
        joiner.send(f"** You are now playing {match_text(length)} with {inviter.name}")
        stars = "** " if length else ""
        inviter.send(f"{stars}Player {joiner.name} has joined you for {match_text(length)}.")
        self.online.store.delete_match(inviter.name, joiner.name)  # a new match replaces the saved one
        crawford = inviter.account.toggles["crawford"] or joiner.account.toggles["crawford"]
        data = MatchData(names=(inviter.name, joiner.name), length=length, crawford_rule=crawford)
        table = Table(self, (inviter, joiner), data, self._dice(data))
        self._seat(table)
        self.report(f"{inviter.name} and {joiner.name} start {match_text(length)}.", data.names)
        table.start()

    def resume(self, inviter: Session, joiner: Session) -> None:
        saved = self.online.store.saved_match(inviter.name, joiner.name)
        try:
            data = MatchData.from_json(saved or "")
            if set(data.names) != {inviter.name, joiner.name}:
                raise ValueError("saved match of other players")
        except ValueError as exc:
            log.warning("saved match %s - %s: %s", inviter.name, joiner.name, exc)
            self.online.store.delete_match(inviter.name, joiner.name)
            joiner.send("** ERROR: Saved match is corrupt. Please start another one.")
            return
        joiner.send(f"You are now playing with {inviter.name}. Your running match was loaded.")
        inviter.send(f"{joiner.name} has joined you. Your running match was loaded.")
        seats = (inviter, joiner) if data.names[0] == inviter.name else (joiner, inviter)
        table = Table(self, seats, data, self._dice(data))
        self._seat(table)
        kind = f"{data.length}-point match" if data.length else "unlimited match"
        self.report(f"{data.names[0]} and {data.names[1]} are resuming their {kind}.", data.names)
        table.resume()

    def disconnected(self, session: Session, reason: str) -> None:
        """``session`` dropped (drop, timeout, kicked): its match is saved, or kept running (``keep_games``)."""
        table = session.table
        if table is None:
            return
        opponent = table.seats[1 - table.index(session)]
        if not self.keep_games or opponent.name in self.kept:
            self.interrupt(session, reason)  # nobody left at the table: save it
            return
        self.kept[session.name] = table
        log.info("match %s - %s kept running without %s (%s)", *table.data.names, session.name, reason)

    def take_kept_seat(self, session: Session) -> None:
        """A player back from a drop sits down again at their kept match."""
        table = self.kept.pop(session.name, None)
        if table is None:
            return
        i = table.index_of_name(session.name)
        old = table.seats[i]
        old.table = None
        table.seats = (session, table.seats[1]) if i == 0 else (table.seats[0], session)
        session.table = table
        log.info("%s is back at the match %s - %s", session.name, *table.data.names)

    def interrupt(self, session: Session, reason: str) -> None:
        """``session`` leaves its match (leave, logout, drop, timeout, shutdown): save it."""
        table = session.table
        assert table is not None
        i = table.index(session)
        opponent = table.seats[1 - i]
        data = table.saved()
        self.online.store.save_match(*data.names, data.to_json(), time.time())
        for seat in table.seats:
            seat.table = None
            self.kept.pop(seat.name, None)
        if reason == "leave":
            session.send("** You terminated the game. The game was saved.")
            self.report(f"{session.name} has left the game with {opponent.name}.", data.names)
        elif reason in ("logout", "shutdown"):
            session.send(f"Your game with {opponent.name} was saved.")
        if reason in _INTERRUPTED:
            opponent.send(_INTERRUPTED[reason].format(session.name))
        elif reason == "shutdown":
            opponent.send(f"Your game with {session.name} was saved.")
        log.info("match %s - %s saved (%s)", *data.names, reason)
        for seat in table.seats:
            self.online.who_changed(seat)

    # -- the table's hub --

    def report(self, line: str, players: tuple[str, str]) -> None:
        self.online.broadcast(line, toggle="report", skip=players)

    def match_finished(self, table: Table[Session]) -> None:
        store = self.online.store
        store.delete_match(*table.data.names)
        for seat in table.seats:
            store.update(seat.account)
            seat.table = None
            self.kept.pop(seat.name, None)
        for seat in table.seats:
            self.online.who_changed(seat)
        log.info("match %s - %s finished %d-%d", *table.data.names, *table.data.score)
