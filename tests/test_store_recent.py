"""The dashboard's match history from the store (SQLite and a real PostgreSQL server):
newest first, the error rate of the judge that judged most, reports beside the records."""

from __future__ import annotations

import pathlib
import random

import pytest
from sqlalchemy import func, insert, select

from bot.store.errors import StoreError
from bot.store.imports import import_paths
from bot.store.recent import recent
from bot.store.schema import matches, players, statistics
from bot.store.store import open_store
from engine.bench.random_records import random_match
from engine.records import save_sgf


def recorded(folder: pathlib.Path, seed: int, count: int) -> list[pathlib.Path]:
    """``count`` random matches as the bot names and numbers them (opponent 0, us 1)."""
    rng = random.Random(seed)
    folder.mkdir(parents=True, exist_ok=True)
    paths = []
    for n in range(count):
        seed_n, length = rng.randrange(10**6), rng.choice([1, 3])
        record = random_match(seed_n, length, players=(rng.choice(["alice", "bob"]), "GnuBot"),
                              event="FIBS", place="fibs.com")
        path = folder / f"2026010{n + 1}-120000-GnuBot-vs-{record.players[0]}-{record.length}.sgf"
        save_sgf(record, path)
        paths.append(path)
    return paths


def _stat(match_id: int, player: int, judge: str, rate: float) -> dict[str, object]:
    return {"match_id": match_id, "game": 0, "player": player, "judge": judge, "moves": 10, "unforced_moves": 8,
            "chequer_error": 0.1, "cube_decisions": 2, "cube_error": 0.0, "error_rate_memg": rate, "luck": 0.0,
            "rolls": 10, "rating_label": "Expert"}


def test_recent_matches_for_the_dashboard(url: str, tmp_path: pathlib.Path) -> None:
    folder = tmp_path / "records"
    paths = recorded(folder, 4, 5)
    store = open_store(url)
    try:
        import_paths(store, [folder])
        with store.begin() as conn:
            when = func.coalesce(matches.c.ended, matches.c.started)
            rows = conn.execute(select(matches.c.id, matches.c.key, matches.c.us, matches.c.result, matches.c.points_us,
                                       matches.c.points_them, matches.c.length, players.c.name, when.label("when"))
                                .join(players, players.c.id == matches.c.opponent_id)).all()
            by_key = {r.key: r for r in rows}
            newest = sorted(rows, key=lambda r: (r.when, r.key), reverse=True)[:4]
            # two judges: "expert" judged three of the four shown, "beginner" one; the other side's rows are not ours
            for r, rate in zip(newest[:3], (-4.5, -7.25, -1.0), strict=True):
                conn.execute(insert(statistics).values(_stat(r.id, r.us, "expert", rate)))
                conn.execute(insert(statistics).values(_stat(r.id, 1 - r.us, "expert", -99.0)))
            conn.execute(insert(statistics).values(_stat(newest[3].id, newest[3].us, "beginner", -3.0)))
    finally:
        store.close()
    reported = folder / newest[1].key
    assert reported in paths
    reported.with_suffix(".html").write_text("<!doctype html><title>report</title>")
    found = recent(url, us_name="GnuBot", reports=folder, limit=4)
    assert [e["key"] for e in found] == [r.key for r in newest]
    for e, r, rate in zip(found, newest, (-4.5, -7.25, -1.0, None), strict=True):
        assert e["opponent"] == r.name and e["length"] == r.length
        assert e["score"] == f"{r.result} {r.points_us}-{r.points_them}" and r.result in ("won", "lost")
        assert e["error_rate_memg"] == rate and e["judge"] == ("expert" if rate is not None else None)
        assert e["finished"] != "playing"  # imported records are finished: their date shows
        assert e.get("report") == (f"reports/{reported.stem}.html" if e["key"] == reported.name else None)
    assert sum("report" in e for e in found) == 1 and len(by_key) == 5
    assert recent(url, us_name="nobody") == []
    assert len(recent(url)) == 5


def test_recent_of_a_missing_database_is_a_named_error(tmp_path: pathlib.Path) -> None:
    missing = tmp_path / "nothing" / "fibsbot.db"
    with pytest.raises(StoreError):
        recent(f"sqlite:///{missing}")
    assert not missing.parent.exists()  # a reader creates nothing
