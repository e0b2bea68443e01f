"""The external-player socket: gnubg's replies and protocol, many clients, bad input.

A real :class:`ExternalServer` on loopback (TCP or a Unix socket) and real
socket clients. Bad input (malformed and truncated boards, 255+ character and
1 MB lines, random bytes, a slow client, hundreds of connections at once, a
full queue) gets a named ``Error:`` line or a closed connection, and the
server goes on answering. A Hypothesis test fuzzes the request parser and the
board reading behind it.
"""

from __future__ import annotations

import asyncio
import pathlib
import random
import socket
import subprocess
import sys
import threading
import time
from collections.abc import AsyncIterator

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bot.serve import cli, decide, protocol
from bot.serve.external import BUSY, LINE_TOO_LONG, VERSION_REPLY, ExternalServer
from bot.serve.pool import Pool
from engine import Engine
from engine.levels import level

OPENING_31 = ("board:You:Opp:9999:0:0:0:-1:0:0:0:-1:5:0:3:0:0:0:-5:5:0:0:0:-3:0:-5:0:0:0:0:2:0:1:3:1:0:0:1:1:1:0:"
              "1:-1:0:25:0:0:0:0:2:0:0:0")
# post-Crawford, 5-point match, the trailer (3) on roll and 9 pips ahead; FIBS order You 3, Opp 4
SCORE_ORDER = ("board:You:Opp:5:3:4:0:0:0:0:3:3:4:0:3:0:0:0:-3:2:0:0:0:-3:0:-4:-3:-2:0:0:0:0:1:0:0:0:0:1:1:1:0:1:"
               "-1:0:25:0:0:0:0:0:0:1:0")
ENGINE = Engine()


def settings_at(name: str = "expert", **kw: object) -> decide.ServerSettings:
    return decide.ServerSettings(level=level(name), **kw)  # type: ignore[arg-type]


@pytest.fixture
async def server() -> AsyncIterator[tuple[ExternalServer, int]]:
    ext = ExternalServer(ENGINE, settings_at(), Pool(2, queue=2000))
    srv = await ext.start("127.0.0.1:0")
    port = srv.sockets[0].getsockname()[1]  # type: ignore[attr-defined]
    yield ext, port
    srv.close()


async def connect(port: int) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
    return await asyncio.open_connection("127.0.0.1", port, limit=2**20)


async def ask(reader: asyncio.StreamReader, writer: asyncio.StreamWriter, line: bytes, lines: int = 1) -> list[str]:
    writer.write(line)
    await writer.drain()
    return [(await asyncio.wait_for(reader.readline(), 30)).decode().rstrip("\n") for _ in range(lines)]


async def test_protocol_replies(server: tuple[ExternalServer, int]) -> None:
    _, port = server
    r, w = await connect(port)
    assert await ask(r, w, b"version\n", 4) == VERSION_REPLY.split("\n")
    assert await ask(r, w, b"VERSION\r\n", 4) == VERSION_REPLY.split("\n")
    assert await ask(r, w, b"help\n") == ["\tNo help information available"]
    assert await ask(r, w, b"\n") == ["Error: no command given"]
    assert await ask(r, w, b"foo\n") == ["Error: syntax error, unexpected E_CHARACTER"]
    assert await ask(r, w, b"set debug on\n") == ["Debug output ON"]
    assert await ask(r, w, b"set interface new\n") == ["New interface ON"]
    assert await ask(r, w, b"set prompt 'x>'\n") == ["Error: set option 'prompt' not supported"]
    assert await ask(r, w, b"evaluation board:a:b:1\n") == [
        "Error: syntax error, unexpected E_STRING, expecting FIBSBOARD"]
    assert await ask(r, w, OPENING_31.encode() + b" plies 2\n") == [
        "Error: syntax error, unexpected PLIES, expecting EOL"]
    assert await ask(r, w, b"board:You:Opp:" + b":".join([b"0"] * 51) + b"\n") == [
        "Error: Invalid board. Maximum number of elements is 52"]
    assert await ask(r, w, b"board:You:Opp:1:2:3\n") == ["Error: badly formed board"]
    sixteen = OPENING_31.replace(":0:-1:0:0:0:-1:5:", ":0:-1:0:0:0:-1:6:")  # 16 checkers for O
    assert await ask(r, w, sixteen.encode() + b"\n") == ["Error: badly formed board"]
    assert await ask(r, w, OPENING_31.encode() + b"\r\n") == ["8/5* 6/5 "]
    w.write(b"exit\n")
    await w.drain()
    assert await asyncio.wait_for(r.read(), 10) == b""  # closed, nothing sent


async def test_two_requests_in_one_write_are_both_answered(server: tuple[ExternalServer, int]) -> None:
    _, port = server
    r, w = await connect(port)
    replies = await ask(r, w, b"help\n" + OPENING_31.encode() + b"\nhelp\n", 3)
    assert replies == ["\tNo help information available", "8/5* 6/5 ", "\tNo help information available"]


async def test_the_nul_byte_gnubg_ends_each_request_with_is_dropped(server: tuple[ExternalServer, int]) -> None:
    # gnubg 1.07 as an external-player client writes each board line, LF, then a NUL byte
    _, port = server
    r, w = await connect(port)
    assert await ask(r, w, OPENING_31.encode() + b"\n\0") == ["8/5* 6/5 "]
    assert await ask(r, w, OPENING_31.encode() + b"\n\0") == ["8/5* 6/5 "]  # not read as "\0board:..."
    w.write(b"\0")  # a NUL on its own, as the tail of a request split over two reads
    assert await ask(r, w, b"help\n\0") == ["\tNo help information available"]
    assert await ask(r, w, b"version\n", 4) == VERSION_REPLY.split("\n")  # no reply was left over
    w.close()


async def test_pipelined_requests_through_the_pool_keep_their_order() -> None:
    """Lines sent in one write while searches run on the workers: each answered in turn."""
    ext = ExternalServer(ENGINE, settings_at(), Pool(2), inline=False)
    srv = await ext.start("127.0.0.1:0")
    port = srv.sockets[0].getsockname()[1]  # type: ignore[attr-defined]
    r, w = await connect(port)
    other = OPENING_31.replace(":1:3:1:0:0:1:1:1:0:", ":1:6:5:0:0:1:1:1:0:")  # the same board, 65
    request = protocol.parse(other)
    assert isinstance(request, protocol.BoardRequest)
    expected_other = decide.answer_board(ENGINE, request.board, request.session, settings_at())
    assert expected_other not in ("8/5* 6/5 ", "") and not expected_other.startswith("Error")
    batch = "\n".join([OPENING_31, "help", other, "x" * 300, "version", OPENING_31, "exit", "help"]) + "\n"
    replies = await ask(r, w, batch.encode(), 9)
    assert replies == ["8/5* 6/5 ", "\tNo help information available", expected_other, LINE_TOO_LONG,
                       *VERSION_REPLY.split("\n"), "8/5* 6/5 "]
    assert await asyncio.wait_for(r.read(), 10) == b""  # closed at exit: the last line unanswered
    srv.close()


async def test_a_client_that_reads_no_replies_is_held_not_buffered(server: tuple[ExternalServer, int]) -> None:
    """120000 requests whose 6 MB of replies (beyond the kernel's 4 MB send buffer) are read
    only after a while: the server stops reading until the replies go, then answers every
    request, in order."""
    _, port = server
    n = 120000
    version = [line.encode() + b"\n" for line in VERSION_REPLY.split("\n")]

    def client() -> list[bytes]:
        with socket.socket() as sock:
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
            sock.connect(("127.0.0.1", port))
            sock.settimeout(30)
            sender = threading.Thread(target=sock.sendall, args=(b"version\n" * (n - 1) + b"help\n",))
            sender.start()
            time.sleep(1.0)  # nothing read: the server's send buffer fills up
            reader = sock.makefile("rb")
            lines = [reader.readline() for _ in range(4 * n - 3)]
            sender.join(30)
            return lines
    lines = await asyncio.to_thread(client)
    assert lines == version * (n - 1) + [b"\tNo help information available\n"]


async def test_long_lines_random_bytes_and_slow_clients(server: tuple[ExternalServer, int]) -> None:
    _, port = server
    r, w = await connect(port)
    assert await ask(r, w, b"version" + b" " * 248 + b"\n") == [LINE_TOO_LONG]  # 255 characters
    assert await ask(r, w, b"x" * 2**20 + b"\n") == [LINE_TOO_LONG]  # one reply for 1 MB, then dropped
    assert await ask(r, w, b"help\n") == ["\tNo help information available"]
    rng = random.Random(7)
    for _ in range(20):
        junk = bytes(rng.randrange(256) for _ in range(rng.randrange(1, 200))).replace(b"\n", b" ")
        reply = await ask(r, w, junk + b"\n")
        assert reply[0].startswith("Error: ") or reply == [""] or reply[0][0].isdigit()
    truncated = OPENING_31[: len(OPENING_31) // 2]
    assert (await ask(r, w, truncated.encode() + b"\n"))[0].startswith("Error: ")
    for byte in OPENING_31.encode() + b"\n":  # one byte at a time
        w.write(bytes([byte]))
        await w.drain()
        await asyncio.sleep(0.001)
    assert (await asyncio.wait_for(r.readline(), 10)) == b"8/5* 6/5 \n"
    w.close()
    r2, w2 = await connect(port)
    assert await ask(r2, w2, b"help\n") == ["\tNo help information available"]


async def test_many_connections_at_once(server: tuple[ExternalServer, int]) -> None:
    ext, port = server

    async def client(i: int) -> str:
        r, w = await connect(port)
        try:
            return (await ask(r, w, OPENING_31.encode() + b"\n"))[0]
        finally:
            w.close()
    replies = await asyncio.gather(*(client(i) for i in range(1000)))
    assert replies == ["8/5* 6/5 "] * 1000
    await asyncio.sleep(0.1)
    assert ext.connections == 0


async def test_a_full_queue_answers_busy_and_recovers() -> None:
    release = threading.Event()
    ext = ExternalServer(ENGINE, settings_at(), Pool(1, queue=1), inline=False)
    real = ext.compute

    def held(request: protocol.BoardRequest | protocol.EvalRequest) -> str:
        release.wait(30)
        return real(request)
    ext.compute = held  # type: ignore[method-assign]  # engine calls wait for the test's signal
    srv = await ext.start("127.0.0.1:0")
    port = srv.sockets[0].getsockname()[1]  # type: ignore[attr-defined]
    clients = [await connect(port) for _ in range(3)]
    for _, w in clients:
        w.write(OPENING_31.encode() + b"\n")
        await w.drain()
    third = await asyncio.wait_for(clients[2][0].readline(), 10)
    assert third.decode().rstrip("\n") == BUSY
    release.set()
    for r, _ in clients[:2]:
        assert await asyncio.wait_for(r.readline(), 30) == b"8/5* 6/5 \n"
    srv.close()


async def test_a_client_stuck_inside_a_line_is_cut() -> None:
    ext = ExternalServer(ENGINE, settings_at(), Pool(1), line_s=0.5)
    srv = await ext.start("127.0.0.1:0")
    port = srv.sockets[0].getsockname()[1]  # type: ignore[attr-defined]
    r, w = await connect(port)
    assert await ask(r, w, b"help\n") == ["\tNo help information available"]
    await asyncio.sleep(1.0)  # idle between requests: kept
    w.write(b"board:You:Opp:9999")  # a line begun and never finished
    await w.drain()
    assert await asyncio.wait_for(r.read(), 10) == b""  # closed
    r2, w2 = await connect(port)
    assert await ask(r2, w2, b"help\n") == ["\tNo help information available"]
    srv.close()


async def test_unix_socket(tmp_path: pathlib.Path) -> None:
    path = str(tmp_path / "gnubg.sock")
    ext = ExternalServer(ENGINE, settings_at(), Pool(1))
    srv = await ext.start(path)
    r, w = await asyncio.open_unix_connection(path)
    assert await ask(r, w, OPENING_31.encode() + b"\n") == ["8/5* 6/5 "]
    srv.close()
    plain = tmp_path / "notes.txt"
    plain.write_text("keep me")
    with pytest.raises(FileExistsError):
        await ext.start(str(plain))
    assert plain.read_text() == "keep me"


def test_evaluation_ignores_the_dice() -> None:
    with_dice = protocol.parse("evaluation fibsboard " + OPENING_31 + " cubeful")
    assert isinstance(with_dice, protocol.EvalRequest)
    odd = protocol.parse("evaluation fibsboard " + OPENING_31.replace(":1:3:1:0:0:1:1:1:", ":1:9:9:0:0:1:1:1:"))
    assert isinstance(odd, protocol.EvalRequest)
    a = decide.answer_evaluation(ENGINE, with_dice.board, with_dice.session, with_dice.options, settings_at())
    b = decide.answer_evaluation(ENGINE, odd.board, odd.session, with_dice.options, settings_at())
    assert a == b and len(a.split()) == 6


def test_score_order_switch() -> None:
    request = protocol.parse(SCORE_ORDER)
    assert isinstance(request, protocol.BoardRequest)
    swapped = SCORE_ORDER.replace("board:You:Opp:5:3:4:", "board:You:Opp:5:4:3:")
    request2 = protocol.parse(swapped)
    assert isinstance(request2, protocol.BoardRequest)
    gnubg, fibs = settings_at(), settings_at(score_order="fibs")
    assert decide.answer_board(ENGINE, request.board, request.session, gnubg) == "roll"
    assert decide.answer_board(ENGINE, request2.board, request2.session, gnubg) == "double"
    assert decide.answer_board(ENGINE, request.board, request.session, fibs) == "double"
    assert decide.answer_board(ENGINE, request2.board, request2.session, fibs) == "roll"


def test_level_from_a_bot_config(tmp_path: pathlib.Path) -> None:
    import argparse
    parser = argparse.ArgumentParser()
    cli.add_arguments(parser)
    good = tmp_path / "bot.yaml"
    good.write_text("engine:\n  level: world class\n")
    args = parser.parse_args(["--external", "127.0.0.1:8642", "--config", str(good)])
    cli.apply_config(args)
    assert args.level == "world class"
    args = parser.parse_args(["--external", "127.0.0.1:8642", "--config", str(good), "--level", "beginner"])
    cli.apply_config(args)
    assert args.level == "beginner"  # the command line wins
    bad = tmp_path / "bad.yaml"
    bad.write_text("engine:\n  level: godlike\n")
    assert cli.run(parser.parse_args(["--external", "127.0.0.1:8642", "--config", str(bad)])) == 2


def test_binds_beyond_loopback_need_consent() -> None:
    import argparse
    parser = argparse.ArgumentParser()
    cli.add_arguments(parser)
    assert cli.check_binds(parser.parse_args(["--external", "127.0.0.1:8642"])) is None
    assert cli.check_binds(parser.parse_args(["--external", "/tmp/x.sock"])) is None
    assert "allow-remote" in str(cli.check_binds(parser.parse_args(["--external", "0.0.0.0:8642"])))
    assert cli.check_binds(parser.parse_args(["--external", "0.0.0.0:8642", "--allow-remote"])) is None
    assert "token" in str(cli.check_binds(parser.parse_args(["--http", "0.0.0.0:8080", "--token", ""])))
    assert cli.check_binds(parser.parse_args(["--http", "0.0.0.0:8080", "--token", "s3cret"])) is None
    assert cli.check_binds(parser.parse_args([])) is not None
    assert "scheduler" in str(cli.check_binds(parser.parse_args(["--http", "127.0.0.1:8080", "--executor", "dask"])))


def _mutations() -> st.SearchStrategy[str]:
    tokens = OPENING_31.split(":")

    @st.composite
    def mutate(draw: st.DrawFn) -> str:
        t = list(tokens)
        for _ in range(draw(st.integers(0, 6))):
            i = draw(st.integers(0, len(t) - 1))
            t[i] = draw(st.one_of(st.integers(-40000, 40000).map(str), st.text(max_size=4),
                                  st.sampled_from(["", "-", "+1", "9999", "0", "x"])))
        cut = draw(st.integers(1, len(t)))
        options = draw(st.sampled_from(["", " jacobyrule off", " resignation 2", " resignation 9",
                                        " crawfordrule off", " beavers", " plies 1"]))
        prefix = draw(st.sampled_from(["", "evaluation fibsboard ", "evaluation "]))
        return prefix + ":".join(t[:cut]) + options
    return mutate()


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.one_of(st.text(max_size=300), _mutations()))
def test_fuzzed_requests_never_break_the_parser_or_the_answer(line: str) -> None:
    request = protocol.parse(line)
    assert isinstance(request, protocol.BoardRequest | protocol.EvalRequest | protocol.Simple
                      | protocol.SetRequest | protocol.Failure)
    if isinstance(request, protocol.Failure):
        assert request.text
    elif isinstance(request, protocol.BoardRequest):
        reply = decide.answer_board(ENGINE, request.board, request.session, settings_at())
        assert reply in ("double", "roll", "take", "drop", "beaver", "accept", "reject", "",
                         "Error: badly formed board") or "/" in reply
    elif isinstance(request, protocol.EvalRequest):
        reply = decide.answer_evaluation(ENGINE, request.board, request.session, request.options, settings_at())
        assert reply == "Error: badly formed board" or len(reply.split()) == 6


def _start_serve(*extra: str) -> tuple[subprocess.Popen[bytes], int]:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
    proc = subprocess.Popen([sys.executable, "-m", "bot.cli", "serve", "--external", f"127.0.0.1:{port}", *extra],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    deadline = time.monotonic() + 60
    while True:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=30).close()
            return proc, port
        except OSError:
            assert time.monotonic() < deadline and proc.poll() is None
            time.sleep(0.1)


def _rss_mb(pid: int) -> float:
    for line in pathlib.Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    raise AssertionError("no VmRSS")


def test_fibsbot_serve_command() -> None:
    from bot.cli import main

    assert main(["serve"]) == 2
    assert main(["serve", "--external", "0.0.0.0:8642"]) == 2  # beyond loopback without --allow-remote
    assert main(["serve", "--external", "127.0.0.1:8642", "--level", "godlike"]) == 2
    proc, port = _start_serve("--score-order", "fibs")
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=30) as conn:
            reader = conn.makefile("rb")
            conn.sendall(SCORE_ORDER.encode() + b"\n")
            assert reader.readline() == b"double\n"  # the FIBS reading of the scores
    finally:
        proc.terminate()
        _, err = proc.communicate(timeout=30)
    assert b"Traceback" not in err, err


def test_abuse_leaves_the_service_up_with_bounded_memory() -> None:
    """Hundreds of connections sending endless lines, 1 MB lines and random bytes, some
    vanishing mid-request: the process answers afterwards, grew by less than 64 MB, and
    logged no traceback."""
    proc, port = _start_serve()
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=30) as conn:
            conn.sendall(OPENING_31.encode() + b"\n")
            assert conn.makefile("rb").readline() == b"8/5* 6/5 \n"
        before = _rss_mb(proc.pid)
        rng = random.Random(5)
        socks = [socket.create_connection(("127.0.0.1", port), timeout=30) for _ in range(300)]
        for k, s in enumerate(socks):
            s.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, 1 << 16)
            kind = k % 4
            try:
                if kind == 0:
                    s.sendall(b"x" * (1 << 16))  # a line that never ends
                elif kind == 1:
                    s.sendall(b"board:" + b"1:" * (1 << 19) + b"\n")  # 1 MB line
                elif kind == 2:
                    s.sendall(bytes(rng.randrange(256) for _ in range(4096)))
                else:
                    s.sendall((OPENING_31 + "\n").encode() * 50)  # pipelined, replies never read
            except OSError:
                pass  # the server may cut a connection it has had enough of
        for s in socks[::2]:
            s.close()  # half leave at once
        time.sleep(1.0)
        with socket.create_connection(("127.0.0.1", port), timeout=30) as conn:
            conn.sendall(b"version\n")
            assert conn.makefile("rb").readline() == b"Interface: 2\n"
        grown = _rss_mb(proc.pid) - before
        for s in socks[1::2]:
            s.close()
        assert grown < 64, f"the server grew by {grown:.0f} MB"
    finally:
        proc.terminate()
        _, err = proc.communicate(timeout=30)
    assert b"Traceback" not in err, err


async def test_a_client_that_leaves_cancels_its_queued_request() -> None:
    release = threading.Event()
    calls: list[str] = []
    ext = ExternalServer(ENGINE, settings_at(), Pool(1, queue=5), inline=False)
    real = ext.compute

    def held(request: protocol.BoardRequest | protocol.EvalRequest) -> str:
        calls.append("call")
        release.wait(30)
        return real(request)
    ext.compute = held  # type: ignore[method-assign]  # engine calls wait for the test's signal
    srv = await ext.start("127.0.0.1:0")
    port = srv.sockets[0].getsockname()[1]  # type: ignore[attr-defined]
    (ra, wa), (_rb, wb) = await connect(port), await connect(port)
    wa.write(OPENING_31.encode() + b"\n")
    await wa.drain()
    while ext.pool.pending < 1:
        await asyncio.sleep(0.01)
    wb.write(OPENING_31.encode() + b"\n")  # queued behind A
    await wb.drain()
    while ext.pool.pending < 2:
        await asyncio.sleep(0.01)
    wb.close()  # B leaves while its request waits
    deadline = asyncio.get_running_loop().time() + 10
    while ext.pool.pending > 1:
        assert asyncio.get_running_loop().time() < deadline
        await asyncio.sleep(0.01)
    release.set()
    assert await asyncio.wait_for(ra.readline(), 30) == b"8/5* 6/5 \n"
    await asyncio.sleep(0.2)
    assert calls == ["call"]  # B's request never reached the engine
    srv.close()


async def test_a_request_over_its_time_limit_is_answered_with_an_error() -> None:
    release = threading.Event()
    ext = ExternalServer(ENGINE, settings_at(), Pool(1, timeout_s=0.3), inline=False)
    real = ext.compute

    def slow(request: protocol.BoardRequest | protocol.EvalRequest) -> str:
        release.wait(30)
        return real(request)
    ext.compute = slow  # type: ignore[method-assign]  # the engine call outlasts the limit
    srv = await ext.start("127.0.0.1:0")
    port = srv.sockets[0].getsockname()[1]  # type: ignore[attr-defined]
    r, w = await connect(port)
    assert await ask(r, w, OPENING_31.encode() + b"\n") == ["Error: evaluation timed out"]
    release.set()
    assert await ask(r, w, OPENING_31.encode() + b"\n") == ["8/5* 6/5 "]
    srv.close()


def test_each_play_is_written_as_steps_that_reach_its_board() -> None:
    """The text of every legal play replays, hits included, to that play's board: a
    play that passes a blot differs from one that hits it on the way."""
    line = ("board:You:Opp:9999:0:0:-1:0:1:-1:2:1:3:2:2:0:0:0:-5:0:0:0:0:-2:0:-4:-2:0:1:2:1:0:-1:3:2:"
            "0:0:1:1:1:0:-1:1:25:0:0:0:0:0:1:0:0:0")
    request = protocol.parse(line)
    assert isinstance(request, protocol.BoardRequest)
    s = decide.situation(request.board, request.session, decide.ServerSettings(level=level("expert")))
    assert s.dice is not None
    plays = s.position.legal_plays(*s.dice)
    rows = {(tuple(after.board[0]), tuple(after.board[1])) for _, after in plays}
    assert len({mover for _, mover in rows}) < len(rows)  # two plays end with the same own chequers
    for move, after in plays:
        text = decide.format_move(s.position, move, s.dice)
        mover, opp = list(s.position.board[1]), list(s.position.board[0])
        for pair in text.split():
            src, dst = (int(v) for v in pair.rstrip("*").split("/"))
            stepped = decide._step(mover, opp, src, src - dst if dst else min(
                d for d in s.dice if src - d <= 0))
            assert stepped is not None, text
            mover, opp = stepped
        assert [list(opp), list(mover)] == [list(after.board[0]), list(after.board[1])], text
