"""``python -m bot.server.stress``: the local server against slow clients and a socket flood.

Measures the bar ``reliability-server-slow-clients`` on a ``fibsbot server``
started for the purpose (a child process, default limits but the idle and
login timeouts, which are ``--timeout``):

1. Slow clients: idle and one-byte-a-second clients, before and after
   login, must each be cut within twice the timeout; meanwhile a fresh
   login is timed every 0.2 s and must finish within a second.
2. Floods of 2,000 sockets that reconnect as soon as they are refused,
   from one address and from forty, must be capped (per address, in all);
   during the first, logins from another address must still finish within
   a second (during the second the total cap is full, and a full cap
   refuses everyone: that is what it is for).

Logins are timed from a separate process, so the flood's own client work
does not slow the clock.

Prints one line per measurement and ``PASS``/``FAIL``; the exit code is 0
only if every part holds.
"""

from __future__ import annotations

import argparse
import asyncio
import multiprocessing
import re
import resource
import statistics
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from multiprocessing.connection import Connection as ConnectionType
from multiprocessing.synchronize import Event as EventType
from pathlib import Path

READ_LIMIT_S = 120.0  # a client still open after this is reported as never cut
PASSWORD = "stress"


def _name(prefix: str, i: int) -> str:
    """Account names are letters only."""
    return prefix + "".join(chr(97 + int(d)) for d in str(i))


@dataclass
class Cut:
    kind: str
    after_s: float | None
    """Seconds from the client's last complete line (or connect) to the server's close; None: not cut."""


async def _read_until(reader: asyncio.StreamReader, marker: bytes, timeout: float) -> bytes:
    data = b""
    while marker not in data:
        chunk = await asyncio.wait_for(reader.read(4096), timeout)
        if not chunk:
            raise EOFError(data[-200:])
        data += chunk
    return data


async def _until_closed(reader: asyncio.StreamReader, started: float) -> float | None:
    try:
        while await asyncio.wait_for(reader.read(4096), READ_LIMIT_S):
            pass
    except TimeoutError:
        return None
    except ConnectionError:
        pass  # closed while our bytes were on the way: the kernel answers them with a reset
    return time.monotonic() - started


async def _login(port: int, name: str, source: str = "127.0.0.1"
                 ) -> tuple[asyncio.StreamReader, asyncio.StreamWriter, float]:
    """A CLIP login up to the end of the who list; when the login line was sent."""
    reader, writer = await asyncio.open_connection("127.0.0.1", port, local_addr=(source, 0))
    await _read_until(reader, b"login: ", 30)
    sent = time.monotonic()
    writer.write(f"login stress 1008 {name} {PASSWORD}\r\n".encode())
    await _read_until(reader, b"\n6\r\n", 30)
    return reader, writer, sent


async def _slow_client(kind: str, reader: asyncio.StreamReader, writer: asyncio.StreamWriter,
                       started: float) -> Cut:
    """Idle, or one byte a second without a line end, until the server closes; ``started``: the last line."""
    trickle = kind.startswith("1-byte/s")

    async def drip() -> None:
        for byte in b"rawwho" * 1000:
            writer.write(bytes([byte]))
            await asyncio.sleep(1.0)

    dripping = asyncio.create_task(drip()) if trickle else None
    try:
        return Cut(kind, await _until_closed(reader, started))
    finally:
        if dripping:
            dripping.cancel()
        writer.close()


def _time_logins(port: int, prefix: str, ready: EventType, stop: EventType, out: ConnectionType) -> None:
    """In a process of its own (the flood must not slow the clock's own loop): a login every 0.2 s."""

    async def run() -> list[float]:
        times: list[float] = []
        while not stop.is_set():
            start = time.monotonic()
            try:
                _, writer, _ = await _login(port, _name(prefix, len(times)))
                writer.write(b"bye\r\n")
                writer.close()
                times.append(time.monotonic() - start)
            except (OSError, EOFError, TimeoutError):
                times.append(float("inf"))
            ready.set()
            await asyncio.sleep(0.2)
        return times

    out.send(asyncio.run(run()))


async def _while_timing_logins(port: int, prefix: str, work: Callable[[], Awaitable[None]]) -> list[float]:
    """Run ``work`` while another process times logins; their times."""
    context = multiprocessing.get_context("spawn")
    ready, stop = context.Event(), context.Event()
    receiver, sender = context.Pipe(duplex=False)
    timer = context.Process(target=_time_logins, args=(port, prefix, ready, stop, sender), daemon=True)
    timer.start()
    try:
        await asyncio.to_thread(ready.wait, 60)  # the first login done: the clock runs
        await work()
    finally:
        stop.set()
    times: list[float] = await asyncio.to_thread(receiver.recv)
    await asyncio.to_thread(timer.join)
    return times


async def _flood_slot(port: int, source: str, until: float, counts: Counter[str],
                      held: list[asyncio.StreamWriter]) -> None:
    """One attacker's socket, reconnecting as soon as it is refused, until ``until``; admitted ones stay open."""
    while time.monotonic() < until:
        try:
            reader, writer = await asyncio.open_connection("127.0.0.1", port, local_addr=(source, 0))
        except OSError:
            counts["not connected"] += 1
            await asyncio.sleep(0.1)
            continue
        try:
            await _read_until(reader, b"login: ", 60)
        except (EOFError, ConnectionError, TimeoutError) as exc:
            writer.close()
            counts["refused" if isinstance(exc, EOFError) and b"too many" in exc.args[0] else "closed"] += 1
            continue
        counts["admitted"] += 1
        held.append(writer)
        return


def _seconds(values: Sequence[float]) -> str:
    if not values:
        return "none"
    return f"slowest {max(values):.2f} s, median {statistics.median(values):.2f} s"


class Report:
    def __init__(self) -> None:
        self.passed = True

    def line(self, ok: bool, text: str) -> None:
        self.passed = self.passed and ok
        print(f"  {'ok  ' if ok else 'FAIL'} {text}", flush=True)


async def _connect(port: int, source: str) -> tuple[asyncio.StreamReader, asyncio.StreamWriter, float]:
    reader, writer = await asyncio.open_connection("127.0.0.1", port, local_addr=(source, 0))
    return reader, writer, time.monotonic()  # the connection starts the clock


async def _slow_clients(port: int, timeout_s: float, count: int, report: Report) -> None:
    kinds = ["idle before login", "1-byte/s before login", "idle after login", "1-byte/s after login"]
    sources = [f"127.0.1.{1 + i % 50}" for i in range(2 * count)]
    # logged in first (a burst of logins is not what is measured); their clock runs from the login
    # line, a little before the server's (from the login's end), so the times reported are upper bounds
    logged_in = await asyncio.gather(*(_login(port, _name("slow", i), sources[i]) for i in range(2 * count)))
    cuts: list[Cut] = []

    async def run() -> None:
        fresh = await asyncio.gather(*(_connect(port, sources[i]) for i in range(2 * count)))
        clients = [(kinds[i % 2], *fresh[i]) for i in range(2 * count)]
        clients += [(kinds[2 + i % 2], *client) for i, client in enumerate(logged_in)]
        cuts.extend(await asyncio.gather(*(_slow_client(*client) for client in clients)))

    logins = await _while_timing_logins(port, "probe", run)
    for kind in kinds:
        times = [c.after_s for c in cuts if c.kind == kind]
        within = [t for t in times if t is not None and t <= 2 * timeout_s]
        report.line(len(within) == len(times),
                    f"{kind}: {len(within)}/{len(times)} cut within {2 * timeout_s:g} s "
                    f"({_seconds([t if t is not None else float('inf') for t in times])})")
    report.line(max(logins, default=0) < 1.0, f"{len(logins)} logins meanwhile: {_seconds(logins)}")


async def _flood(port: int, sockets: int, sources: list[str], cap: int, seconds: float, report: Report, *,
                 timed: bool) -> None:
    """``sockets`` attackers reconnecting for ``seconds``: at most ``cap`` admitted (and, if ``timed``,
    logins from elsewhere go on meanwhile)."""
    counts: Counter[str] = Counter()
    held: list[asyncio.StreamWriter] = []

    async def run() -> None:
        until = time.monotonic() + seconds
        await asyncio.gather(*(_flood_slot(port, sources[i % len(sources)], until, counts, held)
                               for i in range(sockets)))

    logins: list[float] = []
    if timed:
        logins = await _while_timing_logins(port, "flood", run)
    else:
        await run()
    where = "one address" if len(sources) == 1 else f"{len(sources)} addresses"
    report.line(counts["admitted"] <= cap and counts["closed"] == 0,
                f"flood of {sockets} sockets from {where}, reconnecting for {seconds:g} s: {counts['admitted']} "
                f"admitted (cap {cap}), {counts['refused']} refused, {counts['closed']} closed unanswered, "
                f"{counts['not connected']} connects failed")
    if timed:
        report.line(max(logins, default=0) < 1.0, f"{len(logins)} logins from another address meanwhile: "
                                                   f"{_seconds(logins)}")
    for writer in held:
        writer.close()
    await asyncio.sleep(1.0)  # let the server see the closes before the next part


async def _main(args: argparse.Namespace) -> bool:
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))  # the flood needs file descriptors
    with tempfile.TemporaryDirectory(prefix="fibsbot-stress-") as folder:
        server = await asyncio.create_subprocess_exec(
            sys.executable, "-m", "bot.server", "--port", "0", "--db", str(Path(folder) / "stress.db"),
            "--auto-register", "--idle-timeout", str(args.timeout), "--login-timeout", str(args.timeout),
            "--max-connections", str(args.max_connections),
            "--max-connections-per-address", str(args.max_per_address), "--log-level", "WARNING",
            stdout=asyncio.subprocess.PIPE)
        try:
            assert server.stdout is not None
            banner = (await asyncio.wait_for(server.stdout.readline(), 60)).decode()
            found = re.search(r":(\d+)$", banner.strip())
            if not found:
                raise RuntimeError(f"the server did not start: {banner!r}")
            port = int(found[1])
            report = Report()
            print(f"reliability-server-slow-clients: fibsbot server with --timeout {args.timeout:g} s "
                  f"(cut within {2 * args.timeout:g} s), caps {args.max_connections} in all, "
                  f"{args.max_per_address} per address; file descriptors {hard} (were {soft})", flush=True)
            await _slow_clients(port, args.timeout, args.clients, report)
            await _flood(port, args.flood, ["127.0.2.1"], args.max_per_address, args.flood_seconds, report,
                         timed=True)
            sources = [f"127.0.3.{i}" for i in range(1, 41)]  # a full total cap refuses everyone: not timed
            await _flood(port, args.flood, sources, args.max_connections, args.flood_seconds, report, timed=False)
            print("PASS" if report.passed else "FAIL", flush=True)
            return report.passed
        finally:
            server.terminate()
            await server.wait()


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bot.server.stress", description=__doc__.split("\n\n")[0])
    parser.add_argument("--timeout", type=float, default=10.0, help="the server's idle and login timeout (s)")
    parser.add_argument("--clients", type=int, default=15, help="slow clients of each of the four kinds")
    parser.add_argument("--flood", type=int, default=2000, help="sockets in each flood")
    parser.add_argument("--flood-seconds", type=float, default=5.0, help="how long each flood goes on")
    parser.add_argument("--max-connections", type=int, default=1000, help="the server's cap in all")
    parser.add_argument("--max-per-address", type=int, default=100, help="the server's cap per address")
    return 0 if asyncio.run(_main(parser.parse_args(argv))) else 1


if __name__ == "__main__":
    sys.exit(main())
