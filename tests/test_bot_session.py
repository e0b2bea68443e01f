"""The session over a scripted transport: login, toggles, reconnects, watchdog, transcript."""

from __future__ import annotations

import asyncio
import pathlib
import random

import pytest

from bot.config import BotConfig
from bot.player import Player
from bot.run import close_transcript, transcript_logger
from bot.session import LoginFailed, Reader, Session, Writer

from botkit import FakeDecider, config

BANNER = "                       First Internet Backgammon Server\r\n\r\nlogin: "
# the own-info example of FIBS's CLIP documentation: ready and silent are off, the rest as the bot wants
OWN = "2 GnuBot 1 1 0 0 0 0 1 1 2396 0 1 0 1 3457.85 0 0 0 0 0 Australia/Melbourne\r\n"


class Connection:
    """One scripted connection: the test feeds server text and reads the client's lines."""

    def __init__(self) -> None:
        self.incoming: asyncio.Queue[bytes] = asyncio.Queue()
        self.written = b""
        self.closed = False
        self._wrote = asyncio.Event()

    async def read(self, n: int) -> bytes:
        return await self.incoming.get()

    def write(self, data: bytes) -> None:
        self.written += data
        self._wrote.set()

    def close(self) -> None:
        self.closed = True
        self.incoming.put_nowait(b"")

    def feed(self, text: str) -> None:
        self.incoming.put_nowait(text.encode("ascii"))

    def lines(self) -> list[str]:
        return self.written.decode().split("\r\n")[:-1]

    async def expect(self, *commands: str, timeout: float = 5.0) -> None:
        """Wait until the client has sent ``commands`` (in this order, others may come between)."""
        async def seen() -> None:
            while True:
                lines = iter(self.lines())
                if all(c in lines for c in commands):
                    return
                self._wrote.clear()
                await self._wrote.wait()
        await asyncio.wait_for(seen(), timeout)


class Server:
    """The opener: every connection attempt gets the next scripted Connection."""

    def __init__(self) -> None:
        self.connections: asyncio.Queue[Connection] = asyncio.Queue()
        self.refuse = 0

    async def open(self) -> tuple[Reader, Writer]:
        if self.refuse:
            self.refuse -= 1
            raise ConnectionRefusedError("refused")
        conn = Connection()
        self.connections.put_nowait(conn)
        return conn, conn

    async def next(self) -> Connection:
        return await asyncio.wait_for(self.connections.get(), 5)


def settings(tmp: pathlib.Path, **connection: float) -> BotConfig:
    return config(tmp, connection={"backoff_min_s": 0.01, "backoff_max_s": 0.05, **connection})


async def start(tmp: pathlib.Path, **connection: float) -> tuple[Server, Session, Player, asyncio.Task[None]]:
    server = Server()
    cfg = settings(tmp, **connection)
    player = Player(cfg, FakeDecider())
    session = Session(cfg, "GnuBot", "secret", player, opener=server.open, transcript=transcript_logger(cfg, "GnuBot"),
                      rng=random.Random(1))
    player.attach(session)
    return server, session, player, asyncio.create_task(session.run())


async def login(server: Server) -> Connection:
    conn = await server.next()
    conn.feed(BANNER)
    await conn.expect("login fibsbot 1008 GnuBot secret")
    conn.feed("1 GnuBot 1041253132 host.example\r\n" + OWN + "3\r\nHello\r\n4\r\n6\r\n")
    return conn


async def stop(session: Session, task: asyncio.Task[None]) -> None:
    session.close()
    task.cancel()
    await asyncio.gather(task, return_exceptions=True)
    close_transcript(session.transcript)


async def test_login_fixes_only_the_wrong_toggles(tmp_path: pathlib.Path) -> None:
    server, session, player, task = await start(tmp_path)
    conn = await login(server)
    await conn.expect("toggle silent", "toggle ready", "set boardstyle 3", "board", "show saved")
    assert conn.lines() == ["login fibsbot 1008 GnuBot secret", "toggle silent", "toggle ready",
                            "set boardstyle 3", "board", "show saved"]
    assert session.logged_in and player.name == "GnuBot"
    await stop(session, task)
    transcript = (tmp_path / "logs" / "GnuBot.log").read_text()
    assert "> login fibsbot 1008 GnuBot ********" in transcript and "secret" not in transcript
    assert "< 2 GnuBot 1 1 0 0" in transcript


async def test_a_refused_login_is_final(tmp_path: pathlib.Path) -> None:
    server, session, _, task = await start(tmp_path)
    conn = await server.next()
    conn.feed(BANNER)
    await conn.expect("login fibsbot 1008 GnuBot secret")
    conn.feed("login: ")
    with pytest.raises(LoginFailed, match="refused the login of 'GnuBot'"):
        await asyncio.wait_for(task, 5)
    assert server.connections.empty()
    close_transcript(session.transcript)


async def test_eof_and_errors_mean_reconnect(tmp_path: pathlib.Path) -> None:
    server, session, player, task = await start(tmp_path)
    conn = await login(server)
    await conn.expect("show saved")
    conn.close()  # EOF: not the end of anything, just a new connection
    server.refuse = 2  # and the first attempts fail
    conn = await login(server)
    await conn.expect("show saved")
    assert session.connections == 2 and player.stats.logins == 2
    await stop(session, task)


async def test_the_prompt_may_come_in_pieces(tmp_path: pathlib.Path) -> None:
    server, session, _, task = await start(tmp_path)
    conn = await server.next()
    conn.incoming.put_nowait(b"First Internet\rlog")
    conn.incoming.put_nowait(b"in: ")
    await conn.expect("login fibsbot 1008 GnuBot secret")
    await stop(session, task)


async def test_telnet_negotiation_never_mixes_into_a_command(tmp_path: pathlib.Path) -> None:
    """Over a real telnetlib3 connection: the server's IAC WILL/WONT ECHO are taken out of
    what the bot reads and not answered, so the server reads exactly the login command."""
    received: asyncio.Queue[bytes] = asyncio.Queue()

    async def serve(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        writer.write(b"\xff\xfb\x01First Internet Backgammon Server\r\n\xff\xfc\x01login: ")
        received.put_nowait(await reader.readline())
        writer.close()

    listener = await asyncio.start_server(serve, "127.0.0.1", 0)
    port = listener.sockets[0].getsockname()[1]
    cfg = settings(tmp_path)
    player = Player(cfg, FakeDecider())
    session = Session(cfg, "GnuBot", "secret", player, host="127.0.0.1", port=port,
                      transcript=transcript_logger(cfg, "GnuBot"))
    player.attach(session)
    task = asyncio.create_task(session.run())
    assert await asyncio.wait_for(received.get(), 10) == b"login fibsbot 1008 GnuBot secret\r\n"
    await stop(session, task)
    listener.close()


async def test_silence_is_probed_then_the_connection_replaced(tmp_path: pathlib.Path) -> None:
    server, session, _, task = await start(tmp_path, silence_s=0.2, probe_timeout_s=0.2)
    conn = await login(server)
    await conn.expect("board")  # the probe
    second = await login(server)  # no answer: a new connection
    assert conn.closed and session.stalls == 1
    await second.expect("show saved")
    await stop(session, task)


async def test_an_answered_probe_keeps_the_connection(tmp_path: pathlib.Path) -> None:
    server, session, _, task = await start(tmp_path, silence_s=0.2, probe_timeout_s=1.0)
    conn = await login(server)
    await conn.expect("board")
    conn.feed("** You're not playing.\r\n")
    await asyncio.sleep(0.3)
    assert server.connections.empty() and session.stalls == 0
    await stop(session, task)


async def test_keepalive_when_idle(tmp_path: pathlib.Path) -> None:
    server, session, _, task = await start(tmp_path, keepalive_s=0.2)
    conn = await login(server)
    await conn.expect("show saved", "rawwho GnuBot")
    await stop(session, task)


async def test_close_says_bye_and_stops(tmp_path: pathlib.Path) -> None:
    server, session, _, task = await start(tmp_path)
    conn = await login(server)
    await conn.expect("show saved")
    session.close()
    await conn.expect("bye")
    conn.feed("Goodbye.\r\n")
    conn.close()
    await asyncio.wait_for(task, 5)
    assert server.connections.empty()
    close_transcript(session.transcript)
