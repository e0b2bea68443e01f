"""A real ``fibsbot run`` against the local server, ``kill -9``ed at seeded random points and
with its database stopped and started again in between (PostgreSQL: the server stopped
as a crash would; SQLite: the file locked by another writer), on both backends: afterwards
the database holds every action exactly once and equals our record and the opponent's;
the same record imported from its .sgf gives the same rows as written live."""

from __future__ import annotations

import asyncio
import pathlib
import random
import sqlite3
import time
from typing import Any

import pytest
from sqlalchemy import select

from bot.store import pgcluster
from bot.store.imports import import_paths, rebuild
from bot.store.schema import actions, games, matches
from bot.store.store import open_store
from engine.records import MatchRecord, load_sgf

from livekit import LiveMatch, normalised

LENGTH = 5


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
    async with LiveMatch(tmp_path, LENGTH, seed, store=url) as live:
        # seeded random points, in actions played: kill, outage begins, kill in it, outage ends, kill
        points = sorted(rng.sample(range(4, 70), 5))
        try:
            await live.start()
            await live.until(lambda: live.played() >= points[0], "the first kill")
            await live.kill()
            await live.until(lambda: live.played() >= points[1], "the outage")
            outage.begin()
            await live.until(lambda: live.played() >= points[2], "the kill in the outage")
            await live.kill()
            await live.until(lambda: live.played() >= points[3], "the end of the outage")
            outage.end()
            await live.until(lambda: live.played() >= points[4], "the last kill")
            await live.kill()
            await live.finish()
            [sgf] = sorted(live.records.glob("*.sgf"))
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

    [result] = live.sparring.results
    assert result.record is not None
    theirs_record = load_sgf(result.record)
    assert mine.is_over() and normalised(mine, 1) == normalised(theirs_record, 0)
    assert "store unavailable" in (tmp_path / "bot.log").read_text(errors="replace")
    written = stored(url, sgf.name)
    assert written is not None
    record, row, game_rows, action_rows = written
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
