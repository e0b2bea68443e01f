"""The dashboard's routes over HTTP (Starlette's test client): the page from a snapshot,
the live endpoint, bad snapshots, report links; nothing but the named fields shown."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from fastapi import FastAPI
from starlette.testclient import TestClient

from bot.report.dashboard import routes
from bot.report.readback import read_svg
from engine import MatchState, Position


def snapshot(**board: Any) -> dict[str, Any]:
    return {
        "user": "fibsbot", "connected": True, "uptime_s": 12.5, "seconds_since_last_byte": 0.4,
        "connections": 3, "reconnects": 2, "level": "world class", "rating": 1712.34, "experience": 800,
        "ready": True, "paused": False, "draining": False,
        "match": {"opponent": "<b>eve</b>", "length": 5, "level": "world class", "score": [1, 2], "cube": 2,
                  "opponent_rating": 1650.5},
        "matches_today": 4, "matches": 9, "games": 30, "moves_sent": 500, "refused_moves": 0, "engine_errors": 0,
        "deadline_misses": 1, "decisions": 600,
        "decision_latencies_s": [{"kind": "move", "seconds": 0.0123}, {"kind": "cube", "seconds": 0.0042}],
        "password": "hunter2", "last_tell": "secret plans",
        "board": board or None,
    }


def client(snap: Any, history: Any = None, reports: Path | None = None) -> TestClient:
    app = FastAPI()
    app.router.routes.extend(routes(snap, history, reports))
    return TestClient(app)


def test_page_shows_the_board_and_the_named_fields_only() -> None:
    match = MatchState(length=5, score=(1, 2), cube=2, cube_owner=1, on_roll=1, turn=1, dice=(6, 3))
    snap = snapshot(position_id="4HPwATDgc/ABMA", match_id=match.match_id(), dice=[6, 3], names=["fibsbot", "eve"],
                    on_roll=1)
    page = client(lambda: snap).get("/")
    assert page.status_code == 200 and page.headers["content-type"].startswith("text/html")
    html = page.text
    start = html.index("<svg")
    drawn = read_svg(html[start:html.index("</svg>", start) + 6])
    assert drawn.position == Position.initial() and drawn.match_id == match.match_id() and drawn.dice == (6, 3)
    assert drawn.names == ("fibsbot", "eve") and drawn.cube == 2 and drawn.cube_owner == 1
    for shown in ("&lt;b&gt;eve&lt;/b&gt;", "1650.50", "1712.34", "world class", "0.012", "reconnects",
                  "connected", "1-2"):
        assert shown in html, shown
    assert "hunter2" not in html and "secret plans" not in html and "<b>eve</b>" not in html
    assert '<noscript><meta http-equiv="refresh"' in html


def test_live_answers_204_until_the_board_changes() -> None:
    state = {"snap": snapshot(position_id="4HPwATDgc/ABMA", match_id="cAkAAAAAAAAA")}
    http = client(lambda: state["snap"])
    first = http.get("/live").json()
    assert read_svg(first["board"]).position_id == "4HPwATDgc/ABMA"
    assert http.get("/live", params={"since": first["key"]}).status_code == 204
    state["snap"] = snapshot(position_id="0HPkATDgc/ABMA", match_id="cAkAAAAAAAAA")
    second = http.get("/live", params={"since": first["key"]}).json()
    assert second["key"] != first["key"] and read_svg(second["board"]).position_id == "0HPkATDgc/ABMA"


async def _async_snapshot() -> dict[str, Any]:
    return snapshot(position_id="4HPwATDgc/ABMA")


def test_bad_snapshots_never_break_the_page() -> None:
    def broken() -> dict[str, Any]:
        raise RuntimeError("player gone")

    for snap in (broken, lambda: None, lambda: {"board": {"position_id": "nonsense"}},
                 lambda: {"board": {"position_id": "4HPwATDgc/ABMA", "match_id": "!!", "dice": "x"}},
                 lambda: {"board": {"position_id": "4HPwATDgc/ABMA", "dice": [9, 9], "names": 3}},
                 lambda: {"match": "text", "decision_latencies_s": "x"}):
        http = client(snap)
        assert http.get("/").status_code == 200 and http.get("/live").status_code == 200
    assert "cannot be drawn" in client(lambda: {"board": {"position_id": "nonsense"}}).get("/").text
    assert 'data-position-id="4HPwATDgc/ABMA"' in client(_async_snapshot).get("/").text


def test_history_links_reports_and_draws_charts(tmp_path: Path) -> None:
    (tmp_path / "m1.html").write_text("<!DOCTYPE html><title>m1</title><p>report one</p>")
    (tmp_path / "secret.txt").write_text("no")
    entries = [{"finished": "2026-11-27 12:00", "opponent": "eve", "length": 5, "score": [5, 3],
                "rating_after": 1720.0, "error_rate_memg": -4.2, "report": "reports/m1.html"},
               {"finished": "2026-11-27 11:00", "opponent": "mallory", "length": 3, "score": [1, 3],
                "rating_after": 1712.0, "error_rate_memg": -6.0, "report": "javascript:alert(1)"}]
    http = client(lambda: snapshot(), lambda: entries, tmp_path)
    html = http.get("/").text
    assert 'href="reports/m1.html"' in html and "javascript:" not in html
    assert 'class="chart rating-chart"' in html and 'data-points="2"' in html
    assert http.get("/reports/m1.html").text.endswith("report one</p>")
    for bad in ("/reports/secret.txt", "/reports/..%2Fsecret.txt", "/reports/nothere.html"):
        assert http.get(bad).status_code == 404
    def failing() -> list[dict[str, Any]]:
        raise OSError("database down")
    assert "unavailable" in client(lambda: snapshot(), failing).get("/").text


def test_today_panel_and_an_awaitable_history() -> None:
    today = {"available": True, "since": "2026-11-27T00:00:00", "matches": 3, "won": 2, "lost": 1, "unfinished": 0,
             "points_for": 7, "points_against": 4, "win_rate": 2 / 3, "win_rate_95": [0.2, 0.94], "rating": 1701.25}

    async def history() -> list[dict[str, Any]]:
        return [{"finished": "playing", "opponent": "eve", "length": 3, "score": "0-0"}]

    html = client(lambda: {**snapshot(), "today": today}, history).get("/").text
    panel = html[html.index('class="panel today"'):]
    panel = panel[:panel.index("</div>")]
    for shown in ('class="today-matches">3<', "2 / 1", "7-4", "66.7% (95%: 20.0-94.0%)", "1701.25"):
        assert shown in panel, shown
    assert html.count('class="match-row"') == 1 and "playing" in html
    down = {"available": False, "error": "Unreachable: postgresql://bot:***@db/x: connection refused"}
    http = client(lambda: {**snapshot(), "today": down})
    assert "db-down" in http.get("/").text and "connection refused" in http.get("/live").json()["live"]
    for odd in ("text", {"available": True, "win_rate": "x", "win_rate_95": [None]}, None):
        assert client(lambda odd=odd: {**snapshot(), "today": odd}).get("/").status_code == 200
    between = client(lambda: snapshot(position_id=None, match_id=None, names=["eve", "fibsbot"])).get("/").text
    assert "Between games" in between and "<svg" not in between.split('id="board"')[1].split("</div>")[0]
