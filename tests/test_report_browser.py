"""Reports and the dashboard in a real browser: Debian's Chromium, headless, driven by
Playwright (its Python package only; the system browser, no browser download).

The screenshots are kept as artefacts in a pytest temporary folder (the path is printed).
"""

from __future__ import annotations

import json
import os
import shutil
import threading
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from bot.cli import main
from bot.report.dashboard import routes
from bot.report.source import match_state
from engine.records import Roll, load

playwright_api = pytest.importorskip("playwright.sync_api",
                                     reason="Playwright is not installed (pip install -e '.[test]')")
CHROMIUM = os.environ.get("FIBSBOT_CHROMIUM", "/usr/bin/chromium")
if not Path(CHROMIUM).exists():
    pytest.skip(f"no Chromium at {CHROMIUM} (apt-get install chromium)", allow_module_level=True)

DATA = Path(__file__).parent / "data" / "golden-sgf"


@pytest.fixture(scope="module")
def shots(tmp_path_factory: pytest.TempPathFactory) -> Path:
    # FIBSBOT_SCREENSHOTS=config/screenshots refreshes the README's pictures
    chosen = os.environ.get("FIBSBOT_SCREENSHOTS")
    folder = Path(chosen) if chosen else tmp_path_factory.mktemp("screenshots")
    folder.mkdir(parents=True, exist_ok=True)
    print(f"\nscreenshots in {folder}")
    return folder


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    with playwright_api.sync_playwright() as p:
        chromium = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=["--no-sandbox"])
        yield chromium
        chromium.close()


class Console:
    """Every console message of error level and every uncaught page error."""

    def __init__(self, page: Any) -> None:
        self.errors: list[str] = []
        page.on("console", lambda m: self.errors.append(m.text) if m.type == "error" else None)
        page.on("pageerror", lambda e: self.errors.append(str(e)))


def test_report_in_chromium_matches_the_analysis(browser: Any, tmp_path: Path, shots: Path) -> None:
    sgf = tmp_path / "match_3pt.sgf"
    shutil.copy(DATA / "match_3pt.sgf", sgf)
    out, data_path = tmp_path / "match_3pt.html", tmp_path / "match_3pt.json"
    assert main(["analyse", str(sgf), "--json", str(data_path), "--html", str(out)]) == 0
    decisions = json.loads(data_path.read_text())["matches"][0]["decisions"]
    page = browser.new_page(viewport={"width": 1100, "height": 900})
    console = Console(page)
    page.goto(out.as_uri())
    shown = page.eval_on_selector_all(".decision", """els => els.map(e => ({
        kind: e.dataset.kind, action: e.dataset.action, played: e.querySelector('.played-move').textContent,
        best: e.querySelector('.best-move').textContent, error: e.querySelector('.error').textContent,
        dataError: e.dataset.error, pid: e.dataset.positionId, board: e.querySelector('svg').dataset.positionId,
        playedRow: (e.querySelector('tr.played td:nth-child(2)') || {}).textContent,
        buttons: e.querySelectorAll('button.copy').length}))""")
    assert len(shown) == len(decisions)
    for s, d in zip(shown, decisions, strict=True):
        assert (s["played"], s["best"], s["action"]) == (d["played"], d["best"], d["kind"])
        assert s["error"] == f"{d['error']:+.4f}" and float(s["dataError"]) == d["error"]
        assert s["board"] == s["pid"] and s["buttons"] == 4
        if d["kind"] == "move":
            assert s["playedRow"] == d["played"]
    page.evaluate("document.querySelector('.decision.doubtful, .decision.bad, .decision.very-bad').scrollIntoView()")
    page.screenshot(path=str(shots / "report-desktop.png"))
    phone = browser.new_page(viewport={"width": 390, "height": 844}, device_scale_factor=2)
    phone_console = Console(phone)
    phone.goto(out.as_uri() + "#d1")
    width = phone.evaluate("document.documentElement.scrollWidth")
    assert width <= 390, f"the report scrolls sideways on a phone ({width} px)"
    phone.screenshot(path=str(shots / "report-phone.png"))
    assert console.errors == [] and phone_console.errors == []
    page.close()
    phone.close()


class FakeStatus:
    """A snapshot callable whose board follows a real match, move by move."""

    def __init__(self) -> None:
        record = load(DATA / "match_1pt.sgf")
        game = record.games[0]
        self.boards = []
        for i, action in enumerate(game.actions):
            if isinstance(action, Roll):
                state = game.states[i]
                view = match_state(record, game, state, action.player, dice=action.dice)
                self.boards.append({"position_id": state.position(action.player).position_id(),
                                    "match_id": view.match_id(), "dice": list(action.dice),
                                    "names": list(record.players), "on_roll": action.player})
        self.index = 0
        self.lock = threading.Lock()

    def advance(self) -> dict[str, Any]:
        with self.lock:
            self.index += 1
            return self.boards[self.index]

    def __call__(self) -> dict[str, Any]:
        with self.lock:
            board = self.boards[self.index]
        return {"user": "fibsbot", "connected": True, "uptime_s": 3.0, "connections": 1, "reconnects": 0,
                "level": "expert", "rating": 1650.0,
                "match": {"opponent": "bob", "length": 1, "score": [0, 0], "cube": 1, "level": "expert"},
                "decision_latencies_s": [{"kind": "move", "seconds": 0.01}], "board": board}


@pytest.fixture(scope="module")
def reports(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A folder of match reports, as a bot would keep for its finished matches."""
    folder = tmp_path_factory.mktemp("reports")
    for name in ("match_1pt", "match_5pt"):
        assert main(["analyse", str(DATA / f"{name}.sgf"), "--html", str(folder / f"{name}.html"), "--json",
                     str(folder / f"{name}.json")]) == 0
    return folder


def history(reports: Path) -> list[dict[str, Any]]:
    """Recent matches, newest first, as the match database gives them."""
    entries = []
    for i, name in enumerate(("match_5pt", "match_1pt")):
        data = json.loads((reports / f"{name}.json").read_text())["matches"][0]
        entries.append({"finished": f"2026-11-27 1{2 - i}:00", "opponent": data["players"][1]["name"],
                        "length": data["match_length"], "score": "won", "rating_after": 1650.0 - 7 * i,
                        "error_rate_memg": data["players"][0]["overall_rate_memg"], "report": f"reports/{name}.html"})
    return entries


@pytest.fixture
def dashboard(reports: Path) -> Iterator[tuple[str, FakeStatus]]:
    """The dashboard's routes in a FastAPI app on a real uvicorn server (loopback, a free port)."""
    import uvicorn
    from fastapi import FastAPI

    status = FakeStatus()
    app = FastAPI()
    app.get("/status")(lambda: status())
    app.router.routes.extend(routes(status, lambda: history(reports), reports))
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=0, log_level="warning", lifespan="off"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 20
    while not server.started:
        assert time.monotonic() < deadline and thread.is_alive(), "uvicorn did not start"
        time.sleep(0.02)
    port = server.servers[0].sockets[0].getsockname()[1]
    yield f"http://127.0.0.1:{port}/", status
    server.should_exit = True
    thread.join(10)


def test_dashboard_board_follows_the_match_within_a_second(browser: Any, dashboard: tuple[str, FakeStatus],
                                                           shots: Path) -> None:
    url, status = dashboard
    page = browser.new_page(viewport={"width": 1200, "height": 800})
    console = Console(page)
    page.goto(url)
    root = "document.querySelector('#board svg')"
    assert page.evaluate(f"{root}.dataset.positionId") == status.boards[0]["position_id"]
    assert page.text_content(".opponent") == "bob"
    lags = []
    for _ in range(min(12, len(status.boards) - 1)):
        board = status.advance()
        start = time.monotonic()
        page.wait_for_function(f"{root} && {root}.dataset.positionId === {json.dumps(board['position_id'])} "
                               f"&& {root}.dataset.matchId === {json.dumps(board['match_id'])}", timeout=1000)
        lags.append(time.monotonic() - start)
        dice = page.eval_on_selector_all("#board .die", "els => els.map(e => Number(e.dataset.value))")
        assert dice == board["dice"]
    print(f"\nboard shown after each move in {min(lags):.3f}..{max(lags):.3f} s")
    page.screenshot(path=str(shots / "dashboard.png"), full_page=True)
    with page.expect_navigation():
        page.click("a[href='reports/match_5pt.html']")
    assert page.locator(".decision").count() > 0 and page.get_attribute(".decision", "data-kind") in ("move", "cube")
    assert console.errors == []
    page.close()


def test_dashboard_reads_with_scripts_off(browser: Any, dashboard: tuple[str, FakeStatus]) -> None:
    url, status = dashboard
    context = browser.new_context(java_script_enabled=False)
    page = context.new_page()
    page.goto(url)
    assert page.get_attribute("#board svg", "data-position-id") == status.boards[0]["position_id"]
    assert page.text_content(".opponent") == "bob" and "connected" in (page.text_content(".connection") or "")
    assert page.get_attribute("#board svg", "data-match-id") == status.boards[0]["match_id"]
    context.close()


def board_entry(board: Any, us: str) -> dict[str, Any] | None:
    """The snapshot's ``board`` entry from a bot's last FIBS board (us = player 1; FIBS calls us "You")."""
    from engine.errors import BoardParseError

    if board is None:
        return None
    try:
        match = board.match
    except BoardParseError:  # the match is over
        return None
    position = board.position if match.on_roll == 1 else board.position.swap()
    return {"position_id": position.position_id(), "match_id": match.match_id(),
            "dice": list(board.dice) if board.dice else None, "names": [board.opponent, us],
            "on_roll": match.on_roll}


def test_dashboard_follows_a_local_match_within_a_second(browser: Any, tmp_path: Path, shots: Path) -> None:
    """``fibsbot run --local`` as the CLI wires it: our bot plays the sparring bot over the
    local FIBS server, its matches go to the store, and its status port serves the dashboard.
    The page at ``/`` catches up with every position the bot sees within 1 s (a position
    replaced sooner may be skipped) and shows the day's numbers from the database."""
    import asyncio
    import socket

    from bot import status
    from bot.config import BotConfig
    from bot.config import load as load_config
    from bot.run import local_players, play_local
    from bot.store.live import live_store
    from engine import Engine

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    data = load_config().model_dump()
    data["records"].update(dir=f"{tmp_path}/records", transcript=f"{tmp_path}/logs/{{user}}.log",
                           ledger=f"{tmp_path}/ledger.jsonl")
    data["engine"]["think_time_s"] = (0.3, 0.3)  # both bots take a human-like pause per decision
    data["engine"]["level"] = "beginner"
    data["local"].update(length=3, timeout_s=120.0)
    data["status"]["port"] = port
    cfg = BotConfig.model_validate(data)
    engine = Engine()
    timer = status.TimedDecider(engine)
    player, sparring = local_players(cfg, timer, engine)

    def bot_board() -> dict[str, Any] | None:
        return board_entry(player.board, player.name) if player.match is not None else None

    loop = asyncio.new_event_loop()
    match_task: list[asyncio.Task[None]] = []

    def play() -> None:
        async def main_() -> None:
            match_task.append(asyncio.current_task())  # type: ignore[arg-type]
            with live_store(cfg):
                await play_local(player, sparring, seed=11, timer=timer)
        try:
            loop.run_until_complete(main_())
        except (asyncio.CancelledError, Exception):
            pass

    bot = threading.Thread(target=play, daemon=True)
    bot.start()
    url = f"http://127.0.0.1:{port}/"
    deadline = time.monotonic() + 20
    while True:  # the status endpoint is up once the bots have their sessions
        try:
            urllib.request.urlopen(url + "status", timeout=5).close()
            break
        except OSError:
            assert time.monotonic() < deadline and bot.is_alive(), "the status port never answered"
            time.sleep(0.05)
    page = browser.new_page(viewport={"width": 1200, "height": 800})
    console = Console(page)
    page.goto(url)
    page.evaluate("""() => { window.shown = [];
        const note = () => { const svg = document.querySelector('#board svg');
            window.shown.push([Date.now(), svg ? svg.dataset.positionId + ':' + svg.dataset.matchId : '']); };
        note(); new MutationObserver(note).observe(document.getElementById('board'), {childList: true}); }""")
    seen: list[tuple[float, str]] = []  # when the bot's board first showed each position
    end = time.monotonic() + 25
    while time.monotonic() < end and len(seen) < 30 and bot.is_alive():
        entry = bot_board()
        key = f"{entry['position_id']}:{entry['match_id']}" if entry else ""
        if entry and (not seen or seen[-1][1] != key):
            seen.append((time.time(), key))
        time.sleep(0.005)
    time.sleep(1.2)
    shown = page.evaluate("window.shown")
    page.screenshot(path=str(shots / "dashboard-local-match.png"))
    today = page.text_content(".today") or ""
    errors = list(console.errors)
    page.close()
    if match_task:
        loop.call_soon_threadsafe(match_task[0].cancel)
    bot.join(30)
    assert len(seen) >= 10, f"the local match showed only {len(seen)} positions"
    order = {key: i for i, (_, key) in reversed(list(enumerate(seen)))}
    lags, exact = [], 0
    for i, (at, key) in enumerate(seen):
        caught = [t / 1000 for t, k in shown if k in order and order[k] >= i and t / 1000 >= at - 0.05]
        assert caught, f"position {i} ({key}) never reached the dashboard"
        lags.append(caught[0] - at)
        exact += any(k == key for _, k in shown)
    print(f"\n{len(seen)} positions; the dashboard caught up within {max(lags):.3f} s (median "
          f"{sorted(lags)[len(lags) // 2]:.3f} s); {exact} shown exactly")
    assert max(lags) < 1.0
    assert errors == []
    assert "Today (database)" in today and "matches" in today and "cannot be read" not in today
