"""The server exposed to a LAN: idle limits that count lines, connection caps, login lockouts, a private file.

Timings here are small limits with wide margins: each test asserts what the
server did (cut a client while it was still trickling, refused the fourth
socket), never how long it took.
"""

from __future__ import annotations

import asyncio
import stat
from collections.abc import Callable
from pathlib import Path

import pytest

from bot.server.login import LOCKED
from bot.server.server import FULL
from bot.server.store import Store

from fibs_script import Client, ProtocolError, make_server, start_match

LIMIT_S = 0.5
TRICKLE_EVERY_S = 0.1
TRICKLE_BYTES = 40
"""The trickle lasts 4 s, eight times the limit: a server that counts bytes never cuts it in that time."""


async def _raw(port: int, source: str = "127.0.0.1") -> Client:
    reader, writer = await asyncio.open_connection("127.0.0.1", port, local_addr=(source, 0))
    return Client(reader, writer, source)


async def _until(condition: Callable[[], bool]) -> None:
    while not condition():
        await asyncio.sleep(0.01)


async def _trickle(client: Client, data: bytes) -> tuple[list[str], int]:
    """Send ``data`` byte by byte until the server closes; (lines received, bytes sent by then)."""
    sent = 0

    async def send() -> None:
        nonlocal sent
        for byte in data:
            client.writer.write(bytes([byte]))
            sent += 1
            await asyncio.sleep(TRICKLE_EVERY_S)

    sender = asyncio.create_task(send())
    try:
        lines = await client.rest()
        return lines, sent
    finally:
        sender.cancel()


async def test_a_client_trickling_one_byte_at_a_time_is_cut_at_the_login_prompt(tmp_path: Path) -> None:
    async with make_server(tmp_path / "f.db", login_timeout_s=LIMIT_S) as server:
        client = await _raw(server.port)
        await client.until("login: ")
        lines, sent = await _trickle(client, b"login x 1008 alice secret" + b"x" * TRICKLE_BYTES)
        assert lines == ["Connection timed out."]
        assert sent < TRICKLE_BYTES  # cut while still trickling


@pytest.mark.parametrize("noise", [b"\r\n", b"\xff\xfb\x01", b"\x00"])
async def test_blank_lines_and_telnet_noise_are_no_activity(tmp_path: Path, noise: bytes) -> None:
    async with make_server(tmp_path / "f.db", login_timeout_s=LIMIT_S) as server:
        client = await _raw(server.port)
        await client.until("login: ")
        lines, sent = await _trickle(client, (noise * TRICKLE_BYTES)[:TRICKLE_BYTES])
        assert lines[-1].endswith("Connection timed out.") and sent < TRICKLE_BYTES  # after "login: " prompts


async def test_a_logged_in_trickler_is_cut_and_a_user_sending_lines_is_not(tmp_path: Path) -> None:
    # a limit of ten of bob's lines: the loop would have to stall for most of a second to cut him
    async with make_server(tmp_path / "f.db", idle_timeout_s=10 * TRICKLE_EVERY_S) as server:
        alice = await Client.connect(server.port, "alice")
        bob = await Client.connect(server.port, "bob")

        async def busy() -> None:
            while True:
                await bob.send("time")
                await asyncio.sleep(TRICKLE_EVERY_S)

        keep_alive = asyncio.create_task(busy())
        try:
            lines, sent = await _trickle(alice, b"rawwho" * TRICKLE_BYTES)
        finally:
            keep_alive.cancel()
        assert lines[-1] == "Connection timed out." and sent < TRICKLE_BYTES
        assert await bob.until(r"8 alice Connection with alice timed out\.")
        await bob.send("rawwho bob")
        await bob.until(r"5 bob .*")  # sent lines all along: still here


async def test_the_login_limit_ends_with_the_login(tmp_path: Path) -> None:
    async with make_server(tmp_path / "f.db", login_timeout_s=LIMIT_S, idle_timeout_s=60) as server:
        alice = await Client.connect(server.port, "alice")
        await asyncio.sleep(4 * LIMIT_S)
        await alice.send("rawwho alice")
        await alice.until(r"5 alice .*")


async def test_connections_are_capped_in_total_and_per_address(tmp_path: Path) -> None:
    async with make_server(tmp_path / "f.db", max_connections=5, max_connections_per_host=3) as server:
        first = [await _raw(server.port) for _ in range(3)]
        for client in first:
            await client.until("login: ")
        refused = await _raw(server.port)
        assert await refused.rest() == [FULL]
        others = [await _raw(server.port, "127.0.0.2") for _ in range(2)]
        for client in others:
            await client.until("login: ")
        assert await (await _raw(server.port, "127.0.0.3")).rest() == [FULL]  # 5 in all
        assert server.gate.connections == 5
        await first[0].close()
        await asyncio.wait_for(_until(lambda: server.gate.connections < 5), 10)  # the server sees the close
        alice = await Client.connect(server.port, "alice")  # a freed place is taken again
        await alice.send("rawwho alice")
        await alice.until(r"5 alice .*")


async def test_a_connection_gets_only_so_many_tries(tmp_path: Path) -> None:
    async with make_server(tmp_path / "f.db", max_login_failures=3) as server:
        client = await _raw(server.port)
        await client.until("login: ")
        for attempt in ("hello there", "login too few"):
            await client.send(attempt)
            await client.until("login: ")
        await client.send("login x y alice secret")
        assert await client.rest() == []  # the third try: closed
        await Client.connect(server.port, "alice")  # nothing was locked: no password was wrong


async def _fail_login(port: int, name: str, source: str, *, tries: int = 1) -> list[str]:
    """Wrong passwords on one connection; what the server answered."""
    client = await _raw(port, source)
    await client.until("login: ")
    seen: list[str] = []
    for i in range(tries):
        await client.send(f"login x 1008 {name} wrong{i}")
        seen.append(await client.line())
        if seen[-1] != "login: ":
            return seen + await client.rest()
    await client.close()
    return seen


async def test_lockout_is_per_account_and_address_then_per_account(tmp_path: Path) -> None:
    async with make_server(tmp_path / "f.db", max_login_failures=3, max_account_failures=5) as server:
        server.add_user("alice", "secret")
        server.add_user("carol", "secret")
        assert LOCKED not in await _fail_login(server.port, "alice", "127.0.0.1", tries=2)
        assert (await _fail_login(server.port, "alice", "127.0.0.1"))[-1] == LOCKED  # the third from there
        with pytest.raises((EOFError, ProtocolError)):
            await Client.connect(server.port, "alice")  # the right password, refused unseen
        bob = await Client.connect(server.port, "bob")  # everyone else on the address logs in
        elsewhere = await _raw(server.port, "127.0.0.2")
        await elsewhere.until("login: ")
        await elsewhere.send("login x 1008 alice secret")
        await elsewhere.until(r"1 alice \d+ \S+")  # alice from another address too

        # a guesser spreading over addresses locks the account everywhere at max_account_failures
        for source in ("127.0.0.3", "127.0.0.4"):
            assert LOCKED not in await _fail_login(server.port, "carol", source, tries=2)
        assert (await _fail_login(server.port, "carol", "127.0.0.5"))[-1] == LOCKED
        fresh = await _raw(server.port, "127.0.0.6")
        await fresh.until("login: ")
        await fresh.send("login x 1008 carol secret")
        assert (await fresh.rest())[-1] == LOCKED
        await bob.send("rawwho bob")
        await bob.until(r"5 bob .*")


async def test_the_database_is_private(tmp_path: Path) -> None:
    db = tmp_path / "f.db"
    async with make_server(db) as server:
        alice, bob = await start_match(server.port, "alice", "bob", 3)
        await alice.close()  # a saved match: the WAL has been written
        await asyncio.wait_for(_until(lambda: server.store.saved_match("alice", "bob") is not None), 10)
        files = [p for p in tmp_path.iterdir() if p.name.startswith("f.db")]
        assert {p.name for p in files} >= {"f.db", "f.db-wal"}
        for path in files:
            assert stat.S_IMODE(path.stat().st_mode) == 0o600, path.name


def test_an_operators_existing_file_keeps_its_mode(tmp_path: Path) -> None:
    db = tmp_path / "shared.db"
    db.touch(mode=0o640)
    db.chmod(0o640)
    Store(db).close()
    assert stat.S_IMODE(db.stat().st_mode) == 0o640


def test_a_lockout_lifts_when_its_failures_leave_the_window(monkeypatch: pytest.MonkeyPatch) -> None:
    from types import SimpleNamespace

    from bot.server import guard

    now = [1000.0]
    monkeypatch.setattr(guard, "time", SimpleNamespace(monotonic=lambda: now[0]))  # the gate's clock only
    gate = guard.Gate(max_connections=None, max_per_host=None, max_failures=2, max_account_failures=3,
                      window_s=600)
    assert not gate.failed("alice", "10.0.0.1") and gate.failed("alice", "10.0.0.1")
    now[0] += 599
    assert gate.locked("alice", "10.0.0.1")
    now[0] += 2  # both failures are older than the window
    assert not gate.locked("alice", "10.0.0.1")
    assert all(gate.admit("10.0.0.1") for _ in range(5000))  # no caps: None


async def test_the_limit_before_login_is_never_longer_than_the_idle_limit(tmp_path: Path) -> None:
    async with make_server(tmp_path / "f.db", login_timeout_s=60, idle_timeout_s=LIMIT_S) as server:
        client = await _raw(server.port)
        await client.until("login: ")
        lines, sent = await _trickle(client, b"login x 1008 alice secret" + b"x" * TRICKLE_BYTES)
        assert lines == ["Connection timed out."]
        assert sent < TRICKLE_BYTES  # cut by the idle limit, not after the login limit's minute
