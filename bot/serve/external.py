"""gnubg's external-player socket, served to many clients at once.

Each connection reads LF-terminated requests (a trailing CR is blank) and
answers each in order, one reply per request (``version``: four lines; a dance:
an empty line; ``exit``/``quit``: the connection closes). Unlike gnubg 1.07,
two requests in one read are both answered, and a line of 255 characters or
more is answered ``Error: line too long`` (gnubg aborts) and skipped. The
engine's searches run on the pool's worker threads (a 0-ply request, about
0.1 ms, is answered on the event loop while no search waits: a thread
hand-off would cost more); a full queue is answered ``Error: server busy, try
again`` instead of queueing without limit. Each connection is an asyncio
protocol driven by callbacks (no coroutine, task or future per request: the
loop's work per request is a small part of a search's).
"""

from __future__ import annotations

import asyncio
import logging
import os
import stat
import time

from bot.serve import decide, protocol
from bot.serve.pool import Busy, Job, Pool
from engine import Engine

log = logging.getLogger(__name__)

VERSION_REPLY = "Interface: 2\nRFBF: 0\nEngine: 1.00\nSoftware: 1.07.001"
HELP_REPLY = "\tNo help information available"
LINE_TOO_LONG = "Error: line too long (at most 254 characters)"
BUSY = "Error: server busy, try again"
TIMEOUT = "Error: evaluation timed out"
IDLE_S = 24 * 3600.0  # a bot between matches may stay quiet for long
LINE_S = 30.0  # a started line must be finished within this (slow clients are cut)
LINES_AT_ONCE = 64  # pipelined lines answered in one turn of the loop


class _Conn(asyncio.Protocol):
    """One connection: its lines answered in order, one at a time; idle for ``idle_s`` or
    stuck inside a line for ``line_s``, it is closed. A client that leaves while its
    request waits or runs cancels it (a request still queued never reaches the engine)."""

    def __init__(self, server: ExternalServer) -> None:
        self.server = server
        self.debug = False
        self.interface_new = False
        self.transport: asyncio.Transport | None = None
        self.counted = False
        self.closed = False
        self.buffer = b""
        self.skipping = False  # inside an over-long line: drop bytes up to its LF
        self.job: Job[str] | None = None  # the request with the engine
        self.job_started = (0.0, "")  # its perf_counter start and endpoint (for the metrics)
        self.reading_paused = False
        self.writing_paused = False
        self.mark = 0.0  # the last data read or reply written (loop time)
        self.timer: asyncio.TimerHandle | None = None
        self.due = 0.0
        self.deferred = False  # lines left for the loop's next round

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        assert isinstance(transport, asyncio.Transport)
        self.transport = transport
        server = self.server
        if server.connections >= server.max_connections:
            self.closed = True
            transport.close()
            return
        server.connections += 1
        self.counted = True
        self.mark = server.loop_time()
        self._arm(self.mark + server.idle_s)

    def connection_lost(self, exc: Exception | None) -> None:
        self.closed = True
        if self.job is not None:
            self.job.cancel()
            self.job = None
            started, endpoint = self.job_started
            server = self.server
            server.pool.observe("external", endpoint, server.settings.level.name, started, True)
        if self.timer is not None:
            self.timer.cancel()
        if self.counted:
            self.counted = False
            self.server.connections -= 1

    def eof_received(self) -> bool:
        return False  # the client is done: close (a request in progress is cancelled)

    def pause_writing(self) -> None:
        self.writing_paused = True  # replies are not read: stop reading requests

    def resume_writing(self) -> None:
        self.writing_paused = False
        self._process()

    def data_received(self, data: bytes) -> None:
        if self.closed:
            return
        self.mark = self.server.loop_time()
        self.buffer += data.replace(b"\x00", b"")  # gnubg as a client ends each line with "\n\0"
        self._process()

    def _arm(self, due: float) -> None:
        if self.timer is not None:
            self.timer.cancel()
        self.due = due
        self.timer = asyncio.get_running_loop().call_at(due, self._check_time)

    def _limit(self) -> float:
        return self.server.line_s if self.buffer or self.skipping else self.server.idle_s

    def _check_time(self) -> None:
        self.timer = None
        if self.closed or self.transport is None:
            return
        now = self.server.loop_time()
        if self.job is not None or self.writing_paused:
            self._arm(now + self._limit())  # no limit while the engine works or replies wait
            return
        due = self.mark + self._limit()
        if now >= due:
            self.close()
            return
        self._arm(due)

    def _write(self, text: str) -> None:
        assert self.transport is not None
        self.transport.write(text.encode("latin-1", "replace") + b"\n")

    def _process(self) -> None:
        """Answers the buffered lines until one goes to the engine (its reply resumes)."""
        server, max_line = self.server, self.server.max_line
        buffer, pos = self.buffer, 0  # the lines taken so far end at pos (one copy at the end)
        taken = 0
        while not self.closed and self.job is None and not self.writing_paused:
            if taken == LINES_AT_ONCE:  # let other connections have the loop: the rest comes next
                if not self.deferred:
                    self.deferred = True
                    asyncio.get_running_loop().call_soon(self._resume)
                break
            taken += 1
            nl = buffer.find(b"\n", pos)
            if nl < 0:
                if len(buffer) - pos > max_line:
                    if not self.skipping:
                        self._write(LINE_TOO_LONG)
                    self.skipping, buffer, pos = True, b"", 0
                break
            raw, pos = buffer[pos:nl], nl + 1
            if self.skipping:
                self.skipping = False
                continue
            if len(raw) > max_line:
                self._write(LINE_TOO_LONG)
                continue
            server.handle(self, raw.decode("latin-1"))
        self.buffer = buffer[pos:] if pos else buffer
        if self.closed or self.transport is None:
            return
        # no more than a line's worth waits while a request runs, replies are not read or
        # lines wait for the loop's next round
        hold = (self.job is not None or self.writing_paused or self.deferred) and len(self.buffer) > max_line
        if hold != self.reading_paused:
            self.reading_paused = hold
            (self.transport.pause_reading if hold else self.transport.resume_reading)()
        if self.buffer or self.skipping:
            due = self.mark + server.line_s
            if due < self.due:
                self._arm(due)

    def _resume(self) -> None:
        self.deferred = False
        self._process()

    def answered(self, text: str) -> None:
        """The reply of the request the engine answered: written, and the next line read."""
        self.job = None
        if self.closed:
            return
        self._write(text)
        self.mark = self.server.loop_time()
        self._process()

    def close(self) -> None:
        self.closed = True
        if self.transport is not None:
            self.transport.close()


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
        self.loop_time = time.monotonic  # asyncio's clock on every platform this runs on

    async def start(self, address: str) -> asyncio.AbstractServer:
        """Listen on ``host:port`` (an empty host: all interfaces) or a Unix socket path."""
        loop = asyncio.get_running_loop()
        self.loop_time = loop.time
        _ = self.engine.met  # read now (0.1 s), as gnubg reads it at start, not by the first match request
        if ":" in address:
            host, _, port = address.rpartition(":")
            self.server = await loop.create_server(lambda: _Conn(self), host or None, int(port), backlog=1024)
        else:
            if os.path.exists(address):
                if not stat.S_ISSOCK(os.stat(address).st_mode):
                    raise FileExistsError(f"{address} exists and is not a socket")
                os.unlink(address)  # a socket left by an earlier run
            self.server = await loop.create_unix_server(lambda: _Conn(self), address, backlog=1024)
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

    def handle(self, conn: _Conn, line: str) -> None:
        """Answers one line on ``conn`` now, or hands it to the pool (``conn.job``)."""
        request = protocol.parse(line)
        if isinstance(request, protocol.Simple) and request.word == "exit":
            conn.close()
            return
        text = self.reply(conn, request)
        if text is not None:
            conn._write(text)
            return
        assert isinstance(request, protocol.BoardRequest | protocol.EvalRequest)
        endpoint = "evaluation" if isinstance(request, protocol.EvalRequest) else "board"
        started = time.perf_counter()
        if self.inline and self._quick(request):
            try:
                text = self.compute(request)  # about 0.1 ms: cheaper than a thread hand-off
            except Exception:
                log.exception("external request failed: %.80s", line)
                text = "Error: internal error"
            self.pool.observe("external", endpoint, self.settings.level.name, started, text.startswith("Error:"))
            conn._write(text)
            return

        def done(result: str | None, error: BaseException | None) -> None:
            if error is None and result is not None:
                text = result
            elif isinstance(error, TimeoutError):
                text = TIMEOUT
            else:
                if error is not None:
                    log.error("external request failed: %.80s", line, exc_info=error)
                text = "Error: internal error"
            self.pool.observe("external", endpoint, self.settings.level.name, started, text.startswith("Error:"))
            conn.answered(text)
        try:
            conn.job = self.pool.submit(lambda: self.compute(request), done)
            conn.job_started = (started, endpoint)
        except Busy:
            self.pool.observe("external", endpoint, self.settings.level.name, started, True)
            conn._write(BUSY)
        except Exception:  # the pool shut down
            log.exception("external request not queued: %.80s", line)
            self.pool.observe("external", endpoint, self.settings.level.name, started, True)
            conn._write("Error: internal error")
