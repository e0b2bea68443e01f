"""Everything before a user is logged in: banner, ``login:``, guest registration.

A failed login gets another ``login: `` prompt, as on FIBS. An account
locked after too many failures (from this address, or from everywhere) is
refused without a look at the password, and the connection closed; so is a
connection after ``max_attempts`` failed tries. ``guest`` registers a name in
FIBS's telnet dialogue. A bare name at the prompt asks for the password
(telnet-style login); the session after it speaks CLIP all the same.
"""

from __future__ import annotations

import re
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Protocol

from bot.server.account import Account
from bot.server.session import IAC_WILL_ECHO, IAC_WONT_ECHO, Connection
from bot.server.texts import BANNER, GUEST, date_line

NAME = re.compile(r"[A-Za-z_]{1,20}")
MIN_PASSWORD = 4


class Accounts(Protocol):
    """What login needs from the server."""

    async def authenticate(self, name: str, password: str) -> Account | None: ...

    async def register(self, name: str, password: str) -> Account | None:
        """A new account; None if the name is taken."""
        ...

    def exists(self, name: str) -> bool: ...

    def login_failed(self, name: str, host: str) -> bool:
        """Count a failure; True if ``name`` is now locked for ``host``."""
        ...

    def login_locked(self, name: str, host: str) -> bool: ...


@dataclass(frozen=True)
class LoggedIn:
    account: Account
    client: str | None


LOCKED = "** Too many failed logins. Please try again later."


async def login(conn: Connection, accounts: Accounts, lines: AsyncIterator[str],
                max_attempts: int) -> LoggedIn | None:
    """Run the login dialogue on ``lines``; None when the client leaves or is refused."""
    for line in BANNER:
        conn.send(line)
    conn.send(date_line())
    conn.prompt("login: ")
    attempts = 0
    async for line in lines:
        words = line.split()
        if not words:
            conn.prompt("login: ")
            continue
        if words == ["guest"]:
            await _guest(conn, accounts, lines)
            return None
        credentials: tuple[str, str, str | None] | None = None
        if words[0] == "login":
            credentials = _clip_credentials(words)
        elif len(words) == 1 and NAME.fullmatch(words[0]):
            password = await _ask_password(conn, lines)
            credentials = (words[0], password, None) if password else None
        if credentials is not None:
            name, password, client = credentials
            if accounts.login_locked(name, conn.host):
                conn.send(LOCKED)
                return None
            account = await accounts.authenticate(name, password)
            if account:
                return LoggedIn(account, client)
            if accounts.login_failed(name, conn.host):
                conn.send(LOCKED)
                return None
        attempts += 1
        if attempts >= max_attempts:
            return None
        conn.prompt("login: ")
    return None


def _clip_credentials(words: list[str]) -> tuple[str, str, str | None] | None:
    """(user, password, client) of ``login <client> <clipver> <user> <password>``."""
    if len(words) != 5:
        return None
    _, client, version, user, password = words
    if len(client) > 20 or not version.isdigit() or not NAME.fullmatch(user):
        return None
    return user, password, client


async def _ask_password(conn: Connection, lines: AsyncIterator[str]) -> str | None:
    conn.write(IAC_WILL_ECHO)
    conn.prompt("Please give your password: ")
    password = await anext(lines, None)
    conn.write(IAC_WONT_ECHO)
    conn.send("")
    return password


async def _guest(conn: Connection, accounts: Accounts, lines: AsyncIterator[str]) -> None:
    """FIBS's registration dialogue; ends when the guest types ``bye`` or leaves."""
    for text in GUEST:
        conn.send(text)
    conn.prompt("> ")
    async for line in lines:
        words = line.split()
        if words[:1] == ["bye"]:
            conn.send("Goodbye.")
            return
        if words[:1] == ["name"] and len(words) == 2:
            await _register(conn, accounts, lines, words[1])
        elif words:
            conn.send("** Please register first: type 'name username', or 'bye'.")
        conn.prompt("> ")


async def _register(conn: Connection, accounts: Accounts, lines: AsyncIterator[str], name: str) -> None:
    if not NAME.fullmatch(name) or name == "guest":
        conn.send("** Your name may only contain letters and the underscore character _ .")
        return
    if accounts.exists(name):
        conn.send(f"** Please use another name. '{name}' is already used by someone else.")
        return
    conn.send(f"Your name will be {name}")
    while True:
        first = await _ask_password(conn, lines)
        if first is None:
            return
        if len(first) < MIN_PASSWORD or " " in first:
            conn.send(f"Minimal password length is {MIN_PASSWORD} characters.")
            continue
        conn.write(IAC_WILL_ECHO)
        conn.prompt("Please retype your password: ")
        second = await anext(lines, None)
        conn.write(IAC_WONT_ECHO)
        conn.send("")
        if second == first:
            break
        conn.send("** The two passwords were not identical. Please give them again.")
    if await accounts.register(name, first) is None:
        conn.send(f"** Please use another name. '{name}' is already used by someone else.")
        return
    conn.send("You are registered.")
    conn.send("Type 'bye' now and log in with your new name.")
