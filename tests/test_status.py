"""The status endpoint over real HTTP during a local match, and `fibsbot status`."""

from __future__ import annotations

import asyncio
import pathlib
import threading
import urllib.error
import urllib.request

import pytest
from prometheus_client.parser import text_string_to_metric_families

from bot import status
from bot.cli import main
from bot.player import Stats
from bot.run import local_players, play_local
from engine import MatchState, Position

from botkit import FakeDecider, config, free_port


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
    assert boards and all(b["names"] == ["sparring", "GnuBot"] for b in boards)
    assert {b["on_roll"] for b in boards if b["position_id"]} == {1}  # each of our moves waits: we are on roll
    for b in boards:
        if b["position_id"]:  # IDs as gnubg's, the position seen by the side on roll
            drawn = MatchState.from_match_id(b["match_id"])
            assert drawn.on_roll == b["on_roll"] and sorted(drawn.dice or ()) == sorted(b["dice"]) and drawn.length == 3
            assert Position.from_position_id(b["position_id"]).pip_counts()[0] > 0
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


async def test_status_and_page_carry_todays_numbers_from_the_database(tmp_path: pathlib.Path,
                                                                     monkeypatch) -> None:
    """Two local matches written to the store as they happen: during the second, ``/status``
    and the dashboard show the first from the database, its report linked; afterwards the
    store's numbers for today agree with the bot's own results."""
    from bot import status_db
    from bot.store.live import configured_url, live_store
    from bot.store.stats import today_summary

    monkeypatch.setattr(status_db, "TODAY_TTL_S", 0.0)  # every request reads the database afresh
    monkeypatch.setattr(status_db, "HISTORY_TTL_S", 0.0)
    port = free_port()
    cfg = config(tmp_path, local={"timeout_s": 120.0, "length": 1}, status={"port": port})
    stepped = Stepped()
    timer = status.TimedDecider(stepped)
    player, sparring = local_players(cfg, timer, FakeDecider(), matches=2)
    base = f"http://127.0.0.1:{port}"
    during: list[tuple[dict[str, object], str]] = []
    report, served, metrics = None, "", ""
    with live_store(cfg):
        match = asyncio.create_task(play_local(player, sparring, seed=5, timer=timer))
        while not match.done():
            if not await asyncio.to_thread(stepped.waiting.acquire, timeout=0.1):
                continue
            if player.results and report is None:  # a report beside the first match's record
                first = player.results[0].record
                assert first is not None
                report = first.with_suffix(".html")
                report.write_text("<!doctype html><title>the first match</title>")
            if report is not None:
                during.append((await asyncio.to_thread(status.fetch, base), await asyncio.to_thread(get, base + "/")))
                served = await asyncio.to_thread(get, f"{base}/reports/{report.name}")
                metrics = await asyncio.to_thread(get, base + "/metrics")
            stepped.go.release()
        await match
    assert len(player.results) == 2 and during, "no move of ours in the second match"
    first = player.results[0]
    assert first.score is not None and first.record is not None and report is not None
    snap, page = during[-1]
    today = snap["today"]
    assert isinstance(today, dict) and today["available"] is True
    assert (today["matches"], today["won"] + today["lost"], today["unfinished"]) == (2, 1, 1)
    assert (today["won"], today["points_for"], today["points_against"]) == (int(bool(first.won)), *first.score)
    assert 'class="today-matches">2<' in page and "sparring" in page
    result = f"{'won' if first.won else 'lost'} {first.score[0]}-{first.score[1]}"
    assert page.count('class="match-row"') == 2 and result in page and "playing" in page
    assert f'href="reports/{report.name}"' in page and served == report.read_text()
    families = {f.name: f.samples[0].value for f in text_string_to_metric_families(metrics)}
    assert families["fibsbot_database_available"] == 1.0 and families["fibsbot_database_today_matches"] == 2.0
    # the status endpoint is gone with the match; the store's numbers for the day:
    after = today_summary(configured_url(cfg) or "")
    wins = sum(bool(r.won) for r in player.results)
    assert (after["matches"], after["won"], after["lost"], after["unfinished"]) == (2, wins, 2 - wins, 0)
    assert after["points_for"] == sum(r.score[0] for r in player.results if r.score)


def _bad_store(kind: str, tmp: pathlib.Path) -> str:
    if kind == "corrupt":
        (tmp / "records").mkdir()
        (tmp / "records" / "fibsbot.db").write_bytes(b"this is not a database " * 100)
        return ""  # the default: the file beside the records
    return "postgresql://bot:s3cret-word@127.0.0.1:1/fibsbot"  # nobody listens on port 1


@pytest.mark.parametrize("kind", ["corrupt", "unreachable"])
async def test_page_and_status_survive_a_database_that_cannot_be_read(tmp_path: pathlib.Path, kind: str) -> None:
    from bot import status_db

    cfg = config(tmp_path, store={"url": _bad_store(kind, tmp_path)})
    board = status.StatusBoard(_Offline(), _Idle(), status.Meter(), status.TimedDecider(FakeDecider()))
    endpoint = await status.serve(board, "127.0.0.1", 0, routes=status_db.attach(cfg, board))
    base = f"http://127.0.0.1:{endpoint.port}"
    try:
        snap = await asyncio.to_thread(status.fetch, base)
        page = await asyncio.to_thread(get, base + "/")
        live = await asyncio.to_thread(get, base + "/live")
    finally:
        await endpoint.stop()
    today = snap["today"]
    assert today["available"] is False and today["error"].split(":")[0] in ("CorruptDatabase", "Unreachable")
    assert "The match history is unavailable" in page and 'class="muted db-down"' in page
    assert "No match under way" in page and 'class="state off"' in page and "db-down" in live
    assert "s3cret" not in page + live + str(snap)


async def test_a_hung_database_does_not_hold_the_status(tmp_path: pathlib.Path, monkeypatch) -> None:
    """A read that does not come back: /status answers after a bounded wait without today's
    numbers, and shows them once the read is done."""
    from bot import status_db
    from bot.store import stats

    release = threading.Event()

    def hung(url: str) -> dict[str, object]:
        release.wait(30)
        return {"available": True, "matches": 7}

    monkeypatch.setattr(stats, "today_summary", hung)
    monkeypatch.setattr(status_db, "WAIT_S", 0.2)
    monkeypatch.setattr(status_db, "TODAY_TTL_S", 0.0)
    cfg = config(tmp_path)
    board = status.StatusBoard(_Offline(), _Idle(), status.Meter(), status.TimedDecider(FakeDecider()))
    endpoint = await status.serve(board, "127.0.0.1", 0, routes=status_db.attach(cfg, board))
    base = f"http://127.0.0.1:{endpoint.port}"
    try:
        first = await asyncio.to_thread(status.fetch, base)
        assert first["today"] is None and first["connected"] is False
        release.set()
        for _ in range(100):
            later = await asyncio.to_thread(status.fetch, base)
            if later["today"] is not None:
                break
        assert later["today"] == {"available": True, "matches": 7}
    finally:
        release.set()
        await endpoint.stop()
