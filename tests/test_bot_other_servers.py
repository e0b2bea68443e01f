"""Our bot against the local server misbehaving on purpose, as other servers do (its
switches): another server's wordings and glued lines, a question left unanswered, a
game kept running across a drop, a restart that lost the saved matches. Each time
the bot goes on playing and finishes the match."""

from __future__ import annotations

import asyncio
import pathlib
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

from bot.player import Challenge, Player
from bot.run import close_transcript, transcript_logger
from bot.server import FibsServer
from bot.session import Session, telnet_opener
from engine.records import load_sgf

from botkit import Cuttable, FakeDecider, config, free_port

HOST = "127.0.0.1"


@asynccontextmanager
async def server(tmp: pathlib.Path, port: int, **options: Any) -> AsyncIterator[FibsServer]:
    async with FibsServer(HOST, port, db_path=tmp / "server.db", seed=7, auto_register=True, scrypt_n=2**10,
                          **options) as running:
        yield running


@asynccontextmanager
async def bots(tmp: pathlib.Path, port: int, matches: int = 1,
               **ours: dict[str, object]) -> AsyncIterator[tuple[Player, Player, Cuttable]]:
    """Our bot and a sparring bot that invites it to ``matches`` 3-point matches."""
    fast = {"backoff_min_s": 0.05, "backoff_max_s": 0.2}
    our_cfg = config(tmp / "us", connection=fast, **ours)
    their_cfg = config(tmp / "them", account={"user": "sparring"}, connection=fast)
    us = Player(our_cfg, FakeDecider())
    them = Player(their_cfg, FakeDecider(), challenge=Challenge("GnuBot", 3, matches, retry_s=0.5))
    ours_opener = None
    sessions, tasks = [], []
    for who, cfg, name in ((us, our_cfg, "GnuBot"), (them, their_cfg, "sparring")):
        opener = Cuttable(telnet_opener(HOST, port))
        ours_opener = ours_opener or opener
        session = Session(cfg, name, f"{name}-pw", who, host=HOST, port=port, opener=opener,
                          transcript=transcript_logger(cfg, name))
        who.attach(session)
        sessions.append(session)
        tasks.append(asyncio.create_task(session.run()))
    assert ours_opener is not None
    try:
        yield us, them, ours_opener
    finally:
        for session in sessions:
            session.close()
        await asyncio.wait(tasks, timeout=5)
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        for who in (us, them):
            await who.close()
        for session in sessions:
            close_transcript(session.transcript)


async def finished(player: Player, count: int = 1, timeout: float = 120) -> None:
    async def wait() -> None:
        while len(player.results) < count:
            await asyncio.sleep(0.05)
    await asyncio.wait_for(wait(), timeout)


def one_whole_record(tmp: pathlib.Path) -> None:
    records = sorted((tmp / "us" / "records").glob("*.sgf"))
    assert len(records) == 1 and "-part" not in records[0].name, records
    assert load_sgf(records[0]).is_over()


async def test_jibs_wordings_and_glued_lines(tmp_path: pathlib.Path) -> None:
    port = free_port()
    async with server(tmp_path, port, wordings=["jibs", "glued", "blank-lines", "left-terminated"]):
        async with bots(tmp_path, port) as (us, them, _):
            await finished(us)
    assert us.results[0].won is not None and us.stats.refused_moves == 0 and us.stats.illegal_blocked == 0
    one_whole_record(tmp_path)


async def test_an_unanswered_saved_count_still_joins(tmp_path: pathlib.Path) -> None:
    port = free_port()
    async with server(tmp_path, port, unanswered=["show"]):
        async with bots(tmp_path, port, invitations={"screen_timeout_s": 0.2}) as (us, them, _):
            await finished(us)
    assert us.results[0].won is not None


async def test_a_game_kept_running_across_a_drop_is_played_on(tmp_path: pathlib.Path) -> None:
    port = free_port()
    async with server(tmp_path, port, keep_games=True):
        async with bots(tmp_path, port) as (us, them, ours):
            await asyncio.wait_for(_in_game(us), 60)
            ours.cut()  # the server keeps the game: no "The game was saved."
            await finished(us)
    assert us.results[0].won is not None and us.stats.logins >= 2
    one_whole_record(tmp_path)


async def test_a_server_restarted_without_the_saved_match(tmp_path: pathlib.Path) -> None:
    port = free_port()
    async with bots(tmp_path, port, matches=2) as (us, them, _):
        async with server(tmp_path, port):
            await asyncio.wait_for(_in_game(us), 60)
        assert "sparring" in us.interrupted or us.match is not None  # saved, as far as we know
        async with server(tmp_path, port, forget_saved=True):  # ... but this server lost it
            await finished(us, 1)
            assert "sparring" not in us.interrupted
            await finished(us, 2)
    assert us.results[-1].won is not None


async def _in_game(player: Player) -> None:
    while not (player.match is not None and player.match.recorder is not None
               and player.match.recorder.record.games and len(player.match.recorder.record.games[-1].actions) > 4):
        await asyncio.sleep(0.01)
