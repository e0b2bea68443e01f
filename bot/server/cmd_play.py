"""Playing and watching: invite, join, leave, the game commands, board, watch."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from bot.server.matchdata import MatchData
from bot.server.table import Table, match_text

if TYPE_CHECKING:
    from bot.server.context import Context
    from bot.server.session import Session

MAX_LENGTH = 99


def invite(ctx: Context, s: Session, args: str) -> None:
    words = args.split()
    if not words:
        s.send("** invite who?")
        return
    target = ctx.complete(words[0])
    error = None
    if s.table is not None:
        error = "** You are already playing."
    elif target is None:
        error = f"** There is no one called {words[0]}"
    elif target is s:
        error = "** You can't invite yourself."
    elif target.table is not None:
        error = f"** {target.name} is already playing with someone else."
    elif not target.ready:
        error = f"** {target.name} is refusing games."
    if error is not None:
        s.send(error)
        return
    assert target is not None
    length: int | None = None
    saved = ctx.store.saved_match(s.name, target.name)
    if len(words) > 1:
        word = words[1].lower()
        if word == "unlimited":
            length = 0
        elif word.isdigit() and 1 <= int(word) <= MAX_LENGTH:
            length = int(word)
        else:
            s.send("** The second argument to 'invite' has to be a number or the word 'unlimited'")
            return
    elif saved is None:
        s.send(f"** There's no saved match with {target.name}. Please give a match length.")
        return
    s.invitation = (target.name, length)
    if not s.ready:  # inviting makes you ready
        s.account.toggles["ready"] = True
        ctx.who_changed(s)
    if length is None:
        s.send(f"** You invited {target.name} to resume a saved match.")
        target.alert(f"{s.name} wants to resume a saved match with you.")
    else:
        s.send(f"** You invited {target.name} to {match_text(length)}.")
        target.alert(f"{s.name} wants to play {match_text(length)} with you.")
    target.send(f"Type 'join {s.name}' to accept.")
    if length is not None and saved is not None:
        try:
            old = MatchData.from_json(saved)
            kind = f"{old.length} point match" if old.length else "unlimited match"
            target.send(f"WARNING: Don't accept if you want to continue the saved {kind}!")
        except ValueError:
            pass  # a corrupt saved match is no loss worth a warning
    if target.away is not None:
        s.send("")
        s.send(f"{target.name} is away: {target.away}")


def join(ctx: Context, s: Session, args: str) -> None:
    words = args.split()
    if not words:
        if s.table is not None:
            s.table.join(s.table.index(s))
        else:
            s.send("** Error: Join who?")
        return
    inviter = ctx.complete(words[0])
    error = None
    if s.table is not None:
        error = "** You can't play two games at once"
    elif inviter is None:
        error = f"** Error: can't find player {words[0]}"
    elif inviter.table is not None:
        error = f"** Error: {inviter.name} is already playing with someone else."
    elif inviter.invitation is None or inviter.invitation[0] != s.name:
        error = f"** {inviter.name} didn't invite you."
    elif not inviter.ready:
        error = f"** {inviter.name} is refusing games."
    if error is not None:
        s.send(error)
        return
    assert inviter is not None and inviter.invitation is not None
    length = inviter.invitation[1]
    if length is None:
        ctx.lobby.resume(inviter, s)
    else:
        ctx.lobby.start_new(inviter, s, length)


def leave(ctx: Context, s: Session, args: str) -> None:
    if s.table is None:
        s.send("** Error: No one to leave.")
    else:
        ctx.lobby.interrupt(s, "leave")


def _game_command(action: Callable[[Table[Any], int, str], None], not_playing: str = "** You're not playing."
                  ) -> Callable[[Context, Session, str], None]:
    """A command for the user's running match; ``not_playing`` answers everyone else."""
    def handler(ctx: Context, s: Session, args: str) -> None:
        if s.table is None:
            s.send(not_playing)
        else:
            action(s.table, s.table.index(s), args)
    return handler


def board(ctx: Context, s: Session, args: str) -> None:
    if s.table is not None:
        lines = s.table.board_lines(s.table.index(s), s)
    elif s.watching is not None and s.watching.table is not None:
        table = s.watching.table
        lines = table.board_lines(table.index(s.watching), s)
    else:
        lines = ["** You're not playing or watching."]
    for line in lines:
        s.send(line)


def pip(ctx: Context, s: Session, args: str) -> None:
    table = s.table or (s.watching.table if s.watching is not None else None)
    s.send(table.pips(s) if table is not None else "** You're not playing or watching.")


def oldmoves(ctx: Context, s: Session, args: str) -> None:
    """The moves of ``name``'s running game, else of the saved match with them."""
    words = args.split()
    if not words:
        s.send("** usage: oldmoves <name>")
        return
    target = ctx.find(words[0])
    if target is not None and target.table is not None:
        lines = target.table.oldmoves(s)
    else:
        saved = ctx.store.saved_match(s.name, words[0])
        try:
            data = MatchData.from_json(saved) if saved else None
            lines = data.oldmoves(data.names.index(s.name)) if data else []
        except ValueError:
            lines = []
    for line in lines or [f"** There is no saved game with {words[0]}."]:
        s.send(line)


def watch(ctx: Context, s: Session, args: str) -> None:
    words = args.split()
    target = ctx.complete(words[0]) if words else None
    if not words:
        s.send("** Watch who?")
    elif s.table is not None:
        s.send("** You can't watch another game while you're playing.")
    elif target is None or target is s:
        s.send(f"** There's no one called {words[0]}.")
    else:
        if s.watching is not None:
            s.watching.watchers.discard(s)
            s.watching.send(f"{s.name} stops watching you.")
        s.watching = target
        target.watchers.add(s)
        s.send(f"You're now watching {target.name}.")
        target.send(f"{s.name} is watching you.")
        if target.table is not None:
            for line in target.table.board_lines(target.table.index(target), s):
                s.send(line)
        else:
            s.send(f"{target.name} is not doing anything interesting.")
        ctx.who_changed(s)


def unwatch(ctx: Context, s: Session, args: str) -> None:
    if s.watching is None:
        s.send("** You're not watching.")
        return
    watched, s.watching = s.watching, None
    watched.watchers.discard(s)
    s.send(f"You stop watching {watched.name}.")
    watched.send(f"{s.name} stops watching you.")
    ctx.who_changed(s)


COMMANDS = {
    "invite": invite, "join": join, "leave": leave, "board": board, "pip": pip, "oldmoves": oldmoves,
    "watch": watch, "unwatch": unwatch,
    "roll": _game_command(lambda t, i, a: t.roll(i)),
    "move": _game_command(lambda t, i, a: t.move(i, a)),
    "off": _game_command(lambda t, i, a: t.bear_off(i)),
    "double": _game_command(lambda t, i, a: t.double(i)),
    "accept": _game_command(lambda t, i, a: t.accept(i)),
    "reject": _game_command(lambda t, i, a: t.reject(i), "** You're not playing, so you can't give up."),
    "resign": _game_command(lambda t, i, a: t.offer_resignation(i, a)),
}
