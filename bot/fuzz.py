"""A state-machine fuzzer: real match dialogues, mutated, into the real Session and Player.

``python -m bot.fuzz --sessions N --seed S`` replays the dialogues in
``bot/corpus/dialogues`` (what our bot received in local matches, drops
included; shipped in the wheel) through :class:`bot.session.Session` and :class:`bot.player.Player`
over a scripted connection, with mutations: lines dropped, duplicated, swapped
or glued together, fields corrupted, impossible boards (16 checkers, negative
counts, dice 0/7, a score at the length, another length), 64 KiB lines,
random bytes, real server lines of other dialogues (``bot/corpus/fibs-lines``)
and dropped connections. After every line it checks that

- the session still runs (only a refused login may end it),
- nothing failed unexpectedly (the supervisor logged no exception),
- every command sent is well-formed,
- no move was sent that is illegal on the last valid board we received,
- the running record only grows,

and at the end of a session that every record's journal replays to the record.
It prints the sessions run and the violations; exit status 1 if there are any.
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import random
import re
import sys
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from bot import clip, fibsboard
from bot.config import BotConfig, load
from bot.fibsboard import FibsBoard
from bot.journal import replay
from bot.player import Player
from bot.session import LoginFailed, Reader, Session, Writer
from engine.errors import BoardParseError, IllegalMoveError
from engine.levels import Level, Think
from engine.match import MatchState
from engine.position import Move, Position, Step
from engine.records import load_sgf

DATA = Path(__file__).resolve().parent / "corpus"
"""The corpus shipped as package data: ``dialogues/`` and ``fibs-lines/``."""
USER = "GnuBot"

_COMMAND = re.compile(
    r"move(?: (?:bar|\d{1,2})-(?:off|\d{1,2})){1,4}|roll|double|accept|reject|resign [ngb]|board|leave|back|bye"
    r"|join(?: [!-~]{1,30})?|invite [!-~]{1,30}(?: (?:\d{1,3}|unlimited))?|tell [!-~]{1,30} [ -~]{1,500}"
    r"|kibitz [ -~]{1,500}|rawwho [!-~]{1,30}|show saved|show savedcount [!-~]{1,30}|toggle [a-z]{1,12}"
    r"|set boardstyle 3|address [!-~]{1,100}|login [!-~]{1,20} 1008 [!-~]{1,30} [!-~]{1,100}")


# -- the dialogues and their mutations ---------------------------------------------------------


def load_dialogues(folder: Path) -> list[list[str]]:
    """Each file's lines; ``-- disconnected`` marks a dropped connection."""
    return [path.read_text(encoding="utf-8").splitlines() for path in sorted(folder.glob("*.txt"))]


def server_lines(folder: Path) -> list[str]:
    """Real server lines of other dialogues (comments and blank lines left out)."""
    return [line for path in sorted(folder.glob("*.txt"))
            for line in path.read_text(encoding="utf-8").splitlines() if line and not line.startswith("#")]


def _impossible(rng: random.Random, line: str) -> str:
    tokens = line.split(":")
    kind = rng.randrange(6)
    if kind == 0:  # a 16th checker (or a 14th) on a point
        point = rng.randrange(7, 31)
        tokens[point] = str(int(tokens[point]) + rng.choice((-1, 1)))
    elif kind == 1:
        tokens[rng.randrange(45, 49)] = str(-rng.randrange(1, 16))
    elif kind == 2:
        tokens[rng.choice((33, 34, 35, 36))] = rng.choice(("0", "7", "9", "-1"))
    elif kind == 3:
        tokens[rng.choice((4, 5))] = str(int(tokens[3]) + rng.randrange(0, 3))
    elif kind == 4:
        tokens[3] = str(rng.choice((1, 2, 3, 5, 7, 9999)))  # another length: possible, the board is the truth
    else:
        tokens[rng.randrange(1, len(tokens))] = rng.choice(("", "x", "-0", "99999999999", "1.5"))
    return ":".join(tokens)


def _corrupt(rng: random.Random, line: str) -> str:
    chars = list(line)
    for _ in range(rng.randint(1, 3)):
        i = rng.randrange(len(chars) + 1)
        op = rng.randrange(3)
        if op == 0 and chars:
            del chars[min(i, len(chars) - 1)]
        elif op == 1:
            chars.insert(i, rng.choice(":-. 0123456789*'\x07\t" + "abcXYZ"))
        elif chars:
            chars[min(i, len(chars) - 1)] = chr(rng.randrange(32, 127))
    return "".join(chars)


def _long_line(rng: random.Random, line: str) -> bytes:
    size = 1 << 16
    kind = rng.randrange(3)
    if kind == 0 and line.startswith("board:"):
        return (line[:-1] + "1" * size + "12 bob hi").encode()
    if kind == 1:
        return ((line + "0") * (size // (len(line) + 1) + 1)).encode()[:size]
    return bytes(rng.randrange(32, 127) for _ in range(size))


def mutate(rng: random.Random, lines: list[str], extra: list[str], rate: float) -> list[bytes | None]:
    """The chunks a session receives; None is a dropped connection."""
    out: list[bytes | None] = []
    i = 0
    while i < len(lines):
        line = lines[i]
        i += 1
        if line.startswith("-- "):
            if line.startswith("-- disconnected"):
                out.append(None)
            continue
        end = b"\r\n"
        r = rng.random() / rate if rate else 1.0
        if r < 0.1:
            continue  # dropped
        if r < 0.2:
            out.append(line.encode() + end)  # duplicated
        elif r < 0.3 and i < len(lines) and not lines[i].startswith("-- "):
            line, lines = lines[i], lines[:i] + [line] + lines[i + 1:]  # swapped with the next
        elif r < 0.45:
            line = _corrupt(rng, line) if not line.startswith("board:") else _impossible(rng, line)
        elif r < 0.6 and line.startswith("board:"):
            line = _impossible(rng, line)
        elif r < 0.7:
            end = b""  # glued to the next
        elif r < 0.75:
            out.append(_long_line(rng, line) + rng.choice((b"\r\n", b"")))
        elif r < 0.85:
            out.append(bytes(rng.randrange(256) for _ in range(rng.randrange(1, 200))))
        elif r < 1.0:
            out.append(rng.choice(extra).encode() + rng.choice((b"\r\n", b"\n", b"\r")))
        out.append(line.encode() + end)
    return out


# -- the harness -------------------------------------------------------------------------------------


@dataclass(frozen=True)
class _Choice:
    move: Move


@dataclass(frozen=True)
class _Cube:
    should_double: bool
    should_take: bool


class FuzzDecider:
    """Quick, seeded decisions; now and then a move that is not legal (the player must catch it)."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng

    def best_move(self, position: Position, dice: tuple[int, int], match: MatchState | None = None,
                  level: str | Level | Think = "expert") -> _Choice:
        if self.rng.random() < 0.05:  # any forward step, legal or not
            src = self.rng.randrange(1, 26)
            return _Choice(Move([Step(src, max(0, src - self.rng.randrange(1, 7)))]))
        return _Choice(self.rng.choice(position.legal_moves(*dice)))

    def cube_decision(self, position: Position, match: MatchState | None = None,
                      level: str | Level | Think = "expert") -> _Cube:
        return _Cube(self.rng.random() < 0.1, self.rng.random() < 0.8)

    def resign_offer(self, position: Position, match: MatchState | None = None, level: str | Level | Think = "expert",
                     declined: int = 0) -> int:
        return 0

    def accept_resignation(self, position: Position, match: MatchState | None, level: str | Level | Think,
                           value: int) -> bool:
        return self.rng.random() < 0.5


class _Unexpected(logging.Handler):
    """Counts what the supervisor caught: every logged exception is a bug to fix."""

    def __init__(self) -> None:
        super().__init__(logging.ERROR)
        self.caught: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        if record.exc_info:
            self.caught.append(f"{record.getMessage()[:200]}: {record.exc_info[1]!r}"[:400])


class _Script(Reader, Writer):
    """The scripted connection: hands out one chunk per read and checks the invariants
    before the next (the previous chunk has been handled and the decisions are done)."""

    def __init__(self, run: _SessionRun, chunks: list[bytes | None]) -> None:
        self.run = run
        self.chunks = chunks
        self.closed = False

    async def read(self, n: int) -> bytes:
        await self.run.check()
        if self.closed or not self.chunks:
            self.run.done.set()
            await asyncio.Event().wait()  # the dialogue is over: the session waits (it is stopped from outside)
        chunk = self.chunks.pop(0)
        if chunk is None:
            return b""  # a dropped connection: the session reconnects
        self.run.feed(chunk)
        return chunk

    def write(self, data: bytes) -> None:
        self.run.sent(data)

    def close(self) -> None:
        self.closed = True


@dataclass
class _SessionRun:
    player: Player
    violations: list[str]
    unexpected: _Unexpected
    done: asyncio.Event = field(default_factory=asyncio.Event)
    board: FibsBoard | None = None
    _pending: list[str] = field(default_factory=list)
    _lines: clip.LineSplitter = field(default_factory=clip.LineSplitter)
    _record: tuple[int, Path, int] | None = None

    def feed(self, chunk: bytes) -> None:
        """Track the last valid board among the lines received (our own reading, not the player's)."""
        for line in self._lines.feed(chunk):
            for event in clip.parse_all(line):
                if isinstance(event, clip.Board):
                    try:
                        board = fibsboard.parse(event.line)
                        fibsboard.check_in_play(board)
                    except BoardParseError:
                        continue
                    if board.player == "You":
                        self.board = board

    def sent(self, data: bytes) -> None:
        for command in data.decode("ascii", "replace").split("\r\n")[:-1]:
            self._pending.append(command)

    async def check(self) -> None:
        try:
            await asyncio.wait_for(self.player.settle(ledger=False), 30)
        except TimeoutError:
            self.violations.append("a decision did not finish in 30 s")
        commands_sent, self._pending = self._pending, []
        for command in commands_sent:
            if not _COMMAND.fullmatch(command):
                self.violations.append(f"ill-formed command {command!r}")
            elif command.startswith("move ") and not _legal(self.board, command):
                self.violations.append(f"move {command!r} is not legal on the last valid board "
                                       f"{self.board.format() if self.board else None}")
        while self.unexpected.caught:
            self.violations.append(f"unexpected failure: {self.unexpected.caught.pop(0)}")
        self._record_grows()

    def _record_grows(self) -> None:
        """A record only grows: nothing it accepted is lost (a new part or match starts afresh)."""
        m = self.player.match
        recorder = m.recorder if m is not None else None
        if recorder is None:
            return
        size = (id(recorder), recorder.path, sum(len(g.actions) for g in recorder.record.games))
        if self._record is not None and size[:2] == self._record[:2] and size[2] < self._record[2]:
            self.violations.append(f"record {recorder.path.name} lost actions ({self._record[2]} -> {size[2]})")
        self._record = size


def _legal(board: FibsBoard | None, command: str) -> bool:
    if board is None or not board.player_on_turn or board.dice is None:
        return False
    try:
        return any(fibsboard.move_command(board, m) == command for m in board.position.legal_moves(*board.dice))
    except IllegalMoveError:
        return False


def _config(folder: Path) -> BotConfig:
    data = load().model_dump()
    data["account"]["user"] = USER
    data["records"].update(dir=str(folder / "records"), transcript=str(folder / "transcript.log"),
                           ledger=str(folder / "ledger.jsonl"))
    data["connection"].update(backoff_min_s=0.001, backoff_max_s=0.001, silence_s=3600.0, keepalive_s=3600.0)
    data["invitations"].update(screen_timeout_s=0.001)
    data["engine"].update(think_time_s=[0.0, 0.0])
    return BotConfig.model_validate(data)


async def fuzz_session(dialogue: list[str], extra: list[str], rng: random.Random, folder: Path,
                       unexpected: _Unexpected, *, rate: float = 0.1, window: int = 200) -> list[str]:
    """One mutated session over a window of ``dialogue`` (its login first); the violations."""
    login = next((i for i, line in enumerate(dialogue) if line.startswith("2 " + USER)), 0) + 1
    start = rng.randrange(login, max(login + 1, len(dialogue) - window))
    lines = dialogue[:login] + dialogue[start:start + window]
    chunks = mutate(rng, lines, extra, rate)
    cfg = _config(folder)
    player = Player(cfg, FuzzDecider(rng), rng=rng)
    violations: list[str] = []
    run = _SessionRun(player, violations, unexpected)
    scripts = [chunks]

    async def opener() -> tuple[Reader, Writer]:
        script = _Script(run, scripts[0])
        return script, script

    transcript = logging.Logger("fibsbot.fuzz.transcript")
    transcript.disabled = True
    session = Session(cfg, USER, "secret", player, opener=opener, transcript=transcript, rng=rng)
    player.attach(session)
    task = asyncio.create_task(session.run())
    finished = asyncio.create_task(run.done.wait())
    await asyncio.wait([task, finished], return_when=asyncio.FIRST_COMPLETED)
    if task.done():
        exc = task.exception() if not task.cancelled() else None
        if exc is not None and not isinstance(exc, LoginFailed):
            violations.append(f"the session ended: {exc!r}")
    task.cancel()
    finished.cancel()
    await asyncio.gather(task, finished, return_exceptions=True)
    await player.close()
    violations += _records_consistent(cfg.records.dir)
    return violations


def _records_consistent(folder: Path) -> list[str]:
    """Every journal replays to the record beside it (when the record file exists too)."""
    problems = []
    for journal in folder.glob("*.journal"):
        try:
            record, _ = replay(journal)
        except (ValueError, OSError) as exc:
            problems.append(f"journal {journal.name} does not replay: {exc}")
            continue
        sgf = journal.with_suffix(".sgf")
        if sgf.exists():
            written = load_sgf(sgf)
            finished = [g for g in record.games if g.result is not None]
            if len(written.games) > len(record.games) or any(
                    a.actions != b.actions for a, b in zip(written.games, finished, strict=False)):  # a prefix
                problems.append(f"journal {journal.name} disagrees with {sgf.name}")
    return problems


@dataclass
class Report:
    sessions: int = 0
    violations: list[str] = field(default_factory=list)


async def fuzz(sessions: int, seed: int, *, data: Path = DATA, window: int = 200) -> Report:
    dialogues = load_dialogues(data / "dialogues")
    extra = server_lines(data / "fibs-lines")
    rng = random.Random(seed)
    unexpected = _Unexpected()
    bot_log = logging.getLogger("bot")
    level, propagate = bot_log.level, bot_log.propagate
    bot_log.addHandler(unexpected)
    bot_log.setLevel(logging.ERROR)  # the bot logs every oddity it meets; only failures count here
    bot_log.propagate = False
    report = Report()
    shm = Path("/dev/shm")
    try:
        for number in range(sessions):
            with tempfile.TemporaryDirectory(prefix="fibsbot-fuzz-", dir=shm if shm.is_dir() else None) as tmp:
                found = await fuzz_session(rng.choice(dialogues), extra, random.Random(rng.random()), Path(tmp),
                                           unexpected, window=window)
            report.sessions += 1
            report.violations += [f"session {number}: {v}" for v in found]
    finally:
        bot_log.removeHandler(unexpected)
        bot_log.setLevel(level)
        bot_log.propagate = propagate
    return report


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bot.fuzz", description=__doc__.split("\n\n")[0])
    parser.add_argument("--sessions", type=int, default=100)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--window", type=int, default=200, help="dialogue lines per session after the login")
    parser.add_argument("--data", type=Path, default=DATA, help="folder with dialogues/ and fibs-lines/")
    args = parser.parse_args(argv)
    report = asyncio.run(fuzz(args.sessions, args.seed, data=args.data, window=args.window))
    for violation in report.violations[:50]:
        print(violation)
    print(f"{report.sessions} sessions, {len(report.violations)} violations")
    return 1 if report.violations else 0


if __name__ == "__main__":
    sys.exit(main())
