"""The operator's dashboard: routes for the bot's status app (Starlette, so FastAPI too).

``GET /`` is a whole page built on the server from the status snapshot (so it
reads with scripts off; a ``<noscript>`` refresh reloads it): the live board as
a diagram, score, cube, opponent and rating, our level, the last decisions'
latencies, the connection's state and reconnects, and, given a history source,
recent matches linking to their reports with the rating and error-rate charts.
With scripts on, the page polls ``GET /live?since=KEY`` every 300 ms and swaps
in the board and the live panel when they change (204 while they do not).

Only named snapshot fields are shown, each escaped: nothing else the snapshot
may hold (and nothing from a ``tell``) reaches the page. The snapshot's
``board`` entry, while a match is on: ``{position_id, match_id, dice, names,
on_roll}``; ``match`` may carry ``opponent_rating``.

The history source returns recent matches, newest first, each a mapping with
any of ``finished``, ``opponent``, ``length``, ``score``, ``rating_after``,
``error_rate_memg`` and ``report`` (a URL; ``reports/NAME.html`` when the
reports folder is served here); it may be a coroutine function. Missing keys show
as ``-``; a history that fails leaves the rest of the page as it is. The
snapshot's ``today`` (today's numbers from the match database, as
:func:`bot.store.stats.today_summary` gives them) shows in its own panel.
"""

from __future__ import annotations

import hashlib
import inspect
import logging
import math
import re
from collections.abc import Awaitable, Callable, Mapping, Sequence
from html import escape
from pathlib import Path
from typing import Any

from starlette.requests import Request
from starlette.responses import FileResponse, HTMLResponse, JSONResponse, PlainTextResponse, Response
from starlette.routing import Route

from bot.report.charts import line_chart
from bot.report.diagram import render_svg
from bot.report.page import document
from engine.errors import BoardParseError
from engine.match import MatchState
from engine.position import Position

log = logging.getLogger(__name__)

Snapshot = Callable[[], Mapping[str, Any] | Awaitable[Mapping[str, Any]]]
History = Callable[[], Sequence[Mapping[str, Any]] | Awaitable[Sequence[Mapping[str, Any]]]]
POLL_MS = 300
_REPORT_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,200}\.html")

_CSS = """
.grid { display: grid; grid-template-columns: minmax(0, 3fr) minmax(14rem, 2fr); gap: 1rem; }
@media (max-width: 760px) { .grid { grid-template-columns: 1fr; } }
.panel { background: #fff; border: 1px solid var(--line); border-radius: 6px; padding: 0.6rem; margin-bottom: 0.8rem; }
.panel h2 { margin-top: 0; } .panel table { width: 100%; }
.state.on { color: #1a7f37; } .state.off { color: #c0392b; }
#board svg { width: 100%; height: auto; display: block; }
body.stale #board { opacity: 0.5; }
.chart svg { width: 100%; max-width: 420px; height: auto; display: block; }
"""

_SCRIPT = """
(function () {
  var key = document.body.getAttribute('data-key');
  function poll() {
    fetch('live?since=' + encodeURIComponent(key), {cache: 'no-store'}).then(function (r) {
      document.body.classList.remove('stale');
      if (r.status !== 200) { return null; }
      return r.json();
    }).then(function (data) {
      if (data) {
        key = data.key;
        document.body.setAttribute('data-key', key);
        document.getElementById('board').innerHTML = data.board;
        document.getElementById('live').innerHTML = data.live;
      }
    }).catch(function () { document.body.classList.add('stale'); })
      .then(function () { setTimeout(poll, POLL_MS); });
  }
  setTimeout(poll, POLL_MS);
})();
""".replace("POLL_MS", str(POLL_MS))


def _text(value: object, digits: int = 1) -> str:
    if value is None or value == "":
        return "-"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float):
        return "-" if math.isnan(value) else f"{value:.{digits}f}"
    if isinstance(value, (list, tuple)):
        return "-".join(_text(v) for v in value)
    return escape(str(value))


def board_svg(snapshot: Mapping[str, Any]) -> str:
    """The live board's diagram, or a line saying there is none (never an exception)."""
    board = snapshot.get("board")
    if not isinstance(board, Mapping):
        return '<p class="muted no-board">No match under way.</p>'
    if not board.get("position_id"):
        return '<p class="muted no-board">Between games.</p>'
    try:
        position = Position.from_position_id(str(board.get("position_id", "")))
        mid = board.get("match_id")
        match = MatchState.from_match_id(str(mid)) if mid else None
        on_roll = board.get("on_roll")
        if match is None and on_roll in (0, 1):
            match = MatchState(on_roll=int(on_roll), turn=int(on_roll))
        dice_value = board.get("dice")
        dice = None
        if isinstance(dice_value, (list, tuple)) and len(dice_value) == 2 and all(
                isinstance(d, int) and 1 <= d <= 6 for d in dice_value):
            dice = (int(dice_value[0]), int(dice_value[1]))
        names_value = board.get("names")
        names = ("", "")
        if isinstance(names_value, (list, tuple)) and len(names_value) == 2:
            names = (str(names_value[0]), str(names_value[1]))
        return render_svg(position, match, names=names, dice=dice)
    except (BoardParseError, ValueError, TypeError) as exc:
        return f'<p class="muted no-board">The board cannot be drawn: {escape(str(exc))}</p>'


def _rows(rows: Sequence[tuple[str, str]], css: str = "") -> str:
    body = "".join(f'<tr{f" class={chr(34)}{css}{chr(34)}" if css else ""}><td>{k}</td><td>{v}</td></tr>'
                   for k, v in rows)
    return f"<table><tbody>{body}</tbody></table>"


def live_panel(snapshot: Mapping[str, Any]) -> str:
    """Connection, match and latency panel (the part that changes with the board)."""
    connected = bool(snapshot.get("connected"))
    state = f'<span class="state {"on" if connected else "off"}">{"connected" if connected else "not connected"}</span>'
    parts = ['<div class="panel connection"><h2>Connection</h2>' + _rows([
        ("state", state), ("user", _text(snapshot.get("user"))), ("uptime (s)", _text(snapshot.get("uptime_s"))),
        ("seconds since the last byte", _text(snapshot.get("seconds_since_last_byte"))),
        ("connections", _text(snapshot.get("connections"))), ("reconnects", _text(snapshot.get("reconnects"))),
        ("our rating", _text(snapshot.get("rating"), 2)), ("our level", _text(snapshot.get("level"))),
    ]) + "</div>"]
    match = snapshot.get("match")
    if isinstance(match, Mapping):
        rows = [("opponent", f'<span class="opponent">{_text(match.get("opponent"))}</span>'),
                ("their rating", _text(match.get("opponent_rating"), 2)),
                ("length", _text(match.get("length"))),
                ("score", f'<span class="score">{_text(match.get("score"))}</span>'),
                ("cube", f'<span class="cube-value">{_text(match.get("cube"))}</span>'),
                ("level", _text(match.get("level")))]
        parts.append('<div class="panel match"><h2>Current match</h2>' + _rows(rows) + "</div>")
    else:
        parts.append('<div class="panel match"><h2>Current match</h2><p class="muted">None.</p></div>')
    latencies = snapshot.get("decision_latencies_s")
    recent = [d for d in latencies if isinstance(d, Mapping)][-8:] if isinstance(latencies, list) else []
    rows = [(_text(d.get("kind")), _text(d.get("seconds"), 3)) for d in reversed(recent)]
    parts.append('<div class="panel latencies"><h2>Last decisions (s)</h2>'
                 + (_rows(rows) if rows else '<p class="muted">None yet.</p>') + "</div>")
    counts = [("matches today", snapshot.get("matches_today")), ("matches", snapshot.get("matches")),
              ("games", snapshot.get("games")), ("moves sent", snapshot.get("moves_sent")),
              ("refused moves", snapshot.get("refused_moves")), ("engine errors", snapshot.get("engine_errors")),
              ("deadline misses", snapshot.get("deadline_misses"))]
    parts.append('<div class="panel counts"><h2>Counts</h2>' + _rows([(k, _text(v)) for k, v in counts]) + "</div>")
    parts.append(today_panel(snapshot.get("today")))
    return "".join(parts)


def today_panel(today: object) -> str:
    """Today's numbers from the match database (the snapshot's ``today``)."""
    head = '<div class="panel today"><h2>Today (database)</h2>'
    if not isinstance(today, Mapping):
        return head + '<p class="muted">Not read yet, or no database.</p></div>'
    if not today.get("available"):
        return head + f'<p class="muted db-down">The database cannot be read: {_text(today.get("error"))}</p></div>'
    rate = today.get("win_rate")
    interval = today.get("win_rate_95")
    shown_rate = "-"
    if isinstance(rate, (int, float)):
        shown_rate = f"{100 * rate:.1f}%"
        if isinstance(interval, (list, tuple)) and len(interval) == 2 and all(
                isinstance(v, (int, float)) for v in interval):
            shown_rate += f" (95%: {100 * interval[0]:.1f}-{100 * interval[1]:.1f}%)"
    rows = [("matches", f'<span class="today-matches">{_text(today.get("matches"))}</span>'),
            ("won / lost", f'{_text(today.get("won"))} / {_text(today.get("lost"))}'),
            ("unfinished", _text(today.get("unfinished"))),
            ("points", f'{_text(today.get("points_for"))}-{_text(today.get("points_against"))}'),
            ("win rate", shown_rate), ("rating", _text(today.get("rating"), 2))]
    return head + _rows(rows) + "</div>"


def history_html(entries: Sequence[Mapping[str, Any]]) -> str:
    """Recent matches (newest first) with links to their reports; rating and error-rate charts."""
    if not entries:
        return '<div class="panel history"><h2>Recent matches</h2><p class="muted">None recorded.</p></div>'
    rows = []
    for e in entries:
        report = e.get("report")
        link = (f'<a href="{escape(str(report), quote=True)}">report</a>'
                if isinstance(report, str) and not report.lower().startswith(("javascript:", "data:")) else "-")
        rows.append(f'<tr class="match-row"><td>{_text(e.get("finished"))}</td><td>{_text(e.get("opponent"))}</td>'
                    f'<td>{_text(e.get("length"))}</td><td>{_text(e.get("score"))}</td>'
                    f'<td>{_text(e.get("error_rate_memg"))}</td><td>{link}</td></tr>')
    table = ('<div class="scroll"><table class="matches"><thead><tr><th>finished</th><th>opponent</th><th>length</th>'
             "<th>score</th><th>error rate (mEMG)</th><th></th></tr></thead><tbody>" + "".join(rows)
             + "</tbody></table></div>")
    oldest_first = list(reversed(entries))
    ratings = [float(e["rating_after"]) for e in oldest_first if isinstance(e.get("rating_after"), (int, float))]
    errors = [abs(float(e["error_rate_memg"])) for e in oldest_first
              if isinstance(e.get("error_rate_memg"), (int, float))]
    charts = ""
    if len(ratings) >= 2:
        charts += f'<div class="chart rating-chart"><h3>Rating</h3>{line_chart(ratings, "rating")}</div>'
    if errors:
        charts += (f'<div class="chart error-chart"><h3>Error rate per match (mEMG)</h3>'
                   f'{line_chart(errors, "error rate", bars=True)}</div>')
    return f'<div class="panel history"><h2>Recent matches</h2>{table}{charts}</div>'


async def _call(snapshot: Snapshot) -> Mapping[str, Any]:
    try:
        result = snapshot()
        if inspect.isawaitable(result):
            result = await result
        return result if isinstance(result, Mapping) else {}
    except Exception:  # the dashboard must never take the bot down
        log.exception("status snapshot failed")
        return {}


def _key(board: str, live: str) -> str:
    return hashlib.sha1((board + live).encode()).hexdigest()[:16]


def routes(snapshot: Snapshot, history: History | None = None, reports: Path | None = None) -> list[Route]:
    """The dashboard's routes: ``/``, ``/live`` and, given a folder, ``/reports/NAME.html``."""

    async def page(request: Request) -> Response:
        snap = await _call(snapshot)
        board, live = board_svg(snap), live_panel(snap)
        recent = ""
        if history is not None:
            try:
                found = history()
                if inspect.isawaitable(found):
                    found = await found
                recent = history_html(list(found))
            except Exception:
                log.exception("match history failed")
                recent = '<div class="panel history"><p class="muted">The match history is unavailable.</p></div>'
        user = snap.get("user")
        body = (f'<h1>fibsbot{" - " + _text(user) if user else ""}</h1><div class="grid"><div>'
                f'<div id="board" class="panel">{board}</div>{recent}</div><div id="live">{live}</div></div>'
                '<p class="muted">Read-only. <a href="status">status JSON</a> - <a href="metrics">metrics</a></p>')
        html = document("fibsbot dashboard", body, script=_SCRIPT, css=_CSS,
                        head='<noscript><meta http-equiv="refresh" content="5"></noscript>\n')
        html = html.replace("<body>", f'<body data-key="{_key(board, live)}">', 1)
        return HTMLResponse(html, headers={"Cache-Control": "no-store"})

    async def live(request: Request) -> Response:
        snap = await _call(snapshot)
        board, panel = board_svg(snap), live_panel(snap)
        key = _key(board, panel)
        if request.query_params.get("since") == key:
            return Response(status_code=204, headers={"Cache-Control": "no-store"})
        return JSONResponse({"key": key, "board": board, "live": panel}, headers={"Cache-Control": "no-store"})

    async def report(request: Request) -> Response:
        name = str(request.path_params["name"])
        if reports is None or not _REPORT_NAME.fullmatch(name) or not (reports / name).is_file():
            return PlainTextResponse("no such report\n", status_code=404)
        return FileResponse(reports / name, media_type="text/html")

    found: list[Route] = [Route("/", page, methods=["GET"]), Route("/live", live, methods=["GET"])]
    if reports is not None:
        found.append(Route("/reports/{name}", report, methods=["GET"]))
    return found
