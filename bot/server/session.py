"""One client connection, and the logged-in user behind it.

Output never waits for a client: lines go into the transport's buffer, and a
client that lets more than ``max_output`` bytes pile up unread is cut off
(so one slow reader cannot stall the match it plays or anyone else).

The idle limit counts from the last complete, non-blank line, not the last
byte: a client trickling a byte a second, or sending only telnet noise or
empty lines, is idle all the same.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import AsyncIterator, Iterable
from typing import TYPE_CHECKING

from bot.server.account import Account
from bot.server.lines import LineReader
from bot.server.wordings import Wordings

if TYPE_CHECKING:
    from bot.server.table import Listener, Table

log = logging.getLogger("bot.server")

IAC_WILL_ECHO = b"\xff\xfb\x01"
IAC_WONT_ECHO = b"\xff\xfc\x01"


class IdleTimeout(Exception):
    """The client sent no complete line for the idle limit."""


def peer_host(writer: asyncio.StreamWriter) -> str:
    peer = writer.get_extra_info("peername")
    return str(peer[0]) if isinstance(peer, tuple) else "localhost"


class Connection:
    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter, *,
                 max_line: int, max_output: int, idle_timeout_s: float | None,
                 wordings: Wordings | None = None) -> None:
        self._reader = reader
        self._writer = writer
        self._lines = LineReader(max_line)
        self._max_output = max_output
        self.idle_timeout_s = idle_timeout_s
        """The idle limit now (shorter before login); None: no limit."""
        self._wordings = wordings or Wordings()
        self.host = peer_host(writer)
        self.closed = False
        self._last_line = asyncio.get_running_loop().time()
        self._unterminated = False  # a glued line waits for the next one (the ``glued`` wording)
        self._held: list[str] = []  # lines that wait for the next board (the ``late-game-start`` wording)

    def write(self, data: bytes) -> None:
        if self.closed:
            return
        if self._writer.transport.is_closing():
            self.closed = True
            return
        self._writer.write(data)
        if self._writer.transport.get_write_buffer_size() > self._max_output:
            log.warning("closing %s: %d bytes of output not read", self.host, self._max_output)
            self.abort()

    def send(self, line: str) -> None:
        """One line, CR LF terminated (text is ASCII by construction; anything else becomes '?')."""
        if self._wordings.held(line):
            if not self._held:  # no board this turn of the loop: they go out after all
                asyncio.get_running_loop().call_soon(self._release)
            self._held.append(line)
            return
        self._send(line)
        if line.startswith("board:"):
            self._release()

    def _release(self) -> None:
        held, self._held = self._held, []
        for line in held:
            self._send(line)

    def _send(self, line: str) -> None:
        data = self._wordings.encode(line)
        if self._wordings.glues(line):
            data = data[:-len(self._wordings.ending)]
            if not self._unterminated:  # whatever this turn of the loop says next is glued on
                asyncio.get_running_loop().call_soon(self._terminate)
            self._unterminated = True
        else:
            self._unterminated = False
        self.write(data)

    def _terminate(self) -> None:
        if self._unterminated:
            self._unterminated = False
            self.write(self._wordings.ending)

    def prompt(self, text: str) -> None:
        """An unterminated prompt such as ``login: ``."""
        self.write(text.encode("ascii"))

    def restart_idle_timer(self) -> None:
        self._last_line = asyncio.get_running_loop().time()

    async def lines(self) -> AsyncIterator[str]:
        """Received lines until the client closes; IdleTimeout after the idle limit."""
        loop = asyncio.get_running_loop()
        while not self.closed:
            timeout = None
            if self.idle_timeout_s is not None:
                timeout = max(0.0, self._last_line + self.idle_timeout_s - loop.time())
            try:
                data = await asyncio.wait_for(self._reader.read(4096), timeout)
            except TimeoutError:
                raise IdleTimeout from None
            if not data:
                return
            for line in self._lines.feed(data):
                if line.strip():
                    self._last_line = loop.time()
                yield line

    async def drain(self) -> None:
        if not self.closed:
            await self._writer.drain()

    def close(self) -> None:
        self.closed = True
        self._writer.close()

    def abort(self) -> None:
        self.closed = True
        self._writer.transport.abort()


class Session:
    """A logged-in user: what the server knows beyond the account."""

    def __init__(self, account: Account, conn: Connection, client: str | None) -> None:
        self.account = account
        self.name = account.name
        self.conn = conn
        self.client = client
        self.login_time = time.time()
        self.last_active = self.login_time
        self.away: str | None = None
        self.watching: Session | None = None
        self.watchers: set[Listener] = set()
        self.table: Table[Session] | None = None
        self.invitation: tuple[str, int | None] | None = None
        """(invitee, length; 0 unlimited, None resume) of this user's open invitation."""
        self.waved = False
        self.gone = False
        """Logged out; the connection may still be closing."""

    def send(self, line: str) -> None:
        self.conn.send(line)

    def alert(self, line: str) -> None:
        """A line that rings the bell for users with ``toggle bell`` on (tells, invitations)."""
        self.conn.send(line + ("\a" if self.account.toggles["bell"] else ""))

    @property
    def ready(self) -> bool:
        return self.account.toggles["ready"]

    @property
    def opponent(self) -> str | None:
        if self.table is None:
            return None
        return self.table.name(1 - self.table.index(self))

    def who_line(self) -> str:
        """The CLIP ``5`` line."""
        a = self.account
        watching = self.watching.name if self.watching else "-"
        idle = int(time.time() - self.last_active)
        return (f"5 {self.name} {self.opponent or '-'} {watching} {int(self.ready)} {int(self.away is not None)} "
                f"{a.rating:.2f} {a.experience} {idle} {int(self.login_time)} {self.conn.host} "
                f"{self.client or '-'} {a.email or '-'}")


def sorted_sessions(sessions: Iterable[Session], order: str) -> list[Session]:
    """``set sortwho``: login (default), name, rating, rrating (lowest first)."""
    keys = {"name": lambda s: (s.name.lower(),), "rating": lambda s: (-s.account.rating,),
            "rrating": lambda s: (s.account.rating,)}
    return sorted(sessions, key=keys.get(order, lambda s: (s.login_time,)))
