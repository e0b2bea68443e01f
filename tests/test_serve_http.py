"""The HTTP API end to end: a real uvicorn server on loopback, real HTTP requests.

Each endpoint's answer equals the library's for the same position; the
wildbg-compatible endpoints keep wildbg's shapes; a rollout job is streamed
(server-sent events), finishes with the CLI's ``--json`` shape, and another is
cancelled; errors are 4xx naming the field; a full queue answers 503 with
``Retry-After``; a token guards every endpoint when set.
"""

from __future__ import annotations

import json
import socket
import threading
import time
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
import uvicorn

from bot.serve import decide
from bot.serve.http import build_app
from bot.serve.pool import Pool
from engine import Engine, MatchState, Position
from engine.levels import level

ENGINE = Engine()
OPENING = "4HPwATDgc/ABMA"
MATCH_ID = "MAHgACAAGAAE"  # 7-point match, 2-3
BOARD_31 = ("board:You:Opp:9999:0:0:0:-1:0:0:0:-1:5:0:3:0:0:0:-5:5:0:0:0:-3:0:-5:0:0:0:0:2:0:1:3:1:0:0:1:1:1:0:"
            "1:-1:0:25:0:0:0:0:2:0:0:0")
OPENING_PIPS = "p24=2&p13=5&p8=3&p6=5&p1=-2&p12=-5&p17=-3&p19=-5"


class Running:
    def __init__(self, pool: Pool, token: str | None = None, **kw: Any) -> None:
        self.pool = pool
        app = build_app(ENGINE, pool, decide.ServerSettings(level=level("expert")), token=token, **kw)
        sock = socket.socket()
        sock.bind(("127.0.0.1", 0))
        self.port = sock.getsockname()[1]
        self.server = uvicorn.Server(uvicorn.Config(app, log_level="warning"))
        self.thread = threading.Thread(target=self.server.run, kwargs={"sockets": [sock]}, daemon=True)
        self.thread.start()
        while not self.server.started:
            time.sleep(0.01)
        self.base = f"http://127.0.0.1:{self.port}"

    def stop(self) -> None:
        self.server.should_exit = True
        self.thread.join(10)


@pytest.fixture(scope="module")
def api() -> Iterator[httpx.Client]:
    running = Running(Pool(2))
    with httpx.Client(base_url=running.base, timeout=60) as client:
        client.running = running  # type: ignore[attr-defined]
        yield client
    running.stop()


def test_evaluate_equals_the_library(api: httpx.Client) -> None:
    got = api.post("/evaluate", json={"position_id": OPENING, "match_id": MATCH_ID, "level": "world class"}).json()
    match = MatchState.from_match_id(MATCH_ID)
    want = ENGINE.evaluate_nply(Position.from_position_id(OPENING), match, "world class")
    assert got["probabilities"] == pytest.approx(list(want.probabilities), abs=1e-7)
    assert got["equity"] == pytest.approx(want.equity, abs=1e-7)
    assert got["cubeful_equity"] == pytest.approx(want.cubeful_equity, abs=1e-7)
    assert 0.0 < got["mwc"] < 1.0 and got["plies"] == 2


def test_hint_cube_resign_and_legal_moves_equal_the_library(api: httpx.Client) -> None:
    position = Position.from_position_id(OPENING)
    hint = api.post("/hint", json={"position_id": OPENING, "dice": [3, 1]}).json()
    want = ENGINE.best_move(position, (3, 1), None, "expert")
    assert hint["move"] == str(want.move) == "8/5 6/5"
    assert [c["move"] for c in hint["candidates"]] == [str(c.move) for c in want.candidates]
    assert hint["candidates"][0]["difference"] == 0.0 and all(c["difference"] <= 0 for c in hint["candidates"])
    cube = api.post("/cube", json={"position_id": "4HPwATDgc/ABMA", "level": "expert"}).json()
    decision = ENGINE.cube_decision(position, None, "expert")
    assert cube["action"] == decision.action
    assert cube["no_double"] == pytest.approx(decision.equities.nd, abs=1e-7)
    resign = api.post("/resign", json={"position_id": OPENING, "value": 1}).json()
    assert resign == {"accept": ENGINE.accept_resignation(position, None, "expert", 1),
                      "offer": ENGINE.resign_offer(position, None, "expert")}
    legal = api.post("/legal-moves", json={"position_id": OPENING, "dice": [3, 1]}).json()
    assert [m["move"] for m in legal["moves"]] == [str(m) for m, _ in position.legal_plays(3, 1)]


def test_level_by_settings_equals_the_named_level(api: httpx.Client) -> None:
    settings = {"plies": 2, "move_filter": "normal", "prune": True}
    by_settings = api.post("/hint", json={"position_id": "jGfBATCwm+ABMA", "dice": [6, 2], "level": settings}).json()
    by_name = api.post("/hint", json={"position_id": "jGfBATCwm+ABMA", "dice": [6, 2], "level": "world class"}).json()
    assert by_settings["candidates"] == by_name["candidates"]
    bad = api.post("/hint", json={"position_id": OPENING, "dice": [6, 2], "level": {"plies": 2, "move_filter": "x"}})
    assert bad.status_code == 422 and bad.json()["detail"]["field"] == "level"


def test_board_line_and_xgid_inputs(api: httpx.Client) -> None:
    by_board = api.post("/hint", json={"board": BOARD_31, "dice": [3, 1]}).json()
    assert by_board["move"] == "8/5* 6/5"
    xgid = "XGID=-b----E-C---eE---c-e----B-:0:0:1:31:0:0:0:0:10"
    by_xgid = api.post("/hint", json={"xgid": xgid, "dice": [3, 1]}).json()
    assert by_xgid["move"] == "8/5 6/5"


def test_errors_name_the_field(api: httpx.Client) -> None:
    cases = [({"position_id": OPENING, "level": "godlike"}, "level"),
             ({"position_id": "not-an-id"}, "position_id"),
             ({"position_id": OPENING, "match_id": "zzz"}, "match_id"),
             ({"board": "board:You:Opp:1:2:3"}, "board"),
             ({"xgid": "XGID=nonsense"}, "xgid"),
             ({}, "position_id")]
    for body, name in cases:
        r = api.post("/evaluate", json=body)
        assert r.status_code == 422 and r.json()["detail"]["field"] == name, (body, r.text)
    r = api.post("/hint", json={"position_id": OPENING})
    assert r.status_code == 422 and "dice" in r.text
    r = api.post("/hint", json={"position_id": OPENING, "dice": [0, 9]})
    assert r.status_code == 422 and r.json()["detail"][0]["loc"][-2:] == ["dice", 0]
    r = api.post("/evaluate", content=b"{" * 100_000, headers={"content-type": "application/json"})
    assert r.status_code == 413 and "body" in r.text
    r = api.post("/evaluate", content=b"\x00\xff garbage", headers={"content-type": "application/json"})
    assert r.status_code == 422


def test_wildbg_move_and_eval_shapes(api: httpx.Client) -> None:
    r = api.get(f"/move?die1=3&die2=1&{OPENING_PIPS}").json()
    best = r["moves"][0]
    assert sorted((s["from"], s["to"]) for s in best["play"]) == [(6, 5), (8, 5)]
    assert set(best["probabilities"]) == {"win", "winG", "winBg", "loseG", "loseBg"}
    assert len(r["moves"]) == len(Position.initial().legal_plays(3, 1))
    closed = "p25=1&p19=-2&p20=-2&p21=-2&p22=-2&p23=-2&p24=-2&p6=14&p1=-3"
    dance = api.get(f"/move?die1=6&die2=5&{closed}").json()
    assert len(dance["moves"]) == 1 and dance["moves"][0]["play"] == []
    bad = api.get(f"/move?die1=7&die2=1&{OPENING_PIPS}")
    assert bad.status_code == 400 and bad.json() == {"message": "Dice values must be between 1 and 6."}
    assert api.get("/move?die1=3&die2=1&p0=2").status_code == 422
    ev = api.get(f"/eval?{OPENING_PIPS}").json()
    assert set(ev) == {"cube", "probabilities"} and set(ev["cube"]) == {"double", "accept"}
    assert ev["probabilities"]["win"] == pytest.approx(ENGINE.evaluate(Position.initial()).win, abs=1e-7)
    race = "p1=5&p2=5&p3=5&p19=-5&p20=-5&p21=-5"
    money = api.get(f"/eval?{race}").json()
    dmp = api.get(f"/eval?{race}&x_away=1&o_away=1").json()
    assert money["cube"]["double"] and not dmp["cube"]["double"]  # no cube at double match point
    crawford = api.get(f"/eval?{race}&x_away=3&o_away=1&crawford=true").json()
    post = api.get(f"/eval?{race}&x_away=3&o_away=1").json()
    assert post["cube"]["double"] and not crawford["cube"]["double"]  # the Crawford game has no cube
    assert api.get(f"/eval?{race}&x_away=1").status_code == 422


def test_rollout_streamed_and_cancelled(api: httpx.Client) -> None:
    start = api.post("/rollouts", json={"position_id": OPENING, "trials": 72, "seed": 5})
    assert start.status_code == 202
    job = start.json()["id"]
    events = []
    with api.stream("GET", f"/rollouts/{job}/events") as stream:
        for line in stream.iter_lines():
            if line.startswith("event:"):
                events.append(line.split(":", 1)[1].strip())
            if line.startswith("data:") and events[-1] == "end":
                final = json.loads(line[5:])
                break
    assert events[-1] == "end" and "progress" in events
    want = ENGINE.rollout(Position.initial(), None, trials=72, seed=5, threads=1).as_json()
    got = final["result"]
    assert got["trials"] == 72 and got["candidates"][0]["equity"] == pytest.approx(
        want["candidates"][0]["equity"], abs=1e-9)
    assert api.get(f"/rollouts/{job}").json()["result"]["trials"] == 72
    long = api.post("/rollouts", json={"position_id": OPENING, "trials": 100_000}).json()["id"]
    with api.stream("GET", f"/rollouts/{long}/events") as stream:  # the client leaves mid-rollout
        for line in stream.iter_lines():
            if line.startswith("event: progress"):
                break
    assert api.delete(f"/rollouts/{long}").json()["cancelled"]
    deadline = time.monotonic() + 60
    while api.get(f"/rollouts/{long}").json()["error"] != "cancelled":
        assert time.monotonic() < deadline
        time.sleep(0.1)
    assert api.get("/rollouts/nope").status_code == 422
    assert api.post(f"/rollouts/{job}/resume").status_code == 422  # finished: nothing to resume


def test_rollout_cancelled_then_resumed_equals_one_run(api: httpx.Client) -> None:
    body = {"position_id": OPENING, "trials": 144, "seed": 11}
    job = api.post("/rollouts", json=body).json()["id"]
    with api.stream("GET", f"/rollouts/{job}/events") as stream:
        for line in stream.iter_lines():
            if line.startswith("event: progress"):
                api.delete(f"/rollouts/{job}")
                break
    deadline = time.monotonic() + 60
    while (state := api.get(f"/rollouts/{job}").json())["error"] != "cancelled":
        assert time.monotonic() < deadline and state["result"] is None
        time.sleep(0.05)
    assert 0 < state["trials"] < 144
    assert api.post(f"/rollouts/{job}/resume").status_code == 202
    while (state := api.get(f"/rollouts/{job}").json())["result"] is None:
        assert time.monotonic() < deadline and state["error"] is None
        time.sleep(0.1)
    want = ENGINE.rollout(Position.initial(), None, trials=144, seed=11, threads=1).as_json()
    got = state["result"]
    assert [c["move"] for c in got["candidates"]] == [c["move"] for c in want["candidates"]]
    for a, b in zip(got["candidates"], want["candidates"], strict=True):
        assert a["trials"] == b["trials"] == 144
        assert a["equity"] == pytest.approx(b["equity"], abs=1e-9)
        assert a["cubeful_equity"] == pytest.approx(b["cubeful_equity"], abs=1e-9)


def test_rollout_on_a_dask_cluster_equals_a_local_one() -> None:
    distributed = pytest.importorskip("distributed")
    from bot.serve.http import dask_rollouts

    with distributed.LocalCluster(n_workers=1, threads_per_worker=1, processes=False,
                                  dashboard_address=None) as cluster:
        running = Running(Pool(1), rollouts=dask_rollouts(cluster.scheduler_address))
        try:
            with httpx.Client(base_url=running.base, timeout=60) as client:
                job = client.post("/rollouts", json={"position_id": OPENING, "trials": 72, "seed": 3}).json()["id"]
                deadline = time.monotonic() + 120
                while (state := client.get(f"/rollouts/{job}").json())["result"] is None:
                    assert time.monotonic() < deadline and state["error"] is None, state
                    time.sleep(0.1)
        finally:
            running.stop()
    want = ENGINE.rollout(Position.initial(), None, trials=72, seed=3, threads=1).as_json()
    assert state["result"]["candidates"][0]["equity"] == pytest.approx(want["candidates"][0]["equity"], abs=1e-9)


def test_full_queue_answers_503_and_metrics_count(api: httpx.Client) -> None:
    pool: Pool = api.running.pool  # type: ignore[attr-defined]
    pool.pending += pool.limit  # every worker and queue place taken
    try:
        r = api.post("/evaluate", json={"position_id": OPENING})
        assert r.status_code == 503 and r.headers["retry-after"] == "1"
    finally:
        pool.pending -= pool.limit
    assert api.post("/evaluate", json={"position_id": OPENING}).status_code == 200
    text = api.get("/metrics").text
    assert 'fibsbot_serve_requests_total{door="http",endpoint="evaluate",level="expert"}' in text
    assert "fibsbot_serve_latency_seconds_bucket" in text and "fibsbot_serve_queue_depth" in text
    assert "fibsbot_serve_rollouts_running" in text


def test_docs_and_schema(api: httpx.Client) -> None:
    schema = api.get("/openapi.json").json()
    assert {"/evaluate", "/hint", "/cube", "/resign", "/legal-moves", "/move", "/eval", "/rollouts"} <= set(
        schema["paths"])
    assert api.get("/docs").status_code == 200


def test_token_guards_every_endpoint() -> None:
    running = Running(Pool(1), token="s3cret")
    try:
        with httpx.Client(base_url=running.base, timeout=30) as client:
            assert client.post("/evaluate", json={"position_id": OPENING}).status_code == 401
            assert client.get(f"/eval?{OPENING_PIPS}", headers={"Authorization": "Bearer wrong"}).status_code == 401
            ok = client.post("/evaluate", json={"position_id": OPENING},
                             headers={"Authorization": "Bearer s3cret"})
            assert ok.status_code == 200
    finally:
        running.stop()


def test_a_client_that_leaves_cancels_its_queued_request() -> None:
    pool = Pool(1, queue=4)
    running = Running(pool)
    release = threading.Event()
    blocker = pool.executor.submit(release.wait, 30)  # the only worker is busy
    try:
        with httpx.Client(base_url=running.base, timeout=0.5) as client:
            with pytest.raises(httpx.TimeoutException):
                client.post("/evaluate", json={"position_id": OPENING})
        deadline = time.monotonic() + 10
        while pool.pending:  # the request left the queue when its client went
            assert time.monotonic() < deadline
            time.sleep(0.02)
        release.set()
        blocker.result(10)
        with httpx.Client(base_url=running.base, timeout=30) as client:
            assert client.post("/evaluate", json={"position_id": OPENING}).status_code == 200
    finally:
        release.set()
        running.stop()


def test_slow_and_many_clients_leave_the_api_answering(api: httpx.Client) -> None:
    port = api.running.port  # type: ignore[attr-defined]
    idle = []
    for k in range(300):
        s = socket.create_connection(("127.0.0.1", port), timeout=10)
        s.sendall(b"POST /evaluate HTTP/1.1\r\nHost: x\r\n" if k % 2 else b"GE")  # never finished
        idle.append(s)
    try:
        start = time.monotonic()
        r = api.post("/evaluate", json={"position_id": OPENING})
        assert r.status_code == 200 and time.monotonic() - start < 10
        garbage = socket.create_connection(("127.0.0.1", port), timeout=10)
        garbage.sendall(bytes(range(256)) * 4 + b"\r\n\r\n")
        reply = garbage.recv(100)
        assert reply == b"" or reply.startswith(b"HTTP/1.1 400")
        garbage.close()
    finally:
        for s in idle:
            s.close()
    assert api.post("/evaluate", json={"position_id": OPENING}).status_code == 200
