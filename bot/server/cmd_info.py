"""Looking around: who, rawwho, whois, show, ratings, time, version, help."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TYPE_CHECKING

from bot.server.matchdata import MatchData
from bot.server.session import Session, sorted_sessions
from bot.server.texts import HELP, VERSION, date_line, whois_date

if TYPE_CHECKING:
    from bot.server.context import Context


def rawwho(ctx: Context, s: Session, args: str) -> None:
    """``5`` lines, then ``6``: everyone, ``ready``, ``away``, ``playing`` or one user."""
    word = args.split()[0] if args.split() else ""
    everyone = sorted_sessions(ctx.sessions.values(), s.account.settings["sortwho"])
    filters: dict[str, Callable[[Session], bool]] = {
        "ready": lambda x: x.ready and x.table is None, "away": lambda x: x.away is not None,
        "playing": lambda x: x.table is not None}
    if word in filters:
        selected = [x for x in everyone if filters[word](x)]
    elif word:
        target = ctx.complete(word)
        if target is None:
            s.send(f"** There is no one called {word}")
            return
        selected = [target]
    else:
        selected = everyone
    for x in selected:
        s.send(x.who_line())
    s.send("6")


def _idle(seconds: float) -> str:
    for unit, size in (("hour", 3600), ("minute", 60)):
        if seconds >= size:
            n = int(seconds // size)
            return f"{n} {unit}{'s' if n > 1 else ''}"
    return f"{int(seconds)} second{'' if int(seconds) == 1 else 's'}"


def whois(ctx: Context, s: Session, args: str) -> None:
    name = args.split()[0] if args.split() else ""
    online = ctx.find(name)
    account = online.account if online else ctx.store.account(name) if name else None
    if account is None:
        s.send(f"No information found on user {name}.")
        return
    s.send(f"Information about {name}:")
    if account.last_login is not None:
        s.send(f"  Last login:  {whois_date(account.last_login)} from {account.last_host}")
    if online is not None:
        s.send(f"  Still logged in. {_idle(time.time() - online.last_active)} idle.")
        ready = "ready to play" if online.ready else "not ready to play"
        watching = f"watching {online.watching.name}" if online.watching else "not watching"
        playing = f"playing with {online.opponent}" if online.opponent else "not playing"
        s.send(f"  {name} is {ready}, {watching}, {playing}.")
        if online.away is not None:
            s.send(f"  {name} is away: {online.away}")
    else:
        if account.last_logout is not None:
            s.send(f"  Last logout: {whois_date(account.last_logout)}")
        s.send("  Not logged in right now.")
    s.send(f"  Rating: {account.rating:.2f} Experience: {account.experience}")
    s.send(f"  Email address: {account.email}" if account.email else "  No email address.")


def show(ctx: Context, s: Session, args: str) -> None:
    words = args.split()
    what = words[0].lower() if words else ""
    if what == "games":
        s.send("List of games:")
        seen = set()
        for session in list(ctx.sessions.values()):
            table = session.table
            if table is not None and id(table) not in seen:
                seen.add(id(table))
                d = table.data
                kind = f"{d.length} point match" if d.length else "unlimited match"
                s.send(f"{d.names[0]} - {d.names[1]} ({kind} {d.score[0]}-{d.score[1]})")
    elif what == "saved":
        _saved(ctx, s)
    elif what == "savedcount" and len(words) == 2:
        count = len(ctx.store.saved_matches(words[1]))
        games = "no saved games" if count == 0 else "1 saved game" if count == 1 else f"{count} saved games"
        s.send(f"{words[1]} has {games}.")
    elif what == "savedcount":
        s.send("** usage: show savedcount <name>")
    else:
        s.send(f"** Don't know how to show {what or 'that'}")


def _saved(ctx: Context, s: Session) -> None:
    """``show saved``: ``**`` marks an opponent who is online; scores are yours first."""
    rows = []
    for opponent, text in ctx.store.saved_matches(s.name):
        try:
            data = MatchData.from_json(text)
        except ValueError:
            continue  # refused when resumed; not worth a row
        mine = data.names.index(s.name) if s.name in data.names else 0
        marker = "**" if ctx.find(opponent) else "  "
        length = str(data.length) if data.length else "unlimited"
        rows.append(f"{marker}{opponent:<24}{length:<17}{data.score[mine]} - {data.score[1 - mine]:2d}")
    if not rows:
        s.send("no saved games.")
        return
    s.send("  opponent          matchlength   score (your points first)")
    for row in rows:
        s.send(row)


def ratings(ctx: Context, s: Session, args: str) -> None:
    s.send(" rank name            rating    Experience")
    for rank, (name, rating, experience) in enumerate(ctx.store.top_ratings(20), 1):
        s.send(f"{rank:5d} {name:<15} {rating:7.2f}    {experience:5d}")


def time_(ctx: Context, s: Session, args: str) -> None:
    s.send(date_line())


def version(ctx: Context, s: Session, args: str) -> None:
    s.send(VERSION)


def help_(ctx: Context, s: Session, args: str) -> None:
    for line in HELP:
        s.send(line)


COMMANDS = {"rawwho": rawwho, "who": rawwho, "whois": whois, "show": show, "ratings": ratings, "time": time_,
            "version": version, "help": help_}
