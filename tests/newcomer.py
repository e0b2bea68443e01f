"""The newcomer walk: what a new operator does first, from an installed ``fibsbot``, in an empty folder.

    python3 tests/newcomer.py PATH/TO/venv/bin/fibsbot

``fibsbot init --examples`` -> ``config check`` (which must use ./bot.yaml) -> ``run --local``
(a 3-point match at beginner level) with ``status`` read while it runs -> ``analyse`` the record ->
``hint`` a decision of it by its IDs -> ``tournament`` a shipped example (2 one-point matches).
Any nonzero exit or a traceback on any step fails the walk (exit 1). Not a pytest module: CI
runs it after installing the wheel into a fresh venv.
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path
from typing import Any


class WalkFailed(Exception):
    pass


def _env() -> dict[str, str]:
    return {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "FIBSBOT_CONFIG", "FIBSBOT_DATA")}


def _check(step: str, done: subprocess.CompletedProcess[str]) -> subprocess.CompletedProcess[str]:
    if "Traceback" in done.stdout + done.stderr or done.returncode != 0:
        raise WalkFailed(f"{step}: exit {done.returncode}\n{done.stdout[-2000:]}\n{done.stderr[-2000:]}")
    print(f"ok  {step}", flush=True)
    return done


def _fibsbot(fibsbot: str, folder: Path, *args: str, timeout: float = 600) -> subprocess.CompletedProcess[str]:
    return subprocess.run([fibsbot, *args], cwd=folder, env=_env(), capture_output=True, text=True, timeout=timeout)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def _run_with_status(fibsbot: str, folder: Path) -> Path:
    """``run --local``, reading ``status`` while the match is played; returns the record's path."""
    port = _free_port()
    # 3 points at beginner level: a few seconds, long enough to read the status while it plays
    args = ["run", "--local", "--length", "3", "--level", "beginner", "--opponent-level", "beginner",
            "--status-port", str(port)]
    proc = subprocess.Popen([fibsbot, *args], cwd=folder, env=_env(), stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    seen = None
    url = f"http://127.0.0.1:{port}"
    while proc.poll() is None and seen is None:
        try:  # a cheap look first: the endpoint starts with the bot's login
            urllib.request.urlopen(url + "/status", timeout=2).close()
        except OSError:
            time.sleep(0.02)
            continue
        status = _fibsbot(fibsbot, folder, "status", url, timeout=60)
        if "Traceback" in status.stderr:
            raise WalkFailed(f"status: a traceback\n{status.stderr}")
        if status.returncode == 0:
            seen = status.stdout
        elif proc.poll() is None:
            raise WalkFailed(f"status failed while the bot runs: exit {status.returncode}\n{status.stderr}")
    out, err = proc.communicate(timeout=600)
    _check("run --local --length 3", subprocess.CompletedProcess(args, proc.returncode, out, err))
    if "config bot.yaml (./bot.yaml)" not in err:
        raise WalkFailed(f"run --local did not say it uses ./bot.yaml:\n{err}")
    if seen is not None:
        print(f"ok  status while the match ran ({len(seen.splitlines())} lines)")
    else:  # said plainly: on a fast machine the match may end before the endpoint is first read
        print("--  status: the match ended before the endpoint answered (nothing to read)")
    record = Path(out.split("record: ")[1].strip())
    if not record.is_file():
        raise WalkFailed(f"no record at {record}")
    return record


def _pick(decisions: list[dict[str, Any]]) -> dict[str, Any]:
    """An error if the record has one, else any play."""
    moves = [d for d in decisions if d["kind"] == "move" and d["dice"]]
    errors = [d for d in moves if d["skill"] != "none"]
    if not (errors or moves):
        raise WalkFailed("the record has no chequer play to hint")
    return (errors or moves)[0]


def walk(fibsbot: str, folder: Path) -> None:
    _check("init --examples", _fibsbot(fibsbot, folder, "init", "--examples"))
    check = _check("config check", _fibsbot(fibsbot, folder, "config", "check"))
    if not check.stdout.startswith("bot.yaml: ok") or "./bot.yaml" not in check.stderr:
        raise WalkFailed(f"config check did not use ./bot.yaml:\n{check.stdout}{check.stderr}")
    record = _run_with_status(fibsbot, folder)
    analysed = _check("analyse the record", _fibsbot(fibsbot, folder, "analyse", str(record), "--json", "-"))
    decision = _pick(json.loads(analysed.stdout)["matches"][0]["decisions"])
    gnubg_id = f"{decision['position_id']}:{decision['match_id']}"
    hint = _check(f"hint {gnubg_id}", _fibsbot(fibsbot, folder, "hint", gnubg_id))
    if f"Position ID: {decision['position_id']}" not in hint.stdout or decision["best"] not in hint.stdout:
        raise WalkFailed(f"hint does not show the decision's position and best play {decision['best']}:\n{hint.stdout}")
    _check("tournament expert-vs-beginner.yaml", _fibsbot(
        fibsbot, folder, "tournament", "expert-vs-beginner.yaml", "--matches", "2", "--workers", "1", "--quiet"))


def main(argv: list[str]) -> int:
    if len(argv) != 1:
        print(__doc__, file=sys.stderr)
        return 2
    with tempfile.TemporaryDirectory(prefix="fibsbot-newcomer-") as tmp:
        try:
            walk(argv[0], Path(tmp))
        except (WalkFailed, subprocess.TimeoutExpired) as exc:
            print(f"newcomer walk FAILED: {exc}", file=sys.stderr)
            return 1
    print("newcomer walk: 0 tracebacks, every step exit 0")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
