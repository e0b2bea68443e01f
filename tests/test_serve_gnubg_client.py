"""Debian's gnubg 1.07 as a client: it plays whole matches with ``fibsbot serve --external`` as one side's brain.

The same code as ``python -m engine.bench gnubg-client`` (whose text lists what
was found about gnubg as a client: one ``board:`` request per decision, ended
by LF and NUL; cube and take decisions as board lines without dice or with the
doubled token; resignations never asked). Each run is checked against the
record gnubg saves: our every play and cube action recorded as our socket
answered it, the match or session played to its end, gnubg exiting cleanly,
one reply of the asked kind per request. A fake external player answering
an illegal play shows the checks fail when gnubg does not follow the socket.
"""

from __future__ import annotations

import socket
import threading
from collections import Counter
from pathlib import Path

import pytest

from engine.bench.gnubg_client import Result, Setup, play, play_all
from engine.bench.serve import start_ours
from engine.records.validate import gnubg_program

pytestmark = pytest.mark.skipif(gnubg_program() is None, reason="Debian's gnubg is not installed")

# dice seeds the bench (setups drawn with seed 31) does not use: both seats, three levels, money sessions
# with beavers on and off (at Intermediate every take of these sessions is a beaver, as Debian gnubg's
# ``external`` at noise 0.04 answers on the same boards)
PLAN = [
    Setup(1, seat=0, level="expert", their_plies=0, seed=4242),
    Setup(3, seat=1, level="world class", their_plies=0, seed=777),
    Setup(3, seat=0, level="expert", their_plies=0, seed=5),
    Setup(0, seat=1, level="intermediate", their_plies=0, seed=1008, jacoby=False, beavers=True, games=2),
    Setup(0, seat=1, level="intermediate", their_plies=0, seed=1001, jacoby=True, beavers=False, games=2),
]


@pytest.fixture(scope="module")
def results(tmp_path_factory: pytest.TempPathFactory) -> list[Result]:
    return play_all(PLAN, tmp_path_factory.mktemp("gnubg-client"))


def test_gnubg_plays_whole_matches_with_our_socket(results: list[Result]) -> None:
    assert [r.setup for r in results] == PLAN
    for r in results:
        assert r.problems == [], r.line(0)
        games = r.setup.games if not r.setup.length else 1
        assert len(r.ends) >= games and all(e != "unfinished" for e in r.ends)
        assert sum(r.requests.values()) == sum(r.replies.values()) > 0
    matches = [r for r in results if r.setup.length]
    for r in matches:  # the winner reached the length
        points = [int(part.split()[-1]) for part in r.score.split(",")]
        assert max(points) >= r.setup.length


def test_every_kind_of_request_gnubg_sends_was_answered(results: list[Result]) -> None:
    asked: Counter[str] = Counter()
    answered: Counter[str] = Counter()
    for r in results:
        asked.update(r.requests)
        answered.update(r.replies)
    # gnubg asks plays (dances too), cube decisions and takes; never resignations
    assert set(asked) == {"move", "cube", "take"}
    assert answered["move"] and answered["dance"] and answered["roll"] and answered["double"]
    assert answered["take"] + answered["drop"] + answered["beaver"] == asked["take"]
    assert answered["beaver"]  # the money session's beavers were recorded as ours


def test_the_servers_money_rules_are_gnubgs(results: list[Result]) -> None:
    # gnubg as a client sends no session options: with ``set beavers 0`` our server runs with
    # ``--beavers off`` (a beaver would leave gnubg's game waiting: "Beavers are disabled")
    no_beavers = [r for r in results if not r.setup.length and not r.setup.beavers]
    assert no_beavers and all(r.requests["take"] and not r.replies["beaver"] for r in no_beavers)


def _fake_external(reply: bytes) -> tuple[socket.socket, threading.Thread]:
    """An external player that answers every play request with ``reply`` (and rolls, takes)."""
    listener = socket.create_server(("127.0.0.1", 0))

    def serve() -> None:
        try:
            conn, _ = listener.accept()
        except OSError:
            return
        buffer = b""
        with conn:
            while chunk := conn.recv(4096):
                buffer += chunk.replace(b"\0", b"")
                while b"\n" in buffer:
                    line, buffer = buffer.split(b"\n", 1)
                    tokens = [int(t) for t in line.split(b" ")[0].split(b":")[3:]]
                    conn.sendall(reply + b"\n" if tokens[30] else b"take\n" if tokens[37] else b"roll\n")

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    return listener, thread


def test_a_reply_gnubg_does_not_follow_is_caught(tmp_path: Path) -> None:
    # gnubg 1.07 takes an illegal play without a word and records no move: only the record shows it
    listener, _ = _fake_external(b"24/1")
    try:
        result = play(Setup(1, seat=0, level="expert", their_plies=0, seed=5), listener.getsockname()[1],
                      tmp_path, timeout_s=60)
    finally:
        listener.close()
    assert result.problems, result.line(0)
    assert any("record" in p for p in result.problems), result.problems



def test_a_beaver_gnubg_does_not_allow_is_caught(tmp_path: Path) -> None:
    # our server left at ``--beavers on`` while gnubg plays ``set beavers 0``: gnubg prints
    # "Beavers are disabled (see `help set beavers')." and its game waits for a take that never comes
    proc, port, _ = start_ours("intermediate")
    try:
        setup = Setup(0, seat=1, level="intermediate", their_plies=0, seed=1001, jacoby=True, beavers=False, games=2)
        result = play(setup, port, tmp_path, timeout_s=60)
    finally:
        proc.terminate()
        proc.wait(10)
    assert result.replies["beaver"]
    assert any("Beavers are disabled" in p for p in result.problems), result.problems
    assert any("unfinished" in p for p in result.problems), result.problems
