"""Hostile clients against a real ``fibsbot serve --http ... --external ...`` process.

Raw sockets on loopback send what a careless or hostile client would: bodies that are
not UTF-8, JSON nested 10,000 deep, numbers past every range, NaN, the wrong content
type, a body shorter than declared, a request head that never ends, repeated query
parameters, 200 rollout jobs in a loop, 500 abandoned event streams; on the external
socket, boards with huge, negative or too many chequers and every option repeated or
out of range. Each gets a 4xx naming the field (or an ``Error:`` line, or a closed
connection), the process answers afterwards, grew by less than 64 MB, and logged no
traceback.
"""

from __future__ import annotations

import json
import pathlib
import socket
import subprocess
import sys
import time
from collections.abc import Iterator

import httpx
import pytest

from botkit import free_port

OPENING = "4HPwATDgc/ABMA"
OPENING_31 = ("board:You:Opp:9999:0:0:0:-1:0:0:0:-1:5:0:3:0:0:0:-5:5:0:0:0:-3:0:-5:0:0:0:0:2:0:1:3:1:0:0:1:1:1:0:"
              "1:-1:0:25:0:0:0:0:2:0:0:0")
PIPS = "p24=2&p13=5&p8=3&p6=5&p1=-2&p12=-5&p17=-3&p19=-5"
BIG = str(10**30)
BEAROFF = "3/cBAADf9wEAAA"  # each side 5 chequers on each of its three lowest points: short trials


class Served:
    def __init__(self) -> None:
        self.http, self.ext = free_port(), free_port()
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "bot.cli", "serve", "--http", f"127.0.0.1:{self.http}",
             "--external", f"127.0.0.1:{self.ext}"], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        deadline = time.monotonic() + 60
        for port in (self.http, self.ext):
            while True:
                try:
                    socket.create_connection(("127.0.0.1", port), timeout=30).close()
                    break
                except OSError:
                    assert time.monotonic() < deadline and self.proc.poll() is None
                    time.sleep(0.1)

    def rss_mb(self) -> float:
        for line in pathlib.Path(f"/proc/{self.proc.pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
        raise AssertionError("no VmRSS")

    def raw(self, data: bytes, timeout: float = 30) -> tuple[int, dict[str, object] | str]:
        """(status, JSON body or text) of one raw request; (0, "") for a closed connection."""
        with socket.create_connection(("127.0.0.1", self.http), timeout=timeout) as s:
            s.sendall(data)
            got = b""
            while chunk := s.recv(65536):
                got += chunk
        if not got:
            return 0, ""
        head, _, body = got.partition(b"\r\n\r\n")
        status = int(head.split()[1])
        try:
            return status, json.loads(body)
        except ValueError:
            return status, body.decode(errors="replace")


@pytest.fixture(scope="module")
def served() -> Iterator[Served]:
    s = Served()
    yield s
    s.proc.terminate()
    _, err = s.proc.communicate(timeout=30)
    assert b"Traceback" not in err, err.decode(errors="replace")[-3000:]


def post(path: str, body: bytes, ctype: str = "application/json", extra: str = "") -> bytes:
    return (f"POST {path} HTTP/1.1\r\nHost: x\r\nContent-Type: {ctype}\r\nContent-Length: {len(body)}\r\n"
            f"Connection: close\r\n{extra}\r\n").encode() + body


def get(target: str) -> bytes:
    return f"GET {target} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n".encode()


OP = b'"position_id": "4HPwATDgc/ABMA"'
# (request, status, the field named: project shape "f", FastAPI's loc "loc:a.b")
HOSTILE = [
    (post("/evaluate", b'{"position_id": "\xff\xfe"}'), 422, "body"),
    (post("/evaluate", b"[" * 10_000 + b"]" * 10_000), 422, "body"),
    (post("/evaluate", b"{" + OP + b', "level": ' + b'{"a":' * 5000 + b"1" + b"}" * 5000 + b"}"), 422, "body"),
    (post("/rollouts", b"{" + OP + b', "seed": ' + str(10**400).encode() + b"}"), 422, "loc:body.seed"),
    (post("/rollouts", b"{" + OP + b', "seed": ' + b"9" * 5000 + b"}"), 422, "body"),
    (post("/hint", b"{" + OP + b', "dice": [1e308, 1]}'), 422, "loc:body.dice.0"),
    (post("/hint", b"{" + OP + b', "dice": [3, 1], "level": {"think": NaN}}'), 422, "loc:body.level.ThinkIn.think"),
    (post("/hint", b"{" + OP + b', "dice": [3, 1], "level": {"think": 1e400}}'), 422, "loc:body.level.ThinkIn.think"),
    (post("/hint", b"{" + OP + b', "dice": [3, 1], "level": {"think": 1.7e308}}'), 422,
     "loc:body.level.ThinkIn.think"),
    (post("/cube", b"{" + OP + b', "level": {"think": 100000}}'), 422, "level"),  # over the time limit
    (post("/evaluate", b"{" + OP + b', "level": {"noise": NaN}}'), 422, "loc:body.level.LevelSettings.noise"),
    (post("/evaluate", b"{" + OP + b', "level": {"noise": -Infinity}}'), 422, "loc:body.level.LevelSettings.noise"),
    (post("/evaluate", b"{" + OP + b', "level": {"plys": 4}}'), 422, "loc:body.level.LevelSettings.plys"),
    (post("/evaluate", b'{"position_id": "\\ud800\\udc00\\ud800"}'), 422, "loc:body.position_id"),
    (post("/evaluate", b'{"board": "\\ud800"}'), 422, "loc:body.board"),
    (post("/evaluate", b"{" + OP + b', "level": ["\\ud800"]}'), 422, "loc:body.level.str"),
    (post("/evaluate", b"{" + OP + b"}", ctype="text/plain"), 422, "loc:body"),
    (post("/evaluate", b"\x1f\x8b\x08\x00", extra="Content-Encoding: gzip\r\n"), 422, "body"),
    (post("/evaluate", b"x" * 70_000), 413, "body"),
    (post("/external", json.dumps({"line": "evaluation fibsboard " + OPENING_31 + " plies 99"}).encode()),
     422, "line"),
    (get("/move?die1=3&die1=9&die2=1&" + PIPS), 422, "die1"),
    (get("/eval?p24=2&p24=15&p1=-2"), 422, "p24"),
    (get("/eval?p24=1_0&p1=-2"), 422, "p24"),
    (get("/eval?p24=" + "9" * 4000 + "&p1=-2"), 422, "p24"),
    (get("/eval?p24=-99999&p1=-2"), 422, "p1"),
    (get("/eval?p24=16&p1=-2"), 422, "p1"),
    (get("/eval"), 422, "p1"),  # no chequers at all: a finished game, not a position
    (get("/eval?p24=2&p1=-2&x_away=" + BIG + "&o_away=3"), 422, "x_away"),
    (get("/rollouts/" + "a" * 5000), 422, "id"),
]


def named(body: object, want: str) -> bool:
    assert isinstance(body, dict), body
    detail = body["detail"]
    if want.startswith("loc:"):
        return any(".".join(str(x) for x in item["loc"]) == want[4:] for item in detail)
    return bool(detail["field"] == want and detail["message"])


def test_hostile_requests_are_answered_with_the_field_named(served: Served) -> None:
    for request, status, field in HOSTILE:
        got, body = served.raw(request)
        assert got == status and named(body, field), (request[:120], got, body)
    # a header of 100 KB or 2 MB: answered, or the connection cut; never buffered without end
    for size in (100_000, 2_000_000):
        try:
            status = served.raw(b"GET /metrics HTTP/1.1\r\nConnection: close\r\nX-A: " + b"a" * size + b"\r\n\r\n")[0]
        except OSError:  # reset while it was still sending
            status = 0
        assert status in (0, 200, 400, 431)
    assert served.raw(get("/" + "a" * 100_000))[0] in (0, 400, 404, 414)
    assert served.raw(get(f"/eval?{PIPS}"))[0] == 200


def test_a_late_head_or_body_is_cut(served: Served) -> None:
    """A client that sends nothing, half a head, or less body than declared is not held
    forever (each would hold a connection and, by the thousand, refuse everyone else)."""
    socks = [socket.create_connection(("127.0.0.1", served.http), timeout=40) for _ in range(3)]
    socks[1].sendall(b"GET /metr")
    socks[2].sendall(b"POST /evaluate HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                     b"Content-Length: 100\r\n\r\n{\"position_id\"")
    got = []
    for s in socks:
        data = b""
        while chunk := s.recv(65536):
            data += chunk
        got.append(data)
        s.close()
    assert got[0] == got[1] == b""
    assert got[2].startswith(b"HTTP/1.1 408") and b'"field":"body"' in got[2], got[2]


EXTERNAL = {
    ":".join(OPENING_31.split(":")[:6] + [BIG] * 26 + OPENING_31.split(":")[32:]): "Error: line too long",
    OPENING_31.replace(":3:1:0:0:1:1:1:0:", f":{BIG}:1:0:0:1:1:1:0:"): "Error: badly formed board",
    ":".join(OPENING_31.split(":")[:6] + ["-20"] * 26 + OPENING_31.split(":")[32:]): "Error: badly formed board",
    OPENING_31.replace("board:You:Opp:9999:0:0:0:-1:0:0:0:-1:5:", "board:You:Opp:9999:0:0:0:-1:0:0:0:-2:5:"):
        "Error: badly formed board",  # 16 chequers
    OPENING_31.replace(":-1:5:0:3:", ":-1:-5:0:3:"): "Error: badly formed board",  # o with 20 chequers
    ":".join([""] * 53): "Error: syntax error",
    "board:" + ":" * 60: "Error: syntax error",
    OPENING_31 + "\r": "8/5* 6/5",
    OPENING_31 + "xyz": "Error: syntax error",
    OPENING_31 + ":1:2:3": "Error: Invalid board",
    f"evaluation fibsboard {OPENING_31} plies 0 plies 2": "0.5",
    f"evaluation fibsboard {OPENING_31} plies 99": "Error: badly formed board",
    f"evaluation fibsboard {OPENING_31} plies -1": "Error: badly formed board",
    f"evaluation fibsboard {OPENING_31} plies {BIG}": "Error: syntax error",
    f"evaluation fibsboard {OPENING_31} noise 1e308": "Error: syntax error",
    f"evaluation fibsboard {OPENING_31} noise -1": "Error: badly formed board",
    f"evaluation fibsboard {OPENING_31} cube on cube off cubeful cubeless prune prune": "0.5",
    f"evaluation fibsboard {OPENING_31} deterministic on deterministic off": "0.5",
    f"evaluation fibsboard {OPENING_31} plies": "Error: syntax error",
    "evaluation fibsboard": "Error: syntax error",
    f"{OPENING_31} jacobyrule 5 crawfordrule {BIG}": "Error: syntax error",
}


def test_hostile_external_lines_get_error_lines(served: Served) -> None:
    with socket.create_connection(("127.0.0.1", served.ext), timeout=60) as s:
        reader = s.makefile("rb")
        for line, want in EXTERNAL.items():
            s.sendall(line.encode() + b"\n")
            reply = reader.readline().decode()
            assert reply.startswith(want), (line, reply)
        s.sendall(b"version\n")
        assert reader.readline() == b"Interface: 2\n"


def test_floods_leave_the_service_up_with_bounded_memory(served: Served) -> None:
    """200 rollout jobs started in a loop (four run, the rest are refused with Retry-After),
    500 event streams opened on them and abandoned: memory stays bounded, the jobs cancel,
    and the service answers."""
    base = f"http://127.0.0.1:{served.http}"
    with httpx.Client(base_url=base, timeout=60) as api:
        assert api.post("/evaluate", json={"position_id": OPENING}).status_code == 200
        before = served.rss_mb()
        started, refused = [], 0
        for k in range(200):
            r = api.post("/rollouts", json={"position_id": BEAROFF, "trials": 100_000, "seed": k})
            if r.status_code == 202:
                started.append(r.json()["id"])
            else:
                assert r.status_code == 503 and r.headers["retry-after"], r.text
                refused += 1
        assert 1 <= len(started) <= 4 and refused == 200 - len(started)
        streams = []
        for k in range(500):
            s = socket.create_connection(("127.0.0.1", served.http), timeout=30)
            s.sendall(get(f"/rollouts/{started[k % len(started)]}/events"))
            streams.append(s)
        for s in streams[::50]:
            assert s.recv(12) == b"HTTP/1.1 200"
        for s in streams:
            s.close()
        for job in started:
            assert api.delete(f"/rollouts/{job}").json()["cancelled"] is True
        deadline = time.monotonic() + 60
        while any(api.get(f"/rollouts/{job}").json()["error"] != "cancelled" for job in started):
            assert time.monotonic() < deadline
            time.sleep(0.2)
        assert api.post("/evaluate", json={"position_id": OPENING}).status_code == 200
        grown = served.rss_mb() - before
    assert grown < 64, f"the server grew by {grown:.0f} MB"


def test_stopped_rollouts_keep_bounded_trials(monkeypatch: pytest.MonkeyPatch) -> None:
    """A cancelled job keeps its trials to resume from, within VALUES_KEPT bytes in all:
    past that, the oldest stopped job forgets them (and a resume starts it again)."""
    from bot.serve import decide
    from bot.serve import http as served_http
    from bot.serve.pool import Pool
    from engine import Engine
    from engine.levels import level

    from servekit import served

    app = served_http.build_app(Engine(), Pool(2), decide.ServerSettings(level=level("expert")))

    def stopped_job(api: httpx.Client) -> dict[str, object]:
        job = api.post("/rollouts", json={"position_id": BEAROFF, "trials": 100_000}).json()["id"]
        while api.get(f"/rollouts/{job}").json()["trials"] == 0:
            time.sleep(0.05)
        api.delete(f"/rollouts/{job}")
        while (state := api.get(f"/rollouts/{job}").json())["error"] != "cancelled":
            time.sleep(0.05)
        time.sleep(0.2)  # the loop trims what stopped jobs keep after each stops
        return dict(state, id=job)

    with served(app) as url, httpx.Client(base_url=url, timeout=60) as api:
        kept = stopped_job(api)
        assert api.get(f"/rollouts/{kept['id']}").json()["trials"] == kept["trials"] > 0
        monkeypatch.setattr(served_http, "VALUES_KEPT", 0)
        forgot = stopped_job(api)
        assert api.get(f"/rollouts/{forgot['id']}").json()["trials"] == 0
        assert api.get(f"/rollouts/{kept['id']}").json()["trials"] == 0  # the older one's went too
        assert api.post(f"/rollouts/{forgot['id']}/resume").json()["trials"] == 0
        api.delete(f"/rollouts/{forgot['id']}")
