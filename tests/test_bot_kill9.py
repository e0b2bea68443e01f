"""kill -9 of a real ``fibsbot run`` against the local server, three times in one match
(early in game 1, in the middle of game 2, right after a double), restarted each time:
every game of its final record equals the opponent's record, action for action."""

from __future__ import annotations

import asyncio
import os
import pathlib
import sys
import time
from collections.abc import Callable

import yaml

from bot.player import Challenge, Player
from bot.run import close_transcript, transcript_logger
from bot.server import FibsServer
from bot.session import Session
from engine.records import Double, GameRecord, MatchRecord, load_sgf

from botkit import Cube, FakeDecider, config

ROOT = pathlib.Path(__file__).resolve().parent.parent
HOST = "127.0.0.1"
LENGTH = 11  # long enough that the Crawford rule cannot stop the double after game 2


def normalised(record: MatchRecord, us: int) -> list[tuple[tuple[int, int], list[tuple[object, ...]]]]:
    """Each game's score and actions with player ``us`` as 1 (the two records see each other swapped)."""
    def who(player: int) -> int:
        return 1 if player == us else 0
    games = []
    for game in record.games:
        score = game.score if us == 1 else (game.score[1], game.score[0])
        games.append((score, [(type(a).__name__, who(a.player), getattr(a, "dice", None),
                               str(getattr(a, "move", "")), getattr(a, "value", None)) for a in game.actions]))
    return games


async def test_kill9_at_three_points_keeps_our_record_equal_to_the_opponents(tmp_path: pathlib.Path) -> None:
    async with FibsServer(HOST, 0, db_path=tmp_path / "server.db", seed=11, auto_register=True,
                          scrypt_n=2**10) as server:
        ours = config(tmp_path / "us", server={"host": HOST, "port": server.port}, engine={"level": "beginner"},
                      connection={"backoff_min_s": 0.1, "backoff_max_s": 0.5},
                      invitations={"max_length": LENGTH, "max_saved": None}, play={"greeting": "", "goodbye": ""})
        config_file = tmp_path / "bot.yaml"
        config_file.write_text(yaml.safe_dump(ours.model_dump(mode="json")))
        theirs = config(tmp_path / "them", account={"user": "sparring"}, play={"greeting": "", "goodbye": ""},
                        connection={"backoff_min_s": 0.1, "backoff_max_s": 0.5})
        decider = FakeDecider(forced={"cube": Cube(False, True)}, hang_s=0.5)  # no doubles until we want one
        sparring = Player(theirs, decider, challenge=Challenge("GnuBot", LENGTH, 1, retry_s=0.5))
        session = Session(theirs, "sparring", "sparring-pw", sparring, host=HOST, port=server.port,
                          transcript=transcript_logger(theirs, "sparring"))
        sparring.attach(session)
        task = asyncio.create_task(session.run())
        log = open(tmp_path / "bot.log", "ab")
        env = {**os.environ, "FIBSBOT_PASSWORD": "our-pw", "PYTHONPATH": str(ROOT)}

        async def start() -> asyncio.subprocess.Process:
            return await asyncio.create_subprocess_exec(
                sys.executable, "-m", "bot.cli", "run", str(config_file), "--log-level", "INFO",
                cwd=tmp_path, env=env, stdout=log, stderr=log)

        def games() -> list[GameRecord]:
            m = sparring.match
            return list(m.recorder.record.games) if m is not None and m.recorder is not None else []

        def actions_in(game: int) -> int:
            running = games()
            return len(running[game - 1].actions) if len(running) >= game else 0

        def count_doubles() -> int:
            return sum(isinstance(a, Double) for g in games() for a in g.actions)

        async def until(condition: Callable[[], bool], what: str, *, in_match: bool = True) -> None:
            deadline = time.monotonic() + 120
            while not condition():
                assert not (in_match and sparring.results), f"the match ended before {what}"
                assert time.monotonic() < deadline, f"timed out waiting for {what}"
                await asyncio.sleep(0.002)

        async def kill_while_the_opponent_thinks(proc: asyncio.subprocess.Process) -> asyncio.subprocess.Process:
            """Kill us while the opponent decides its move: nothing of ours is in flight then,
            so every line we missed the server repeats (or has not happened)."""
            calls = len(decider.calls)
            decider.hang = {"move"}
            await until(lambda: "move" in decider.calls[calls:], "the opponent's move decision")
            proc.kill()
            await proc.wait()
            decider.hang = set()
            return await start()

        proc = await start()
        try:
            await until(lambda: actions_in(1) >= 3, "game 1 under way")
            proc = await kill_while_the_opponent_thinks(proc)
            await until(lambda: actions_in(2) >= 6, "the middle of game 2")
            proc = await kill_while_the_opponent_thinks(proc)
            doubles = count_doubles()
            decider.forced["cube"] = Cube(True, True)
            await until(lambda: count_doubles() > doubles, "a double")
            decider.forced["cube"] = Cube(False, True)
            proc = await kill_while_the_opponent_thinks(proc)  # its next move after the double
            await asyncio.wait_for(sparring.new_result() if not sparring.results else asyncio.sleep(0), 300)
            journals = tmp_path / "us" / "records"
            await until(lambda: not list(journals.glob("*.journal")), "our bot to see the match end", in_match=False)
        finally:
            if proc.returncode is None:
                proc.kill()
                await proc.wait()
            log.close()
            session.close()
            task.cancel()
            await asyncio.gather(task, return_exceptions=True)
            await sparring.close()
            close_transcript(session.transcript)

    [result] = sparring.results
    assert result.record is not None
    records = sorted((tmp_path / "us" / "records").glob("*.sgf"))
    assert len(records) == 1, records  # one file: no part was split off
    assert not list((tmp_path / "us" / "records").glob("*.journal"))  # the match is over
    mine, theirs_record = load_sgf(records[0]), load_sgf(result.record)
    assert mine.is_over() and theirs_record.is_over() and len(mine.games) >= 2
    assert normalised(mine, 1) == normalised(theirs_record, 0)
    assert not any(a.comment for game in mine.games for a in game.actions)  # nothing was reconstructed
