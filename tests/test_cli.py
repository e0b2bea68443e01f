"""The `fibsbot` command line as one table: the registration shape, light imports, errors handled
once (one line, exit 2; Ctrl-C 130; a closed pipe quietly), and what an operator meets first."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

import bot.cli
from bot.cli import COMMANDS, command_module, main

ROOT = Path(__file__).resolve().parent.parent
ENV = {**os.environ, "PYTHONPATH": str(ROOT)}
OPENING = "4HPwATDgc/ABMA"
HEAVY = ("numpy", "rich", "pydantic", "yaml", "engine", "bot.server", "bot.tournament", "asyncio")


def _fibsbot(*args: str, cwd: Path = ROOT, **kwargs: object) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "bot.cli", *args], cwd=cwd, env=ENV, capture_output=True,
                          text=True, timeout=300, **kwargs)  # type: ignore[call-overload]


def _one_line_error(result: subprocess.CompletedProcess[str], *words: str) -> None:
    assert result.returncode == 2, result.stderr
    assert "Traceback" not in result.stderr
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("fibsbot"), result.stderr
    assert all(w in lines[0] for w in words), lines[0]


def test_every_command_has_the_registration_shape() -> None:
    names = [name for name, _ in COMMANDS]
    assert len(names) == len(set(names))
    for name in names:
        module = command_module(name)
        assert isinstance(module.HELP, str) and module.HELP
        assert callable(module.add_arguments) and callable(module.run)
        assert module.__doc__ and module.__doc__.strip()
    assert "registration shape" in (bot.cli.__doc__ or "")


def test_the_table_and_its_modules_import_nothing_heavy() -> None:
    code = ("import sys; from bot.cli import COMMANDS, command_module\n"
            "for name, _ in COMMANDS: command_module(name)\n"
            f"print(sorted(m for m in sys.modules if m.split('.')[0] in {HEAVY!r} or m.startswith({HEAVY!r})))")
    done = subprocess.run([sys.executable, "-c", code], env=ENV, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]", done.stdout


def test_version_loads_no_engine() -> None:
    code = ("import sys; from bot.cli import main\n"
            "try:\n    main(['--version'])\nexcept SystemExit:\n    pass\n"
            "print('engine' in sys.modules, 'numpy' in sys.modules)")
    done = subprocess.run([sys.executable, "-c", code], env=ENV, capture_output=True, text=True, timeout=60)
    assert done.stdout.splitlines() == ["fibsbot " + done.stdout.split()[1], "False False"], done.stdout


def test_hint_loads_neither_numpy_nor_rollouts() -> None:
    # numpy alone took longer to import than gnubg takes to answer the same hint
    code = ("import sys; from bot.cli import main\n"
            f"status = main(['hint', {OPENING!r}, '--dice', '31'])\n"
            "print(status, sorted(m for m in sys.modules if m.split('.')[0] == 'numpy' or m == 'engine.rollout'))")
    done = subprocess.run([sys.executable, "-c", code], env=ENV, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert "8/5 6/5" in done.stdout
    assert done.stdout.splitlines()[-1] == "0 []", done.stdout


def test_help_lists_every_command(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["--help"])
    out = capsys.readouterr().out
    assert all(name in out for name, _ in COMMANDS)


def test_a_closed_pipe_is_quiet() -> None:
    proc = subprocess.Popen([sys.executable, "-m", "bot.cli", "version"], env=ENV, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    assert proc.stdout is not None
    proc.stdout.close()  # `fibsbot version | head -0`: the reader is gone before the first line
    _, err = proc.communicate(timeout=120)
    assert "Traceback" not in err and "Exception ignored" not in err, err
    assert proc.returncode == 141


def test_ctrl_c_is_one_line_and_130(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    def interrupted(args: object) -> int:
        raise KeyboardInterrupt

    monkeypatch.setattr(command_module("convert"), "run", interrupted)
    assert main(["convert", "a.sgf", "b.mat"]) == 130
    assert capsys.readouterr().err.strip().splitlines() == ["fibsbot convert: interrupted"]


def test_a_bug_still_shows_its_traceback(monkeypatch: pytest.MonkeyPatch) -> None:
    def buggy(args: object) -> int:
        raise ZeroDivisionError("a bug")

    monkeypatch.setattr(command_module("convert"), "run", buggy)
    with pytest.raises(ZeroDivisionError):
        main(["convert", "a.sgf", "b.mat"])


def test_hint_with_an_unknown_level_is_one_line() -> None:
    _one_line_error(_fibsbot("hint", OPENING, "--dice", "31", "--level", "foo"), "--level", "foo", "expert")


@pytest.fixture
def not_http() -> Iterator[int]:
    """A port that answers like a FIBS server: text, not HTTP."""
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen()

    def answer() -> None:
        while True:
            try:
                conn, _ = server.accept()
            except OSError:
                return
            with conn:
                conn.recv(1024)
                conn.sendall(b"login: \r\nWelcome to FIBS\r\n")

    threading.Thread(target=answer, daemon=True).start()
    yield server.getsockname()[1]
    server.close()


def test_status_at_a_port_that_is_not_http_is_one_line(not_http: int) -> None:
    url = f"http://127.0.0.1:{not_http}"
    _one_line_error(_fibsbot("status", url), "no status at", url)


def test_rollout_with_dask_missing_is_one_line(monkeypatch: pytest.MonkeyPatch,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setitem(sys.modules, "distributed", None)  # as if Dask were not installed
    assert main(["rollout", OPENING, "--trials", "6", "--executor", "dask", "--scheduler", "tcp://127.0.0.1:1"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("fibsbot rollout:") and "distributed" in err[0]


def test_ctrl_c_during_a_saved_rollout_keeps_a_file_that_resumes(tmp_path: Path) -> None:
    save = tmp_path / "r.json"
    args = [OPENING, "--dice", "31", "--plays", "2", "--threads", "1"]
    proc = subprocess.Popen([sys.executable, "-m", "bot.cli", "rollout", *args, "--trials", "100000",
                             "--save", str(save)], env=ENV, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 120
    while not save.exists() and time.monotonic() < deadline and proc.poll() is None:
        time.sleep(0.05)
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=120)
    assert proc.returncode == 130 and "Traceback" not in err, err
    assert err.strip().splitlines()[-1].startswith("fibsbot rollout: interrupted; the trials done are kept in")
    kept = min(len(v) for v in json.loads(save.read_text())["values"])
    assert kept > 0
    resumed = _fibsbot("rollout", *args, "--trials", str(kept), "--save", str(save), "--json")
    fresh = _fibsbot("rollout", *args, "--trials", str(kept), "--json")
    assert resumed.returncode == fresh.returncode == 0, resumed.stderr + fresh.stderr
    assert json.loads(resumed.stdout)["candidates"] == json.loads(fresh.stdout)["candidates"]


def test_run_local_refuses_a_zero_length(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_:
        main(["run", "--local", "--length", "0"])
    assert exit_.value.code == 2
    assert "at least 1 point" in capsys.readouterr().err


@pytest.mark.parametrize("exc, line", [(TimeoutError(), "fibsbot convert: TimeoutError"),
                                       (FileNotFoundError("no such\nfile"), "fibsbot convert: no such file")])
def test_a_named_error_is_always_one_line(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
                                          exc: Exception, line: str) -> None:
    def failing(args: object) -> int:
        raise exc

    monkeypatch.setattr(command_module("convert"), "run", failing)
    assert main(["convert", "a.sgf", "b.mat"]) == 2
    assert capsys.readouterr().err.splitlines() == [line]
