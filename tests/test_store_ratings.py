"""Ratings reach the store as the server reports them: two matches over the local server,
the opponent starting from a rating and experience of its own; afterwards each match
holds our rating before and after, and the opponent's row its rating and experience
as the server's accounts hold them. The ledger imported into a fresh store gives the
same players and ratings."""

from __future__ import annotations

import asyncio
import pathlib

import pytest
from sqlalchemy import select

from bot.run import close_transcript, local_players, transcript_logger
from bot.server import FibsServer
from bot.session import Session
from bot.store.imports import import_paths
from bot.store.live import live_store
from bot.store.schema import matches, players
from bot.store.store import open_store

from botkit import FakeDecider, config

HOST = "127.0.0.1"


def _ratings(url: str) -> tuple[list[tuple[float | None, float | None]], dict[str, tuple[float | None, int | None]]]:
    """Each match's (rating_before, rating_after) in order; each player's (rating, experience)."""
    store = open_store(url, create=False)
    try:
        with store.begin() as conn:
            kept = [(r.rating_before, r.rating_after) for r in
                    conn.execute(select(matches.c.rating_before, matches.c.rating_after).order_by(matches.c.key))]
            people = {r.name: (r.rating, r.experience) for r in conn.execute(select(players))}
    finally:
        store.close()
    return kept, people


async def test_ratings_and_experience_reach_the_store(tmp_path: pathlib.Path) -> None:
    url = f"sqlite:///{tmp_path / 'store.db'}"
    cfg = config(tmp_path, connection={"backoff_min_s": 0.05, "backoff_max_s": 0.5}, store={"url": url},
                 play={"greeting": "", "goodbye": ""})
    player, sparring = local_players(cfg, FakeDecider(), FakeDecider(), matches=2, length=1)  # type: ignore[arg-type]
    async with FibsServer(HOST, 0, db_path=tmp_path / "server.db", seed=6, scrypt_n=2**10) as server:
        server.add_user("GnuBot", "pw-1")
        account = server.add_user("sparring", "pw-2")
        account.rating, account.experience = 1712.25, 340
        server.store.update(account)
        history = [server.store.account("GnuBot")]
        sessions = [Session(who.cfg, who.cfg.account.user, pw, who, host=HOST, port=server.port,
                            transcript=transcript_logger(who.cfg, who.cfg.account.user))
                    for who, pw in ((player, "pw-1"), (sparring, "pw-2"))]
        with live_store(cfg):
            for who, session in zip((player, sparring), sessions, strict=True):
                who.attach(session)
            tasks = [asyncio.create_task(s.run()) for s in sessions]
            try:
                for n in (1, 2):
                    while len(player.results) < n:
                        await asyncio.wait_for(player.new_result(), 120)
                    await asyncio.wait_for(player.settle(), 30)  # the ledger line waits for the new rating
                    history.append(server.store.account("GnuBot"))
            finally:
                for session in sessions:
                    session.close()
                await asyncio.wait(tasks, timeout=10)
                for task in tasks:
                    task.cancel()
                await asyncio.gather(*tasks, return_exceptions=True)
                for who in (player, sparring):
                    await who.close()
                for session in sessions:
                    close_transcript(session.transcript)
        them = server.store.account("sparring")
    assert them is not None and all(a is not None for a in history)
    ours = [a.rating for a in history if a is not None]
    assert them.experience == 342 and them.rating != 1712.25  # two rated 1-point matches were played
    kept, people = _ratings(url)
    reported = pytest.approx  # the server reports ratings with two decimals
    # two matches may start within the same clock second, so their order in the store is not
    # the play order: compare the (before, after) pairs as a set, each as the server chained them
    expected = sorted([(ours[0], ours[1]), (ours[1], ours[2])])
    assert sorted(kept, key=lambda pair: pair[0] or 0.0) == [reported(e, abs=0.005) for e in expected]
    rating, experience = people["sparring"]
    assert rating == reported(them.rating, abs=0.005) and experience == them.experience
    # the same records and ledger imported into a fresh store: the same figures
    fresh = f"sqlite:///{tmp_path / 'imported.db'}"
    store = open_store(fresh)
    import_paths(store, [tmp_path / "records", tmp_path / "ledger.jsonl"])
    store.close()
    assert _ratings(fresh) == (kept, people)
