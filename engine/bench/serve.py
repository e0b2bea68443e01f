"""``python -m engine.bench serve``: the engine as a service against gnubg's ``external``.

The same held-out board lines (seeded games, :func:`serve_lines.board_lines`,
a seed the tests do not use; board requests only) go at Expert and at World
class to Debian's gnubg ``external`` (one client: it serves one at a time) and
to ``fibsbot serve`` over its external socket and over HTTP (``POST
/external``) with 1, 2, 8 and 32 concurrent clients, in the same run. Each row:
decisions per second (requests answered / wall time) and the p50/p99 latency
of one request. ``fibsbot serve`` runs as a subprocess with its default
workers (the cores + 1). The clients take the lines in turn (each the next
line as soon as its previous one is answered), so every server answers the
same requests.

On a machine shared with other sessions, the kernel's autogroup scheduling
shares the cores between sessions before ``nice`` counts: a neighbour's
``nice -n 19`` job still takes its session's share. Run the bench in a session
of its own with a lower autogroup nice (``setsid sh -c 'echo -10 >
/proc/self/autogroup; exec python3 -m engine.bench serve'``) for figures of a
machine without other work, and say so.
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path

from engine.bench.serve_lines import GnubgExternal, board_lines, checkout_env, free_port

CLIENTS = (1, 2, 8, 32)
SEED = 2026


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def cpu_seconds(pid: int) -> float:
    """A process's user + system CPU time (Linux /proc; its threads included)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


class Row:
    def __init__(self, server: str, level: str, clients: int, answered: int, wall: float,
                 latencies: list[float], cpu: float) -> None:
        self.server, self.level, self.clients = server, level, clients
        self.rate = answered / wall
        self.p50 = percentile(latencies, 0.50) * 1000
        self.p99 = percentile(latencies, 0.99) * 1000
        self.cpu_ms = cpu / answered * 1000

    def text(self) -> str:
        return (f"| {self.server} | {self.level} | {self.clients} | {self.rate:.1f} | {self.p50:.1f} | "
                f"{self.p99:.1f} | {self.cpu_ms:.2f} |")


def drive(clients: int, lines: list[str], count: int, ask_factory: Callable[[], Callable[[str], str]]
          ) -> tuple[int, float, list[float]]:
    """``clients`` threads, each its own connection, asking ``count`` requests in all
    (``lines`` in order, from the start again when they run out): each client takes the
    next request as soon as its previous one is answered, so every server gets exactly
    the same requests; (answered, wall seconds, latencies)."""
    latencies: list[float] = []
    ready = threading.Barrier(clients + 1)
    queue = iter(range(count))  # next() on it is atomic under the GIL

    def client() -> None:
        ask = ask_factory()
        ready.wait()
        for i in queue:
            line = lines[i % len(lines)]
            start = time.perf_counter()
            ask(line)
            latencies.append(time.perf_counter() - start)

    threads = [threading.Thread(target=client) for _ in range(clients)]
    for t in threads:
        t.start()
    ready.wait()
    start = time.perf_counter()
    for t in threads:
        t.join()
    wall = time.perf_counter() - start
    return len(latencies), wall, latencies


def socket_asker(port: int) -> Callable[[], Callable[[str], str]]:
    def factory() -> Callable[[str], str]:
        sock = socket.create_connection(("127.0.0.1", port), timeout=300)
        reader = sock.makefile("rb")

        def ask(line: str) -> str:
            sock.sendall(line.encode() + b"\n")
            return reader.readline().decode()
        return ask
    return factory


def gnubg_asker(gnubg: GnubgExternal) -> Callable[[], Callable[[str], str]]:
    """gnubg's one external-player connection, shared by every client."""
    return lambda: gnubg.ask


def http_asker(port: int) -> Callable[[], Callable[[str], str]]:
    def factory() -> Callable[[str], str]:
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=300)

        def ask(line: str) -> str:
            conn.request("POST", "/external", json.dumps({"line": line}), {"Content-Type": "application/json"})
            response = conn.getresponse()
            body = response.read()
            if response.status != 200:
                raise RuntimeError(f"HTTP {response.status}: {body[:200]!r}")
            reply: str = json.loads(body)["reply"]
            return reply
        return ask
    return factory


def start_ours(level: str, *options: str) -> tuple[subprocess.Popen[bytes], int, int]:
    ext, web = free_port(), free_port()
    proc = subprocess.Popen([sys.executable, "-m", "bot.cli", "serve", "--external", f"127.0.0.1:{ext}",
                             "--http", f"127.0.0.1:{web}", "--level", level, "--queue", "1000", *options],
                            env=checkout_env(), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 60
    for port in (ext, web):
        while True:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                if time.monotonic() > deadline or proc.poll() is not None:
                    proc.kill()
                    raise RuntimeError("fibsbot serve did not start") from None
                time.sleep(0.1)
    return proc, ext, web


def run_serve(args: argparse.Namespace) -> None:
    lines = [line for line in board_lines(SEED, args.positions) if line.startswith("board:")]
    rows: list[Row] = []
    print(f"{len(lines)} board lines; cores: {os.cpu_count()}\n")
    print("| server | level | clients | decisions/s | p50 ms | p99 ms | server CPU ms per decision |\n"
          "|---|---|---|---|---|---|---|")
    for level, per_level in (("expert", 1.0), ("world class", 0.25)):
        n = max(16, int(len(lines) * per_level * args.scale))
        gnubg = GnubgExternal(free_port(), level)
        try:
            before = cpu_seconds(gnubg.proc.pid)
            answered, wall, lat = drive(1, lines, n, gnubg_asker(gnubg))
            cpu = cpu_seconds(gnubg.proc.pid) - before
        finally:
            gnubg.close()
        rows.append(Row("gnubg 1.07 external", level, 1, answered, wall, lat, cpu))
        print(rows[-1].text(), flush=True)
        proc, ext, web = start_ours(level)
        try:
            for door, factory in (("ours, socket", socket_asker(ext)), ("ours, HTTP", http_asker(web))):
                for clients in CLIENTS:
                    count = n if clients <= 8 else 4 * n  # 32 clients: enough requests to keep them all busy
                    before = cpu_seconds(proc.pid)
                    answered, wall, lat = drive(clients, lines, count, factory)
                    rows.append(Row(door, level, clients, answered, wall, lat, cpu_seconds(proc.pid) - before))
                    print(rows[-1].text(), flush=True)
        finally:
            proc.terminate()
            proc.wait(10)
    ours_ex8 = next(r for r in rows if r.server == "ours, socket" and r.level == "expert" and r.clients == 8)
    print(f"\nExpert p99 with 8 clients on our socket: {ours_ex8.p99:.1f} ms (bar 50 ms)")
    bar_check(lines, max(16, int(len(lines) * args.scale) // 3))


def bar_check(lines: list[str], n: int, rounds: int = 3) -> None:
    """World class: gnubg (one client) and our socket (8 clients) in alternation, ``rounds``
    times, so that a load change on a shared machine hits both; each round's ratio. Each
    round asks both servers the same ``n`` lines, lines no earlier round asked (a server's
    position cache gains nothing from an earlier round)."""
    proc, ext, _ = start_ours("world class")
    ratios, cpu_ratios = [], []
    try:
        for r in range(rounds):
            chunk = [lines[(r * n + i) % len(lines)] for i in range(n)]
            gnubg = GnubgExternal(free_port(), "world class")
            try:
                before = cpu_seconds(gnubg.proc.pid)
                answered, wall, _lat = drive(1, chunk, n, gnubg_asker(gnubg))
                their_cpu = (cpu_seconds(gnubg.proc.pid) - before) / answered
            finally:
                gnubg.close()
            theirs = answered / wall
            before = cpu_seconds(proc.pid)
            answered, wall, _lat = drive(8, chunk, n, socket_asker(ext))
            our_cpu = (cpu_seconds(proc.pid) - before) / answered
            ratios.append((answered / wall) / theirs)
            cpu_ratios.append(their_cpu / our_cpu)
    finally:
        proc.terminate()
        proc.wait(10)
    median = sorted(ratios)[len(ratios) // 2]
    print(f"World class, our socket with 8 clients / gnubg external, decisions/s, round by round: "
          f"{', '.join(f'{r:.2f}x' for r in ratios)} (median {median:.2f}x; bar 8x); "
          f"CPU per decision, gnubg / ours: {', '.join(f'{r:.2f}x' for r in cpu_ratios)}; "
          f"{n} requests a round; load average {os.getloadavg()[0]:.2f}")
