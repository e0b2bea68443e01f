"""A real ``fibsbot run`` against the local server, ``kill -9``ed at seeded random points and
with its database stopped and started again in between (PostgreSQL: the server stopped
as a crash would; SQLite: the file locked by another writer), on both backends: afterwards
the database holds every action exactly once and equals our record and the opponent's;
the same record imported from its .sgf gives the same rows as written live."""

from __future__ import annotations

import asyncio
import importlib.util
import os
import pathlib
import random
import sqlite3
import sys
import time
from collections.abc import Callable
from typing import Any

import pytest
import yaml
from sqlalchemy import select

from bot.player import Challenge, Player
from bot.run import close_transcript, transcript_logger
from bot.server import FibsServer
from bot.session import Session
from bot.store import pgcluster
from bot.store.imports import import_paths, rebuild
from bot.store.schema import actions, games, matches
from bot.store.store import open_store
from engine.records import GameRecord, MatchRecord, load_sgf

ROOT = pathlib.Path(__file__).resolve().parent.parent
HOST = "127.0.0.1"
LENGTH = 5


def _botkit() -> Any:
    """tests/botkit.py (the bot tests' deterministic decider and config), loaded by its path."""
    spec = importlib.util.spec_from_file_location("store_botkit", pathlib.Path(__file__).parent / "botkit.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclasses look themselves up there
    spec.loader.exec_module(module)
    return module


_kit = _botkit()
Cube, FakeDecider, config = _kit.Cube, _kit.FakeDecider, _kit.config


def normalised(record: MatchRecord, us: int) -> list[tuple[tuple[int, int], list[tuple[object, ...]]]]:
    """Each game's score and actions with player ``us`` as 1."""
    def who(player: int) -> int:
        return 1 if player == us else 0
    out = []
    for game in record.games:
        score = game.score if us == 1 else (game.score[1], game.score[0])
        out.append((score, [(type(a).__name__, who(a.player), getattr(a, "dice", None), str(getattr(a, "move", "")),
                             getattr(a, "value", None)) for a in game.actions]))
    return out


class Outage:
    """Makes the store unavailable to the bot, and available again."""

    def __init__(self, backend: str, url: str, cluster: pgcluster.Cluster | None, path: pathlib.Path | None) -> None:
        self.backend, self.url, self.cluster, self.path = backend, url, cluster, path
        self.lock: sqlite3.Connection | None = None
        self.active = False

    def begin(self) -> None:
        self.active = True
        if self.cluster is not None:
            self.cluster.stop("immediate")
        else:
            assert self.path is not None
            self.lock = sqlite3.connect(self.path, timeout=30)
            self.lock.execute("BEGIN EXCLUSIVE")

    def end(self) -> None:
        if not self.active:
            return
        self.active = False
        if self.cluster is not None:
            self.cluster.start()
        elif self.lock is not None:
            self.lock.rollback()
            self.lock.close()
            self.lock = None


def stored(url: str, key: str) -> tuple[MatchRecord, Any, list[Any], list[Any]] | None:
    """The match ``key`` rebuilt from the store, its row, its games' and actions' rows."""
    store = open_store(url, create=False)
    try:
        with store.begin() as conn:
            row = conn.execute(select(matches).where(matches.c.key == key)).first()
            if row is None:
                return None
            game_rows = conn.execute(select(games).where(games.c.match_id == row.id).order_by(games.c.number)).all()
            action_rows = conn.execute(select(actions).join(games, games.c.id == actions.c.game_id)
                                       .where(games.c.match_id == row.id)
                                       .order_by(games.c.number, actions.c.idx)).all()
            return rebuild(conn, row.id), row, game_rows, action_rows
    finally:
        store.close()


LIVE_ONLY = {"id", "match_id", "game_id", "at", "seconds", "started", "ended", "rating_before", "rating_after",
             "level", "settings", "server", "opponent_id"}


def comparable(rows: list[Any]) -> list[dict[str, Any]]:
    return [{k: v for k, v in row._mapping.items() if k not in LIVE_ONLY} for row in rows]


@pytest.mark.parametrize("backend, seed", [("sqlite", 3), ("postgresql", 8)])
async def test_kills_and_outages_leave_database_records_and_server_equal(
        backend: str, seed: int, tmp_path: pathlib.Path, request: pytest.FixtureRequest) -> None:
    rng = random.Random(seed)
    cluster: pgcluster.Cluster | None = request.getfixturevalue("cluster") if backend == "postgresql" else None
    db_path = tmp_path / "store.db" if cluster is None else None
    url = cluster.create_database() if cluster is not None else f"sqlite:///{db_path}"
    open_store(url).close()
    outage = Outage(backend, url, cluster, db_path)
    async with FibsServer(HOST, 0, db_path=tmp_path / "server.db", seed=seed, auto_register=True,
                          scrypt_n=2**10) as server:
        ours = config(tmp_path / "us", server={"host": HOST, "port": server.port}, engine={"level": "beginner"},
                      connection={"backoff_min_s": 0.1, "backoff_max_s": 0.5},
                      invitations={"max_length": LENGTH, "max_saved": None}, play={"greeting": "", "goodbye": ""})
        data = ours.model_dump(mode="json")
        data["store"] = url
        config_file = tmp_path / "bot.yaml"
        config_file.write_text(yaml.safe_dump(data))
        theirs = config(tmp_path / "them", account={"user": "sparring"}, play={"greeting": "", "goodbye": ""},
                        connection={"backoff_min_s": 0.1, "backoff_max_s": 0.5})
        decider = FakeDecider(forced={"cube": Cube(False, True)}, hang_s=0.5)
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

        def played() -> int:
            m = sparring.match
            record_games: list[GameRecord] = list(m.recorder.record.games) if m and m.recorder else []
            return sum(len(g.actions) for g in record_games)

        async def until(condition: Callable[[], bool], what: str, *, in_match: bool = True) -> None:
            deadline = time.monotonic() + 120
            while not condition():
                assert not (in_match and sparring.results), f"the match ended before {what}"
                assert time.monotonic() < deadline, f"timed out waiting for {what}"
                await asyncio.sleep(0.002)

        async def kill(proc: asyncio.subprocess.Process) -> asyncio.subprocess.Process:
            """Kill us while the opponent decides its move (every line we miss, the server repeats)."""
            calls = len(decider.calls)
            decider.hang = {"move"}
            await until(lambda: "move" in decider.calls[calls:], "the opponent's move decision")
            proc.kill()
            await proc.wait()
            decider.hang = set()
            return await start()

        # seeded random points, in actions played: kill, outage begins, kill in it, outage ends, kill
        points = sorted(rng.sample(range(4, 70), 5))
        proc = await start()
        try:
            await until(lambda: played() >= points[0], "the first kill")
            proc = await kill(proc)
            await until(lambda: played() >= points[1], "the outage")
            outage.begin()
            await until(lambda: played() >= points[2], "the kill in the outage")
            proc = await kill(proc)
            await until(lambda: played() >= points[3], "the end of the outage")
            outage.end()
            await until(lambda: played() >= points[4], "the last kill")
            proc = await kill(proc)
            await asyncio.wait_for(sparring.new_result() if not sparring.results else asyncio.sleep(0), 300)
            folder = tmp_path / "us" / "records"
            await until(lambda: not list(folder.glob("*.journal")), "our bot to see the match end", in_match=False)
            [sgf] = sorted(folder.glob("*.sgf"))
            mine = load_sgf(sgf)

            def caught_up() -> bool:
                found = stored(url, sgf.name)
                return found is not None and found[0] == mine and found[1].ending is not None
            deadline = time.monotonic() + 120
            while not caught_up():
                assert time.monotonic() < deadline, "the store did not catch up"
                await asyncio.sleep(0.5)
        finally:
            outage.end()
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
    theirs_record = load_sgf(result.record)
    assert mine.is_over() and normalised(mine, 1) == normalised(theirs_record, 0)
    assert "store unavailable" in (tmp_path / "bot.log").read_text(errors="replace")
    live = stored(url, sgf.name)
    assert live is not None
    record, row, game_rows, action_rows = live
    assert record == mine and normalised(record, 1) == normalised(theirs_record, 0)
    assert len(action_rows) == sum(len(g.actions) for g in mine.games)  # every action once
    assert (row.points_us, row.points_them) == (mine.score()[1], mine.score()[0])
    assert row.result == ("won" if mine.score()[1] > mine.score()[0] else "lost")
    # the same record imported from its .sgf: the same rows
    fresh = cluster.create_database() if cluster is not None else f"sqlite:///{tmp_path / 'imported.db'}"
    store = open_store(fresh)
    import_paths(store, [sgf])
    store.close()
    imported = stored(fresh, sgf.name)
    assert imported is not None
    assert comparable([imported[1]]) == comparable([row])
    assert comparable(imported[2]) == comparable(game_rows)
    assert comparable(imported[3]) == comparable(action_rows)
