"""``python -m engine.bench gnubg-client``: Debian's gnubg plays whole matches with our socket as its brain.

gnubg 1.07 is a third-party client of the external-player protocol: ``set
player N external HOST:PORT`` makes it connect to a socket and ask it for
every decision of player N. Here it connects, through a logging proxy, to
``fibsbot serve --external`` (a subprocess, one per level and money rules) and plays seeded
held-out setups against its own player at 0 or 2 plies: matches of 1 to 11
points, our side as player 0 or 1, our level Expert, World class or a noisy
one, and money sessions (``set automatic game off``, ``new session``, ``new
game``) with the Jacoby rule on or off and beavers allowed or not, gnubg's dice
seeded (``set rng mersenne``, ``set seed N``). Each run has a watchdog.

Found by experiment with gnubg 1.07 as the client (``gnubg -t -q``):

- It connects when ``set player N external`` is given and sends one request
  per decision: ``board:...`` (52 tokens), an LF and a NUL byte, then waits for
  one reply line. It sends nothing else (no ``version``, no options).
- The board is from the deciding side's view (you = the side to decide) for
  either seat; the two names are its players' (player 0, player 1: ``gnubg``
  and the login name) in that order whichever seat decides, swapped for a take
  decision. No session options follow the board, so ``fibsbot serve`` must run
  with gnubg's money rules (``--jacoby``, ``--beavers``): a ``beaver`` after
  ``set beavers 0`` is refused ("Beavers are disabled (see `help set
  beavers')."; in a match: "Beavers and Raccoons are not permitted during match
  play.") and the game waits for an answer that never comes.
- A move request carries the dice in the "you" tokens; it is also sent when
  there is no legal play (we answer the empty line and gnubg records the dance).
- Before each of our rolls with the cube available to us it sends the board
  without dice (``double``/``roll``); after the other side doubles, the board
  with the doubled token set, turn = the doubler (``take``/``drop``/``beaver``;
  after a beaver and the other side's raccoon, the same again at the higher cube).
- Resignations never reach the socket: gnubg answers a resignation its own
  player offers to the external one itself (``root declines the single
  game``), and never asks the external player whether to resign.
- Its output names the players ``gnubg`` (player 0) and the login name
  (player 1) whoever plays them, and prints its own player's plays only.
- Other replies it cannot use are not reported: an unknown word or ``roll`` to
  a move request crashes gnubg 1.07 (exit 139); an illegal play such as
  ``24/1`` is taken without a word and recorded as no move (the record then
  does not load); ``accept`` to a take request is read as a take. So each run
  is checked against the record gnubg saves: every play and cube action of our
  side in the ``.sgf`` (read back by :mod:`engine.records`) must be the reply
  our socket gave, in order; gnubg must exit 0, print no complaint or refusal
  and finish the match (``has won the match``) or every game of the session;
  every request must get one reply of the kind it asks for.
"""

from __future__ import annotations

import argparse
import random
import socket
import subprocess
import tempfile
import threading
import time
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from engine.bench.serve import start_ours
from engine.records import Beaver, Double, Drop, Roll, Take, load_sgf
from engine.records.validate import complaints, gnubg_program

LENGTHS = (1, 3, 5, 7, 11)
LEVELS = ("expert", "world class", "intermediate")
SEED = 31  # the tests use others
# what gnubg 1.07 prints when it refuses a reply (the game then waits for an answer that never comes)
REFUSALS = ("not permitted", "are disabled", "not allowed", "illegal", "invalid", "unknown", "error")
MOVE_KINDS = {"move": ("move", "dance"), "cube": ("double", "roll"), "take": ("take", "drop", "beaver"),
              "resign": ("accept", "reject"), "other": ()}


@dataclass(frozen=True)
class Setup:
    """One run: a match (``length`` points) or a money session (``length`` 0, ``games`` games)."""

    length: int
    seat: int  # gnubg's player number our socket plays
    level: str  # ours
    their_plies: int  # gnubg's own player, chequer play and cube
    seed: int  # gnubg's dice
    jacoby: bool = True
    beavers: bool = True
    games: int = 1

    def text(self) -> str:
        what = f"{self.length}-point match" if self.length else (
            f"money x{self.games} (jacoby {'on' if self.jacoby else 'off'}, beavers {'on' if self.beavers else 'off'})")
        return f"{what}, ours player {self.seat} at {self.level}, gnubg {self.their_plies}-ply, dice seed {self.seed}"


def setups(seed: int, count: int, level: str | None = None) -> list[Setup]:
    """``count`` seeded setups: both seats, every length and level in turn, every sixth a money session;
    gnubg's player at 0 or 2 plies, its dice seed, the session's rules drawn from ``seed``."""
    rng = random.Random(seed)
    out = []
    for i in range(count):
        seat, ours = (i + i // 6) % 2, level or LEVELS[(i // 2 + i // 6) % len(LEVELS)]
        plies, dice = rng.choice((0, 2)), rng.randrange(1, 10**6)
        if i % 6 == 5:
            out.append(Setup(0, seat, ours, plies, dice, jacoby=rng.random() < 0.5, beavers=rng.random() < 0.5,
                             games=2))
        else:
            out.append(Setup(LENGTHS[(i - i // 6) % len(LENGTHS)], seat, ours, plies, dice))
    return out


def commands(setup: Setup, port: int, sgf: Path) -> list[str]:
    """gnubg's input for ``setup``, its external player on ``port``."""
    them = 1 - setup.seat
    lines = [f"set player {setup.seat} external 127.0.0.1:{port}", f"set player {them} gnubg"]
    for part in ("chequerplay", "cubedecision"):
        lines.append(f"set player {them} {part} evaluation plies {setup.their_plies}")
        if setup.their_plies:
            lines.append(f"set player {them} {part} evaluation prune on")
    lines += ["set rng mersenne", f"set seed {setup.seed}"]
    if setup.length:
        lines.append(f"new match {setup.length}")
    else:
        lines += ["set automatic game off", f"set jacoby {'on' if setup.jacoby else 'off'}",
                  f"set beavers {3 if setup.beavers else 0}", "new session"]
        lines += ["new game"] * (setup.games - 1)
    return lines + [f"save match {sgf}"]


class Proxy:
    """A loopback port that forwards one client to our socket, keeping each request line and reply line."""

    def __init__(self, target: int) -> None:
        self.target = target
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.port: int = self.listener.getsockname()[1]
        self.requests: list[str] = []
        self.replies: list[str] = []
        self.nuls = 0
        self.connections = 0
        self.thread = threading.Thread(target=self._serve, daemon=True)
        self.thread.start()

    def _serve(self) -> None:
        try:
            client, _ = self.listener.accept()
        except OSError:
            return
        self.connections += 1
        upstream = socket.create_connection(("127.0.0.1", self.target))
        back = threading.Thread(target=self._pump, args=(upstream, client, self.replies, False), daemon=True)
        back.start()
        self._pump(client, upstream, self.requests, True)
        back.join(5)
        client.close()

    def _pump(self, src: socket.socket, dst: socket.socket, lines: list[str], requests: bool) -> None:
        buffer = b""
        try:
            while chunk := src.recv(4096):
                dst.sendall(chunk)
                if requests:
                    self.nuls += chunk.count(b"\0")
                buffer += chunk.replace(b"\0", b"")
                *done, buffer = buffer.split(b"\n")
                lines.extend(line.decode("latin-1") for line in done)
        except OSError:
            pass
        finally:
            try:
                dst.shutdown(socket.SHUT_WR)
            except OSError:
                pass

    def close(self) -> None:
        self.listener.close()


def request_kind(line: str) -> str:
    """What a board request asks, by gnubg's reading: resign, take, move or cube (other: not a board line)."""
    words = line.split()
    if not words or not words[0].startswith("board:"):
        return "other"
    if "resignation" in (w.lower() for w in words[1:]):
        return "resign"
    try:
        tokens = [int(v) for v in words[0].split(":")[3:]] + [0] * 50
    except ValueError:
        return "other"
    if tokens[37] or not (tokens[35] or tokens[36]):
        return "take"
    return "move" if tokens[30] and tokens[31] else "cube"


def reply_kind(reply: str) -> str:
    word = reply.strip()
    if not word:
        return "dance"
    return "move" if "/" in word else word


def pairs(text: str) -> tuple[tuple[int, int], ...]:
    """A reply's plays as sorted (from, to) pairs; 25 = bar, 0 = off."""
    out = []
    for word in text.split():
        src, dst = word.rstrip("*").split("/")
        out.append((int(src), int(dst)))
    return tuple(sorted(out))


def our_actions_in_record(sgf: Path, seat: int) -> tuple[list[tuple[str, object]], list[str]]:
    """Our side's plays and cube actions in the saved record, in order; and each game's end."""
    record = load_sgf(sgf)
    out: list[tuple[str, object]] = []
    ends = []
    for game in record.games:
        for action in game.actions:
            if action.player != seat:
                continue
            if isinstance(action, Roll):
                out.append(("move", tuple(sorted((s.src, s.dst) for s in action.move.steps))))
            elif isinstance(action, Double | Take | Drop | Beaver):
                out.append((type(action).__name__.lower(), None))
        result = game.result
        ends.append("unfinished" if result is None else
                    f"{'ours' if result.winner == seat else 'gnubg'} +{result.points}"
                    + (" (resigned)" if result.resigned else ""))
    return out, ends


def our_actions_in_replies(replies: Iterable[str]) -> list[tuple[str, object]]:
    out: list[tuple[str, object]] = []
    for reply in replies:
        kind = reply_kind(reply)
        if kind in ("move", "dance"):
            out.append(("move", pairs(reply)))
        elif kind != "roll":
            out.append((kind, None))
    return out


@dataclass
class Result:
    setup: Setup
    seconds: float = 0.0
    problems: list[str] = field(default_factory=list)
    requests: Counter[str] = field(default_factory=Counter)
    replies: Counter[str] = field(default_factory=Counter)
    ends: list[str] = field(default_factory=list)
    score: str = ""

    def line(self, number: int) -> str:
        kinds = ", ".join(f"{k} {n}" for k, n in sorted(self.requests.items()))
        answers = ", ".join(f"{k} {n}" for k, n in sorted(self.replies.items()))
        verdict = "ok" if not self.problems else "FAIL: " + "; ".join(self.problems)
        return (f"#{number:<2} {self.setup.text()}: {verdict}; {len(self.ends)} games, {self.score}; "
                f"{sum(self.requests.values())} requests ({kinds}); replies ({answers}); {self.seconds:.1f} s")


def play(setup: Setup, our_port: int, folder: Path, *, timeout_s: float | None = None) -> Result:
    """Debian's gnubg plays ``setup`` with our socket (on ``our_port``) as one side; the checks in the module's text."""
    program = gnubg_program()
    if program is None:
        raise FileNotFoundError("the gnubg program is not installed (apt-get install -y gnubg)")
    result = Result(setup)
    sgf = folder / f"s{setup.seed}-{setup.length}-{setup.seat}.sgf"
    proxy = Proxy(our_port)
    limit = timeout_s or 60.0 + 40.0 * max(setup.length, 3 * setup.games) * (1 + setup.their_plies)
    start = time.perf_counter()
    try:
        run = subprocess.run([program, "-t", "-q", "-r"], input="\n".join(commands(setup, proxy.port, sgf)) + "\n",
                             cwd=folder, capture_output=True, text=True, timeout=limit)
        output, code = run.stdout + run.stderr, run.returncode
    except subprocess.TimeoutExpired as exc:
        output, code = str(exc.stdout or ""), None
        result.problems.append(f"watchdog: not done in {limit:.0f} s")
    finally:
        result.seconds = time.perf_counter() - start
        proxy.close()
        proxy.thread.join(10)
    check(result, proxy, output, code, sgf)
    return result


def check(result: Result, proxy: Proxy, output: str, code: int | None, sgf: Path) -> None:
    setup = result.setup
    problems = result.problems
    if code not in (0, None):
        problems.append(f"gnubg exit status {code}")
    refused = [line for line in output.splitlines() if any(word in line.lower() for word in REFUSALS)]
    problems += [f"gnubg: {line.strip()}" for line in dict.fromkeys(complaints(output) + refused)]
    if proxy.connections != 1:
        problems.append(f"{proxy.connections} connections to the proxy")
    if len(proxy.replies) != len(proxy.requests):
        problems.append(f"{len(proxy.requests)} requests, {len(proxy.replies)} reply lines")
    if proxy.nuls != len(proxy.requests):
        problems.append(f"{proxy.nuls} NUL bytes for {len(proxy.requests)} requests")
    for request, reply in zip(proxy.requests, proxy.replies, strict=False):
        asked, kind = request_kind(request), reply_kind(reply)
        result.requests[asked] += 1
        result.replies[kind] += 1
        if kind not in MOVE_KINDS[asked]:
            problems.append(f"a {asked} request answered {reply!r}")
    if setup.length and "has won the match" not in output:
        problems.append("the match did not end")
    if not sgf.exists():
        problems.append("no record saved")
        return
    try:
        recorded, result.ends = our_actions_in_record(sgf, setup.seat)
    except Exception as exc:  # a record our reader refuses is a finding, not a crash of the bench
        problems.append(f"the record does not load: {exc}")
        return
    if any(end == "unfinished" for end in result.ends) or len(result.ends) < setup.games:
        problems.append(f"games: {', '.join(result.ends) or 'none'}")
    answered = our_actions_in_replies(proxy.replies)
    if recorded != answered:
        at = next((i for i, (a, b) in enumerate(zip(recorded, answered, strict=False)) if a != b),
                  min(len(recorded), len(answered)))
        problems.append(f"the record's action {at} of ours differs from our reply "
                        f"({recorded[at] if at < len(recorded) else 'none'} != "
                        f"{answered[at] if at < len(answered) else 'none'})")
    ours = sum(int(end.split("+")[1].split()[0]) for end in result.ends if end.startswith("ours"))
    theirs = sum(int(end.split("+")[1].split()[0]) for end in result.ends if end.startswith("gnubg"))
    result.score = f"ours {ours}, gnubg {theirs}"


def server_options(setup: Setup) -> tuple[str, ...]:
    """``fibsbot serve``'s options for ``setup``: gnubg as a client sends no session options, so the
    server's ``--jacoby`` and ``--beavers`` must be gnubg's ``set jacoby`` and ``set beavers``."""
    return (setup.level, "--jacoby", "on" if setup.jacoby else "off", "--beavers", "on" if setup.beavers else "off")


def play_all(plan: list[Setup], folder: Path) -> list[Result]:
    """Each setup in turn, one of our servers per level and money rules (started as ``fibsbot serve`` is)."""
    results: list[Result | None] = [None] * len(plan)
    for options in dict.fromkeys(server_options(s) for s in plan):
        proc, port, _ = start_ours(*options)
        try:
            for i, setup in enumerate(plan):
                if server_options(setup) == options:
                    done = results[i] = play(setup, port, folder)
                    print(done.line(i + 1), flush=True)
        finally:
            proc.terminate()
            proc.wait(10)
    return [r for r in results if r is not None]


def summary(results: list[Result]) -> str:
    requests: Counter[str] = Counter()
    replies: Counter[str] = Counter()
    for r in results:
        requests.update(r.requests)
        replies.update(r.replies)
    failed = [r for r in results if r.problems]
    won = sum(1 for r in results if r.setup.length and r.score and
              int(r.score.split(",")[0].split()[1]) >= r.setup.length)
    matches = sum(1 for r in results if r.setup.length)
    return (f"{len(results)} runs ({matches} matches, {len(results) - matches} money sessions), "
            f"{len(results) - len(failed)} clean, {len(failed)} failed; ours won {won} of {matches} matches; "
            f"{sum(requests.values())} requests ({', '.join(f'{k} {n}' for k, n in sorted(requests.items()))}); "
            f"replies ({', '.join(f'{k} {n}' for k, n in sorted(replies.items()))}); "
            f"{sum(r.seconds for r in results):.0f} s")


def run_gnubg_client(args: argparse.Namespace) -> None:
    count = args.matches or 12
    seed = SEED if args.seed is None else args.seed
    plan = setups(seed, count, args.level or None)
    print(f"Debian gnubg 1.07 as the client, our socket as one side's brain: {count} held-out setups, "
          f"seed {seed}\n")
    with tempfile.TemporaryDirectory() as tmp:
        results = play_all(plan, Path(tmp))
    print("\n" + summary(results))
    if any(r.problems for r in results):
        raise SystemExit(1)
