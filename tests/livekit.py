"""A real ``fibsbot run`` subprocess against the local server and a scripted sparring
partner, to be killed with SIGKILL and restarted: the harness the kill -9 tests share.

``async with LiveMatch(tmp_path, length, seed, store=url) as live:`` starts the server
and the partner (who challenges us, never doubles until told, and hangs in its move
decisions on demand); ``await live.start()`` starts our bot, ``await live.kill(proc)``
kills it while the partner thinks (so every line it missed the server repeats) and
starts it again.
"""

from __future__ import annotations

import asyncio
import os
import pathlib
import sys
import time
from collections.abc import Callable
from types import TracebackType
from typing import IO

import yaml

from bot.player import Challenge, Player
from bot.run import close_transcript, transcript_logger
from bot.server import FibsServer
from bot.session import Session
from engine.records import GameRecord, MatchRecord

from botkit import Cube, FakeDecider, config

ROOT = pathlib.Path(__file__).resolve().parent.parent
HOST = "127.0.0.1"


def normalised(record: MatchRecord, us: int) -> list[tuple[tuple[int, int], list[tuple[object, ...]]]]:
    """Each game's score and actions with player ``us`` as 1 (the two records see each other swapped)."""
    def who(player: int) -> int:
        return 1 if player == us else 0
    games: list[tuple[tuple[int, int], list[tuple[object, ...]]]] = []
    for game in record.games:
        score = game.score if us == 1 else (game.score[1], game.score[0])
        games.append((score, [(type(a).__name__, who(a.player), getattr(a, "dice", None),
                               str(getattr(a, "move", "")), getattr(a, "value", None)) for a in game.actions]))
    return games


class LiveMatch:
    """The local server, our bot's config file, and the sparring partner's session."""

    def __init__(self, tmp: pathlib.Path, length: int, seed: int, store: str | None = None) -> None:
        self.tmp, self.length, self.seed, self.store = tmp, length, seed, store
        self.decider = FakeDecider(forced={"cube": Cube(False, True)}, hang_s=0.5)  # no doubles until wanted
        self.records = tmp / "us" / "records"
        self.log_path = tmp / "bot.log"

    async def __aenter__(self) -> LiveMatch:
        self.server = FibsServer(HOST, 0, db_path=self.tmp / "server.db", seed=self.seed, auto_register=True,
                                 scrypt_n=2**10)
        await self.server.__aenter__()
        ours = config(self.tmp / "us", server={"host": HOST, "port": self.server.port},
                      engine={"level": "beginner"}, connection={"backoff_min_s": 0.1, "backoff_max_s": 0.5},
                      invitations={"max_length": self.length, "max_saved": None},
                      play={"greeting": "", "goodbye": ""})
        data = ours.model_dump(mode="json")
        if self.store is not None:
            data["store"] = self.store
        self.config_file = self.tmp / "bot.yaml"
        self.config_file.write_text(yaml.safe_dump(data))
        theirs = config(self.tmp / "them", account={"user": "sparring"}, play={"greeting": "", "goodbye": ""},
                        connection={"backoff_min_s": 0.1, "backoff_max_s": 0.5})
        self.sparring = Player(theirs, self.decider, challenge=Challenge("GnuBot", self.length, 1, retry_s=0.5))  # type: ignore[arg-type]
        self.session = Session(theirs, "sparring", "sparring-pw", self.sparring, host=HOST, port=self.server.port,
                               transcript=transcript_logger(theirs, "sparring"))
        self.sparring.attach(self.session)
        self.task = asyncio.create_task(self.session.run())
        self.log: IO[bytes] = open(self.log_path, "ab")
        self.proc: asyncio.subprocess.Process | None = None
        return self

    async def __aexit__(self, kind: type[BaseException] | None, error: BaseException | None,
                        trace: TracebackType | None) -> None:
        if self.proc is not None and self.proc.returncode is None:
            self.proc.kill()
            await self.proc.wait()
        self.log.close()
        self.session.close()
        self.task.cancel()
        await asyncio.gather(self.task, return_exceptions=True)
        await self.sparring.close()
        close_transcript(self.session.transcript)
        await self.server.__aexit__(kind, error, trace)

    async def start(self) -> asyncio.subprocess.Process:
        """Our bot, ``fibsbot run`` in a subprocess."""
        env = {**os.environ, "FIBSBOT_PASSWORD": "our-pw", "PYTHONPATH": str(ROOT)}
        self.proc = await asyncio.create_subprocess_exec(
            sys.executable, "-m", "bot.cli", "run", str(self.config_file), "--log-level", "INFO",
            cwd=self.tmp, env=env, stdout=self.log, stderr=self.log)
        return self.proc

    def games(self) -> list[GameRecord]:
        """The games of the partner's record so far."""
        m = self.sparring.match
        return list(m.recorder.record.games) if m is not None and m.recorder is not None else []

    def played(self) -> int:
        return sum(len(g.actions) for g in self.games())

    async def until(self, condition: Callable[[], bool], what: str, *, in_match: bool = True) -> None:
        deadline = time.monotonic() + 120
        while not condition():
            assert not (in_match and self.sparring.results), f"the match ended before {what}"
            assert time.monotonic() < deadline, f"timed out waiting for {what}"
            await asyncio.sleep(0.002)

    async def kill(self) -> asyncio.subprocess.Process:
        """Kill us while the partner decides its move: nothing of ours is in flight then,
        so every line we missed the server repeats (or has not happened); start us again."""
        assert self.proc is not None
        calls = len(self.decider.calls)
        self.decider.hang = {"move"}
        await self.until(lambda: "move" in self.decider.calls[calls:], "the opponent's move decision")
        self.proc.kill()
        await self.proc.wait()
        self.decider.hang = set()
        return await self.start()

    async def finish(self) -> None:
        """Wait for the match's result, and for our bot to see the match end."""
        await asyncio.wait_for(self.sparring.new_result() if not self.sparring.results else asyncio.sleep(0), 300)
        await self.until(lambda: not list(self.records.glob("*.journal")), "our bot to see the match end",
                         in_match=False)
