"""``python -m bot.server`` (the ``fibsbot server`` command): options, accounts, clean shutdown."""

from __future__ import annotations

import asyncio
import os
import re
import signal
import subprocess
import sys
from pathlib import Path

from bot.server.cli import build_parser
from bot.server.store import Store

from fibs_script import Client, start_match

ROOT = Path(__file__).parent.parent
ENV = {**os.environ, "PYTHONPATH": str(ROOT)}


def _server(*args: str, stdin: str = "") -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "bot.server", *args], cwd=ROOT, env=ENV, capture_output=True,
                          text=True, timeout=30, input=stdin)


def test_help_documents_every_option() -> None:
    result = _server("--help")
    assert result.returncode == 0
    options = [o for action in build_parser()._actions for o in action.option_strings if o.startswith("--")]
    assert len(options) >= 10
    for option in options:
        assert option in result.stdout


def test_add_user(tmp_path: Path) -> None:
    db = tmp_path / "f.db"
    assert _server("--db", str(db), "--add-user", "carol", stdin="secret\n").returncode == 0
    again = _server("--db", str(db), "--add-user", "carol", stdin="secret\n")
    assert again.returncode == 1 and "exists" in again.stderr
    assert _server("--db", str(db), "--add-user", "bad name", stdin="secret\n").returncode == 2
    store = Store(db)
    stored = store.password_hash("carol")
    store.close()
    assert stored is not None and "secret" not in stored


async def test_sigterm_saves_running_matches_and_exits_cleanly(tmp_path: Path) -> None:
    db = tmp_path / "f.db"
    process = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "bot.server", "--port", "0", "--db", str(db), "--seed", "1", "--auto-register",
        "--log-level", "WARNING", cwd=ROOT, env=ENV, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE)
    try:
        assert process.stdout is not None and process.stderr is not None
        banner = (await asyncio.wait_for(process.stdout.readline(), 30)).decode()
        port = int(re.fullmatch(r"fibsbot server listening on 127\.0\.0\.1:(\d+)\n", banner)[1])  # type: ignore[index]
        alice, bob = await start_match(port, "alice", "bob", 5)
        await alice.until(r"board:.*")
        process.send_signal(signal.SIGTERM)
        await alice.until(r"Your game with bob was saved\.")
        await bob.until(r"Your game with alice was saved\.")
        assert await asyncio.wait_for(process.wait(), 30) == 0
        assert b"Traceback" not in await process.stderr.read()
    finally:
        if process.returncode is None:
            process.kill()
    store = Store(db)
    assert store.saved_match("alice", "bob") is not None
    store.close()


def test_an_unknown_switch_value_is_a_named_error(tmp_path: Path) -> None:
    for args in (["--unanswered", "frobnicate"], ["--wording", "fibs2"]):
        result = _server("--port", "0", "--db", str(tmp_path / "f.db"), *args)
        assert result.returncode == 2 and "Traceback" not in result.stderr
        assert result.stderr.strip().splitlines()[-1].startswith("fibsbot server: unknown")


async def test_the_switches_reach_the_server(tmp_path: Path) -> None:
    db = tmp_path / "f.db"
    store = Store(db)
    store.save_match("alice", "bob", "{}", 0.0)
    store.close()
    process = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "bot.server", "--port", "0", "--db", str(db), "--auto-register", "--forget-saved",
        "--unanswered", "board", "--wording", "bare-lf", "--max-connections-per-address", "2",
        "--log-level", "WARNING", cwd=ROOT, env=ENV, stdout=asyncio.subprocess.PIPE)
    try:
        assert process.stdout is not None
        banner = (await asyncio.wait_for(process.stdout.readline(), 30)).decode()
        port = int(banner.rsplit(":", 1)[1])
        alice = await Client.connect(port, "alice")
        await alice.send("board")
        await alice.send("show saved")
        await alice.expect(r"no saved games\.")  # nothing said to 'board'; the saved match forgotten
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        assert b"\r" not in await Client(reader, writer, "second").read_until(b"login: ")  # bare LF
        third = await asyncio.open_connection("127.0.0.1", port)
        assert await third[0].read() == b"** Sorry, too many connections. Please try again later.\n"
    finally:
        process.terminate()
        await process.wait()
