"""gnubg's external-player socket, served to many clients at once.

Each connection reads LF-terminated requests (a trailing CR is blank) and
answers each in order, one reply per request (``version``: four lines; a dance:
an empty line; ``exit``/``quit``: the connection closes). Unlike gnubg 1.07,
two requests in one read are both answered, and a line of 255 characters or
more is answered ``Error: line too long`` (gnubg aborts) and skipped. The
engine's searches run on the pool's worker threads (a 0-ply request, about
0.1 ms, is answered on the event loop while no search waits: a thread
hand-off would cost more); a full queue is answered ``Error: server busy, try
again`` instead of queueing without limit.
"""

from __future__ import annotations

import asyncio
import logging
import os
import stat
import time
from dataclasses import dataclass

from bot.serve import decide, protocol
from bot.serve.pool import Busy, Pool
from engine import Engine

log = logging.getLogger(__name__)

VERSION_REPLY = "Interface: 2\nRFBF: 0\nEngine: 1.00\nSoftware: 1.07.001"
HELP_REPLY = "\tNo help information available"
LINE_TOO_LONG = "Error: line too long (at most 254 characters)"
BUSY = "Error: server busy, try again"
TIMEOUT = "Error: evaluation timed out"
IDLE_S = 24 * 3600.0  # a bot between matches may stay quiet for long
LINE_S = 30.0  # a started line must be finished within this (slow clients are cut)


@dataclass
class _Conn:
    debug: bool = False
    interface_new: bool = False


class ExternalServer:
    """The external-player service on one TCP or Unix address."""

    def __init__(self, engine: Engine, settings: decide.ServerSettings, pool: Pool, *,
                 max_line: int = protocol.MAX_LINE, idle_s: float = IDLE_S, line_s: float = LINE_S,
                 max_connections: int = 1000, inline: bool = True) -> None:
        self.engine = engine
        self.settings = settings
        self.pool = pool
        self.max_line = max_line
        self.idle_s = idle_s
        self.line_s = line_s
        self.max_connections = max_connections
        self.inline = inline
        self.connections = 0
        self.server: asyncio.AbstractServer | None = None

    async def start(self, address: str) -> asyncio.AbstractServer:
        """Listen on ``host:port`` (an empty host: all interfaces) or a Unix socket path."""
        if ":" in address:
            host, _, port = address.rpartition(":")
            self.server = await asyncio.start_server(self.client, host or None, int(port), backlog=1024)
        else:
            if os.path.exists(address):
                if not stat.S_ISSOCK(os.stat(address).st_mode):
                    raise FileExistsError(f"{address} exists and is not a socket")
                os.unlink(address)  # a socket left by an earlier run
            self.server = await asyncio.start_unix_server(self.client, address, backlog=1024)
        return self.server

    def reply(self, conn: _Conn, request: protocol.Request) -> str | None:
        """The reply text to a request that needs no engine (None: it does)."""
        if isinstance(request, protocol.Failure):
            return "Error: " + request.text
        if isinstance(request, protocol.Simple):
            return VERSION_REPLY if request.word == "version" else HELP_REPLY if request.word == "help" else ""
        if isinstance(request, protocol.SetRequest):
            if request.option == "debug":
                conn.debug = bool(request.value)
                return f"Debug output {'ON' if conn.debug else 'OFF'}"
            if request.option == "interface":
                conn.interface_new = request.value == "new"
                return f"New interface {'ON' if conn.interface_new else 'OFF'}"
            return "Error: set option 'prompt' not supported"
        return None

    def _quick(self, request: protocol.BoardRequest | protocol.EvalRequest) -> bool:
        """A 0-ply request (no search): answered on the event loop while no search waits."""
        if self.pool.pending:
            return False
        if isinstance(request, protocol.EvalRequest):
            return request.options.plies == 0
        level = self.settings.level
        return level.checker.plies == 0 and level.cube.plies == 0

    def compute(self, request: protocol.BoardRequest | protocol.EvalRequest) -> str:
        if isinstance(request, protocol.EvalRequest):
            return decide.answer_evaluation(self.engine, request.board, request.session, request.options,
                                            self.settings)
        return decide.answer_board(self.engine, request.board, request.session, self.settings)

    async def answer(self, conn: _Conn, line: str) -> str | None:
        """The reply to one line; None closes the connection."""
        request = protocol.parse(line)
        if isinstance(request, protocol.Simple) and request.word == "exit":
            return None
        text = self.reply(conn, request)
        if text is not None:
            return text
        assert isinstance(request, protocol.BoardRequest | protocol.EvalRequest)
        endpoint = "evaluation" if isinstance(request, protocol.EvalRequest) else "board"
        started = time.perf_counter()
        error = True
        try:
            if self.inline and self._quick(request):
                text = self.compute(request)  # about 0.1 ms: cheaper than a thread hand-off
            else:
                text = await self.pool.run(lambda: self.compute(request))
            error = text.startswith("Error:")
            return text
        except Busy:
            return BUSY
        except TimeoutError:
            return TIMEOUT
        except Exception:
            log.exception("external request failed: %.80s", line)
            return "Error: internal error"
        finally:
            self.pool.observe("external", endpoint, self.settings.level.name, started, error)

    async def _answer_watching(self, conn: _Conn, line: str, reader: asyncio.StreamReader
                               ) -> tuple[str | None, bytes, bool]:
        """(the reply, bytes read meanwhile, whether the client left). A client that closes
        its connection while its request waits or runs cancels the request: a request still
        queued never reaches the engine."""
        task = asyncio.ensure_future(self.answer(conn, line))
        await asyncio.sleep(0)  # a request answered on the loop is done by now: no watch needed
        if task.done():
            return task.result(), b"", False
        more = b""
        while not task.done() and len(more) <= self.max_line:
            read = asyncio.ensure_future(reader.read(4096))
            await asyncio.wait({task, read}, return_when=asyncio.FIRST_COMPLETED)
            if not read.done():
                read.cancel()  # a pending read gives nothing up when cancelled
                continue
            data = read.result() if not read.cancelled() and read.exception() is None else b""
            if not data:
                task.cancel()
                await asyncio.gather(task, return_exceptions=True)
                return None, more, True
            more += data.replace(b"\x00", b"")
        return await task, more, False

    async def client(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        """One connection: its lines answered in order; idle for ``idle_s`` or stuck inside a
        line for ``line_s``, it is closed; beyond ``max_connections`` it is closed at once."""
        if self.connections >= self.max_connections:
            writer.close()
            return
        self.connections += 1
        conn = _Conn()
        buffer = b""
        skipping = False  # inside an over-long line: drop bytes up to its LF
        try:
            while True:
                waiting = self.line_s if buffer or skipping else self.idle_s
                chunk = await asyncio.wait_for(reader.read(4096), waiting)
                if not chunk:
                    return
                buffer += chunk.replace(b"\x00", b"")  # gnubg as a client ends each line with "\n\0"
                while True:
                    nl = buffer.find(b"\n")
                    if nl < 0:
                        if len(buffer) > self.max_line:
                            if not skipping:
                                writer.write(LINE_TOO_LONG.encode() + b"\n")
                            skipping, buffer = True, b""
                        break
                    raw, buffer = buffer[:nl], buffer[nl + 1:]
                    if skipping:
                        skipping = False
                        continue
                    if len(raw) > self.max_line:
                        writer.write(LINE_TOO_LONG.encode() + b"\n")
                        continue
                    text, more, gone = await self._answer_watching(conn, raw.decode("latin-1"), reader)
                    buffer += more
                    if gone or text is None:
                        return
                    writer.write(text.encode("latin-1", "replace") + b"\n")
                    await writer.drain()
                await writer.drain()
        except (TimeoutError, ConnectionError, asyncio.IncompleteReadError):
            pass
        finally:
            self.connections -= 1
            writer.close()
            try:
                await writer.wait_closed()
            except (ConnectionError, OSError):
                pass
