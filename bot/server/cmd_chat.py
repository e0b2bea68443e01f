"""Talking: tell, say, kibitz, whisper, shout, message."""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from bot.server.context import Context
    from bot.server.session import Session
    from bot.server.table import Listener, Table


def _heard(session: Session, count: int) -> None:
    if count == 0:
        session.send("** But nobody heard you.")
    else:
        session.send(f"** {count} user{'s' if count > 1 else ''} heard you.")


def _game_of(session: Session) -> Table[Any] | None:
    """The table the user plays at or watches."""
    if session.table is not None:
        return session.table
    return session.watching.table if session.watching is not None else None


def tell(ctx: Context, s: Session, args: str) -> None:
    name, _, text = args.partition(" ")
    if not name:
        s.send("** usage: tell <user> <text>")
        return
    target = ctx.complete(name)
    if target is None:
        s.send(f"** There is no one called {name}")
    elif target is s:
        s.send(f"You say to yourself: {text}")
    else:
        target.alert(f"12 {s.name} {text}")
        s.send(f"16 {target.name} {text}")
        if target.away is not None:
            s.send(f"{target.name} is away: {target.away}")


def say(ctx: Context, s: Session, args: str) -> None:
    if s.table is None:
        s.send("** 'say' can't be used outside a game")
        return
    opponent = s.table.seats[1 - s.table.index(s)]
    opponent.alert(f"12 {s.name} {args}")
    s.send(f"16 {opponent.name} {args}")


def kibitz(ctx: Context, s: Session, args: str) -> None:
    table = _game_of(s)
    if table is None:
        s.send("** You're not watching or playing.")
        return
    hearers: list[Listener] = [p for p in table.seats if p is not s]
    hearers += [w for w, _ in table.watchers() if w is not s]
    for hearer in hearers:
        hearer.send(f"15 {s.name} {args}")
    s.send(f"19 {args}")
    _heard(s, len(hearers))


def whisper(ctx: Context, s: Session, args: str) -> None:
    """Only the watchers hear a whisper, not the players."""
    table = _game_of(s)
    if table is None:
        s.send("** You're not watching or playing.")
        return
    hearers = [w for w, _ in table.watchers() if w is not s]
    for hearer in hearers:
        hearer.send(f"14 {s.name} {args}")
    s.send(f"18 {args}")
    _heard(s, len(hearers))


def shout(ctx: Context, s: Session, args: str) -> None:
    if s.account.toggles["silent"]:
        s.send("** Please type 'toggle silent' again before you shout.")
        return
    for other in list(ctx.sessions.values()):
        if other is not s and not other.account.toggles["silent"]:
            other.send(f"13 {s.name} {args}")
    s.send(f"17 {args}")


def message(ctx: Context, s: Session, args: str) -> None:
    """Delivered at once to a user online, else stored for their next login."""
    name, _, text = args.partition(" ")
    if not name or not text:
        s.send("** usage: message <user> <text>")
        return
    if not ctx.exists(name):
        s.send(f"** Don't know user {name}.")
        return
    now = int(time.time())
    target = ctx.find(name)
    if target is not None:
        target.alert(f"9 {s.name} {now} {text}")
        s.send(f"10 {name}")
    else:
        ctx.store.add_message(name, s.name, now, text)
        s.send(f"11 {name}")


COMMANDS = {"tell": tell, "tellx": tell, "say": say, "kibitz": kibitz, "whisper": whisper, "shout": shout,
            "message": message}
