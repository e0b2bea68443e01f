"""The FIBS-compatible server: listener, logins, the users online, logouts.

>>> async def demo(tmp: str) -> None:
...     async with FibsServer(port=0, db_path=f"{tmp}/fibs.db", seed=1) as server:
...         print(server.port > 0)
>>> import asyncio, tempfile
>>> with tempfile.TemporaryDirectory() as tmp:
...     asyncio.run(demo(tmp))
True
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Iterable
from pathlib import Path
from types import TracebackType

from bot.server.account import Account
from bot.server.commands import COMMANDS, dispatch
from bot.server.guard import Gate
from bot.server.lobby import Lobby
from bot.server.login import LoggedIn, login
from bot.server.passwords import DEFAULT_N, hash_password, verify_password
from bot.server.session import Connection, IdleTimeout, Session, peer_host, sorted_sessions
from bot.server.store import Store
from bot.server.texts import MOTD
from bot.server.wordings import Wordings

log = logging.getLogger("bot.server")

DEFAULT_PORT = 4321
FULL = "** Sorry, too many connections. Please try again later."
LOGOUT_TEXT = {
    "logout": "{0} logs out.",
    "drop": "{0} drops connection.",
    "timeout": "Connection with {0} timed out.",
    "kicked": "Closed old connection with user {0}.",
}


class FibsServer:
    """A FIBS-compatible server on one asyncio loop.

    ``async with FibsServer(port=0, db_path=...) as server`` listens on a free
    loopback port (``server.port``) until the block ends; leaving it saves
    every running match. ``seed`` makes the dice reproducible (None: the OS's
    secure source). ``auto_register`` creates an account at the first CLIP
    login of an unknown name.

    Limits (each also a ``fibsbot server`` flag):

    - ``idle_timeout_s``: a logged-in user who sends no complete, non-blank
      line for this long is cut (``Connection timed out.``; a running match
      is saved). ``login_timeout_s``: the same before login, shorter, as FIBS
      closes an idle login prompt, and never longer than ``idle_timeout_s``.
      None: no limit.
    - ``max_connections``, ``max_connections_per_host``: connections beyond
      either cap get one line (``** Sorry, too many connections...``) and are
      closed. None: no cap.
    - ``max_login_failures``: failed logins to one account from one address
      within ``login_window_s`` before that address is locked out of that
      account; ``max_account_failures``: the same from all addresses
      together, before the account is locked for everyone. Also the failed
      tries one connection gets before it is closed. A locked login gets
      ``** Too many failed logins. Please try again later.`` and is closed.

    Misbehaviour on purpose, so a client's tests can script what other
    servers do (all off by default):

    - ``forget_saved``: start without saved matches (every saved match in
      the file is deleted at ``start()``), as a server that lost them.
    - ``keep_games``: a player who drops (or times out, or is kicked by a
      second login) leaves the match running instead of saved: the opponent
      sees the logout line but no ``The game was saved.``, can still type
      (``leave`` saves as usual), and the player's next login takes the seat
      back silently (``board`` shows where the game stands). If both players
      are gone, the match is saved.
    - ``unanswered``: command names (full names: ``board``, ``roll``, ``move``,
      ``rawwho``...) that are swallowed: no reply and no effect.
    - ``wordings``: names from :mod:`bot.server.wordings` (e.g. ``jibs``,
      ``move-no-blank``, ``bare-lf``, ``left-terminated``, ``glued``): those
      lines are said the way that server says them (``glued``: a board line
      runs on into the next line, FIBS's old glitch).

    Its parts see it through Protocols only (so none imports it back): the
    commands through :class:`~bot.server.context.Context`, the lobby through
    :class:`~bot.server.context.Online`, the login dialogue through
    :class:`~bot.server.login.Accounts`.
    """

    def __init__(self, host: str = "127.0.0.1", port: int = DEFAULT_PORT, *, db_path: str | Path = "fibs.db",
                 seed: int | None = None, auto_register: bool = False, motd: str = MOTD,
                 idle_timeout_s: float | None = 3600.0, login_timeout_s: float | None = 60.0,
                 max_line: int = 2048, max_output: int = 1 << 20,
                 max_connections: int | None = 1000, max_connections_per_host: int | None = 100,
                 max_login_failures: int = 10, max_account_failures: int = 50, login_window_s: float = 600.0,
                 scrypt_n: int = DEFAULT_N, forget_saved: bool = False, keep_games: bool = False,
                 unanswered: Iterable[str] = (), wordings: Iterable[str] = ()) -> None:
        self.host = host
        self._port = port
        self.auto_register = auto_register
        self.motd = motd.split("\n") if motd else []
        self.idle_timeout_s = idle_timeout_s or None
        self.login_timeout_s = login_timeout_s or None
        self.max_line = max_line
        self.max_output = max_output
        self.max_login_failures = max_login_failures
        self.gate = Gate(max_connections=max_connections, max_per_host=max_connections_per_host,
                         max_failures=max_login_failures, max_account_failures=max_account_failures,
                         window_s=login_window_s)
        self.scrypt_n = scrypt_n
        self.forget_saved = forget_saved
        self.unanswered = frozenset(unanswered)
        if unknown := sorted(self.unanswered - COMMANDS.keys()):
            raise ValueError(f"unknown command(s) to leave unanswered: {', '.join(unknown)}")
        self.wordings = Wordings.named(wordings)
        self.store = Store(db_path)
        self.sessions: dict[str, Session] = {}
        self.lobby = Lobby(self, seed=seed, keep_games=keep_games, silent_roll=self.wordings.silent_roll)
        self._server: asyncio.Server | None = None
        self._tasks: set[asyncio.Task[None]] = set()
        self._connections: set[Connection] = set()
        self._closed = asyncio.Event()  # close() has begun
        self._done = asyncio.Event()  # close() has finished

    # -- lifecycle --

    async def start(self) -> None:
        if self.forget_saved:
            log.info("forgot %d saved matches", self.store.forget_saved_matches())
        # a deep accept queue: a burst of sockets is accepted (and refused over the cap) instead of
        # leaving later clients' SYNs dropped and retried a second later
        self._server = await asyncio.start_server(self._client, self.host, self._port, backlog=1024)
        log.info("listening on %s:%d", self.host, self.port)

    @property
    def port(self) -> int:
        assert self._server is not None, "start() the server first"
        return int(self._server.sockets[0].getsockname()[1])

    async def serve_forever(self) -> None:
        """Run until close() (e.g. from a signal handler) has finished."""
        await self._done.wait()

    async def close(self) -> None:
        """Stop listening, save every running match, disconnect everyone."""
        if self._closed.is_set():
            return
        self._closed.set()
        if self._server is not None:
            self._server.close()
        for session in list(self.sessions.values()):
            if session.table is not None:
                self.lobby.interrupt(session, "shutdown")
            self.logout(session, "shutdown")
        for conn in list(self._connections):
            conn.close()  # each handler sees the end of its stream and returns
        if self._tasks:
            _, stuck = await asyncio.wait(self._tasks, timeout=5.0)
            for task in stuck:
                task.cancel()
        if self._server is not None:
            await self._server.wait_closed()
        self.store.close()
        log.info("server closed")
        self._done.set()

    async def __aenter__(self) -> FibsServer:
        await self.start()
        return self

    async def __aexit__(self, kind: type[BaseException] | None, error: BaseException | None,
                        trace: TracebackType | None) -> None:
        await self.close()

    # -- accounts (the login dialogue's side) --

    def add_user(self, name: str, password: str) -> Account:
        """Create an account (operators; tests). Raises ValueError if it exists."""
        if self.exists(name):
            raise ValueError(f"user {name} exists")
        return self.store.create(name, hash_password(password, n=self.scrypt_n))

    def exists(self, name: str) -> bool:
        return self.store.password_hash(name) is not None

    async def authenticate(self, name: str, password: str) -> Account | None:
        stored = self.store.password_hash(name)
        if stored is None:
            return await self.register(name, password) if self.auto_register and len(password) >= 4 else None
        # scrypt releases the GIL: other sessions go on while it works
        if not await asyncio.to_thread(verify_password, password, stored):
            return None
        return self.store.account(name)

    async def register(self, name: str, password: str) -> Account | None:
        hashed = await asyncio.to_thread(hash_password, password, n=self.scrypt_n)
        if self.exists(name):  # registered meanwhile
            return None
        log.info("new account %s", name)
        return self.store.create(name, hashed)

    def login_locked(self, name: str, host: str) -> bool:
        return self.gate.locked(name, host)

    def login_failed(self, name: str, host: str) -> bool:
        log.info("failed login for %s from %s", name, host)
        if self.gate.failed(name, host):
            log.warning("too many failed logins for %s (from %s)", name, host)
            return True
        return False

    # -- the users online --

    def find(self, name: str) -> Session | None:
        """The user online with exactly this name."""
        return self.sessions.get(name)

    def complete(self, prefix: str) -> Session | None:
        """Exact name, else the only user online whose name starts with ``prefix`` (FIBS's completion)."""
        if prefix in self.sessions:
            return self.sessions[prefix]
        matches = [s for name, s in self.sessions.items() if name.startswith(prefix)]
        return matches[0] if len(matches) == 1 else None

    def broadcast(self, line: str, *, toggle: str | None = None, skip: Iterable[str] = ()) -> None:
        """To every user online (with ``toggle`` on, if given) except the names in ``skip``."""
        skipped = set(skip)
        for session in list(self.sessions.values()):
            if session.name not in skipped and (toggle is None or session.account.toggles[toggle]):
                session.send(line)

    def who_changed(self, session: Session) -> None:
        """Everyone gets the user's new ``5`` line (and a ``6``)."""
        if session.gone:
            return
        line = session.who_line()
        for other in list(self.sessions.values()):
            other.send(line)
            other.send("6")

    # -- connections --

    def _before_login_s(self) -> float | None:
        """The idle limit before login: the login limit, never longer than the idle limit."""
        limits = [t for t in (self.login_timeout_s, self.idle_timeout_s) if t is not None]
        return min(limits) if limits else None

    async def _client(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        host = peer_host(writer)
        if self._closed.is_set() or not self.gate.admit(host):
            if not self._closed.is_set():
                writer.write(self.wordings.encode(FULL))
            writer.close()  # neither tracked nor read: a refused socket costs a moment
            return
        task = asyncio.current_task()
        assert task is not None
        self._tasks.add(task)
        conn = Connection(reader, writer, max_line=self.max_line, max_output=self.max_output,
                          idle_timeout_s=self._before_login_s(), wordings=self.wordings)
        self._connections.add(conn)
        session: Session | None = None
        reason = "drop"
        try:
            lines = conn.lines()
            result = await login(conn, self, lines, self.max_login_failures)
            if result is None or self._closed.is_set():
                return
            conn.idle_timeout_s = self.idle_timeout_s
            conn.restart_idle_timer()
            session = self._enter(result, conn)
            async for line in lines:
                session.last_active = time.time()
                try:
                    dispatch(self, session, line, self.unanswered, self.wordings.missing)
                except Exception:  # a bug in one command must not end the server or the session
                    log.exception("command %r of %s failed", line.split(" ", 1)[0], session.name)
                    session.send("** Sorry, that command failed.")
                if session.gone:
                    return
                await conn.drain()
        except IdleTimeout:
            reason = "timeout"
            conn.send("Connection timed out.")
        except (ConnectionError, OSError):
            pass
        except Exception:  # a bug outside a command (login, cleanup) ends this connection only
            log.exception("connection from %s failed", conn.host)
        finally:
            if session is not None and not session.gone:
                self.lobby.disconnected(session, reason)
                self.logout(session, reason)
            conn.close()
            self._connections.discard(conn)
            self.gate.release(host)
            self._tasks.discard(task)

    def _enter(self, result: LoggedIn, conn: Connection) -> Session:
        """Log a user in: the CLIP welcome sequence, and everyone else is told."""
        account = result.account
        old = self.sessions.get(account.name)
        if old is not None:
            conn.send("** Warning: You are already logged in.")
            self.lobby.disconnected(old, "drop")
            self.logout(old, "kicked")
            old.conn.close()
            account = self.store.account(account.name) or account  # what the old session saved
        session = Session(account, conn, result.client)
        self.lobby.take_kept_seat(session)
        previous = (account.last_login or session.login_time, account.last_host or conn.host)
        account.last_login, account.last_host = session.login_time, conn.host
        self.store.update(account)
        session.send(f"1 {account.name} {int(previous[0])} {previous[1]}")
        session.send(account.own_info(away=False))
        session.send("3")
        for line in self.motd:
            session.send(line)
        session.send("4")
        for sender, when, text in self.store.take_messages(account.name):
            session.send(f"9 {sender} {when} {text}")
        self.sessions[account.name] = session
        for other in sorted_sessions(self.sessions.values(), account.settings["sortwho"]):
            session.send(other.who_line())
        session.send("6")
        again = " again" if old is not None else ""
        self.broadcast(f"7 {account.name} {account.name} logs in{again}.", toggle="notify", skip=[account.name])
        line = session.who_line()
        for other in list(self.sessions.values()):
            if other is not session:
                other.send(line)
                other.send("6")
        log.info("%s logged in from %s", account.name, conn.host)
        return session

    def logout(self, session: Session, reason: str) -> None:
        """The user is gone (``bye``, dropped, timed out, kicked, shutdown); their match is already saved."""
        if session.gone:
            return
        session.gone = True
        if self.sessions.get(session.name) is session:
            del self.sessions[session.name]
        session.invitation = None
        for watcher in list(session.watchers):
            if isinstance(watcher, Session):
                watcher.watching = None
                watcher.send(f"{session.name} logs out.. You're not watching anymore.")
                self.who_changed(watcher)
        session.watchers.clear()
        if session.watching is not None:
            session.watching.watchers.discard(session)
            session.watching = None
        session.account.last_logout = time.time()
        self.store.update(session.account)
        if reason in LOGOUT_TEXT:
            text = LOGOUT_TEXT[reason].format(session.name)
            self.broadcast(f"8 {session.name} {text}", toggle="notify")
        log.info("%s left (%s)", session.name, reason)
