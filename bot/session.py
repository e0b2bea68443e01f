"""The connection to FIBS: telnet in bytes mode, CLIP login, toggles, reconnects, watchdog.

:class:`Session` owns the socket and nothing about games: it cuts the byte
stream into lines (the ``login: `` prompt has no line end), parses them with
:func:`bot.clip.parse_all` and hands every event to its :class:`Handler`
(the player). It logs in, fixes the toggles it needs (:func:`wanted_toggles`) from the
own-info line (toggling only what is wrong, since ``toggle`` flips), and
sets ``boardstyle 3``.

Any network error or EOF means reconnect, after an exponential backoff with
jitter; EOF is never "match over" (the server saves the match). A refused
login is final (:class:`LoginFailed`). When no byte arrives for
``silence_s`` the session probes with ``board``; if that gets no answer
either, the connection is taken for dead and replaced. When the bot has
sent nothing for ``keepalive_s`` it sends a harmless ``rawwho`` (FIBS drops
connections idle for about an hour).

The session is the supervisor: every line is parsed and handled under one
guard, so an unexpected failure is logged with the raw line and its
traceback and the handler resynchronises (asks for the board); failures that
keep coming end the connection (:class:`Troubled`), and the session
reconnects with backoff. Only a refused login ends :meth:`Session.run`.
"""

from __future__ import annotations

import asyncio
import functools
import logging
import random
import time
from collections.abc import Awaitable, Callable
from typing import Protocol, TypeVar, cast

import telnetlib3

from bot import clip, commands
from bot.config import BotConfig

log = logging.getLogger(__name__)
T = TypeVar("T")

MAX_FAILURES = 5
"""Unexpected failures within FAILURE_WINDOW_S that make the session reconnect."""
FAILURE_WINDOW_S = 300.0


class LoginFailed(Exception):
    """FIBS refused the user name, the password or the client name."""


class Stalled(Exception):
    """The server stopped answering."""


class Troubled(Exception):
    """Handling the server's lines keeps failing: start afresh on a new connection."""


class Reader(Protocol):
    async def read(self, n: int) -> bytes: ...


class Writer(Protocol):
    def write(self, data: bytes) -> None: ...

    def close(self) -> None: ...


Opener = Callable[[], Awaitable[tuple[Reader, Writer]]]


class Handler(Protocol):
    """The session's user (:class:`bot.player.Player`)."""

    @property
    def wants_ready(self) -> bool: ...

    def on_login(self, name: str, own: clip.OwnInfo) -> None: ...

    def handle(self, event: clip.Event) -> None: ...

    def on_disconnected(self) -> None: ...

    def recover(self) -> None:
        """Handling a line failed unexpectedly: drop what is under way and resynchronise."""


def wanted_toggles(config: BotConfig, ready: bool) -> dict[str, bool]:
    """The toggle values the bot needs: each ``toggle`` flips, so only the wrong ones are sent."""
    return {
        "allowpip": True, "autoboard": True, "autodouble": False, "automove": False, "bell": False,
        "crawford": True, "double": True, "greedy": False, "moreboards": True, "moves": False,
        "notify": True, "ratings": False, "report": False, "silent": config.play.silent, "ready": ready,
    }


class QuietTelnetWriter(telnetlib3.TelnetWriter):
    """telnetlib3 owns the telnet layer: it takes every IAC sequence out of what we read.
    It would also answer the server's negotiation (``IAC DO ECHO`` to the password
    prompt's ``IAC WILL ECHO``); a server that is not telnet-aware reads such an
    answer as the start of our next command and rejects it. The bot needs no option
    (FIBS negotiates nothing in CLIP mode), so it answers none: only commands are sent."""

    def send_iac(self, buf: bytes) -> None:
        log.debug("not answering telnet negotiation %r", buf)


class QuietTelnetClient(telnetlib3.TelnetClient):
    _writer_factory = QuietTelnetWriter


def telnet_opener(host: str, port: int) -> Opener:
    """Connections to ``host:port`` by telnetlib3 in bytes mode (we split lines ourselves)."""
    async def open_() -> tuple[Reader, Writer]:
        # no waiting for option negotiation: FIBS negotiates nothing in CLIP mode
        reader, writer = await telnetlib3.open_connection(host, port, encoding=False, client_factory=QuietTelnetClient,
                                                          connect_minwait=0, connect_maxwait=0)
        return cast(Reader, reader), cast(Writer, writer)
    return open_


def mask(command: str) -> str:
    """The command as the transcript shows it: the password of a login replaced."""
    if command.startswith("login "):
        head, _, _ = command.rpartition(" ")
        return head + " ********"
    return command


class Session:
    """One FIBS account's connection, kept up until :meth:`close`."""

    def __init__(self, config: BotConfig, user: str, password: str, handler: Handler, *,
                 host: str | None = None, port: int | None = None, opener: Opener | None = None,
                 transcript: logging.Logger | None = None, rng: random.Random | None = None) -> None:
        self.cfg = config
        self.user = user
        self._password = password
        self.handler = handler
        self.host = host or config.server.host
        self.port = config.server.port if port is None else port
        self._opener = opener or telnet_opener(self.host, self.port)
        self.transcript = transcript or logging.getLogger(f"fibsbot.transcript.{user}")
        self.rng = rng or random.Random()
        self.parser = clip.Parser()
        """The server's dialect: every known wording until a line before login names the server."""
        self.connections = 0
        self.stalls = 0
        self._writer: Writer | None = None
        self._stopping = False
        self._logged_in = False
        self._login_sent = False
        self._own_seen = False
        self._last_tx = 0.0
        self._failures: list[float] = []  # when handling a line failed, recently

    # -- the outside ---------------------------------------------------------------

    @property
    def logged_in(self) -> bool:
        return self._logged_in

    def send(self, command: str) -> None:
        """Send one command line; dropped (and logged) while disconnected."""
        if self._writer is None:
            log.warning("%s: not connected, dropping %r", self.user, mask(command))
            return
        self.transcript.info("> %s", mask(command))
        self._writer.write(command.encode("ascii", "replace") + b"\r\n")
        self._last_tx = asyncio.get_running_loop().time()

    def close(self) -> None:
        """Log out (``bye``) and stop reconnecting; :meth:`run` returns when the server hangs up."""
        if self._stopping:
            return
        self._stopping = True
        if self._writer is not None:
            self.send(commands.bye())
            asyncio.get_running_loop().call_later(5.0, self._hang_up)
        else:
            self._hang_up()

    def _hang_up(self) -> None:
        if self._writer is not None:
            self._writer.close()

    async def run(self) -> None:
        """Connect, log in, serve; reconnect on any failure until :meth:`close`.

        Raises LoginFailed when the server refuses the login.
        """
        failures = 0
        while not self._stopping:
            try:
                reader, writer = await asyncio.wait_for(self._opener(), self.cfg.connection.connect_timeout_s)
            except Exception as exc:  # any failure to connect is retried (OSError, timeout, telnet errors)
                log.warning("%s: cannot connect to %s:%s: %s", self.user, self.host, self.port,
                            exc or type(exc).__name__)
            else:
                self.connections += 1
                troubled = False
                try:
                    await self._serve(reader, writer)
                except LoginFailed:
                    raise
                except (OSError, EOFError, Stalled, Troubled) as exc:
                    troubled = isinstance(exc, Troubled)
                    log.log(logging.INFO if self._stopping else logging.WARNING, "%s: connection lost: %s",
                            self.user, exc or type(exc).__name__)
                except Exception:  # the supervisor: nothing the server sends ends the bot
                    troubled = True
                    log.exception("%s: unexpected failure on the connection: reconnecting", self.user)
                finally:
                    self._writer = None
                    writer.close()
                    if self._logged_in:
                        if not troubled:
                            failures = 0  # a connection that failed by our handling backs off further
                        self._logged_in = False
                        self.transcript.info("-- disconnected")
                        try:
                            self.handler.on_disconnected()
                        except Exception:
                            log.exception("%s: cleaning up after the disconnect failed", self.user)
            if self._stopping:
                break
            delay = min(self.cfg.connection.backoff_max_s, self.cfg.connection.backoff_min_s * 2 ** failures)
            delay *= self.rng.uniform(0.5, 1.0)  # jitter: many bots must not reconnect in step
            failures = min(failures + 1, 30)
            log.info("%s: reconnecting in %.1f s", self.user, delay)
            await asyncio.sleep(delay)

    # -- the connection ------------------------------------------------------------

    async def _serve(self, reader: Reader, writer: Writer) -> None:
        loop = asyncio.get_running_loop()
        conn = self.cfg.connection
        self._writer = writer
        self._login_sent = self._own_seen = False
        self.transcript.info("-- connected to %s:%s", self.host, self.port)
        splitter = clip.LineSplitter()
        last_rx = self._last_tx = loop.time()
        probed = False
        while True:
            now = loop.time()
            silent_until = last_rx + conn.silence_s + (conn.probe_timeout_s if probed else 0.0)
            wake = silent_until
            if self._logged_in:
                wake = min(wake, self._last_tx + conn.keepalive_s)
            try:
                data = await asyncio.wait_for(reader.read(65536), max(0.0, wake - now))
            except TimeoutError:
                now = loop.time()
                if now >= silent_until:
                    if probed:
                        self.stalls += 1
                        raise Stalled(f"no answer for {conn.silence_s + conn.probe_timeout_s:.0f} s") from None
                    probed = True
                    self.send(commands.board())  # any answer will do
                elif self._logged_in and now >= self._last_tx + conn.keepalive_s:
                    self.send(commands.rawwho(self.user))
                continue
            if not data:
                for line in splitter.flush():
                    self._line(line)
                raise EOFError("the server closed the connection")
            last_rx = loop.time()
            probed = False
            for line in splitter.feed(data):
                self._line(line)

    def _line(self, line: str) -> None:
        self.transcript.info("< %s", line)
        events = self._guarded(line, lambda: self.parser.parse_all(line)) or []
        for event in events:
            if isinstance(event, clip.Unknown):
                if not self._logged_in and self.parser.identify(event.line):
                    log.info("%s: the server speaks %s", self.user, self.parser.dialect.name)
                log.debug("%s: ignoring a line the bot does not know: %r", self.user, event.line[:300])
            self._guarded(line, functools.partial(self._dispatch, event))

    def _dispatch(self, event: clip.Event) -> None:
        self._event(event)
        self.handler.handle(event)

    def _guarded(self, line: str, call: Callable[[], T]) -> T | None:
        """The supervisor: an unexpected failure is logged with the line, the handler
        resynchronises, and failures that keep coming end the connection (Troubled)."""
        try:
            return call()
        except (LoginFailed, Troubled):
            raise
        except Exception:
            log.exception("%s: handling %r failed: resynchronising", self.user, line[:500])
        now = time.monotonic()
        self._failures = [t for t in self._failures if now - t < FAILURE_WINDOW_S] + [now]
        if len(self._failures) >= MAX_FAILURES:
            self._failures.clear()
            raise Troubled(f"{MAX_FAILURES} failures in {FAILURE_WINDOW_S:.0f} s")
        if self._writer is not None:
            try:
                self.handler.recover()
            except Exception:
                log.exception("%s: resynchronising failed too", self.user)
        return None

    def _event(self, event: clip.Event) -> None:
        if isinstance(event, clip.LoginPrompt) and not self._logged_in:
            if self._login_sent:
                self._stopping = True
                raise LoginFailed(f"FIBS refused the login of {self.user!r} at {self.host}:{self.port}: "
                                  "wrong user name or password (or a client name FIBS does not accept)")
            self._login_sent = True
            self.send(commands.login(self.user, self._password, client=self.cfg.server.client))
        elif isinstance(event, clip.Welcome):
            self._logged_in = True
            log.info("%s: logged in to %s:%s", self.user, self.host, self.port)
        elif isinstance(event, clip.OwnInfo) and self._logged_in and not self._own_seen:
            self._own_seen = True
            self._settings(event)
            self.handler.on_login(event.name, event)
        elif isinstance(event, clip.AlreadyLoggedIn):
            log.warning("%s: was already logged in; the old session was closed", self.user)
        elif isinstance(event, clip.ConnectionTimedOut):
            log.warning("%s: the server timed the connection out", self.user)

    def _settings(self, own: clip.OwnInfo) -> None:
        """Flip exactly the toggles that are wrong, then ask for machine-readable boards."""
        for name, value in wanted_toggles(self.cfg, self.handler.wants_ready).items():
            if getattr(own, name) != value:
                self.send(commands.toggle(name))
        if own.away:
            self.send(commands.back())
        self.send(commands.set_variable("boardstyle", 3))
