"""The status endpoint over real HTTP during a local match, and `fibsbot status`."""

from __future__ import annotations

import asyncio
import pathlib
import socket
import threading
import urllib.request

from prometheus_client.parser import text_string_to_metric_families

from bot import status
from bot.cli import main
from bot.player import Stats
from bot.run import local_players, play_local

from botkit import FakeDecider, config


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def get(url: str) -> str:
    with urllib.request.urlopen(url, timeout=5) as response:
        text: str = response.read().decode()
        return text


class Stepped(FakeDecider):
    """Our moves wait for the test: it reads the status before each one, so no state is missed."""

    def __init__(self) -> None:
        super().__init__()
        self.waiting = threading.Semaphore(0)
        self.go = threading.Semaphore(0)

    def best_move(self, *args: object, **kwargs: object) -> object:
        self.waiting.release()
        if not self.go.acquire(timeout=60):
            raise TimeoutError("the test stopped stepping")
        return super().best_move(*args, **kwargs)


async def test_status_and_metrics_during_a_local_match(tmp_path: pathlib.Path) -> None:
    port = free_port()
    cfg = config(tmp_path, local={"timeout_s": 120.0, "length": 3}, status={"port": port})
    stepped = Stepped()
    timer = status.TimedDecider(stepped)
    player, sparring = local_players(cfg, timer, FakeDecider())
    match = asyncio.create_task(play_local(player, sparring, seed=3, timer=timer))
    base = f"http://127.0.0.1:{port}"
    snapshots, metrics = [], []
    while not match.done():
        if not await asyncio.to_thread(stepped.waiting.acquire, timeout=0.1):
            continue  # no move of ours pending yet
        snapshots.append(await asyncio.to_thread(status.fetch, base))
        metrics.append(await asyncio.to_thread(get, base + "/metrics"))
        stepped.go.release()
    await match
    assert snapshots, "the endpoint never answered"
    in_match = [s for s in snapshots if s["match"] and "score" in s["match"]]
    assert in_match and {s["match"]["opponent"] for s in in_match} == {"sparring"}
    assert len({tuple(s["match"]["score"]) for s in in_match}) >= 2  # the score moved
    last = snapshots[-1]
    assert last["user"] == "GnuBot" and last["level"] == cfg.engine.level and last["rating"] is not None
    assert last["seconds_since_last_byte"] is not None and last["uptime_s"] > 0
    assert last["decisions"] > 0 and last["decision_latencies_s"]
    text = "\n".join(f"{k}: {v}" for k, v in last.items())
    assert "password" not in text.lower()
    families = {f.name: f for f in text_string_to_metric_families(metrics[-1])}
    assert families["fibsbot_connected"].samples[0].value in (0.0, 1.0)
    assert 0 < families["fibsbot_moves_sent"].samples[0].value <= last["moves_sent"]
    assert "fibsbot_decisions" in families and "fibsbot_last_decision_seconds" in families


async def test_unknown_paths_and_methods(tmp_path: pathlib.Path) -> None:
    board = status.StatusBoard(_Offline(), _Idle(), status.Meter(), status.TimedDecider(FakeDecider()))
    assert status.answer(board, "GET /nothing HTTP/1.1").startswith(b"HTTP/1.1 404")
    assert status.answer(board, "POST /status HTTP/1.1").startswith(b"HTTP/1.1 405")
    assert status.answer(board, "garbage").startswith(b"HTTP/1.1 400")
    ok = status.answer(board, "GET /status?x=1 HTTP/1.0")
    assert ok.startswith(b"HTTP/1.1 200") and b'"connected": false' in ok


def test_status_command_prints_a_table(tmp_path: pathlib.Path, capsys) -> None:
    async def serve_once() -> int:
        board = status.StatusBoard(_Offline(), _Idle(), status.Meter(), status.TimedDecider(FakeDecider()))
        server = await status.serve(board, "127.0.0.1", 0)
        port = server.sockets[0].getsockname()[1]
        code = await asyncio.to_thread(main, ["status", f"http://127.0.0.1:{port}"])
        server.close()
        return code

    assert asyncio.run(serve_once()) == 0
    out = capsys.readouterr().out
    assert "connected" in out and "matches_today" in out
    assert main(["status", f"http://127.0.0.1:{free_port()}"]) == 2  # nobody there: a clear error


class _Offline:
    logged_in = False
    connections = 0


class _Idle:
    """A player before login."""

    def __init__(self) -> None:
        self.name, self.level, self.rating = "", "expert", None
        self.ready, self.paused, self.draining = None, False, False
        self.match = self.board = None
        self.who: dict[str, object] = {}
        self.results: list[object] = []
        self.stats = Stats()
