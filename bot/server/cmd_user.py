"""The user's own state: toggle, set, away, back, address, wave, bye."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from bot.server.account import DEFAULT_SETTINGS, TOGGLES
from bot.server.texts import GOODBYE

if TYPE_CHECKING:
    from bot.server.context import Context
    from bot.server.session import Session

# Each variable's check, and the complaint when a value fails it.
_VALID = {
    "boardstyle": (re.compile(r"[123]"), "** Valid arguments are the numbers 1 to 3."),
    "linelength": (re.compile(r"\d{1,3}"), "** Valid arguments are the numbers 0 to 999."),
    "pagelength": (re.compile(r"\d{1,3}"), "** Valid arguments are the numbers 0 to 999."),
    "redoubles": (re.compile(r"none|unlimited|[1-9]\d?"),
                  "** Valid arguments are 'none', 'unlimited' and the numbers 1 to 99."),
    "sortwho": (re.compile(r"login|name|rating|rrating"),
                "** Valid arguments are 'login', 'name', 'rating' and 'rrating'."),
    "timezone": (re.compile(r"[A-Za-z0-9_+\-/]{1,40}"), "** Unknown timezone."),
}


def toggle(ctx: Context, s: Session, args: str) -> None:
    toggles = s.account.toggles
    if not args:
        s.send("The current settings are:")
        for name in TOGGLES:
            s.send(f"{name:<16}{'YES' if toggles[name] else 'NO'}")
        return
    name = args.split()[0].lower()
    if name not in TOGGLES:
        s.send(f"** Don't know how to toggle {name}")
        return
    toggles[name] = not toggles[name]
    s.send(f"** {TOGGLES[name][0 if toggles[name] else 1]}")
    ctx.store.update(s.account)
    if name == "ready":
        ctx.who_changed(s)


def set_(ctx: Context, s: Session, args: str) -> None:
    settings = s.account.settings
    words = args.split()
    if not words:
        s.send("Settings of variables:")
        for name in DEFAULT_SETTINGS:
            s.send(f"{name + ':':<12}{settings[name]}")
        return
    name = words[0].lower()
    if name not in _VALID:
        s.send(f"** Don't know how to set {name}")
    elif len(words) == 1:
        s.send(f"{name + ':':<12}{settings[name]}")
    elif not _VALID[name][0].fullmatch(words[1]):
        s.send(_VALID[name][1])
    else:
        settings[name] = words[1]
        ctx.store.update(s.account)
        s.send(f"Value of '{name}' set to {words[1]}.")


def away(ctx: Context, s: Session, args: str) -> None:
    if not args:
        away_users = [x for x in ctx.sessions.values() if x.away is not None]
        if not away_users:
            s.send("None of the users is away.")
            return
        s.send("The following users are away:")
        for x in away_users:
            s.send(f"  {x.name}: {x.away}")
        return
    s.away = args
    s.send("You're away. Please type 'back'")
    ctx.who_changed(s)


def back(ctx: Context, s: Session, args: str) -> None:
    if s.away is None:
        s.send("** You're not away.")
        return
    s.away = None
    s.send("Welcome back.")
    ctx.who_changed(s)


def address(ctx: Context, s: Session, args: str) -> None:
    if not re.fullmatch(r"[^\s@]+@[^\s@]+", args):
        s.send(f"** '{args}' is not an email address.")
        return
    s.account.email = args
    ctx.store.update(s.account)
    s.send(f"Your email address is '{args}'.")
    ctx.who_changed(s)


def _log_out(ctx: Context, s: Session) -> None:
    if s.table is not None:
        ctx.lobby.interrupt(s, "logout")
    ctx.logout(s, "logout")
    for line in GOODBYE:
        s.send(line)
    s.conn.close()


def bye(ctx: Context, s: Session, args: str) -> None:
    _log_out(ctx, s)


def wave(ctx: Context, s: Session, args: str) -> None:
    """The first wave says goodbye; the second logs out."""
    again = " again" if s.waved else ""
    ctx.broadcast(f"{s.name} waves goodbye{again}.", skip=[s.name])
    if not s.waved:
        s.waved = True
        s.send("You wave goodbye.")
        return
    s.send("You wave goodbye again and log out.")
    _log_out(ctx, s)


COMMANDS = {"toggle": toggle, "set": set_, "away": away, "back": back, "address": address, "bye": bye,
            "quit": bye, "exit": bye, "wave": wave}
