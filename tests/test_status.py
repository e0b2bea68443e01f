"""The status endpoint over real HTTP during a local match, and `fibsbot status`."""

from __future__ import annotations

import asyncio
import pathlib
import socket
import threading
import urllib.error
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
    boards = [s["board"] for s in snapshots if s["board"]]
    assert boards and all(b["player"] == "GnuBot" and b["opponent"] == "sparring" for b in boards)
    assert {b["on_roll"] for b in boards} <= {"GnuBot", "sparring"}
    assert all(len(b["position_id"]) == 14 and len(b["match_id"]) == 12 for b in boards if b["position_id"])
    text = "\n".join(f"{k}: {v}" for k, v in last.items())
    assert "password" not in text.lower()
    families = {f.name: f for f in text_string_to_metric_families(metrics[-1])}
    assert families["fibsbot_connected"].samples[0].value in (0.0, 1.0)
    assert 0 < families["fibsbot_moves_sent"].samples[0].value <= last["moves_sent"]
    assert "fibsbot_decisions" in families and "fibsbot_last_decision_seconds" in families


async def test_unknown_paths_methods_and_mounted_routes(tmp_path: pathlib.Path) -> None:
    from starlette.requests import Request
    from starlette.responses import PlainTextResponse
    from starlette.routing import Route

    async def extra(request: object) -> PlainTextResponse:
        return PlainTextResponse("dashboard")

    async def mounted(request: Request) -> PlainTextResponse:
        return PlainTextResponse(str(request.app.state.board.snapshot()["connected"]))

    status.mount([Route("/mounted", mounted)])
    board = status.StatusBoard(_Offline(), _Idle(), status.Meter(), status.TimedDecider(FakeDecider()))
    endpoint = await status.serve(board, "127.0.0.1", 0, routes=[Route("/dashboard", extra)])
    base = f"http://127.0.0.1:{endpoint.port}"

    def fetch_code(path: str, method: str = "GET") -> tuple[int, str]:
        request = urllib.request.Request(base + path, method=method)
        try:
            with urllib.request.urlopen(request, timeout=5) as response:
                return response.status, response.read().decode()
        except urllib.error.HTTPError as exc:
            return exc.code, exc.read().decode()

    try:
        assert (await asyncio.to_thread(fetch_code, "/nothing"))[0] == 404
        assert (await asyncio.to_thread(fetch_code, "/status", "POST"))[0] == 405
        code, body = await asyncio.to_thread(fetch_code, "/status?x=1")
        assert code == 200 and '"connected": false' in body and '"board": null' in body
        assert await asyncio.to_thread(fetch_code, "/dashboard") == (200, "dashboard")
        assert await asyncio.to_thread(fetch_code, "/mounted") == (200, "False")
    finally:
        endpoint.close()
        await endpoint.task


def test_status_command_prints_a_table(tmp_path: pathlib.Path, capsys) -> None:
    async def serve_once() -> int:
        board = status.StatusBoard(_Offline(), _Idle(), status.Meter(), status.TimedDecider(FakeDecider()))
        server = await status.serve(board, "127.0.0.1", 0)
        code = await asyncio.to_thread(main, ["status", f"http://127.0.0.1:{server.port}"])
        server.close()
        await server.task
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
