"""Our external-player socket against Debian's gnubg ``external``, the same requests.

Both servers run on loopback: gnubg started with ``-t``, fed its ``set
evaluation`` commands and ``external localhost:PORT`` on stdin; ours is
``ExternalServer`` with Debian's weights (:mod:`bot.serve.emulation`) and the
``gnubg-1.07`` flavour. The requests (tests/data/serve_external_lines.txt) are
board lines from real games and from seeded games of the engine (money and
match, Crawford and post-Crawford, cube offered, resignations offered, dances,
bear-offs), ``evaluation fibsboard`` requests and protocol lines. Every reply
must be equal, except that gnubg 1.07's evaluation is not ours to the bit: an
evaluation's six numbers are within 0.002, and 95% of them (all but one at
least) within 2e-4 (2e-3 with ``plies`` above 0; some contact and race
positions differ more); and at most 1% of the decisions (at least one) may differ where our own evaluation
scores gnubg's play as ours (a tie: certain losses where gnubg's race net
differs from ours in the last bits) or within 0.01 of it (cube equities
within 0.03 of each other).
"""

from __future__ import annotations

import asyncio
import pathlib
import socket
import subprocess
import threading
from collections.abc import Iterator

import pytest

from bot.serve import decide, protocol
from bot.serve.emulation import DEBIAN_WEIGHTS, gnubg107_data_dir
from bot.serve.external import ExternalServer
from bot.serve.pool import Pool
from engine import Engine, Position
from engine.bench.serve_lines import GNUBG, GnubgExternal
from engine.levels import level

from botkit import free_port

DATA = pathlib.Path(__file__).parent / "data" / "serve_external_lines.txt"
POSITIONS = DATA.parent / "serve_gnubg_positions.txt"
pytestmark = pytest.mark.skipif(not pathlib.Path(GNUBG).exists() or not DEBIAN_WEIGHTS.exists(),
                                reason="Debian's gnubg is not installed (apt-get install gnubg)")


def requests(world_class: bool) -> list[str]:
    out = []
    for raw in DATA.read_text().splitlines():
        if raw.startswith("#"):
            continue
        wc = raw.startswith("@wc ")
        line = raw[4:] if wc else raw
        line = "" if line.startswith("@raw") else line
        if wc or not world_class:
            out.append(line)
    return out


class OurServer:
    """ExternalServer on a loop in a thread, and one client connection to it."""

    def __init__(self, engine: Engine, settings: decide.ServerSettings) -> None:
        self.loop = asyncio.new_event_loop()
        self.port = free_port()
        self.server = ExternalServer(engine, settings, Pool(2))
        started = threading.Event()

        def main() -> None:
            asyncio.set_event_loop(self.loop)
            self.loop.run_until_complete(self.server.start(f"127.0.0.1:{self.port}"))
            started.set()
            self.loop.run_forever()
        self.thread = threading.Thread(target=main, daemon=True)
        self.thread.start()
        started.wait(10)
        self.sock = socket.create_connection(("127.0.0.1", self.port), timeout=60)
        self.reader = self.sock.makefile("rb")

    def ask(self, line: str) -> str:
        self.sock.sendall(line.encode() + b"\n")
        return self.reader.readline().decode().rstrip("\n")

    def close(self) -> None:
        self.sock.close()
        asyncio.run_coroutine_threadsafe(shutdown(self.server), self.loop).result(10)
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(10)


async def shutdown(server: ExternalServer) -> None:
    """Stops listening and ends the connections' tasks."""
    assert server.server is not None
    server.server.close()
    tasks = [t for t in asyncio.all_tasks() if t is not asyncio.current_task()]
    for task in tasks:
        task.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)


@pytest.fixture(scope="module")
def engine(tmp_path_factory: pytest.TempPathFactory) -> Engine:
    return Engine(gnubg107_data_dir(DEBIAN_WEIGHTS, tmp_path_factory.mktemp("weights")), verify=False)


def _near_tie(engine: Engine, line: str, ours: str, theirs: str, lv: str) -> str:
    """How our engine sees gnubg's different answer: "tie" (a play as good as ours, to
    1e-6), "near" (a play within 0.01, or cube equities within 0.03 of each other) or ""."""
    request = protocol.parse(line)
    assert isinstance(request, protocol.BoardRequest)
    settings = decide.ServerSettings(level=level(lv, "gnubg-1.07"))
    s = decide.situation(request.board, request.session, settings)
    if s.dice is not None and not s.doubled and not request.session.resignation:
        pairs = [p.rstrip("*").split("/") for p in theirs.split()]
        mover, opp = list(s.position.board[1]), list(s.position.board[0])
        for src, dst in pairs:
            moved = decide._step(mover, opp, int(src), int(src) - int(dst) if int(dst) else max(
                d for d in s.dice if int(src) - d <= 0))
            if moved is None:
                return ""
            mover, opp = moved
        d = engine.best_move(s.position, s.dice, s.match, settings.level, max_candidates=1000)
        best = d.candidates[0].equity
        after = (tuple(mover), tuple(opp))  # both rows: a play that hits more is another play
        gap = min((best - c.equity for c in d.candidates
                   if (tuple(c.position.board[1]), tuple(c.position.board[0])) == after), default=1.0)
        return "tie" if gap <= 1e-6 else "near" if gap < 0.01 else ""
    if request.session.resignation:
        return ""
    c = engine.cube_decision(s.position, s.match, settings.level)
    nd, dt, dp = c.equities
    return "near" if min(abs(nd - dt), abs(nd - dp), abs(dt - dp)) < 0.03 else ""


def compare(engine: Engine, lv: str, lines: list[str]) -> Iterator[str]:
    """Each difference as text; the caller asserts on them."""
    settings = decide.ServerSettings(level=level(lv, "gnubg-1.07"))
    gnubg = GnubgExternal(free_port(), lv)
    ours = OurServer(engine, settings)
    decisions = ties = evaluations = loose = 0
    try:
        for line in lines:
            theirs, mine = gnubg.ask(line), ours.ask(line)
            if line.strip().lower() in ("version",):
                theirs = "\n".join([theirs] + [gnubg.reader.readline().decode().rstrip("\n") for _ in range(3)])
                mine = "\n".join([mine] + [ours.reader.readline().decode().rstrip("\n") for _ in range(3)])
            if line.lower().startswith("evaluation") and not theirs.startswith("Error"):
                a, b = theirs.split(), mine.split()
                if len(a) != 6 or len(b) != 6:
                    yield f"{lv}: {line!r}: gnubg {theirs!r}, ours {mine!r}"
                    continue
                gap = max(abs(float(x) - float(y)) for x, y in zip(a, b, strict=True))
                evaluations += 1
                loose += gap > (2e-4 if " plies " not in line.lower() else 2e-3)
                if gap > 0.002:
                    yield f"{lv}: {line!r}: gnubg {theirs!r}, ours {mine!r}"
                continue
            if line.startswith("board:") and not theirs.startswith("Error"):
                decisions += 1
                if theirs != mine and not mine.startswith("Error"):
                    kind = _near_tie(engine, line, mine, theirs, lv)
                    ties += 1
                    if kind:
                        continue
                    yield f"{lv}: {line!r}: gnubg {theirs!r}, ours {mine!r} (not a near tie)"
                continue
            if theirs != mine:
                yield f"{lv}: {line!r}: gnubg {theirs!r}, ours {mine!r}"
        if ties > max(1.0, 0.01 * decisions):
            yield f"{lv}: {ties} of {decisions} decisions differ (ties and near ties), more than 1%"
        if loose > max(1.0, 0.05 * evaluations):
            yield f"{lv}: {loose} of {evaluations} evaluations differ by more than 2e-4, more than 5%"
    finally:
        ours.close()
        gnubg.close()


def test_requests_answered_as_gnubg_at_expert(engine: Engine) -> None:
    lines = requests(world_class=False)
    assert sum(1 for line in lines if line.startswith("board:")) >= 300
    assert list(compare(engine, "expert", lines)) == []


def test_requests_answered_as_gnubg_at_world_class(engine: Engine) -> None:
    lines = requests(world_class=True)
    kinds = {"move": 0, "cube": 0, "take": 0, "resign": 0, "eval": 0}
    for line in lines:
        if line.startswith("evaluation"):
            kinds["eval"] += 1
        elif "resignation" in line:
            kinds["resign"] += 1
        elif line.startswith("board:"):
            t = [int(v) for v in line.split()[0].split(":")[3:]]
            kinds["take" if t[37] or not (t[35] or t[36]) else "move" if any(t[30:34]) else "cube"] += 1
    assert all(n >= 3 for n in kinds.values()), kinds
    assert list(compare(engine, "world class", lines)) == []


def gnubg_static(ids: list[str]) -> list[list[float]]:
    """gnubg's 0-ply probabilities (``eval``'s static line) of each position ID."""
    commands = ["set output digits 6", "new game"] + [c for i in ids for c in (f"set board {i}", "eval")]
    out = subprocess.run([GNUBG, "-t", "-q"], input="\n".join(commands) + "\n", capture_output=True,
                         text=True, timeout=300, check=True).stdout
    return [[float(v) for v in line.split()[1:6]] for line in out.splitlines() if line.startswith("static:")]


def test_evaluations_as_gnubg_at_0_ply(engine: Engine) -> None:
    """0-ply evaluations equal gnubg 1.07's to 2e-4 (95% of them) and 2e-3 (all), among them
    positions where 1.07's hitting input differs from 1.08's."""
    ids = [i for i in POSITIONS.read_text().splitlines() if i and not i.startswith("#")]
    theirs = gnubg_static(ids)
    assert len(theirs) == len(ids) >= 200
    gaps = sorted((max(abs(a - b) for a, b in zip(engine.evaluate(Position.from_position_id(i)), g,
                                                    strict=True)), i) for i, g in zip(ids, theirs, strict=True))
    assert gaps[-1][0] <= 2e-3, gaps[-5:]
    assert sum(gap > 2e-4 for gap, _ in gaps) <= 0.05 * len(gaps), gaps[-20:]
