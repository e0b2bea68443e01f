"""The running bot's status over HTTP: ``GET /status`` (JSON) and ``GET /metrics`` (Prometheus).

A Starlette app on uvicorn, in the bot's event loop; other routes (the operator's
dashboard, :func:`bot.status_db.attach`) join it through :func:`mount` or
``serve(..., routes=...)``. While a match is on, the snapshot's ``board`` is the
last board the bot saw (position and match IDs, dice, names, who is on roll);
``today`` is today's numbers from the match database (:mod:`bot.status_db`).

Served on loopback by ``fibsbot run`` (``status.port`` in bot.yaml, 0 = off) and
read by ``fibsbot status [URL]``. Everything shown is read from the session and
the player when asked; the two wrappers here add what they do not keep: the
time of the last byte received (:class:`Meter`, around the connection) and the
engine's latencies (:class:`TimedDecider`, around the decider). Nothing from a
``tell`` and no password is ever part of a snapshot.
"""

from __future__ import annotations

import asyncio
import contextlib
import datetime
import json
import logging
import socket
import time
import urllib.request
from collections import deque
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import Any, Protocol

import uvicorn
from prometheus_client import CollectorRegistry, generate_latest
from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily, Metric
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import PlainTextResponse, Response
from starlette.routing import BaseRoute, Route

from bot.session import Opener, Reader, Writer

log = logging.getLogger(__name__)

LATENCIES_KEPT = 20
_REQUEST_LIMIT = 8192  # bytes of request head read; more is refused


class Meter:
    """Wraps a connection opener: counts bytes and remembers when the last one came in."""

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self.clock = clock
        self.last_byte: float | None = None
        self.bytes_in = 0

    def wrap(self, opener: Opener) -> Opener:
        async def open_() -> tuple[Reader, Writer]:
            reader, writer = await opener()
            return _MeteredReader(reader, self), writer
        return open_

    def seconds_since_last_byte(self) -> float | None:
        return None if self.last_byte is None else self.clock() - self.last_byte


class _MeteredReader:
    def __init__(self, reader: Reader, meter: Meter) -> None:
        self._reader = reader
        self._meter = meter

    async def read(self, n: int) -> bytes:
        data = await self._reader.read(n)
        if data:
            self._meter.last_byte = self._meter.clock()
            self._meter.bytes_in += len(data)
        return data


class TimedDecider:
    """Wraps the engine: the bot's decisions pass through unchanged, their latencies are kept."""

    def __init__(self, decider: Any) -> None:
        self._decider = decider
        self.latencies: deque[tuple[str, float]] = deque(maxlen=LATENCIES_KEPT)
        self.decisions = 0

    def _timed(self, kind: str, call: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
        start = time.perf_counter()
        try:
            return call(*args, **kwargs)
        finally:
            self.latencies.append((kind, time.perf_counter() - start))
            self.decisions += 1

    def best_move(self, *args: Any, **kwargs: Any) -> Any:
        return self._timed("move", self._decider.best_move, *args, **kwargs)

    def cube_decision(self, *args: Any, **kwargs: Any) -> Any:
        return self._timed("cube", self._decider.cube_decision, *args, **kwargs)

    def resign_offer(self, *args: Any, **kwargs: Any) -> Any:
        return self._timed("resign", self._decider.resign_offer, *args, **kwargs)

    def accept_resignation(self, *args: Any, **kwargs: Any) -> Any:
        return self._timed("resign", self._decider.accept_resignation, *args, **kwargs)


class _Session(Protocol):
    @property
    def logged_in(self) -> bool: ...

    connections: int


class _Today(Protocol):
    def peek(self) -> Mapping[str, Any] | None: ...

    async def refresh(self, wait: bool = True) -> None: ...


class StatusBoard:
    """Composes the snapshot from the live objects (``player`` is a :class:`bot.player.Player`).

    ``today``, when set (:func:`bot.status_db.attach`), gives today's numbers from the
    match database: the snapshot shows its last answer, :meth:`fresh_snapshot` asks first."""

    def __init__(self, session: _Session, player: Any, meter: Meter, timer: TimedDecider) -> None:
        self.session = session
        self.player = player
        self.meter = meter
        self.timer = timer
        self.today: _Today | None = None
        self.started = time.monotonic()
        self._day = datetime.date.today()
        self._results_before_today = 0
        self._results_seen = 0

    def _matches_today(self) -> int:
        """Results counted on the day they were first seen (a snapshot reads the player's list)."""
        today = datetime.date.today()
        if today != self._day:
            self._day, self._results_before_today = today, self._results_seen
        self._results_seen = len(self.player.results)
        return self._results_seen - self._results_before_today

    def _match(self) -> dict[str, Any] | None:
        match, board = self.player.match, self.player.board
        if match is None:
            return None
        them = self.player.who.get(match.opponent)
        current: dict[str, Any] = {"opponent": match.opponent, "length": match.length, "level": self.player.level,
                                   "opponent_rating": getattr(them, "rating", None)}
        if board is not None and board.opponent == match.opponent:
            current.update(score=[board.player_score, board.opponent_score], cube=board.cube)
        return current

    def _board(self) -> dict[str, Any] | None:
        """The board the bot last saw while a match is on (None otherwise), as gnubg numbers
        it: we are player 1, ``names`` are players 0 and 1, the position ID is seen by
        the player ``on_roll`` (both IDs None between games)."""
        board = self.player.board
        if self.player.match is None or board is None:
            return None
        me = self.player.name or board.player  # FIBS names the receiver "You"
        entry: dict[str, Any] = {"position_id": None, "match_id": None,
                                 "dice": list(board.dice) if board.dice else None,
                                 "names": [board.opponent, me], "on_roll": None}
        try:
            match = board.match
            position = board.position if match.on_roll == 1 else board.position.swap()
            entry.update(position_id=position.position_id(), match_id=match.match_id(), on_roll=match.on_roll)
        except Exception:  # a board between games has no position to show
            pass
        return entry

    def _today(self) -> dict[str, Any] | None:
        """Today's numbers from the database as last read (None without a store or before a read)."""
        found = self.today.peek() if self.today is not None else None
        return dict(found) if found else None

    async def fresh_snapshot(self, wait: bool = True) -> dict[str, Any]:
        """The snapshot after asking for today's numbers if they are old (``wait``: for the
        answer, a bounded time; else they come with a later snapshot)."""
        if self.today is not None:
            try:
                await self.today.refresh(wait)
            except Exception:  # the database side must never break the status
                log.exception("today's numbers failed")
        return self.snapshot()

    def snapshot(self) -> dict[str, Any]:
        player = self.player
        me = player.who.get(player.name) if player.name else None
        since = self.meter.seconds_since_last_byte()
        stats = player.stats
        return {
            "user": player.name or None,
            "connected": bool(self.session.logged_in),
            "uptime_s": round(time.monotonic() - self.started, 1),
            "seconds_since_last_byte": None if since is None else round(since, 1),
            "connections": self.session.connections,
            "reconnects": max(0, self.session.connections - 1),
            "level": player.level,
            "rating": player.rating,
            "experience": me.experience if me is not None else None,
            "ready": player.ready,
            "paused": player.paused,
            "draining": player.draining,
            "match": self._match(),
            "board": self._board(),
            "matches_today": self._matches_today(),
            "today": self._today(),
            "matches": stats.matches,
            "games": stats.games,
            "moves_sent": stats.moves_sent,
            "refused_moves": stats.refused_moves,
            "engine_errors": stats.engine_errors,
            "deadline_misses": stats.deadline_misses,
            "decisions": self.timer.decisions,
            "decision_latencies_s": [{"kind": kind, "seconds": round(s, 4)} for kind, s in self.timer.latencies],
        }


class _Collector:
    """The snapshot as Prometheus metrics, read at scrape time."""

    def __init__(self, board: StatusBoard) -> None:
        self.board = board

    def collect(self) -> Iterator[Metric]:
        snap = self.board.snapshot()
        gauges = {"connected": ("1 when logged in", float(snap["connected"])),
                  "uptime_seconds": ("seconds since the bot started", snap["uptime_s"]),
                  "matches_today": ("matches finished today", snap["matches_today"]),
                  "in_match": ("1 while a match is under way", float(snap["match"] is not None))}
        if snap["seconds_since_last_byte"] is not None:
            gauges["seconds_since_last_byte"] = ("seconds since the server last sent a byte",
                                                 snap["seconds_since_last_byte"])
        if snap["rating"] is not None:
            gauges["rating"] = ("our FIBS rating", snap["rating"])
        if snap["experience"] is not None:
            gauges["experience"] = ("our FIBS experience", snap["experience"])
        today = snap["today"]
        if today is not None:
            gauges["database_available"] = ("1 when the match database was last read", float(bool(today["available"])))
            for key in ("matches", "won", "lost"):
                if isinstance(today.get(key), int):
                    gauges[f"database_today_{key}"] = (f"today's {key} in the match database", today[key])
        for name, (doc, value) in gauges.items():
            yield GaugeMetricFamily(f"fibsbot_{name}", doc, value=value)
        counters = {"reconnects": "reconnections to the server", "matches": "matches finished",
                    "games": "games finished", "moves_sent": "moves sent", "refused_moves": "moves the server refused",
                    "engine_errors": "engine calls that failed", "decisions": "engine decisions"}
        for name, doc in counters.items():
            yield CounterMetricFamily(f"fibsbot_{name}", doc, value=snap[name])
        latest = GaugeMetricFamily("fibsbot_last_decision_seconds", "latency of the last decision of each kind",
                                   labels=["kind"])
        for kind, seconds in {d["kind"]: d["seconds"] for d in snap["decision_latencies_s"]}.items():
            latest.add_metric([kind], seconds)
        yield latest


def metrics_text(board: StatusBoard) -> bytes:
    registry = CollectorRegistry(auto_describe=False)
    registry.register(_Collector(board))
    return generate_latest(registry)


class _BotServer(uvicorn.Server):
    """uvicorn that leaves the signals to the bot (its drain on the first SIGINT)."""

    @contextlib.contextmanager
    def capture_signals(self) -> Iterator[None]:
        yield


class Endpoint:
    """The running status server (``close()`` stops it)."""

    def __init__(self, server: Any, task: asyncio.Task[None], port: int) -> None:
        self.server = server
        self.task = task
        self.port = port

    def close(self) -> None:
        self.server.should_exit = True

    async def stop(self, timeout_s: float = 5.0) -> None:
        """Close and wait for the server to finish (open connections are cut after ``timeout_s``)."""
        self.close()
        try:
            await asyncio.wait_for(asyncio.shield(self.task), timeout_s)
        except Exception:  # the status page must never hold the bot's exit
            self.server.force_exit = True
            self.task.cancel()


_MOUNTED: list[BaseRoute] = []


def mount(routes: Sequence[BaseRoute]) -> None:
    """Adds ``routes`` (Starlette or FastAPI routes, e.g. an operator dashboard reading
    :meth:`StatusBoard.snapshot` through ``request.app.state.board``) to every status app
    made afterwards."""
    _MOUNTED.extend(routes)


def status_app(board: StatusBoard, routes: Sequence[BaseRoute] = ()) -> Starlette:
    """``GET /status`` (JSON) and ``GET /metrics`` (Prometheus), the mounted
    routes and ``routes``; ``app.state.board`` is the StatusBoard."""

    async def status_route(request: Request) -> Response:
        try:
            snap = await board.fresh_snapshot()
            return Response(json.dumps(snap, indent=1) + "\n", media_type="application/json")
        except Exception:  # the status page must never take the bot down
            log.exception("status endpoint failed")
            return PlainTextResponse("error\n", 500)

    async def metrics_route(request: Request) -> Response:
        try:
            return Response(metrics_text(board), media_type="text/plain; version=0.0.4; charset=utf-8")
        except Exception:
            log.exception("metrics endpoint failed")
            return PlainTextResponse("error\n", 500)

    async def not_found(request: Request, exc: Exception) -> Response:
        return PlainTextResponse("try /status or /metrics\n", 404)

    app = Starlette(routes=[Route("/status", status_route, methods=["GET"]),
                            Route("/metrics", metrics_route, methods=["GET"]), *_MOUNTED, *routes],
                    exception_handlers={404: not_found})
    app.state.board = board
    return app


async def serve(board: StatusBoard, host: str, port: int, routes: Sequence[BaseRoute] = ()) -> Endpoint:
    """Start the endpoint on uvicorn (already listening when this returns; OSError if the port
    cannot be had). ``routes`` are mounted next to /status and /metrics."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind((host, port))
        sock.listen(64)
        sock.setblocking(False)
    except OSError:
        sock.close()
        raise
    config = uvicorn.Config(status_app(board, routes), log_level="warning", access_log=False,
                            h11_max_incomplete_event_size=_REQUEST_LIMIT, timeout_keep_alive=10,
                            limit_concurrency=100, lifespan="off")
    server = _BotServer(config)
    task = asyncio.create_task(server.serve(sockets=[sock]), name="status endpoint")
    bound = sock.getsockname()[1]
    log.info("status at http://%s:%d/status", host, bound)
    return Endpoint(server, task, bound)


def fetch(url: str, timeout_s: float = 5.0) -> dict[str, Any]:
    """``GET url`` (a base URL or the /status URL) as JSON."""
    if not url.rstrip("/").endswith("/status"):
        url = url.rstrip("/") + "/status"
    with urllib.request.urlopen(url, timeout=timeout_s) as response:
        data: dict[str, Any] = json.loads(response.read())
    return data


def render(snapshot: dict[str, Any]) -> str:
    """A snapshot as a two-column table for ``fibsbot status``."""
    rows: list[tuple[str, str]] = []
    for key, value in snapshot.items():
        if key in ("match", "board", "today") and isinstance(value, dict):
            rows += [(f"{key}.{k}", _cell(v)) for k, v in value.items()]
        elif key == "decision_latencies_s" and isinstance(value, list):
            text = " ".join(f"{d.get('kind')}:{d.get('seconds')}" for d in value[-8:] if isinstance(d, dict))
            rows.append(("recent decisions (s)", text or "-"))
        else:
            rows.append((key, _cell(value)))
    width = max((len(k) for k, _ in rows), default=0)
    return "\n".join(f"{k:<{width}}  {v}" for k, v in rows)


def _cell(value: object) -> str:
    if value is None:
        return "-"
    if isinstance(value, list):
        return "-".join(str(v) for v in value)
    return str(value)
